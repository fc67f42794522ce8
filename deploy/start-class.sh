#!/usr/bin/env bash
# K Streamlit processes of the sandbox and HAProxy in front of them, on one machine.
#
#   deploy/start-class.sh                      # K=2, the class opens http://127.0.0.1:8501
#   K=4 PROXY_ADDRESS=0.0.0.0 deploy/start-class.sh
#
# Each process listens on 127.0.0.1 only (BACKEND_PORT, BACKEND_PORT+1, ...); HAProxy (deploy/haproxy.cfg)
# spreads sessions over them with a cookie and checks each on /_stcore/health. Each is the page's launcher,
# `python -m agent serve-page`, which tunes the process for a class (docs/hosting.md). Arguments after the
# script go to every `streamlit run` (e.g. --server.disconnectedSessionTTL 300). RUN_DIR keeps the logs, the
# rendered HAProxy configuration and one pid file a process (st1.pid, ...). Ctrl-C or SIGTERM stops all.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
APP="${APP:-$HERE/../sandbox_app.py}"
K="${K:-2}"
export PROXY_ADDRESS="${PROXY_ADDRESS:-127.0.0.1}"
export PROXY_PORT="${PROXY_PORT:-8501}"
BACKEND_PORT="${BACKEND_PORT:-8601}"
RUN_DIR="${RUN_DIR:-$(mktemp -d -t loop-sandbox-class.XXXXXX)}"
# The command that runs the page's launcher, split into words: the venv's python, or a wrapper.
SERVE_PAGE="${SERVE_PAGE:-python3 -m agent serve-page}"

command -v haproxy >/dev/null || { echo "haproxy is not installed: apt-get install haproxy" >&2; exit 2; }
mkdir -p "$RUN_DIR"
pids=()
stop_all() {
  trap - EXIT
  [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true
  wait || true
}
trap stop_all EXIT
trap 'exit 143' TERM INT

# Each process runs as many checks at once as it has slots (one a core by default): K processes on one machine
# share its cores, so each gets its share, or K times the cores' worth of checks would run together.
export LOOP_SANDBOX_CHECK_SLOTS="${LOOP_SANDBOX_CHECK_SLOTS:-$(( $(nproc) / K > 0 ? $(nproc) / K : 1 ))}"

cd "$(dirname "$APP")"  # Streamlit reads .streamlit/config.toml from the folder it starts in
for i in $(seq 1 "$K"); do
  port=$((BACKEND_PORT + i - 1))
  # shellcheck disable=SC2086  # SERVE_PAGE is a command line on purpose
  $SERVE_PAGE --page "$APP" --server.address 127.0.0.1 --server.port "$port" --server.headless true \
    --server.fileWatcherType none --browser.gatherUsageStats false "$@" >"$RUN_DIR/st$i.log" 2>&1 &
  pids+=("$!")
  echo "$!" >"$RUN_DIR/st$i.pid"
done

# HAProxy starts once every process takes connections, so that its first health checks find them all up.
for i in $(seq 1 "$K"); do
  for _ in $(seq 1 600); do
    (exec 3<>"/dev/tcp/127.0.0.1/$((BACKEND_PORT + i - 1))") 2>/dev/null && break
    kill -0 "${pids[$((i - 1))]}" 2>/dev/null || { echo "Streamlit process $i exited: $RUN_DIR/st$i.log" >&2; exit 1; }
    sleep 0.1
  done
done

{
  cat "$HERE/haproxy.cfg"
  for i in $(seq 1 "$K"); do
    echo "    server st$i 127.0.0.1:$((BACKEND_PORT + i - 1)) cookie st$i"
  done
} >"$RUN_DIR/haproxy.cfg"
haproxy -c -q -f "$RUN_DIR/haproxy.cfg"
haproxy -db -f "$RUN_DIR/haproxy.cfg" >"$RUN_DIR/haproxy.log" 2>&1 &
proxy=$!
pids+=("$proxy")
echo "$proxy" >"$RUN_DIR/haproxy.pid"
echo "Loop Sandbox for a class: http://$PROXY_ADDRESS:$PROXY_PORT ($K processes; logs in $RUN_DIR)"
wait "$proxy"
