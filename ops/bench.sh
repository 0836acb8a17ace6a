#!/usr/bin/env bash
# The side-by-side performance benchmark (ops/bench/README.md, "Performance"). Builds first if needed, then runs
# every scenario against the database and broker the tests use: OUTBOX_TEST_DB_URL (+ _USER,
# _PASSWORD) and OUTBOX_TEST_AMQP_URI when set, else an embedded PostgreSQL and broker. The
# benchmark empties that database's tables: never point it at data you want to keep. Give it a
# database of its own (CI: outbox_bench): it disables the NOTIFY trigger while it measures a relay
# without it, and a run killed before it ends leaves the trigger that way (the test kit re-enables it).
#   ops/bench.sh            full run (about 20 minutes), results in ops/bench/results/<time>/
#   ops/bench.sh --quick    every scenario, tiny: checks the tool works (CI runs this)
set -euo pipefail
cd "$(dirname "$0")/.."
jar=ops/bench/target/outbox-bench.jar
ops/build-if-stale.sh ops/bench "$jar"
# ZGC: the latency part runs the relay in this JVM, and G1's 12-25 ms pauses on two shared cores
# were a visible part of its commit-to-publish tail (README, Performance)
exec java ${BENCH_JAVA_OPTS:--Xmx2g -XX:+UseZGC} -cp "$jar:ops/bench/target/lib/*" dev.outbox.bench.BenchMain "$@"
