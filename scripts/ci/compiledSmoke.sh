#!/usr/bin/env bash
# The production path in CI: `npm run build`, then the compiled service (node dist/src/cli/run.js,
# NODE_ENV=production, no TypeScript loader) on a database of its own answers its health and its
# metrics port, serves the Studio, and stops cleanly on SIGTERM; then the SDK (sdk/) builds against the same document.
# Needs PostgreSQL on 127.0.0.1:5432 (user postgres).
set -euo pipefail
cd "$(dirname "$0")/../.."

npm run build --silent
database="svc_smoke_$$"
admin=postgres://postgres@127.0.0.1:5432/postgres
psql -q "$admin" -c "CREATE DATABASE $database"
data_dir=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
  psql -q "$admin" -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" || true
  rm -rf "$data_dir"
}
trap cleanup EXIT

port=$((20000 + RANDOM % 20000))
metrics_port=$((port + 1))
NODE_ENV=production HOST=127.0.0.1 PORT=$port SVC_METRICS=true SVC_METRICS_PORT=$metrics_port \
  DATABASE_URL="postgres://postgres@127.0.0.1:5432/$database" SVC_DATA_DIR="$data_dir" \
  SVC_SECRET=compiled-smoke-secret-0123456789abcdef LOG_LEVEL=warn \
  node dist/src/cli/run.js start > "$data_dir/service.log" 2>&1 &
pid=$!

for _ in $(seq 1 120); do
  if curl -fsS "http://127.0.0.1:$port/api/v1/utils/health" -o "$data_dir/health.json" 2>/dev/null; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then cat "$data_dir/service.log" >&2; echo "the compiled service exited" >&2; exit 1; fi
  sleep 0.5
done
grep -q '"status":"ok"' "$data_dir/health.json" || { cat "$data_dir/health.json" "$data_dir/service.log" >&2; exit 1; }
curl -fsS "http://127.0.0.1:$metrics_port/metrics" | grep -q '^svc_log_events_total ' || { echo "no metrics on $metrics_port" >&2; exit 1; }
# The Studio's page and its bundle are served from dist/studio/dist.
curl -fsS "http://127.0.0.1:$port/studio/" -o "$data_dir/studio.html" || { echo "no Studio at /studio/" >&2; exit 1; }
studio_js=$(grep -o '/studio/assets/[^"]*\.js' "$data_dir/studio.html" | head -1)
[ -n "$studio_js" ] && curl -fsS "http://127.0.0.1:$port$studio_js" -o /dev/null || { echo "the Studio's bundle is not served" >&2; exit 1; }

kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=""
if [ "$status" -ne 0 ]; then cat "$data_dir/service.log" >&2; echo "the compiled service exited with $status on SIGTERM" >&2; exit 1; fi

# The SDK's build: its types must match this build's OpenAPI document, and the package must load as
# ESM from its dist/ (what an app installs).
DATABASE_URL="postgres://postgres@127.0.0.1:5432/$database" SVC_DATA_DIR="$data_dir" LOG_LEVEL=warn npm run build --silent --workspace sdk
node --input-type=module -e "const sdk = await import('@svc-cms/sdk'); if (typeof sdk.createSvcClient !== 'function') process.exit(1);"
rm -rf sdk/dist

echo "compiled build: health ok, metrics and the Studio served, clean stop; the SDK builds and loads ($(node --version))"
