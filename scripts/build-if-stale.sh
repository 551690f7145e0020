#!/bin/sh
# `npm run build` only when a source is newer than the last successful build (dist/.build-stamp),
# so `npm run demo*` right after ./scripts/setup.sh does not rebuild what setup just built. The
# stamp is taken before the build starts: a file edited during the build is rebuilt next time.
set -eu
cd "$(dirname "$0")/.."
stamp=dist/.build-stamp
if [ -f "$stamp" ] && [ -f dist/src/workflow-bundle.js ] && [ -z "$(find src demos test bench scripts chaos tsconfig.json package.json -newer "$stamp" -type f 2>/dev/null | head -1)" ]; then
  echo "dist/ is up to date (no source newer than $stamp)"
  exit 0
fi
exec sh scripts/build.sh
