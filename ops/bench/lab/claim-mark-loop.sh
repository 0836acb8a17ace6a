#!/usr/bin/env bash
# A scratch copy of the outbox for trying schema and statement changes quickly (README,
# Performance, "What was tried"): creates a database, applies the project's migrations, runs the
# given SQL (an index change, a table setting), lays down a 50,000-row backlog like the
# benchmark's (orders, every second one captured) and times a server-side loop of the relay's
# claim (256 rows) and mark, each in its own transaction, until the backlog is gone.
#
#   ops/bench/lab/claim-mark-loop.sh [SQL run after the migrations] [id|ctid]
#
# PGHOST/PGPORT/PGUSER as for psql (default 127.0.0.1, postgres); the database is outbox_lab and is
# dropped first. Single-threaded and server-side: compare variants in one sitting, several runs each.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
migrations="$here/../../../migrations/src/main/resources/db/outbox"
export PGHOST="${PGHOST:-127.0.0.1}" PGUSER="${PGUSER:-postgres}"
db=outbox_lab
psql -qX -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
for f in $(ls "$migrations"/V*.sql | sort -V); do
  psql -qX -d "$db" -v ON_ERROR_STOP=1 -f "$f" >/dev/null
done
if [ -n "${1:-}" ]; then psql -qX -d "$db" -v ON_ERROR_STOP=1 -c "$1"; fi
psql -qX -d "$db" -v ON_ERROR_STOP=1 -f "$here/backlog.sql"
psql -qX -d "$db" -c "ANALYZE message_outbox" -c "CHECKPOINT"
sed "s/CLAIMKEY/${2:-id}/g" "$here/claim-mark-loop.sql" | psql -X -d "$db" -v ON_ERROR_STOP=1 2>&1 | grep -E "Time|published"
