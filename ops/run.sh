#!/usr/bin/env bash
# Runs the whole system in one JVM: API + relay + every sample consumer (ops/consumers/*). Builds first if the
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
# every consumer under ops/consumers runs too: a new one is its folder (relay-worker/consumer-runtime/README.md, "Adding a consumer")
jar=ops/launcher/target/outbox-launcher.jar
modules=ops/launcher
jars=("$jar")
for pom in ops/consumers/*/pom.xml; do
  dir=${pom%/pom.xml}
  modules+=",$dir"
  # the module's own artifactId: the first one after its <parent> block
  artifact=$(sed -n '/<\/parent>/,$p' "$pom" | grep -m1 -o '<artifactId>[^<]*' | cut -d'>' -f2)
  jars+=("$dir/target/$artifact.jar")
done
ops/build-if-stale.sh "$modules" "${jars[@]}"
classpath=$(IFS=:; echo "${jars[*]}")
exec java ${JAVA_OPTS:-} -cp "$classpath" dev.outbox.launcher.Launcher "$@"
