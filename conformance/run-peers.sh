#!/usr/bin/env bash
# Runs the live conformance suite against h1 (its echo example, and an axum
# app on h1-tokio) and six other HTTP/1.1 servers on loopback, and writes
# conformance/PEERS.md: the pass counts side by side, by level and by RFC
# section, the cases where h1 and most of the peers disagree, where h1's
# servers over TCP differ from h1 in process, and where the servers without
# the echo contract fail.
#
#   h1 in process    h1-conformance --role server (without --target)
#   h1 echo (TCP)    h1-conn's `echo` example
#   h1-tokio         h1-tokio's `tokio-axum-echo` example (an axum Router with
#                    a fallback handler, served by h1-tokio; tokio current_thread)
#   hyper            conformance/peers/hyper-echo (hyper 1.x, tokio current_thread;
#                    its own Cargo project and Cargo.lock, built --locked)
#   Go               conformance/peers/go-echo (net/http; Debian's golang-go)
#   Node             conformance/peers/node-echo.js (node:http, llhttp; no npm packages)
#   h11              conformance/peers/h11-echo.py (h11 from PyPI, pinned, in a venv)
#   nginx            Debian's nginx, one worker, `return 200`       (--echo no)
#   Apache           Debian's apache2, one process, a static file   (--echo no)
#
# The four echo servers speak the echo contract (conformance/cases/README.md)
# and each says in its header what its library does itself and what it
# cannot do; so does h1-tokio's, a column of h1's own (not a peer: the
# majority h1 is compared with leaves it out). Every server is started here,
# its PID kept, and stopped at the end; the live runs go side by side (each
# with --jobs 4: every server here serves connections concurrently), about
# four minutes in all.
#
# Usage: conformance/run-peers.sh [--quick]
#
#   --quick   the fast subset for CI (about two minutes with the installs
#             and builds done): every server above, but only the cases of
#             RFC 9112 §6.3 (message body length), §7.1 (chunked, with its
#             extensions and trailers) and §9.3 (persistence, pipelining),
#             a fifth of the suite; the report goes to $PEERS_OUT or, by
#             default, /tmp/PEERS-quick.md (never over PEERS.md).
#
# Needs root where something is missing: nginx, apache2, golang-go, nodejs
# and python3-venv are installed with apt-get, h11 with pip into a venv in
# the work directory; the Rust peer builds from crates.io. An install or a
# build that fails stops the script.
#
# Environment: PEERS_OUT (default conformance/PEERS.md), NGINX_PORT and
#              APACHE_PORT (default 18480 and 18481 when free, else a free
#              port), H11_VERSION (the pinned 0.16.0),
#              CARGO_TARGET_DIR (default target/ at the root),
#              KEEP=1 keeps the work directory (configs, logs, JSON reports).
set -euo pipefail

quick=0
case "${1:-}" in
    "") ;;
    --quick) quick=1 ;;
    -h | --help)
        sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "run-peers.sh: unknown argument $1 (want --quick or nothing)" >&2
        exit 2
        ;;
esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
if [ "$quick" = 1 ]; then
    out=${PEERS_OUT:-/tmp/PEERS-quick.md}
    filters=(--filter "9112 §6.3" --filter "9112 §7.1" --filter "9112 §9.3")
    subset="the cases of RFC 9112 §6.3, §7.1 and §9.3 (\`run-peers.sh --quick\`)"
else
    out=${PEERS_OUT:-$here/PEERS.md}
    filters=()
    subset=""
fi
# A loopback port nothing listens on: the default when it is free, else one
# the kernel picks. A server already on a fixed port (another run of this
# script, say) would otherwise answer in place of the one started here.
free_port() { # default
    python3 - "$1" <<'PY'
import socket, sys
for port in (int(sys.argv[1]), 0):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    print(s.getsockname()[1])
    s.close()
    break
PY
}
h11_version=${H11_VERSION:-0.16.0}
target_dir=${CARGO_TARGET_DIR:-$root/target}
apache_modules=/usr/lib/apache2/modules
began=$SECONDS
cd "$root"

# --- tools: installed only when missing; a failed install stops the run ------
missing=()
command -v nginx >/dev/null 2>&1 || missing+=(nginx)
command -v apache2 >/dev/null 2>&1 || missing+=(apache2)
command -v go >/dev/null 2>&1 || missing+=(golang-go)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    missing+=(python3-venv)
fi
if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing ${missing[*]} (Debian packages)" >&2
    apt-get update -qq
    # nginx-light is the smallest nginx where Debian still has it.
    pkgs=("${missing[@]}")
    if [[ " ${missing[*]} " == *" nginx "* ]] && apt-cache show nginx-light >/dev/null 2>&1; then
        pkgs=("${pkgs[@]/#nginx/nginx-light}")
    fi
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}" >/dev/null; then
        echo "run-peers.sh: apt-get install ${pkgs[*]} failed" >&2
        exit 1
    fi
fi
for tool in nginx apache2 go node python3; do
    command -v "$tool" >/dev/null || { echo "run-peers.sh: $tool is still missing" >&2; exit 1; }
done
nginx_port=${NGINX_PORT:-$(free_port 18480)}
apache_port=${APACHE_PORT:-$(free_port 18481)}

work=$(mktemp -d)
# Apache's process serves its files as www-data.
chmod 755 "$work"
pids=()
runs=()
cleanup() {
    # Only the processes this script started: the servers, and the runs
    # not yet waited for.
    for r in "${runs[@]}"; do kill "${r#*:}" 2>/dev/null || true; done
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

# start NAME CMD...: starts an echo server, keeps its PID and waits (30 s at
# most) for its `listening on ADDR` line; the address is left in $addr.
start() {
    local name=$1
    shift
    "$@" >"$work/$name.out" 2>"$work/$name.err" &
    local pid=$!
    pids+=("$pid")
    local deadline=$((SECONDS + 30))
    until grep -q '^listening on ' "$work/$name.out" 2>/dev/null; do
        if ! kill -0 "$pid" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
            echo "run-peers.sh: $name did not start" >&2
            cat "$work/$name.err" >&2
            exit 1
        fi
        sleep 0.1
    done
    addr=$(sed -n 's/^listening on //p' "$work/$name.out" | head -n 1)
}

# --- builds --------------------------------------------------------------------
echo "building h1-conformance, the echo examples and hyper-echo" >&2
cargo build --release -q -p h1-conformance
cargo build --release -q -p h1-conn --example echo
cargo build --release -q -p h1-tokio --example tokio-axum-echo
cargo build --release -q --locked --manifest-path "$here/peers/hyper-echo/Cargo.toml" \
    --target-dir "$target_dir"
runner="$target_dir/release/h1-conformance"
echo_bin="$target_dir/release/examples/echo"
tokio_bin="$target_dir/release/examples/tokio-axum-echo"
hyper_bin="$target_dir/release/hyper-echo"

echo "building go-echo" >&2
[ -n "${HOME:-}${GOCACHE:-}" ] || export GOCACHE="$work/gocache"
# Standard library only: nothing to fetch, and no other toolchain.
(cd "$here/peers/go-echo" && GOPROXY=off GOTOOLCHAIN=local go build -o "$work/go-echo" .)

echo "installing h11==$h11_version into a venv" >&2
python3 -m venv "$work/venv"
if ! "$work/venv/bin/pip" install -q --disable-pip-version-check "h11==$h11_version"; then
    echo "run-peers.sh: pip install h11==$h11_version failed" >&2
    exit 1
fi

# --- the servers ---------------------------------------------------------------
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

# Apache: the event MPM in one process (-DONE_PROCESS, in the foreground),
# only the modules a static file needs, default limits; every path maps to
# one file (FallbackResource), so GET and POST get 200 and other methods
# the default handler's 405. It reads (and discards) request bodies.
mkdir -p "$work/apache/htdocs" "$work/apache/logs" "$work/apache/run"
chmod 755 "$work/apache" "$work/apache/htdocs"
echo ok >"$work/apache/htdocs/index.html"
cat >"$work/apache/httpd.conf" <<EOF
ServerRoot $work/apache
ServerName 127.0.0.1
Listen 127.0.0.1:$apache_port
PidFile $work/apache/run/httpd.pid
DefaultRuntimeDir $work/apache/run
ErrorLog $work/apache/logs/error.log
LogLevel warn
LoadModule mpm_event_module $apache_modules/mod_mpm_event.so
LoadModule authn_core_module $apache_modules/mod_authn_core.so
LoadModule authz_core_module $apache_modules/mod_authz_core.so
LoadModule dir_module $apache_modules/mod_dir.so
User www-data
Group www-data
DocumentRoot $work/apache/htdocs
<Directory $work/apache/htdocs>
    Require all granted
    FallbackResource /index.html
</Directory>
EOF
apache2 -f "$work/apache/httpd.conf" -DFOREGROUND -DONE_PROCESS &
pids+=($!)
wait_port 127.0.0.1 "$apache_port" 20

start echo "$echo_bin" --addr 127.0.0.1:0
echo_addr=$addr
start tokio "$tokio_bin" --addr 127.0.0.1:0
tokio_addr=$addr
start hyper "$hyper_bin" --addr 127.0.0.1:0
hyper_addr=$addr
start go "$work/go-echo" -addr 127.0.0.1:0
go_addr=$addr
start node node "$here/peers/node-echo.js" --addr 127.0.0.1:0
node_addr=$addr
start h11 "$work/venv/bin/python" "$here/peers/h11-echo.py" --addr 127.0.0.1:0
h11_addr=$addr

# --- the runs, side by side ------------------------------------------------------
# run NAME ARGS...: the suite in the background, its report in NAME.json.
run() {
    local name=$1
    shift
    echo "  $name ${*:-(in process)}" >&2
    "$runner" --format json "${filters[@]}" "$@" >"$work/$name.json" 2>"$work/$name.log" &
    runs+=("$name:$!")
}
echo "running the suite${subset:+ (quick: ${filters[*]})}" >&2
# The server cases only: the peers are servers (the client role's cases run
# against clients, `--client`).
run inprocess --role server
run echo --target "$echo_addr" --jobs 4
run tokio --target "$tokio_addr" --jobs 4
run hyper --target "$hyper_addr" --jobs 4
run go --target "$go_addr" --jobs 4
run node --target "$node_addr" --jobs 4
run h11 --target "$h11_addr" --jobs 4
run nginx --target "127.0.0.1:$nginx_port" --echo no --jobs 4
run apache --target "127.0.0.1:$apache_port" --echo no --jobs 4
failed=0
for r in "${runs[@]}"; do
    status=0
    wait "${r#*:}" || status=$?
    # The runner exits 1 when a MUST fails: expected for some servers.
    if [ "$status" -gt 1 ]; then
        echo "run-peers.sh: the suite could not run against ${r%%:*} (exit $status)" >&2
        cat "$work/${r%%:*}.log" >&2
        failed=1
    fi
done
runs=()
[ "$failed" = 0 ] || exit 1

# --- what each server is, and the report ---------------------------------------------
lock_version() { # crate [lockfile]: its version in hyper-echo's Cargo.lock, or the one given
    awk -v n="$1" '$0 == "name = \"" n "\"" { getline; gsub(/version = |"/, ""); print; exit }' \
        "${2:-$here/peers/hyper-echo/Cargo.lock}"
}
nginx_version=$(nginx -v 2>&1 | sed 's/^nginx version: //')
apache_version=$(apache2 -v | sed -n 's/^Server version: //p')
go_version=$(go version | awk '{print $3}')
node_version=$(node --version)
llhttp_version=$(node -p process.versions.llhttp)
python_version=$("$work/venv/bin/python" -c 'import platform; print(platform.python_version())')
h11_installed=$("$work/venv/bin/python" -c 'import h11; print(h11.__version__)')
seconds=$((SECONDS - began))

python3 "$here/peers.py" \
    --run "h1 in process" "$work/inprocess.json" \
    "\`h1-conformance --role server\` without \`--target\`: h1-conn's server role in memory, echo contract (\`src/echo.rs\`)." \
    --run "h1 echo (TCP)" "$work/echo.json" \
    "h1-conn's \`echo\` example over a socket (\`--target ADDR --jobs 4\`; the echo contract is detected)." \
    --run "h1-tokio" "$work/tokio.json" \
    "h1-tokio's \`tokio-axum-echo\` example over a socket: an axum $(lock_version axum "$root/Cargo.lock") \`Router\` whose fallback handler speaks the echo contract, each connection served by \`h1_tokio::serve_connection\` (tokio $(lock_version tokio "$root/Cargo.lock"), current-thread runtime, a task per connection) with \`Config::default()\` but the contract's 1 MiB body limit; \`--jobs 4\`. It echoes the target as sent: the \`Uri\` of an origin-form target, h1-tokio's \`RequestTarget\` for the others (\`http::Uri\` rewrites those)." \
    --run "hyper" "$work/hyper.json" \
    "hyper $(lock_version hyper) on tokio $(lock_version tokio) (current-thread runtime, a task per connection), \`conformance/peers/hyper-echo\` built with \`cargo build --release --locked\`; echo contract, \`--jobs 4\`. hyper keeps no target as received: it echoes its parsed URI." \
    --run "Go" "$work/go.json" \
    "Go's net/http, $go_version (Debian's golang-go), \`conformance/peers/go-echo\` (standard library only); echo contract, \`--jobs 4\`. net/http answers \`OPTIONS *\` itself (no echo fields), and a websocket upgrade is a hijacked connection." \
    --run "Node" "$work/node.json" \
    "Node.js $node_version's \`node:http\` (llhttp $llhttp_version), \`conformance/peers/node-echo.js\` (no npm packages); echo contract, \`--jobs 4\`. Node declines every upgrade (no 'upgrade' listener, see the file); CONNECT gets 501 from the 'connect' listener, which then ends the connection." \
    --run "h11" "$work/h11.json" \
    "h11 $h11_installed (PyPI, pinned) on Python $python_version, \`conformance/peers/h11-echo.py\` (blocking sockets, a thread per connection); echo contract, \`--jobs 4\`." \
    --run "nginx" "$work/nginx.json" \
    "$nginx_version from Debian's packages, one worker, \`location / { return 200 \"ok\\n\"; }\`, default limits; run with \`--echo no\`, so bodies and targets are not checked (nginx cannot echo them) and the cases that need the echo contract are not applicable." \
    --run "Apache" "$work/apache.json" \
    "$apache_version from Debian's packages, one process (\`apache2 -DFOREGROUND -DONE_PROCESS\`, event MPM), a static file for every path (\`FallbackResource\`; GET and POST 200, other methods 405), default limits; run with \`--echo no\`, as nginx." \
    --own 3 \
    --commit "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
    --subset "$subset" --seconds "$seconds" \
    >"$out"
echo "wrote $out ($seconds s)" >&2
