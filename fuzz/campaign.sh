#!/usr/bin/env bash
# A fuzzing campaign: each target given, one after the other, until it has
# had SECONDS of CPU time on the code it is built from now, with the HTTP
# dictionary, over its work corpus (fuzz/corpus-work/T, where new inputs
# go), the committed seeds, its regressions and the minimized corpus of
# earlier campaigns (fuzz/campaign/T, see minimize.sh). Stops at the first
# crash (the input is in fuzz/artifacts/T/).
#
# The budget is CPU time, not wall time: on a machine shared with other
# work (or run under `nice`, to use only idle cores) a target still gets
# the fuzzing it was given. A run is also stopped after 20 times its
# remaining budget in wall time, so it always ends.
#
# A campaign may be cut short (a machine that stops, a session that ends)
# and resumed with the same command. Each run keeps its CPU seconds and
# executions, updated every few seconds, in fuzz/corpus-work/T.runs/,
# under the SHA-256 of the fuzz binary: runs of the same binary add up,
# so a budget counts only fuzzing of the code as it is now, and a change
# to what the target compiles starts the count again. A test-only change
# leaves the binary, and so the count, as it was.
#
# Prints a line per target: the CPU and wall seconds and executions of
# this run, the totals over every run of this binary, the number of runs
# and the size of the work corpus. libFuzzer's log of the latest run is
# fuzz/corpus-work/T.campaign.log.
#
# Usage: bash fuzz/campaign.sh SECONDS TARGET...
#        bash fuzz/campaign.sh --report TARGET...   (totals only, no fuzzing)
#        bash fuzz/campaign.sh --table TARGET...    (the totals as Markdown rows)
# Needs nightly and cargo-fuzz. Run two at once on a two-core machine at
# most; each libFuzzer process uses one core. Linux only (reads /proc).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"
usage="usage: campaign.sh SECONDS TARGET... | campaign.sh --report|--table TARGET..."
seconds=${1:?$usage}
shift
[ "$#" -gt 0 ] || { echo "$usage" >&2; exit 2; }
report_only=false
if [ "$seconds" = --report ] || [ "$seconds" = --table ]; then
    report_only=true
    [ "$seconds" = --table ] && printf '%s\n' \
        '| target | CPU s | executions | runs | runs started at | work corpus | campaign corpus |' \
        '|---|---:|---:|---:|---|---:|---:|'
elif ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
    echo "$usage" >&2
    exit 2
fi
for t in "$@"; do
    if ! out=$(cargo +nightly fuzz build "$t" 2>&1); then
        echo "$out" >&2
        exit 1
    fi
done
bin=target/x86_64-unknown-linux-gnu/release
ticks=$(getconf CLK_TCK)

# CPU seconds (user + system) the process PID has used so far.
cpu_seconds() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
    # Fields after the command name (which may hold spaces): utime is the
    # 12th, stime the 13th.
    set -- ${stat##*) }
    echo $(((${12} + ${13}) / ticks))
}

# Executions so far in libFuzzer log LOG: its final count when it printed
# one, else the count of its latest status line ("#N<TAB>...").
executions() {
    local n
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1")
    if [ -z "$n" ]; then
        n=$(tail -c 65536 "$1" | tr '\r' '\n' | sed -n 's/^#\([0-9][0-9]*\)\t.*/\1/p' | tail -n 1)
    fi
    echo "${n:-0}"
}

# N with its thousands grouped by commas (1234567 -> 1,234,567).
group() {
    echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'
}

# Totals over the runs of binary KEY in directory RUNS: "CPU EXECS RUNS".
totals() {
    cat "$2"/*.run 2>/dev/null | awk -v k="$1" \
        '$1 == k { c += $2; e += $3; n++ } END { printf "%d %d %d\n", c, e, n }'
}

for t in "$@"; do
    runs="corpus-work/$t.runs"
    mkdir -p "corpus-work/$t" "artifacts/$t" "$runs"
    key=$(sha256sum "$bin/$t" | cut -c1-16)
    commit=$(git -C "$here" rev-parse --short HEAD)
    read -r cpu_before execs_before runs_before < <(totals "$key" "$runs")
    if $report_only; then
        at=$(cat "$runs"/*.run 2>/dev/null | awk -v k="$key" '$1 == k { print $4 }' | sort -u | paste -sd, -) || true
        inputs=$(find "corpus-work/$t" -type f | wc -l)
        if [ "$seconds" = --table ]; then
            # The committed, minimized corpus (fuzz/minimize.sh), if any.
            kept=none
            [ -d "campaign/$t" ] && kept=$(find "campaign/$t" -type f | wc -l)
            echo "| \`$t\` | $(group "$cpu_before") | $(group "$execs_before") | $runs_before | ${at:-none} | $(group "$inputs") | $(group "$kept") |"
        else
            echo "$t: ${cpu_before} CPU s, ${execs_before} executions in ${runs_before} runs of binary ${key} (runs started at ${at:-none}), work corpus $inputs inputs"
        fi
        continue
    fi
    left=$((seconds - cpu_before))
    if [ "$left" -le 0 ]; then
        echo "$t: done before, ${cpu_before} CPU s, ${execs_before} executions in ${runs_before} runs of binary ${key}"
        continue
    fi
    dirs=("corpus-work/$t" "corpus/$t")
    [ -d "regressions/$t" ] && dirs+=("regressions/$t")
    [ -d "campaign/$t" ] && dirs+=("campaign/$t")
    log="corpus-work/$t.campaign.log"
    start=$(date -u +%FT%TZ)
    run="$runs/$start-$$.run"
    began=$(date +%s)
    "$bin/$t" "${dirs[@]}" -artifact_prefix="artifacts/$t/" \
        -max_total_time=$((left * 20)) -timeout=10 -rss_limit_mb=4096 \
        -print_final_stats=1 -dict=http.dict >"$log" 2>&1 &
    pid=$!
    used=0
    while kill -0 "$pid" 2>/dev/null; do
        used=$(cpu_seconds "$pid")
        echo "$key $used $(executions "$log") $commit $start" >"$run"
        if [ "$used" -ge "$left" ]; then
            # libFuzzer prints its final stats on SIGINT and exits with 72.
            kill -INT "$pid"
            break
        fi
        sleep 5
    done
    status=0
    wait "$pid" || status=$?
    [ "$status" = 72 ] && status=0
    wall=$(($(date +%s) - began))
    execs=$(executions "$log")
    echo "$key $used $execs $commit $start" >"$run"
    read -r cpu_total execs_total runs_total < <(totals "$key" "$runs")
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
    echo "$t: ${used} CPU s (${wall} s wall) from $start at $commit: ${execs} executions, peak RSS ${rss:-?} MB, exit $status; binary ${key}: ${cpu_total} CPU s, ${execs_total} executions in ${runs_total} runs; work corpus $(find "corpus-work/$t" -type f | wc -l) inputs"
    if [ "$status" != 0 ]; then
        tail -n 60 "$log" >&2
        exit 1
    fi
done
