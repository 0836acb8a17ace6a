#!/usr/bin/env bash
# The chaos soak (ops/chaos/README.md, "Chaos"): 2 API, 2 relay and 2 ledger consumer processes under a
# workload of HTTP clients, with faults drawn from a seed, then the product's invariants checked.
# Runs against OUTBOX_TEST_DB_URL (+ _USER, _PASSWORD) and OUTBOX_TEST_AMQP_URI when set, else an
# embedded PostgreSQL and broker. It creates (and drops first) a database and a vhost of its own
# on them, outbox_chaos_run and outbox-chaos-run unless --db / --vhost say otherwise.
#   ops/chaos.sh --short --seed 42                  CI's run: under 2 minutes
#   ops/chaos.sh --duration 15m --orders 100000 --broker-restart --seed 7
# Exit code 0: every invariant held; 1: a violation (see the report); 2: bad usage or set-up.
set -euo pipefail
cd "$(dirname "$0")/.."
jar=ops/chaos/target/outbox-chaos.jar
ops/build-if-stale.sh ops/chaos "$jar"
exec java ${CHAOS_JAVA_OPTS:--Xmx1g} -cp "$jar:ops/chaos/target/lib/*" dev.outbox.chaos.ChaosMain "$@"
