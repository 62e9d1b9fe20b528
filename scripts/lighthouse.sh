#!/usr/bin/env bash
# Lighthouse's mobile scores (performance, accessibility, best practices) for the home, group, play,
# result and statistics pages, measured on a local server filled with sample data.
#
#   scripts/lighthouse.sh            # reports go to a temporary folder
#   scripts/lighthouse.sh OUT_DIR    # keep the JSON reports there
#
# Needs node with npm (Lighthouse is installed into .lighthouse/, which git ignores) and Debian's
# Chromium (CHROME_PATH, /usr/bin/chromium unless set). Record the scores in docs/lighthouse.md.
set -euo pipefail
cd "$(dirname "$0")/.."

LIGHTHOUSE_VERSION=12.2.3
export CHROME_PATH="${CHROME_PATH:-/usr/bin/chromium}"
CHROME_FLAGS="--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync"
PYTHON=.venv/bin/python
LIGHTHOUSE=.lighthouse/node_modules/.bin/lighthouse

if [[ ! -x "$CHROME_PATH" ]]; then
  echo "No Chromium at $CHROME_PATH (apt-get install chromium, or set CHROME_PATH)." >&2
  exit 1
fi
if [[ ! -x "$LIGHTHOUSE" ]] || ! grep -q "\"version\": \"$LIGHTHOUSE_VERSION\"" .lighthouse/node_modules/lighthouse/package.json; then
  echo "Installing lighthouse@$LIGHTHOUSE_VERSION into .lighthouse/ …"
  mkdir -p .lighthouse
  npm install --prefix .lighthouse --no-audit --no-fund --loglevel=error "lighthouse@$LIGHTHOUSE_VERSION" >/dev/null
fi

WORK="$(mktemp -d)"
OUT="${1:-$WORK/reports}"
mkdir -p "$OUT"
SERVER_PID=""
cleanup() {
  if [[ -n "$SERVER_PID" ]]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# a fresh instance folder: its own database and secret key, filled with sample data
export COMPANION_INSTANCE_PATH="$WORK/instance"
.venv/bin/flask --app app init-db >/dev/null
"$PYTHON" scripts/lighthouse_pages.py sample "$OUT"

PORT="$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
BASE="http://127.0.0.1:$PORT"
.venv/bin/gunicorn --bind "127.0.0.1:$PORT" --workers 2 --threads 2 --log-level warning 'app:create_app()' &
SERVER_PID=$!
for _ in $(seq 50); do
  curl -fsS -o /dev/null "$BASE/" 2>/dev/null && break
  sleep 0.2
done
curl -fsS -o /dev/null "$BASE/" || { echo "The server did not start." >&2; exit 1; }

while IFS=$'\t' read -r name path; do
  echo "Lighthouse: $name ($path)"
  "$LIGHTHOUSE" "$BASE$path" --quiet \
    --only-categories=performance,accessibility,best-practices \
    --form-factor=mobile \
    --chrome-flags="$CHROME_FLAGS" \
    --extra-headers="$OUT/cookie.json" \
    --output=json --output-path="$OUT/$name.json" \
    || echo "  Lighthouse failed on $name" >&2
done < "$OUT/pages.tsv"

echo
echo "Mobile scores, $(date -u +%Y-%m-%d), lighthouse@$LIGHTHOUSE_VERSION, $("$CHROME_PATH" --version 2>/dev/null || echo Chromium):"
"$PYTHON" scripts/lighthouse_pages.py report "$OUT"
if [[ $# -eq 0 ]]; then
  echo
  echo "(the JSON reports were in a temporary folder; pass a folder to keep them)"
fi
