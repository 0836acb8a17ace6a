#!/usr/bin/env bash
# Usage: ops/build-if-stale.sh <module> <jar>. Builds <module> (and what it needs) when <jar> is
# missing or older than any source, pom, SQL or contract file; used by ops/run.sh and ops/bench.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
module=$1
jar=$2
stale=""
if [ -f "$jar" ]; then
  stale=$(find . -path '*/target' -prune -o \( -name '*.java' -o -name 'pom.xml' -o -name '*.sql' -o -name '*.xml' -o -name '*.schema.json' \) \
          -newer "$jar" -print -quit)
fi
if [ ! -f "$jar" ] || [ -n "$stale" ]; then
  echo "building (mvn -q -DskipTests package -pl $module -am)..." >&2
  mvn -q -B -DskipTests package -pl "$module" -am
fi
