#!/usr/bin/env bash
# The rollout test (ops/deploy/README.md, "Deploying" > "Rollout"): relay processes started at once on a backlog,
# half of them SIGTERMed mid-drain and replaced, as a rolling update does; every relay's PostgreSQL
# and RabbitMQ connections sampled against what its settings allow, every message counted.
# Runs against OUTBOX_TEST_DB_URL (+ _USER, _PASSWORD) and OUTBOX_TEST_AMQP_URI when set, else an
# embedded PostgreSQL and broker. It creates (and drops first) a database and a vhost of its own
# on them, outbox_rollout and outbox-rollout unless --db / --vhost say otherwise.
#   ops/rollout.sh --quick      4 relays, 10,000 rows, 2 replaced: the smoke run
#   ops/rollout.sh              8 relays, 100,000 rows, 4 replaced
# Exit code 0: every check held; 1: a check failed (see the report); 2: bad usage or set-up.
set -euo pipefail
cd "$(dirname "$0")/.."
jar=ops/chaos/target/outbox-chaos.jar
ops/build-if-stale.sh ops/chaos "$jar"
exec java ${ROLLOUT_JAVA_OPTS:--Xmx1g} -cp "$jar:ops/chaos/target/lib/*" dev.outbox.chaos.RolloutMain "$@"
