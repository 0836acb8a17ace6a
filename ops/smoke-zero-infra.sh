#!/usr/bin/env bash
# Smoke test of zero-infra mode, as a new user would meet it: start the whole system with no
# OUTBOX_DB_URL and no OUTBOX_AMQP_URI (embedded PostgreSQL + embedded AMQP broker), place an
# order over HTTP, capture it, see the ledger entry appear in the embedded database, stop with
# SIGTERM and expect a clean exit. Needs curl and psql. Used by .ci/run; runnable by hand.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[smoke] %s\n' "$*"; }
fail() { printf '[smoke] FAILED: %s\n' "$*" >&2; [ -f "${out:-}" ] && tail -n 60 "$out" >&2; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
# polls a condition until it holds or the deadline passes: a readiness wait, not a fixed sleep
wait_for() {
  local what=$1 seconds=$2; shift 2
  local deadline=$(( $(date +%s) + seconds ))
  until "$@"; do
    kill -0 "$pid" 2>/dev/null || fail "the process died while waiting for: $what"
    [ "$(date +%s)" -lt "$deadline" ] || fail "no $what within ${seconds} s"
    sleep 0.2
  done
}

work=$(mktemp -d -t outbox-smoke.XXXXXX)
out="$work/run.log"
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

api_port=$(free_port); relay_port=$(free_port); ledger_port=$(free_port); shipments_port=$(free_port)
db_port=$(free_port)
log "starting ops/run.sh in zero-infra mode (data in $work/data)"
started=$(date +%s%N)
env -u OUTBOX_DB_URL -u OUTBOX_DB_USER -u OUTBOX_DB_PASSWORD -u OUTBOX_AMQP_URI \
    OUTBOX_DATA_DIR="$work/data" OUTBOX_HTTP_PORT="$api_port" OUTBOX_RELAY_HTTP_PORT="$relay_port" \
    OUTBOX_LEDGER_HTTP_PORT="$ledger_port" OUTBOX_SHIPMENTS_HTTP_PORT="$shipments_port" \
    OUTBOX_EMBEDDED_DB_PORT="$db_port" \
    ops/run.sh >"$out" 2>&1 &
pid=$!
ready() { grep -q 'Ctrl-C stops everything' "$out"; }
wait_for "start-up banner" 180 ready
log "ready after $(( ($(date +%s%N) - started) / 1000000 )) ms (includes the build check); banner says: $(grep -o 'ready in [0-9]* ms' "$out")"
grep -q 'embedded PostgreSQL' "$out" || fail "the banner does not mention the embedded PostgreSQL"

api="http://127.0.0.1:$api_port"
order=$(curl -sf -X POST "$api/orders" -H 'Content-Type: application/json' \
  -d '{"customerId":"smoke","currency":"EUR","lines":[{"sku":"SKU-1","quantity":2,"unitPrice":"21.25"}]}') \
  || fail "POST /orders"
order_id=$(printf '%s' "$order" | sed -n 's/.*"id" *: *"\([0-9a-f-]\{36\}\)".*/\1/p')
[ -n "$order_id" ] || fail "no order id in: $order"
curl -sf -X POST "$api/orders/$order_id/capture" -H 'Content-Type: application/json' -d '{"amount":"42.50"}' \
  >/dev/null || fail "POST /orders/$order_id/capture"
log "order $order_id placed and captured"

sql() { psql -h 127.0.0.1 -p "$db_port" -U postgres -d postgres -Atc "$1"; }
booked() { [ "$(sql "SELECT count(*) FROM ledger_entries WHERE order_id = '$order_id' AND amount = 42.50" 2>/dev/null)" = 1 ]; }
wait_for "ledger entry for order $order_id" 30 booked
log "ledger: $(sql "SELECT entry_type || ' ' || amount || ' ' || currency || ' message_id=' || message_id FROM ledger_entries WHERE order_id = '$order_id'")"
# the second sample consumer, found by ops/run.sh in ops/consumers/shipments: its own migrations ran
curl -sf -X POST "$api/orders/$order_id/ship" -H 'Content-Type: application/json' \
  -d '{"carrier":"DHL","trackingNumber":"SMOKE-1"}' >/dev/null || fail "POST /orders/$order_id/ship"
shipped() { [ "$(sql "SELECT count(*) FROM shipments WHERE order_id = '$order_id' AND tracking_number = 'SMOKE-1'" 2>/dev/null)" = 1 ]; }
wait_for "shipment of order $order_id" 30 shipped
log "shipments: $(sql "SELECT carrier || ' ' || tracking_number || ' (history: ' || (SELECT count(*) FROM flyway_shipments_history) || ' row(s))' FROM shipments WHERE order_id = '$order_id'")"
published=$(sql "SELECT count(*) FROM message_outbox WHERE aggregate_id = '$order_id' AND status = 'PUBLISHED'")
[ "$published" -ge 3 ] || fail "expected the order's outbox rows PUBLISHED, found $published"

log "stopping with SIGTERM"
kill -TERM "$pid"
rc=0; wait "$pid" || rc=$?
pid=""
[ "$rc" -eq 0 ] || fail "exit status $rc after SIGTERM (expected 0)"
log "OK: zero-infra start, order -> outbox -> broker -> ledger and shipments, clean stop"
