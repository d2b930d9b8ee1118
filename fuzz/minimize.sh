#!/usr/bin/env bash
# The campaign's corpus of each target given, minimized and ready to
# commit: every input of fuzz/corpus-work/T (what the campaign found), the
# seeds, the regressions and the committed campaign corpus fuzz/campaign/T,
# named by content (so copies collapse), then `cargo fuzz cmin`: the
# smallest subset with the same coverage, in fuzz/campaign/T.
#
# The replay test runs every committed fuzz/campaign/T input on stable, and
# CI's short fuzzing starts from it.
#
# Usage: bash fuzz/minimize.sh TARGET...
# Needs nightly and cargo-fuzz. Builds as fuzz/campaign.sh does, so a
# campaign's binaries are reused, not rebuilt under it.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"
[ "$#" -gt 0 ] || { echo "usage: minimize.sh TARGET..." >&2; exit 2; }
for t in "$@"; do
    new="campaign/$t.new"
    rm -rf "$new"
    mkdir -p "$new"
    for d in "corpus-work/$t" "corpus/$t" "regressions/$t" "campaign/$t"; do
        [ -d "$d" ] || continue
        find "$d" -maxdepth 1 -type f -print0 | while IFS= read -r -d '' f; do
            cp "$f" "$new/$(sha1sum "$f" | cut -c1-40)"
        done
    done
    before=$(find "$new" -type f | wc -l)
    log="corpus-work/$t.cmin.log"
    mkdir -p corpus-work
    if ! cargo +nightly fuzz cmin "$t" "$new" >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        exit 1
    fi
    rm -rf "campaign/$t"
    mv "$new" "campaign/$t"
    echo "$t: $before inputs -> $(find "campaign/$t" -type f | wc -l) ($(du -sh --apparent-size "campaign/$t" | cut -f1))"
done
