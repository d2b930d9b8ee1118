#!/usr/bin/env python3
"""Writes PEERS.md (to stdout) from the JSON reports of run-peers.sh."""
import argparse
import datetime
import json

ap = argparse.ArgumentParser()
ap.add_argument("--inprocess", required=True)
ap.add_argument("--echo", required=True)
ap.add_argument("--nginx", required=True)
ap.add_argument("--nginx-version", required=True)
ap.add_argument("--commit", required=True)
a = ap.parse_args()

runs = {}
for name, path in (("h1 in process", a.inprocess), ("h1 echo (TCP)", a.echo), ("nginx", a.nginx)):
    with open(path) as f:
        runs[name] = json.load(f)
names = list(runs)
by_id = {n: {c["id"]: c for c in r["cases"]} for n, r in runs.items()}
first = runs[names[0]]


def cell(t):
    s = f"{t['pass']}"
    if t["fail"]:
        s += f" / **{t['fail']} fail**"
    if t["deviation"]:
        s += f" / {t['deviation']} dev"
    if t["not_applicable"]:
        s += f" / {t['not_applicable']} n/a"
    return s


out = []
w = out.append
w("# The suite against other servers")
w("")
w(f"Made by `conformance/run-peers.sh` on {datetime.date.today().isoformat()} (h1 at `{a.commit}`). "
  f"Each server gets every case on a fresh loopback connection; cells are "
  f"passed / failed / declared deviations / not applicable.")
w("")
w("- **h1 in process**: `cargo run --release -p h1-conformance` (h1-conn's server role, echo contract).")
w("- **h1 echo (TCP)**: h1-conn's `echo` example over a socket, "
  "`--target ADDR` (the echo contract is detected).")
w(f"- **nginx**: {a.nginx_version} from Debian's packages, one worker, "
  "`location / { return 200 \"ok\\n\"; }`, default limits; run with `--echo no`, so bodies "
  "and targets are not checked (nginx cannot echo them) and the cases that need the echo "
  "contract are not applicable.")
w("")
w("## Totals")
w("")
w("| | " + " | ".join(names) + " |")
w("|---|" + "---:|" * len(names))
levels = ["MUST", "SHOULD", "MAY"]
for lv in levels:
    w(f"| {lv} | " + " | ".join(cell(runs[n]["levels"].get(lv, {"pass": 0, "fail": 0, "deviation": 0, "not_applicable": 0})) for n in names) + " |")
w("| **all** | " + " | ".join(cell(runs[n]["total"]) for n in names) + " |")
w("")
w("## By section")
w("")
w("| section | title | " + " | ".join(names) + " |")
w("|---|---|" + "---:|" * len(names))
sections = [s["section"] for s in first["sections"]]
for sec in sections:
    title = next((s.get("title") or "" for s in first["sections"] if s["section"] == sec), "")
    cells = []
    for n in names:
        t = next((s for s in runs[n]["sections"] if s["section"] == sec), None)
        cells.append(cell(t) if t else "")
    w(f"| {sec} | {title} | " + " | ".join(cells) + " |")
w("")

# Differences: cases where nginx's verdict differs from h1's (in process).
h1 = by_id[names[0]]
ng = by_id["nginx"]
ec = by_id[names[1]]
same_echo = [i for i in h1 if h1[i]["verdict"] == ec.get(i, {}).get("verdict")]
w("## h1 over TCP against h1 in process")
w("")
w(f"{len(same_echo)} of {len(h1)} cases have the same verdict.")
diff_echo = [i for i in h1 if i not in same_echo]
for i in diff_echo:
    w(f"- `{i}`: in process {h1[i]['verdict']}, over TCP {ec[i]['verdict']}: {ec[i]['reason']}")
w("")
w("## Notable differences: where nginx fails")
w("")
fails = [c for c in ng.values() if c["verdict"] == "fail"]
order = {lv: k for k, lv in enumerate(levels)}
fails.sort(key=lambda c: (order[c["level"]], c["section"], c["id"]))
if not fails:
    w("nginx fails no case.")
else:
    w(f"{len(fails)} cases; grouped by level. `got` is what nginx answered.")
    w("")
    for lv in levels:
        group = [c for c in fails if c["level"] == lv]
        if not group:
            continue
        w(f"### {lv} ({len(group)})")
        w("")
        w("| case | section | sent | expected | got |")
        w("|---|---|---|---|---|")
        for c in group:
            sent = c["sent"]
            if len(sent) > 120:
                sent = sent[:117] + "..."
            esc = lambda s: s.replace("|", "\\|").replace("`", "'")
            w(f"| `{c['id']}` | {c['section']} | `{esc(sent)}` | {esc(c['expected'])} | {esc(c['reason'] or c['got'])} |")
        w("")
print("\n".join(out))
