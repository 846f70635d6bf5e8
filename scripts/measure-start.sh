#!/usr/bin/env bash
# Measures the README's run command on a fresh clone: seconds until /home and /api/health answer,
# for the first start (npm install + build + migrate) and for a second start.
# Usage: bash scripts/measure-start.sh [port]
set -euo pipefail
port="${1:-3999}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
clone="$(mktemp -d)"
git clone -q "$repo" "$clone"
cd "$clone"

wait_until_serving() {
  local started=$1
  until curl -sf "http://localhost:$port/api/health" >/dev/null && curl -sf "http://localhost:$port/home" >/dev/null; do
    sleep 0.1
  done
  echo "$(( $(date +%s%N) - started ))" | awk '{ printf "%.1f s\n", $1 / 1e9 }'
}

run() {
  local label=$1 command=$2 started
  started=$(date +%s%N)
  # Its own process group, so the whole tree (npm, node) can be stopped at once.
  PORT=$port setsid bash -c "$command" >"$clone/$label.log" 2>&1 &
  local pid=$!
  printf '%s: ' "$label"
  wait_until_serving "$started"
  kill -INT -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

run first-start 'npm install && npm start'
run second-start 'npm start'
rm -rf "$clone"
