#!/usr/bin/env bash
# A cluster on this one machine, beside (never touching) the machine's own RabbitMQ on 5672 and
# PostgreSQL on 5432:
#   - RabbitMQ: three nodes c1@localhost..c3@localhost, AMQP on 5701..5703, one cluster;
#   - PostgreSQL: a primary on 5441 and a synchronous streaming standby on 5442.
#
#   ops/cluster.sh up              start (or finish starting) everything; print and write the settings
#   ops/cluster.sh down            stop everything and delete its data
#   ops/cluster.sh status          what runs, who leads, which PostgreSQL is the primary
#   ops/cluster.sh env             print the settings file (after up)
#   ops/cluster.sh kill-node N     SIGKILL RabbitMQ node cN (the failover test's fault)
#   ops/cluster.sh start-node N    start node cN again; it rejoins the cluster
#   ops/cluster.sh pg-failover     SIGKILL the primary, promote the standby, and let it commit alone
#
# Runs as root (RabbitMQ nodes run as the rabbitmq user, PostgreSQL as postgres). Data and logs
# live under OUTBOX_CLUSTER_DIR (default /var/tmp/outbox-cluster); the settings go to
# $OUTBOX_CLUSTER_DIR/cluster.env, every value single-quoted, for `set -a; . that-file; set +a`.
# `status` needs jq. Sourced (`. ops/cluster.sh`), it only defines its functions (for its tests).
set -euo pipefail

DIR="${OUTBOX_CLUSTER_DIR:-/var/tmp/outbox-cluster}"
NODES=(1 2 3)
AMQP_BASE=5700       # cN listens on 5700+N
DIST_BASE=25700      # Erlang distribution of cN on 25700+N
PG_PRIMARY_PORT=5441
PG_STANDBY_PORT=5442
PG_BIN="/usr/lib/postgresql/$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1 || true)/bin"
ENV_FILE="$DIR/cluster.env"

log() { printf '[cluster] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

as_rabbitmq() { su rabbitmq -s /bin/bash -c "$1"; }
as_postgres() { su postgres -s /bin/bash -c "$1"; }
# stdin from /dev/null: rabbitmqctl reads its stdin, and inside a `while read` loop it would eat
# the rest of the loop's input (status listed the queues of the first vhost only)
ctl() { rabbitmqctl -q -n "c$1@localhost" "${@:2}" </dev/null; }

node_dir() { echo "$DIR/rabbit/c$1"; }

node_env() {
  local n=$1 d; d=$(node_dir "$n")
  echo "HOME=/var/lib/rabbitmq RABBITMQ_NODENAME=c$n@localhost RABBITMQ_NODE_PORT=$((AMQP_BASE + n))" \
       "RABBITMQ_DIST_PORT=$((DIST_BASE + n)) RABBITMQ_CONFIG_FILE=$d/rabbitmq" \
       "RABBITMQ_ADVANCED_CONFIG_FILE=$d/advanced.config RABBITMQ_CONF_ENV_FILE=$d/rabbitmq-env.conf" \
       "RABBITMQ_ENABLED_PLUGINS_FILE=$d/enabled_plugins RABBITMQ_MNESIA_BASE=$d/mnesia" \
       "RABBITMQ_LOG_BASE=$d/log RABBITMQ_PID_FILE=$d/c$n.pid"
}

node_running() { ctl "$1" ping >/dev/null 2>&1; }

start_node() {
  local n=$1 d; d=$(node_dir "$n")
  if node_running "$n"; then return 0; fi
  mkdir -p "$d/mnesia" "$d/log"
  # the machine's rabbitmq.conf pins 127.0.0.1:5672, so each node has a file of its own
  cat >"$d/rabbitmq.conf" <<EOF
listeners.tcp.1 = 127.0.0.1:$((AMQP_BASE + n))
loopback_users.guest = true
cluster_partition_handling = pause_minority
EOF
  echo '[].' >"$d/enabled_plugins"             # no management listener to collide with 15672
  echo '[].' >"$d/advanced.config"
  cat >"$d/rabbitmq-env.conf" <<'EOF'
ERL_EPMD_ADDRESS=127.0.0.1
export ERL_FLAGS="-kernel inet_dist_use_interface {127,0,0,1}"
EOF
  chown -R rabbitmq:rabbitmq "$DIR/rabbit"
  log "starting RabbitMQ node c$n@localhost (AMQP 127.0.0.1:$((AMQP_BASE + n)))"
  as_rabbitmq "env $(node_env "$n") rabbitmq-server -detached"
  # await_startup fails at once until the node registered with epmd: poll ping first
  for _ in $(seq 1 90); do node_running "$n" && break; sleep 1; done
  ctl "$n" await_startup --timeout 120 || die "node c$n did not start; see $d/log"
}

rabbit_up() {
  mkdir -p "$DIR/rabbit"
  for n in "${NODES[@]}"; do start_node "$n"; done
  for n in 2 3; do
    if ! ctl "$n" cluster_status --formatter json 2>/dev/null | grep -q '"c1@localhost"'; then
      log "joining c$n@localhost to c1@localhost"
      {
        ctl "$n" stop_app
        ctl "$n" join_cluster c1@localhost
        ctl "$n" start_app
      } >>"$(node_dir "$n")/log/cluster.sh.log" 2>&1 || die "c$n could not join; see $(node_dir "$n")/log"
    fi
  done
}

pg_ctl_cmd() { as_postgres "$PG_BIN/pg_ctl -D $1 -l $1/server.log -w -t 60 $2"; }

pg_running() { as_postgres "$PG_BIN/pg_ctl -D $1 status" >/dev/null 2>&1; }

pg_up() {
  local p="$DIR/pg/primary" s="$DIR/pg/standby"
  mkdir -p "$DIR/pg"
  chown postgres:postgres "$DIR/pg"
  if [ ! -f "$p/PG_VERSION" ]; then
    log "initialising the PostgreSQL primary in $p"
    as_postgres "$PG_BIN/initdb -D $p -U postgres -A trust -E UTF8 >/dev/null"
    cat >>"$p/postgresql.conf" <<EOF
port = $PG_PRIMARY_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$DIR/pg'
# logical: the relay's CDC mode reads a slot (relay-worker/README.md, "CDC mode"); it includes what replica writes
wal_level = logical
max_wal_senders = 10
hot_standby = on
# a commit returns only once the standby has flushed it: no committed outbox row is lost in a failover
synchronous_standby_names = 'FIRST 1 (standby1)'
synchronous_commit = on
wal_keep_size = 256MB
EOF
    echo "host replication postgres 127.0.0.1/32 trust" >>"$p/pg_hba.conf"
  fi
  if ! pg_running "$p" && [ ! -f "$p/promoted-away" ]; then
    log "starting the PostgreSQL primary on 127.0.0.1:$PG_PRIMARY_PORT"
    pg_ctl_cmd "$p" start >/dev/null
  fi
  if [ ! -f "$s/PG_VERSION" ]; then
    log "cloning the standby from the primary (pg_basebackup)"
    as_postgres "$PG_BIN/pg_basebackup -h 127.0.0.1 -p $PG_PRIMARY_PORT -U postgres -D $s -R -X stream"
    echo "port = $PG_STANDBY_PORT" >>"$s/postgresql.conf"
    # -R wrote primary_conninfo into postgresql.auto.conf, which wins over postgresql.conf: name the
    # standby there, or the primary's synchronous_standby_names never matches it
    echo "primary_conninfo = 'host=127.0.0.1 port=$PG_PRIMARY_PORT user=postgres application_name=standby1'" \
      >>"$s/postgresql.auto.conf"
  fi
  if ! pg_running "$s"; then
    log "starting the PostgreSQL standby on 127.0.0.1:$PG_STANDBY_PORT"
    pg_ctl_cmd "$s" start >/dev/null
  fi
  local primary_port; primary_port=$(pg_primary_port)
  for _ in $(seq 1 30); do
    if [ "$primary_port" != "$PG_PRIMARY_PORT" ] \
       || psql -h 127.0.0.1 -p "$PG_PRIMARY_PORT" -U postgres -Atc \
            "SELECT 1 FROM pg_stat_replication WHERE application_name = 'standby1' AND sync_state = 'sync'" | grep -q 1; then
      break
    fi
    sleep 1
  done
  if ! psql -h 127.0.0.1 -p "$primary_port" -U postgres -Atc "SELECT 1 FROM pg_database WHERE datname = 'outbox'" | grep -q 1; then
    psql -h 127.0.0.1 -p "$primary_port" -U postgres -qc "CREATE DATABASE outbox"
  fi
}

# the port of whichever server is not in recovery
pg_primary_port() {
  for port in $PG_PRIMARY_PORT $PG_STANDBY_PORT; do
    if [ "$(psql -h 127.0.0.1 -p "$port" -U postgres -Atc 'SELECT pg_is_in_recovery()' 2>/dev/null)" = f ]; then
      echo "$port"; return 0
    fi
  done
  echo none
}

# NAME='value' for a file that is sourced: inside single quotes the shell takes every character as
# it is (the & of the JDBC URL, $, spaces, backquotes), and a quote of the value's own is closed,
# escaped and reopened ('\''). Unquoted, `. file` ran "OUTBOX_DB_URL=...primary &" as a background
# job and the variable never reached the caller: ops/run.sh then started an embedded PostgreSQL.
env_assignment() {
  local quote="'\\''"
  printf "%s='%s'\n" "$1" "${2//\'/$quote}"
}

write_env() {
  local amqp="amqp://guest:guest@127.0.0.1:$((AMQP_BASE + 1)),127.0.0.1:$((AMQP_BASE + 2)),127.0.0.1:$((AMQP_BASE + 3))/%2F"
  local db="jdbc:postgresql://127.0.0.1:$PG_PRIMARY_PORT,127.0.0.1:$PG_STANDBY_PORT/outbox?targetServerType=primary&hostRecheckSeconds=2"
  mkdir -p "$(dirname "$ENV_FILE")"
  {
    echo "# written by ops/cluster.sh up: the settings of every process that should use the cluster"
    echo "# load them with: set -a; . $ENV_FILE; set +a"
    env_assignment OUTBOX_AMQP_URI "$amqp"
    env_assignment OUTBOX_AMQP_QUEUE_TYPE quorum
    env_assignment OUTBOX_DB_URL "$db"
    env_assignment OUTBOX_DB_USER postgres
  } >"$ENV_FILE.tmp"
  chmod 644 "$ENV_FILE.tmp"
  mv "$ENV_FILE.tmp" "$ENV_FILE"
}

# Every queue of every vhost on the cluster, seen from node cN: type, messages, and for a quorum
# queue its leader, its members and which of them are online; a classic queue lives on one node
# (found with --local on each running node, since its pid names no node in json). Debian's
# rabbitmqctl 3.10 has no tsv formatter: json is read here (3.10 and later). A failing rabbitmqctl
# shows its own error and makes this fail: an empty list must mean no queues.
queues() {
  local n=$1 vhosts vhost listed local_to m hosts rc=0
  vhosts=$(ctl "$n" list_vhosts name --formatter json | jq -r '.[].name') \
    || { log "rabbitmqctl list_vhosts on c$n@localhost failed"; return 1; }
  while IFS= read -r vhost; do
    [ -n "$vhost" ] || continue
    if ! listed=$(ctl "$n" list_queues -p "$vhost" name type messages leader members online --formatter json); then
      log "rabbitmqctl list_queues -p $vhost on c$n@localhost failed"
      rc=1
      continue
    fi
    hosts='{}'
    if jq -e 'any(.[]; .type != "quorum")' <<<"$listed" >/dev/null; then
      for m in "${NODES[@]}"; do
        node_running "$m" || continue
        if ! local_to=$(ctl "$m" list_queues -p "$vhost" --local name --formatter json); then
          log "rabbitmqctl list_queues --local -p $vhost on c$m@localhost failed"
          rc=1
          continue
        fi
        hosts=$(jq -c --arg node "c$m@localhost" --argjson local "$local_to" \
          '. + ($local | map({(.name): $node}) | add // {})' <<<"$hosts")
      done
    fi
    jq -r --arg vhost "$vhost" --argjson hosts "$hosts" '
      def names: if type == "array" then (if length == 0 then "-" else join(",") end)
                 elif . == null or . == "" then "-" else tostring end;
      .[] | "queue  vhost \($vhost)  \(.name)  \(.type)  messages \(.messages // 0)  " +
        (if .type == "quorum"
         then "leader \(.leader | names)  members \(.members | names)  online \(.online | names)"
         else "on \($hosts[.name] // "-") only (not replicated)" end)' <<<"$listed" \
      || { log "could not read rabbitmqctl's answer for vhost $vhost: $listed"; rc=1; }
  done <<<"$vhosts"
  return "$rc"
}

status() {
  command -v jq >/dev/null || die "status reads rabbitmqctl's json with jq: apt-get install jq"
  local rc=0 asked=""
  for n in "${NODES[@]}"; do
    if node_running "$n"; then
      echo "rabbitmq c$n@localhost  127.0.0.1:$((AMQP_BASE + n))  running"
      [ -n "$asked" ] || asked=$n
    else
      echo "rabbitmq c$n@localhost  127.0.0.1:$((AMQP_BASE + n))  down"
    fi
  done
  if [ -n "$asked" ]; then
    queues "$asked" || rc=1
  else
    echo "queues: no RabbitMQ node runs"
  fi
  for port in $PG_PRIMARY_PORT $PG_STANDBY_PORT; do
    case "$(psql -h 127.0.0.1 -p "$port" -U postgres -Atc 'SELECT pg_is_in_recovery()' 2>/dev/null || echo down)" in
      f) echo "postgres 127.0.0.1:$port  primary  $(psql -h 127.0.0.1 -p "$port" -U postgres -Atc \
           "SELECT coalesce(string_agg(application_name || ' ' || sync_state, ', '), 'no standby') FROM pg_stat_replication")" ;;
      t) echo "postgres 127.0.0.1:$port  standby" ;;
      *) echo "postgres 127.0.0.1:$port  down" ;;
    esac
  done
  return "$rc"
}

kill_node() {
  local n=$1 pid
  pid=$(cat "$(node_dir "$n")/c$n.pid" 2>/dev/null || true)
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || die "node c$n is not running"
  log "SIGKILL RabbitMQ node c$n@localhost (pid $pid)"
  kill -9 "$pid"
  for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.2; done
}

pg_failover() {
  local p="$DIR/pg/primary" s="$DIR/pg/standby" pid
  pid=$(head -1 "$p/postmaster.pid" 2>/dev/null || true)
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || die "the primary on $PG_PRIMARY_PORT is not running"
  log "SIGKILL the PostgreSQL primary (postmaster pid $pid)"
  kill -9 "$pid"
  # its backends die with it: a postmaster's children exit when it is gone, kill any still there
  pkill -9 -f -- "-D $p" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  touch "$p/promoted-away"; chown postgres:postgres "$p/promoted-away"
  log "promoting the standby on $PG_STANDBY_PORT"
  as_postgres "$PG_BIN/pg_ctl -D $s -w -t 60 promote" >/dev/null
  # with its only synchronous standby gone, the new primary would wait for one on every commit:
  # choose availability, as a failover manager would, and say so
  psql -h 127.0.0.1 -p "$PG_STANDBY_PORT" -U postgres -qc "ALTER SYSTEM SET synchronous_standby_names = ''" \
    -c "SELECT pg_reload_conf()" >/dev/null
  log "127.0.0.1:$PG_STANDBY_PORT is the primary now, committing without a synchronous standby"
}

down() {
  for n in "${NODES[@]}"; do
    if node_running "$n"; then ctl "$n" stop >/dev/null 2>&1 || true; fi
    pid=$(cat "$(node_dir "$n")/c$n.pid" 2>/dev/null || true)
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
  done
  for d in "$DIR/pg/standby" "$DIR/pg/primary"; do
    if [ -f "$d/PG_VERSION" ] && pg_running "$d"; then pg_ctl_cmd "$d" "stop -m immediate" >/dev/null || true; fi
  done
  rm -rf "$DIR"
  log "stopped; $DIR removed"
}

# sourced by a test: the functions only, nothing runs and nothing needs root
if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  return 0
fi

[ "$(id -u)" = 0 ] || die "run as root: RabbitMQ nodes run as rabbitmq, PostgreSQL as postgres"
# `down` deletes $DIR: only ever a folder of its own
case "$DIR" in
  /|/tmp|/var|/var/tmp|/root|/home|"") die "OUTBOX_CLUSTER_DIR=$DIR is not a folder of its own" ;;
esac

case "${1:-}" in
  up)
    rabbit_up
    pg_up
    write_env
    log "up; settings in $ENV_FILE (load them with: set -a; . $ENV_FILE; set +a):"
    grep -v '^#' "$ENV_FILE"
    ;;
  down) down ;;
  status) status ;;
  env) cat "$ENV_FILE" ;;
  kill-node) kill_node "${2:?node number 1-3}" ;;
  start-node) start_node "${2:?node number 1-3}" ;;
  pg-failover) pg_failover ;;
  *) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
