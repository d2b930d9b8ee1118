#!/usr/bin/env bash
# A fuzzing campaign: each target given, one after the other, for SECONDS
# of CPU time, with the HTTP dictionary, over its work corpus
# (fuzz/corpus-work/T, where new inputs go), the committed seeds and its
# regressions. Prints a line per target (CPU and wall seconds, executions,
# new inputs, peak RSS) and keeps libFuzzer's log in
# fuzz/corpus-work/T.campaign.log. Stops at the first crash (the input is in
# fuzz/artifacts/T/).
#
# The budget is CPU time, not wall time: on a machine shared with other
# work (or run under `nice`, to use only idle cores) a target still gets
# the fuzzing it was given. A leg is also stopped after 20 times SECONDS of
# wall time, so it always ends; its line then shows the CPU time it had.
#
# Usage: bash fuzz/campaign.sh SECONDS TARGET...
# Needs nightly and cargo-fuzz. Run two at once on a two-core machine at
# most; each libFuzzer process uses one core.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"
seconds=${1:?usage: campaign.sh SECONDS TARGET...}
shift
[ "$#" -gt 0 ] || { echo "usage: campaign.sh SECONDS TARGET..." >&2; exit 2; }
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

for t in "$@"; do
    mkdir -p "corpus-work/$t" "artifacts/$t"
    dirs=("corpus-work/$t" "corpus/$t")
    [ -d "regressions/$t" ] && dirs+=("regressions/$t")
    log="corpus-work/$t.campaign.log"
    start=$(date -u +%FT%TZ)
    began=$(date +%s)
    commit=$(git -C "$here" rev-parse --short HEAD)
    "$bin/$t" "${dirs[@]}" -artifact_prefix="artifacts/$t/" \
        -max_total_time=$((seconds * 20)) -timeout=10 -rss_limit_mb=4096 \
        -print_final_stats=1 -dict=http.dict >"$log" 2>&1 &
    pid=$!
    used=0
    while kill -0 "$pid" 2>/dev/null; do
        used=$(cpu_seconds "$pid")
        if [ "$used" -ge "$seconds" ]; then
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
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    added=$(sed -n 's/^stat::new_units_added: *//p' "$log")
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
    echo "$t: ${used} CPU s (${wall} s wall) from $start at $commit: ${execs:-?} executions, ${added:-?} new inputs, peak RSS ${rss:-?} MB, exit $status"
    if [ "$status" != 0 ]; then
        tail -n 60 "$log" >&2
        exit 1
    fi
done
