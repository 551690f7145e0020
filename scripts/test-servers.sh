#!/bin/sh
# The server layers of `npm test` (activities, workflows, integration, e2e, multihost helpers' tests):
# one file at a time, since most of them measure time or CPU. The files in IDLE only wait on timers
# beside a dev server and an idle worker, using no CPU the others could miss, so they run in a second
# process alongside; their output is printed after the others'. Exit status: non-zero when either failed.
set -u
cd "$(dirname "$0")/.."
# worker-notice: 70 s of an idle worker's long polls (test/integration/worker-notice.test.ts).
IDLE="dist/test/integration/worker-notice.test.js"
log=$(mktemp)
node --test --test-concurrency=1 --test-reporter=spec $IDLE >"$log" 2>&1 &
idle=$!
node --test --test-concurrency=1 --test-reporter=spec $(find dist/test -name '*.test.js' -not -path 'dist/test/unit/*' -not -path 'dist/test/replay/*' | grep -v -x -F "$IDLE" | sort)
rc=$?
wait $idle
irc=$?
echo "# beside the files above (they only wait on timers): $IDLE"
cat "$log"
rm -f "$log"
[ "$rc" -eq 0 ] && [ "$irc" -eq 0 ]
