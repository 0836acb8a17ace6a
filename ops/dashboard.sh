#!/usr/bin/env bash
# The Grafana dashboard (ops/alerts/outbox-dashboard.json) drawn over a few minutes of real load
# (ops/deploy/README.md, "Deploying", "Dashboard"): the API, a relay and the ledger as processes, a Prometheus
# server (Debian's prometheus package) scraping them every second as a plain child process, then
# every panel's own query over the run. Runs against the database and broker the tests use
# (OUTBOX_TEST_DB_URL, _USER, _PASSWORD, OUTBOX_TEST_AMQP_URI; else embedded ones) and empties that
# database's tables: never point it at data you want to keep.
#   ops/dashboard.sh --png ops/alerts/dashboard.png   about five minutes: the README's picture
#   ops/dashboard.sh --quick                            about a minute: checks the tool works
#   ops/dashboard.sh --redraw DIR                       draws DIR/data.json again, without a run
# Results (data.json, dashboard.png) go to ops/bench/results/dashboard-<time>/ unless --out says.
set -euo pipefail
cd "$(dirname "$0")/.."
prometheus=prometheus
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  [ "${args[i]}" = "--prometheus" ] && prometheus=${args[i + 1]:-}
done
if [[ " $* " != *" --redraw "* ]] && ! command -v "$prometheus" >/dev/null 2>&1; then
  echo "no $prometheus: apt-get install --no-install-recommends prometheus (its service is not used)," \
       "or --prometheus /path/to/prometheus" >&2
  exit 2
fi
jar=ops/bench/target/outbox-bench.jar
ops/build-if-stale.sh ops/bench "$jar"
exec java ${DASHBOARD_JAVA_OPTS:--Xmx512m} -cp "$jar:ops/bench/target/lib/*" dev.outbox.bench.DashboardMain "$@"
