#!/usr/bin/env bash
# Runs the live conformance suite against nginx (Debian's package, on
# loopback with a minimal config) and against h1's `echo` example, plus the
# in-process run, and writes conformance/PEERS.md with the pass counts side
# by side and the notable differences.
#
# Usage: conformance/run-peers.sh            (as root if nginx is missing: it
#                                             is installed with apt-get)
# Environment: PEERS_OUT (default conformance/PEERS.md), NGINX_PORT (18480),
#              KEEP=1 keeps the work directory (configs, logs, JSON reports).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out=${PEERS_OUT:-$here/PEERS.md}
nginx_port=${NGINX_PORT:-18480}
cd "$root"

if ! command -v nginx >/dev/null 2>&1; then
    echo "installing nginx (Debian package)" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null \
        || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null
fi
command -v python3 >/dev/null || { echo "run-peers.sh: python3 is needed" >&2; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
    # Only the processes this script started.
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    if [ "${KEEP:-0}" = 1 ]; then echo "work directory: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

wait_port() { # host port seconds
    local deadline=$((SECONDS + $3))
    until (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            echo "run-peers.sh: nothing listens on $1:$2 after $3 s" >&2
            return 1
        fi
        sleep 0.1
    done
}

echo "building h1-conformance and the echo example" >&2
cargo build --release -q -p h1-conformance
cargo build --release -q -p h1-conn --example echo
runner="$root/target/release/h1-conformance"
echo_bin="$root/target/release/examples/echo"

# nginx: one worker, no daemon, every path under the work directory, and a
# location that answers 200 to any request it accepts (it reads and discards
# request bodies first, so keep-alive and pipelining stay in sync).
mkdir -p "$work/nginx/logs" "$work/nginx/tmp"
cat >"$work/nginx/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log warn;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path $work/nginx/tmp/body;
    proxy_temp_path $work/nginx/tmp/proxy;
    fastcgi_temp_path $work/nginx/tmp/fastcgi;
    uwsgi_temp_path $work/nginx/tmp/uwsgi;
    scgi_temp_path $work/nginx/tmp/scgi;
    server {
        listen 127.0.0.1:$nginx_port;
        location / { return 200 "ok\n"; }
    }
}
EOF
nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" &
pids+=($!)
wait_port 127.0.0.1 "$nginx_port" 20
nginx_version=$(nginx -v 2>&1 | sed 's/^nginx version: //')

"$echo_bin" --addr 127.0.0.1:0 >"$work/echo.out" 2>"$work/echo.err" &
pids+=($!)
for _ in $(seq 1 100); do
    grep -q '^listening on ' "$work/echo.out" 2>/dev/null && break
    sleep 0.1
done
echo_addr=$(sed -n 's/^listening on //p' "$work/echo.out")
[ -n "$echo_addr" ] || { echo "run-peers.sh: echo did not start" >&2; cat "$work/echo.err" >&2; exit 1; }

# The runner exits 1 when a MUST fails: expected for some servers.
run() { # name args...
    local name=$1
    shift
    local status=0
    "$runner" --format json "$@" >"$work/$name.json" || status=$?
    if [ "$status" -gt 1 ]; then
        echo "run-peers.sh: the suite could not run against $name (exit $status)" >&2
        exit 1
    fi
}
echo "in process" >&2
run inprocess
echo "h1 echo at $echo_addr" >&2
run echo --target "$echo_addr" --jobs 4
echo "nginx at 127.0.0.1:$nginx_port" >&2
run nginx --target "127.0.0.1:$nginx_port" --echo no --jobs 4

python3 "$here/peers.py" \
    --inprocess "$work/inprocess.json" --echo "$work/echo.json" --nginx "$work/nginx.json" \
    --nginx-version "$nginx_version" --commit "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
    >"$out"
echo "wrote $out" >&2
