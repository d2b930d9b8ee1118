#!/usr/bin/env bash
# Line coverage of the library crates reached by the fuzz targets: every
# target run over its committed corpora (the seeds, and the campaign's in
# fuzz/campaign/ when there is one), its regressions and any work corpus
# given (cargo fuzz coverage), the profiles merged, and llvm-cov's report
# summed per crate.
#
# Usage: bash fuzz/coverage.sh [WORK_DIR...]
#   WORK_DIR: directories holding more inputs per target (WORK_DIR/<target>/),
#   e.g. fuzz/corpus-work. Without one, only committed inputs count, so a
#   clone measures the same figure (the campaign corpora are minimized to
#   keep every edge of the work corpora they came from).
# Needs nightly, cargo-fuzz and the llvm-tools component
# (`rustup component add llvm-tools --toolchain nightly`), python3.
# Writes fuzz/coverage/ (ignored) and prints a table.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Work directories are named from where the script is called; it runs in fuzz/.
work=()
for w in "$@"; do
    [ -d "$w" ] || { echo "coverage.sh: no directory $w" >&2; exit 2; }
    work+=("$(cd "$w" && pwd)")
done
cd "$here"
tools="$(rustc +nightly --print sysroot)/lib/rustlib/x86_64-unknown-linux-gnu/bin"
[ -x "$tools/llvm-cov" ] || {
    echo "coverage.sh: no llvm-cov in $tools: rustup component add llvm-tools --toolchain nightly" >&2
    exit 1
}
targets=$(sed -n '/^\[\[bin\]\]/,/^path/s/^name = "\(.*\)"$/\1/p' Cargo.toml)
bin=target/x86_64-unknown-linux-gnu/coverage/x86_64-unknown-linux-gnu/release
objects=()
mkdir -p coverage
for t in $targets; do
    dirs=("corpus/$t")
    [ -d "regressions/$t" ] && dirs+=("regressions/$t")
    [ -d "campaign/$t" ] && dirs+=("campaign/$t")
    for w in "${work[@]}"; do
        [ -d "$w/$t" ] && dirs+=("$w/$t")
    done
    echo "coverage: $t over ${dirs[*]}" >&2
    cargo +nightly fuzz coverage "$t" "${dirs[@]}" >"coverage/$t.log" 2>&1
    objects+=(-object "$bin/$t")
done
"$tools/llvm-profdata" merge -sparse coverage/*/coverage.profdata -o coverage/all.profdata
# The first -object is given without the flag.
"$tools/llvm-cov" report "${objects[@]:1}" -instr-profile=coverage/all.profdata \
    --ignore-filename-regex='(\.cargo/registry|/rustc/|/fuzz/)' >coverage/report.txt
python3 - coverage/report.txt <<'EOF'
import sys, collections
lines = collections.defaultdict(lambda: [0, 0])
for row in open(sys.argv[1]):
    p = row.split()
    if len(p) >= 10 and p[0].endswith(".rs"):
        crate = p[0].split("/")[0]
        lines[crate][0] += int(p[7])
        lines[crate][1] += int(p[8])
print("| crate | lines | covered | line coverage |")
print("|---|---:|---:|---:|")
for crate, (total, missed) in sorted(lines.items()):
    print(f"| {crate} | {total} | {total - missed} | {100 * (total - missed) / total:.1f} % |")
EOF
echo "per file: fuzz/coverage/report.txt" >&2
