#!/usr/bin/env bash
# A fuzzing campaign: each target given, one after the other, for SECONDS,
# with the HTTP dictionary, over its work corpus (fuzz/corpus-work/T, where
# new inputs go), the committed seeds and its regressions. Prints a line per
# target (executions, new inputs, peak RSS) and keeps libFuzzer's log in
# fuzz/corpus-work/T.campaign.log. Stops at the first crash (the input is in
# fuzz/artifacts/T/).
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
for t in "$@"; do
    mkdir -p "corpus-work/$t"
    dirs=("corpus-work/$t" "corpus/$t")
    [ -d "regressions/$t" ] && dirs+=("regressions/$t")
    log="corpus-work/$t.campaign.log"
    start=$(date -u +%FT%TZ)
    commit=$(git -C "$here" rev-parse --short HEAD)
    status=0
    cargo +nightly fuzz run "$t" "${dirs[@]}" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
        -dict=http.dict >"$log" 2>&1 || status=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    added=$(sed -n 's/^stat::new_units_added: *//p' "$log")
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
    echo "$t: ${seconds} s from $start at $commit: ${execs:-?} executions, ${added:-?} new inputs, peak RSS ${rss:-?} MB, exit $status"
    if [ "$status" != 0 ]; then
        tail -n 60 "$log" >&2
        exit 1
    fi
done
