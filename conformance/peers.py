#!/usr/bin/env python3
"""Writes PEERS.md (to stdout) from the JSON reports of run-peers.sh.

Each run is given as --run NAME REPORT ABOUT: the column's name, the JSON
report (`h1-conformance --format json`) and one line on what the server is
and how it was run. The first --own runs (default 2) are h1's: h1 in
process first, then h1's servers over TCP (its echo example, and an app on
h1-tokio), each compared with h1 in process; the rest are the peers, whose
majority "Where servers disagree" compares h1 with.
"""
import argparse
import datetime
import json

ap = argparse.ArgumentParser()
ap.add_argument("--run", nargs=3, action="append", required=True, metavar=("NAME", "REPORT", "ABOUT"))
ap.add_argument("--own", type=int, default=2, help="how many of the first runs are h1's own")
ap.add_argument("--commit", required=True)
ap.add_argument("--subset", default="", help="the cases run, when not all (quick mode)")
ap.add_argument("--seconds", type=int, default=0, help="how long the script took")
a = ap.parse_args()

runs = {}
about = {}
for name, path, text in a.run:
    with open(path) as f:
        runs[name] = json.load(f)
    about[name] = text
names = list(runs)
if not 2 <= a.own < len(names):
    ap.error("--own must leave h1 in process, one more of h1's runs and one peer")
h1_name, over_tcp, peers = names[0], names[1 : a.own], names[a.own :]
by_id = {n: {c["id"]: c for c in r["cases"]} for n, r in runs.items()}
first = runs[h1_name]
levels = ["MUST", "SHOULD", "MAY"]
order = {lv: k for k, lv in enumerate(levels)}


def cell(t):
    s = f"{t['pass']}"
    if t["fail"]:
        s += f" / **{t['fail']} fail**"
    if t["deviation"]:
        s += f" / {t['deviation']} dev"
    if t["not_applicable"]:
        s += f" / {t['not_applicable']} n/a"
    return s


def esc(s):
    return s.replace("|", "\\|").replace("`", "'").replace("\n", " ")


def short(s, n):
    return s if len(s) <= n else s[: n - 1] + "…"


def outcome(c):
    """pass or fail (a declared deviation is a failure h1 owns up to), or
    None when the case was not judged (n/a)."""
    if c is None or c["verdict"] == "n/a":
        return None
    return "pass" if c["verdict"] == "pass" else "fail"


out = []
w = out.append
w("# The suite against other servers")
w("")
took = f" in {a.seconds // 60} min {a.seconds % 60} s" if a.seconds else ""
w(f"Made by `conformance/run-peers.sh` on {datetime.date.today().isoformat()} (h1 at `{a.commit}`){took}. "
  "Each server gets every case on a fresh loopback connection; cells are "
  "passed / failed / declared deviations / not applicable.")
if a.subset:
    w("")
    w(f"**Quick mode**: only {a.subset}.")
w("")
for n in names:
    w(f"- **{n}**: {about[n]}")
w("")
w("The peers with the echo contract (hyper, Go, Node, h11) are small servers in "
  "`conformance/peers/`, each written as a user of its library writes one: they read the "
  "whole body as the library delivers it and answer as the contract says; what the library "
  "refuses, it answers itself. Cases marked *requires echo* check the contract's own "
  "policies, among them h1's exact limits (target 8192 octets, field line 8192, 100 field "
  "lines, body 1 MiB, chunk-size line 4096): a peer is set to those only where its library "
  "has a setting for them (see each server's header comment), so its verdicts there say "
  "how its limits differ from h1's more than how it reads the RFC.")
w("")
w("## Totals")
w("")
w("| | " + " | ".join(names) + " |")
w("|---|" + "---:|" * len(names))
zero = {"pass": 0, "fail": 0, "deviation": 0, "not_applicable": 0}
for lv in levels:
    w(f"| {lv} | " + " | ".join(cell(runs[n]["levels"].get(lv, zero)) for n in names) + " |")
w("| **all** | " + " | ".join(cell(runs[n]["total"]) for n in names) + " |")
w("")
w("## By section")
w("")
w("| section | title | " + " | ".join(names) + " |")
w("|---|---|" + "---:|" * len(names))
for s in first["sections"]:
    cells = []
    for n in names:
        t = next((x for x in runs[n]["sections"] if x["section"] == s["section"]), None)
        cells.append(cell(t) if t else "")
    w(f"| {s['section']} | {s.get('title') or ''} | " + " | ".join(cells) + " |")
w("")

# Where h1 (in process) and the majority of the peers that judged a case
# (not n/a) reach different verdicts.
h1 = by_id[h1_name]
disagree = []
even = []
for cid, c in h1.items():
    mine = outcome(c)
    theirs = {p: outcome(by_id[p].get(cid)) for p in peers}
    judged = [v for v in theirs.values() if v is not None]
    if mine is None or not judged:
        continue
    other = sum(1 for v in judged if v != mine)
    if 2 * other > len(judged):
        disagree.append((c, theirs))
    elif 2 * other == len(judged):
        even.append(cid)
disagree.sort(key=lambda ct: (order[ct[0]["level"]], ct[0]["section"], ct[0]["id"]))
w("## Where servers disagree")
w("")
h1_pass = sum(1 for c, _ in disagree if outcome(c) == "pass")
w(f"{len(disagree)} cases in which h1's verdict (in process) differs from that of most of the "
  f"peers that judged the case ({', '.join(peers)}; not applicable ones left out): "
  f"{h1_pass} that h1 passes and most peers fail, {len(disagree) - h1_pass} that h1 fails "
  "(or declares a deviation on) and most peers pass. A dagger marks a case that requires the "
  "echo contract.")
if even:
    w(f"The peers split evenly on {len(even)} more: {', '.join(f'`{i}`' for i in even)}.")
w("")
if disagree:
    w("| case | level | section | h1 | " + " | ".join(peers) + " | sentence |")
    w("|---|---|---|---|" + "---|" * len(peers) + "---|")
    for c, theirs in disagree:
        mark = " †" if c.get("requires") == "echo" else ""
        verdicts = [theirs[p] or "n/a" for p in peers]
        w(f"| `{c['id']}`{mark} | {c['level']} | {c['section']} | {c['verdict']} | "
          + " | ".join(verdicts)
          + f" | {esc(short(c['sentence'], 400))} |")
    w("")

for k, name in enumerate(over_tcp):
    ec = by_id[name]
    same = [i for i in h1 if h1[i]["verdict"] == ec.get(i, {}).get("verdict")]
    # The echo example's section keeps its title; later ones are named.
    w("## h1 over TCP against h1 in process" if k == 0 else f"## {name} against h1 in process")
    w("")
    w(f"{len(same)} of {len(h1)} cases have the same verdict.")
    for i in h1:
        if i not in same:
            e = ec.get(i)
            where = "over TCP" if k == 0 else name
            w(f"- `{i}` ({h1[i]['level']}): in process {h1[i]['verdict']}, {where} "
              f"{e['verdict'] if e else 'not run'}: {(e or {}).get('reason') or (e or {}).get('got')}")
    w("")


def failures(name):
    """The notable differences: every failure of a server without the echo
    contract, grouped by level, with what it answered."""
    fails = [c for c in by_id[name].values() if c["verdict"] == "fail"]
    fails.sort(key=lambda c: (order[c["level"]], c["section"], c["id"]))
    w(f"## Notable differences: where {name} fails")
    w("")
    if not fails:
        w(f"{name} fails no case.")
        w("")
        return
    w(f"{len(fails)} cases; grouped by level. `got` is what {name} answered.")
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
            w(f"| `{c['id']}` | {c['section']} | `{esc(short(c['sent'], 120))}` | "
              f"{esc(c['expected'])} | {esc(c['reason'] or c['got'])} |")
        w("")


for n in peers:
    if runs[n]["against"].endswith("(no echo contract)"):
        failures(n)
print("\n".join(out).rstrip("\n"))
