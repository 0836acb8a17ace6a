#!/usr/bin/env bash
# The failover test (ops/deploy/README.md, "Running on a cluster"): API, relays and ledger consumers on the
# 3-node RabbitMQ cluster with quorum queues and the PostgreSQL primary + synchronous standby of
# ops/cluster.sh, under steady load; kills the broker node a relay is connected to, the node
# leading the ledger queue, then the PostgreSQL primary (the standby is promoted). Reports the
# time from each kill until publishing, the ledger and the API resumed, and checks that nothing
# confirmed or committed was lost.
#   ops/failover.sh                 a fresh cluster (down, up), the test, the cluster left up
#   ops/failover.sh --steady 5s     CI's run: shorter steady phases between the faults
#   ops/failover.sh --down          ... and take the cluster down afterwards
# Runs as root. Exit code 0: every fault recovered and every invariant held; 1: not; 2: set-up.
set -euo pipefail
cd "$(dirname "$0")/.."
down=false
args=()
for a in "$@"; do
  if [ "$a" = --down ]; then down=true; else args+=("$a"); fi
done
jar=ops/chaos/target/outbox-chaos.jar
ops/build-if-stale.sh ops/chaos "$jar"
# the last run promoted the standby and left one PostgreSQL: start from a whole cluster
ops/cluster.sh down >/dev/null 2>&1 || true
ops/cluster.sh up >/dev/null
code=0
java ${CHAOS_JAVA_OPTS:--Xmx1g} -cp "$jar:ops/chaos/target/lib/*" dev.outbox.chaos.FailoverMain \
  --cluster-env "${OUTBOX_CLUSTER_DIR:-/var/tmp/outbox-cluster}/cluster.env" "${args[@]}" || code=$?
if $down; then ops/cluster.sh down >/dev/null 2>&1 || true; fi
exit $code
