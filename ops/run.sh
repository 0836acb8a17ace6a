#!/usr/bin/env bash
# Runs the whole system in one JVM: API + relay + sample ledger consumer. Builds first if the
# launcher jar is missing or older than the sources. Configuration comes from OUTBOX_* variables
# (see the README); Ctrl-C stops everything cleanly.
set -euo pipefail
cd "$(dirname "$0")/.."
# Said first and loudly: an unset (or blank) variable is zero-infra mode, and a settings file that
# failed to load looks exactly like that; the banner's note comes only after the start.
unset_or_blank() { [[ -z "${!1:-}" || "${!1}" =~ ^[[:space:]]*$ ]]; }
if unset_or_blank OUTBOX_DB_URL; then
  echo "[run.sh] OUTBOX_DB_URL is not set: starting an EMBEDDED PostgreSQL (zero-infra mode), not your database" >&2
fi
if unset_or_blank OUTBOX_AMQP_URI; then
  echo "[run.sh] OUTBOX_AMQP_URI is not set: starting an EMBEDDED AMQP broker (zero-infra mode), not your RabbitMQ" >&2
fi
jar=ops/launcher/target/outbox-launcher.jar
ops/build-if-stale.sh ops/launcher "$jar"
exec java ${JAVA_OPTS:-} -jar "$jar" "$@"
