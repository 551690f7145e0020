#!/bin/sh
# `npm run build`: tsc, then the workflow bundle, then the stamp `build-if-stale.sh` compares sources
# against (dist/.build-stamp). The stamp is taken before the build starts, so a file edited during the
# build is rebuilt next time; it is moved into place only after both steps succeeded.
set -eu
cd "$(dirname "$0")/.."
mkdir -p dist
touch dist/.build-stamp.new
npx tsc -p .
node dist/scripts/bundle-workflows.js
mv dist/.build-stamp.new dist/.build-stamp
