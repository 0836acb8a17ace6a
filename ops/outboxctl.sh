#!/usr/bin/env bash
# outboxctl: the operator CLI of the outbox service (see ops/RUNBOOK.md, or ops/outboxctl.sh --help).
# Builds the jar first if it is missing. Reads OUTBOX_URL (default http://localhost:8080),
# OUTBOX_OPS_TOKEN and USER; exit codes: 0 done, 1 the service said no, 2 usage, 3 unreachable.
set -euo pipefail
cd "$(dirname "$0")/.."
jar=ops/outboxctl/target/outboxctl.jar
if [ ! -f "$jar" ] || [ ! -d ops/outboxctl/target/lib ]; then
  echo "building outboxctl (mvn -q -B -DskipTests package -pl ops/outboxctl -am)..." >&2
  mvn -q -B -DskipTests package -pl ops/outboxctl -am >&2
fi
exec java ${JAVA_OPTS:-} -jar "$jar" "$@"
