#!/bin/sh
# The server layers of `npm test` (activities, workflows, integration, e2e, k8s), each file alone in
# its lane, in two phases:
#
# 1. Two lanes at once. The main lane: every file not listed below. The side lane (SIDE), under
#    `nice -n 10` (its servers and engines inherit it, so the main lane takes the CPU first): files
#    that mostly wait (sleepEachRow statements, heartbeat timeouts, retries, an idle worker's long
#    polls) and whose assertions are about state, failures, counts and read_rows. Measured alone, the
#    files of either lane use about 0.5 of the 2 cores on average. Every docker test is on the side
#    lane (one private dockerd at a time: their checks count every container cgroup).
# 2. Then QUIET alone: the files that judge a measured time, a rate, a noise level or a CPU/disk
#    label (a neighbour would change what they measure).
#
# Output: phase 1's main lane, its side lane, then QUIET. Exit status: non-zero when any failed.
set -u
cd "$(dirname "$0")/.."
SIDE="
dist/test/activities/heartbeat.test.js
dist/test/e2e/bisect-attribution.test.js
dist/test/e2e/bisect-reuse.test.js
dist/test/e2e/cli-gates.test.js
dist/test/e2e/cli-retry.test.js
dist/test/e2e/docker-faults.test.js
dist/test/e2e/edge.test.js
dist/test/e2e/failed-cells.test.js
dist/test/e2e/gc.test.js
dist/test/e2e/search-attributes.test.js
dist/test/integration/docker-target.test.js
dist/test/integration/k8s-emulator.test.js
dist/test/integration/kubernetes-portforward.test.js
dist/test/integration/worker-notice.test.js
dist/test/workflows/benchmark-matrix.test.js
"
QUIET="
dist/test/activities/concurrency-steps.test.js
dist/test/activities/insert-grid.test.js
dist/test/e2e/bisect-confirm.test.js
dist/test/e2e/bottleneck-labels.test.js
dist/test/e2e/grids.test.js
dist/test/e2e/kubernetes.test.js
dist/test/e2e/regression.test.js
dist/test/integration/cgroup-limits.test.js
dist/test/integration/embedded-resources.test.js
dist/test/integration/engine-python.test.js
dist/test/integration/measured-statement.test.js
dist/test/integration/validity.test.js
"
for f in $SIDE $QUIET; do
  [ -f "$f" ] || { echo "scripts/test-servers.sh: $f is listed but does not exist (renamed? update the list)" >&2; exit 1; }
done
listed=$(mktemp)
echo "$SIDE $QUIET" | tr ' ' '\n' | grep . >"$listed"
MAIN=$(find dist/test -name '*.test.js' -not -path 'dist/test/unit/*' -not -path 'dist/test/replay/*' | grep -v -x -F -f "$listed" | sort)
rm -f "$listed"
run() { node --test --test-concurrency=1 --test-reporter=spec "$@"; }
side_log=$(mktemp)
# shellcheck disable=SC2086
nice -n 10 node --test --test-concurrency=1 --test-reporter=spec $SIDE >"$side_log" 2>&1 &
side=$!
# shellcheck disable=SC2086
run $MAIN
main_rc=$?
wait $side
side_rc=$?
echo "# the side lane (run beside the files above, under nice; see scripts/test-servers.sh):"
cat "$side_log"
rm -f "$side_log"
echo "# alone: the files that judge measured times, rates and labels"
# shellcheck disable=SC2086
run $QUIET
quiet_rc=$?
[ "$main_rc" -eq 0 ] && [ "$side_rc" -eq 0 ] && [ "$quiet_rc" -eq 0 ]
