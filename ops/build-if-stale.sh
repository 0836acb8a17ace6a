#!/usr/bin/env bash
# Usage: ops/build-if-stale.sh <module[,module...]> <jar> [<jar>...]. Builds the modules (and what
# they need) when any jar is missing or older than any source, pom, SQL or contract file; used by
# ops/run.sh and ops/bench.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
modules=$1
shift
stale=""
for jar in "$@"; do
  if [ ! -f "$jar" ]; then
    stale="$jar is missing"
    break
  fi
  newer=$(find . -path '*/target' -prune -o \( -name '*.java' -o -name 'pom.xml' -o -name '*.sql' -o -name '*.xml' \
          -o -name '*.schema.json' -o -name '*.queue.json' -o -name 'dev.outbox.*' \) -newer "$jar" -print -quit)
  if [ -n "$newer" ]; then
    stale="$newer is newer than $jar"
    break
  fi
done
if [ -n "$stale" ]; then
  echo "building (mvn -q -DskipTests -Djib.skip package -pl $modules -am: $stale)..." >&2
  # the scripts run jars: no container images (ops/deploy/README.md, "Images")
  mvn -q -B -DskipTests -Djib.skip package -pl "$modules" -am
fi
