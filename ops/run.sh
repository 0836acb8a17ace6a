#!/usr/bin/env bash
# Runs the whole system in one JVM: API + relay + sample ledger consumer. Builds first if the
# launcher jar is missing or older than the sources. Configuration comes from OUTBOX_* variables
# (see the README); Ctrl-C stops everything cleanly.
set -euo pipefail
cd "$(dirname "$0")/.."
jar=ops/launcher/target/outbox-launcher.jar
ops/build-if-stale.sh ops/launcher "$jar"
exec java ${JAVA_OPTS:-} -jar "$jar" "$@"
