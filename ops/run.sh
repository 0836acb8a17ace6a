#!/usr/bin/env bash
# Runs the whole system in one JVM: API + relay + sample ledger consumer. Builds first if the
# launcher jar is missing or older than the sources. Configuration comes from OUTBOX_* variables
# (see the README); Ctrl-C stops everything cleanly.
set -euo pipefail
cd "$(dirname "$0")/.."
jar=ops/launcher/target/outbox-launcher.jar
stale=""
if [ -f "$jar" ]; then
  stale=$(find . -path '*/target' -prune -o \( -name '*.java' -o -name 'pom.xml' -o -name '*.sql' -o -name '*.xml' \) \
          -newer "$jar" -print -quit)
fi
if [ ! -f "$jar" ] || [ -n "$stale" ]; then
  echo "building (mvn -q -DskipTests package)..." >&2
  mvn -q -B -DskipTests package -pl ops/launcher -am
fi
exec java ${JAVA_OPTS:-} -jar "$jar" "$@"
