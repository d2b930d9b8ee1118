#!/usr/bin/env bash
# Instructions per parse under callgrind, for each parser, on reference
# inputs (default 2_chrome12).
#
# Builds src/bin/callgrind_parse.rs with RUSTFLAGS="-C target-cpu=x86-64-v3"
# (AVX2 and BMI2 chosen at compile time, the way a tuned server build would)
# into a target dir of its own, so the normal build is left alone.
# picohttpparser is built here with -mno-sse4.2, i.e. its scalar loops:
# valgrind 3.19 cannot decode (v)pcmpestri in the ranges mode that its
# SSE4.2 path uses, and the binary runs picohttpparser in its agreement check
# whatever parser is counted. So its count here is of the scalar build and is
# not comparable with the SSE4.2 build that `cargo bench` times; it is
# printed only when asked for. Each parser runs twice, N1 and N2
# iterations; (Ir(N2) - Ir(N1)) / (N2 - N1) cancels start-up, file reading
# and the agreement check, leaving the instructions of one parse.
#
# Usage: benches/callgrind.sh [parser...]      (h1, httparse, picohttpparser; default h1 httparse)
# Environment: INPUT (file stem, default 2_chrome12; several separated by
#              spaces, or `all` for the five reference inputs and
#              2_chrome12x16), N1 (1000), N2 (2000),
#              CALLGRIND_TARGET_DIR (default <workspace>/target/callgrind),
#              KEEP=1 keeps the callgrind.out files (their directory is printed).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
target_dir=${CALLGRIND_TARGET_DIR:-$root/target/callgrind}
inputs=${INPUT:-2_chrome12}
if [ "$inputs" = all ]; then
    inputs="1_wrk_min 2_chrome12 3_tfb_pipelined16 4_response 5_large40 2_chrome12x16"
fi
n1=${N1:-1000}
n2=${N2:-2000}
if [ "$#" -gt 0 ]; then parsers=("$@"); else parsers=(h1 httparse); fi

if ! command -v valgrind >/dev/null 2>&1; then
    echo "callgrind.sh: valgrind is not installed (apt-get install valgrind)" >&2
    exit 1
fi
if ! [ "$n2" -gt "$n1" ] 2>/dev/null; then
    echo "callgrind.sh: N2 ($n2) must be a number greater than N1 ($n1)" >&2
    exit 2
fi

echo "building callgrind_parse (target-cpu=x86-64-v3) into $target_dir" >&2
(
    cd "$root"
    RUSTFLAGS="-C target-cpu=x86-64-v3" \
    CFLAGS_x86_64_unknown_linux_gnu="-mno-sse4.2" \
    CARGO_TARGET_DIR="$target_dir" \
        cargo build --quiet --release -p h1-benches --bin callgrind_parse
)
bin=$target_dir/release/callgrind_parse

out=$(mktemp -d "${TMPDIR:-/tmp}/h1-callgrind.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then
    echo "callgrind.out files kept in $out" >&2
else
    trap 'rm -rf "$out"' EXIT
fi

# Total instructions (Ir) of one run: the "summary:" line of the out file.
instructions() {
    local parser=$1 n=$2 file=$out/callgrind.$1.$2.out
    if ! valgrind --tool=callgrind --callgrind-out-file="$file" \
        "$bin" "$parser" "$n" "$input" >"$out/run.$parser.$n.log" 2>&1; then
        echo "callgrind.sh: $parser with $n iterations failed:" >&2
        cat "$out/run.$parser.$n.log" >&2
        exit 1
    fi
    awk '/^summary:/ { print $2; found = 1 } END { if (!found) exit 1 }' "$file"
}

for input in $inputs; do
    printf '%s, Ir per parse = (Ir(%d) - Ir(%d)) / %d\n' "$input" "$n2" "$n1" "$((n2 - n1))"
    printf '%-16s %14s %14s %12s\n' parser "Ir($n1)" "Ir($n2)" "Ir/parse"
    for parser in "${parsers[@]}"; do
        i1=$(instructions "$parser" "$n1")
        i2=$(instructions "$parser" "$n2")
        per=$(awk -v a="$i1" -v b="$i2" -v d="$((n2 - n1))" 'BEGIN { printf "%.1f", (b - a) / d }')
        label=$parser
        case $parser in picohttpparser | pico) label="$parser*" ;; esac
        printf '%-16s %14d %14d %12s\n' "$label" "$i1" "$i2" "$per"
    done
done
case " ${parsers[*]} " in
*" picohttpparser "* | *" pico "*)
    echo "* picohttpparser built without SSE4.2 here (valgrind cannot run its pcmpestri); not the benched build" ;;
esac
