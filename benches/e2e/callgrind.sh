#!/usr/bin/env bash
# Instructions a running server executes per request (user space), counted
# by callgrind: the server runs under valgrind twice, answering N and then
# 2N requests from h2load, and (Ir(2N) - Ir(N)) / N cancels start-up, the
# connections' setup and shutdown. The counts repeat to a few instructions.
#
# Usage: benches/e2e/callgrind.sh [server...]   (h1, h1-tokio, h1-tokio-http,
#        hyper, floor, tokio-floor, axum-hyper, axum-h1, axum-floor;
#        default h1 and hyper). `h1-tokio` is h1-tokio's `tokio-hello` (its
#        raw handler API), `h1-tokio-http` the same with `--http` (a service
#        over the `http` types); `floor` is benches/e2e/floor-hello: the same
#        loop as h1's hello with no HTTP work, the floor under both;
#        `tokio-floor` (floor-hello's second binary) the same work on tokio,
#        a task per connection, the floor under h1-tokio and hyper.
#        `axum-hyper` and `axum-h1` are benches/e2e/axum-pair: one axum
#        Router served by hyper (pipeline_flush on) and by
#        h1_tokio::serve_connection; `axum-floor` (axum-pair's third binary)
#        the floor under both: the same Router given, for each head found by
#        its CR LF CR LF, a Request built from constants (REQ's fields, no
#        parsing), its answer awaited and drained, fixed bytes written back.
# Environment: N (default 20000 requests), MODES ("-m16 -m1": h2load's
#              requests in flight per connection), C (connections, 16),
#              REQ (the request's shape, always GET /plaintext):
#                h2load   (default) h2load's own head: the request line,
#                         Host and user-agent;
#                browser  the 12 header fields of
#                         testdata/inputs/2_chrome12.http (a Chrome page
#                         load: Host, Connection, sec-ch-ua..., Cookie),
#                         passed as h2load -H options; its Host goes as
#                         `:authority`, which h2load sends as its one Host
#                         field, and its User-Agent replaces h2load's, so
#                         the head has those 12 fields and no others;
#              KEEP (a directory: keep each run's callgrind output there as
#                callgrind.SERVER.MODE.REQ.REQUESTS.out, for
#                callgrind_annotate).
#
# Builds h1-conn's `hello` with RUSTFLAGS="-C target-cpu=x86-64-v3" (valgrind
# 3.19 cannot decode AVX-512; h1-parse then runs its AVX2 path) into
# target/callgrind, and benches/e2e/hyper-hello, floor-hello and axum-pair
# the same way.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
n=${N:-20000}
modes=${MODES:-"-m16 -m1"}
conns=${C:-16}
req=${REQ:-h2load}
keep=${KEEP:-}
if [ "$#" -gt 0 ]; then servers=("$@"); else servers=(h1 hyper); fi
for tool in valgrind h2load; do
    command -v "$tool" >/dev/null || { echo "callgrind.sh: $tool is not installed" >&2; exit 1; }
done

# h2load's -H options for REQ.
headers=()
case $req in
h2load) ;;
browser)
    while IFS= read -r line; do
        line=${line%$'\r'}
        [ -z "$line" ] && break
        name=${line%%:*}
        if [ "${name,,}" = host ]; then
            headers+=(-H ":authority:${line#*:}")
        else
            headers+=(-H "$line")
        fi
    done < <(tail -n +2 "$root/testdata/inputs/2_chrome12.http")
    ;;
*) echo "callgrind.sh: unknown REQ=$req (h2load, browser)" >&2; exit 2 ;;
esac
if [ -n "$keep" ]; then mkdir -p "$keep"; fi

target=$root/target/callgrind
echo "building (target-cpu=x86-64-v3) into $target" >&2
(cd "$root" && RUSTFLAGS="-C target-cpu=x86-64-v3" CARGO_TARGET_DIR="$target" \
    cargo build --quiet --release -p h1-conn --example hello -p h1-tokio --example tokio-hello)
(cd "$here/hyper-hello" && RUSTFLAGS="-C target-cpu=x86-64-v3" CARGO_TARGET_DIR="$target/hyper-hello" \
    cargo build --quiet --release)
(cd "$here/floor-hello" && RUSTFLAGS="-C target-cpu=x86-64-v3" CARGO_TARGET_DIR="$target/floor-hello" \
    cargo build --quiet --release)
(cd "$here/axum-pair" && RUSTFLAGS="-C target-cpu=x86-64-v3" CARGO_TARGET_DIR="$target/axum-pair" \
    cargo build --quiet --release)

binary() {
    case $1 in
    h1) echo "$target/release/examples/hello" ;;
    h1-tokio) echo "$target/release/examples/tokio-hello" ;;
    h1-tokio-http) echo "$target/release/examples/tokio-hello --http" ;;
    hyper) echo "$target/hyper-hello/release/hyper-hello" ;;
    floor) echo "$target/floor-hello/release/floor-hello" ;;
    tokio-floor) echo "$target/floor-hello/release/tokio-floor" ;;
    axum-hyper) echo "$target/axum-pair/release/axum-hyper" ;;
    axum-h1) echo "$target/axum-pair/release/axum-h1" ;;
    axum-floor) echo "$target/axum-pair/release/axum-floor --fields $req" ;;
    *) echo "callgrind.sh: unknown server $1 (h1, h1-tokio, h1-tokio-http, hyper, floor, tokio-floor, axum-hyper, axum-h1, axum-floor)" >&2; exit 2 ;;
    esac
}

out=$(mktemp -d "${TMPDIR:-/tmp}/e2e-callgrind.XXXXXX")
trap 'rm -rf "$out"' EXIT

# Ir of one run of server $1 answering $2 requests with h2load mode $3.
run() {
    local bin file log pid addr
    bin=$(binary "$1")
    file=$out/callgrind.$1.$2.out
    # A log of its own: the background job truncates its file only once it
    # runs, so a shared one could still show the last server's address.
    log=$out/server.$1.$2.${3#-}.log
    # $bin may carry arguments (h1-tokio-http, axum-floor): split on purpose.
    # shellcheck disable=SC2086
    valgrind --tool=callgrind --callgrind-out-file="$file" $bin --addr 127.0.0.1:0 >"$log" 2>&1 &
    pid=$!
    for _ in $(seq 600); do
        addr=$(sed -n 's/^listening on //p' "$log" 2>/dev/null)
        [ -n "$addr" ] && break
        sleep 0.1
    done
    if [ -z "$addr" ]; then
        kill "$pid" 2>/dev/null || true
        echo "callgrind.sh: $1 did not start under valgrind:" >&2
        cat "$log" >&2
        exit 1
    fi
    h2load --h1 $3 -c "$conns" -n "$2" ${headers[@]+"${headers[@]}"} "http://$addr/plaintext" >"$out/h2load.log"
    if ! grep -q " $2 succeeded" "$out/h2load.log"; then
        kill "$pid" 2>/dev/null || true
        echo "callgrind.sh: not every request succeeded:" >&2
        cat "$out/h2load.log" >&2
        exit 1
    fi
    # SIGTERM: a background job of a script ignores SIGINT. valgrind
    # writes the profile when the program dies of it.
    kill -TERM "$pid"
    wait "$pid" || true
    if [ -n "$keep" ]; then cp "$file" "$keep/callgrind.$1.${3#-}.$req.$2.out"; fi
    awk '/^summary:/ { print $2; found = 1 } END { if (!found) exit 1 }' "$file"
}

echo "requests: GET /plaintext, REQ=$req" >&2
printf '%-13s %-5s %14s %14s %12s\n' server mode "Ir($n)" "Ir($((2 * n)))" "Ir/request"
for mode in $modes; do
    for server in "${servers[@]}"; do
        i1=$(run "$server" "$n" "$mode")
        i2=$(run "$server" "$((2 * n))" "$mode")
        per=$(awk -v a="$i1" -v b="$i2" -v d="$n" 'BEGIN { printf "%.0f", (b - a) / d }')
        printf '%-13s %-5s %14d %14d %12s\n' "$server" "$mode" "$i1" "$i2" "$per"
    done
done
