#!/usr/bin/env python3
"""End to end: what a request costs a server, h1's beside hyper's.

    python3 benches/e2e/e2e.py [--rounds 9] [--window 3] [--modes keepalive,pipelined,tfb]
                               [--pair hello|axum] [--req h2load|browser]
                               [--server NAME=COMMAND ...] [--markdown FILE]

Builds and starts each server of a pair, checks that they answer alike
(status, body, framing), then measures them in interleaved windows: the
server pinned to core 0, the load generator to core 1, each round running
every server back to back in the same mode (the order reversed every other
round), so the machine's other load falls on all of them. Per window it reads
the server's CPU time from /proc (user and system apart) and the requests the
load generator completed.

Pairs (--pair):
  hello   (default) `benches/e2e/hyper-hello`, hyper 1.x on tokio
          current_thread (the baseline), h1-conn's `hello` example and
          h1-tokio's `tokio-hello`; checked alike on GET /plaintext (one and
          two pipelined) and a 404
  axum    `benches/e2e/axum-pair`: one axum Router served by hyper,
          `axum-hyper` (the baseline), and by h1_tokio::serve, `axum-h1`;
          checked alike on every route (plaintext, json,
          user/{id}, a 400, echo, a 404, a 405, two pipelined), Content-Type
          and Allow included

Modes:
  keepalive   h2load --h1 -m 1 -c 16     one request in flight per connection
  pipelined   h2load --h1 -m 16 -c 16    sixteen in flight per connection
  tfb         wrk -c 16 with sixteen requests in every write (TechEmpower's
              pipelined plaintext)

The report, per mode: each server's CPU per request (user, system, total, in
microseconds; the median over the rounds) and requests per second, and the
median of the per-round ratios of CPU per request to the first server's
baseline (hyper, or axum-hyper). Needs h2load (Debian's nghttp2-client), wrk,
taskset and two cores; loopback only. Exit status 1 when a server does not
answer as the others do.
"""

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))

# name -> (build command, server command); the server takes --addr and
# prints "listening on ADDR".
DEFAULT_SERVERS = {
    "hyper": (
        ["cargo", "build", "--quiet", "--release", "--manifest-path",
         os.path.join(HERE, "hyper-hello", "Cargo.toml")],
        [os.path.join(HERE, "hyper-hello", "target", "release", "hyper-hello")],
    ),
    "h1": (
        ["cargo", "build", "--quiet", "--release", "-p", "h1-conn", "--example", "hello"],
        [os.path.join(TARGET, "release", "examples", "hello")],
    ),
    "h1-tokio": (
        ["cargo", "build", "--quiet", "--release", "-p", "h1-tokio", "--example", "tokio-hello"],
        [os.path.join(TARGET, "release", "examples", "tokio-hello")],
    ),
}

AXUM_PAIR = os.path.join(HERE, "axum-pair")
AXUM_TARGET = os.path.join(TARGET, "axum-pair")
AXUM_SERVERS = {
    "axum-hyper": (
        ["cargo", "build", "--quiet", "--release", "--manifest-path",
         os.path.join(AXUM_PAIR, "Cargo.toml"), "--target-dir", AXUM_TARGET],
        [os.path.join(AXUM_TARGET, "release", "axum-hyper")],
    ),
    "axum-h1": (
        # The same build makes both binaries.
        None,
        [os.path.join(AXUM_TARGET, "release", "axum-h1")],
    ),
}

PATH = "/plaintext"

# The probes each pair's servers must answer alike: (request, answers).
HELLO_GET = f"GET {PATH} HTTP/1.1\r\nHost: e2e\r\n\r\n".encode()
HELLO_PROBES = [
    (HELLO_GET, 1),
    (HELLO_GET * 2, 2),
    (b"GET /nothing HTTP/1.1\r\nHost: e2e\r\n\r\n", 1),
]
AXUM_PROBES = HELLO_PROBES + [
    (b"GET /json HTTP/1.1\r\nHost: e2e\r\n\r\n", 1),
    (b"GET /user/42 HTTP/1.1\r\nHost: e2e\r\n\r\n", 1),
    (b"GET /user/abc HTTP/1.1\r\nHost: e2e\r\n\r\n", 1),
    (b"POST /echo HTTP/1.1\r\nHost: e2e\r\nContent-Length: 10\r\n\r\nsome bytes", 1),
    (b"POST /plaintext HTTP/1.1\r\nHost: e2e\r\nContent-Length: 0\r\n\r\n", 1),
    (b"GET /json HTTP/1.1\r\nHost: e2e\r\n\r\nGET /plaintext HTTP/1.1\r\nHost: e2e\r\n\r\n", 2),
]

# --pair: (servers, the first of them the baseline; probes; fields that
# must be alike besides status, Content-Length and body). The hello servers
# differ in Content-Type and Server on purpose; the axum pair serves one
# Router, so its Content-Type and Allow must match too.
PAIRS = {
    "hello": (DEFAULT_SERVERS, HELLO_PROBES, ()),
    "axum": (AXUM_SERVERS, AXUM_PROBES, ("content-type", "allow")),
}
CONNECTIONS = 16
PIPELINE = 16
SERVER_CORE = "0"
LOAD_CORE = "1"
TICK = os.sysconf("SC_CLK_TCK")


def fail(msg):
    print(f"e2e: {msg}", file=sys.stderr)
    sys.exit(1)


class Server:
    """A server process pinned to the server core, on a port it picked."""

    def __init__(self, name, cmd):
        self.name = name
        self.proc = subprocess.Popen(
            ["taskset", "-c", SERVER_CORE] + cmd + ["--addr", "127.0.0.1:0"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()
        m = re.match(r"listening on (\S+)", line)
        if not m:
            self.stop()
            fail(f"{name} did not say where it listens (got {line!r})")
        self.addr = m.group(1)
        self.url = f"http://{self.addr}{PATH}"

    def cpu(self):
        """(user, system) seconds used so far."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) / TICK, int(fields[12]) / TICK

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def exchange(addr, request, answers):
    """Sends `request` and reads `answers` responses: [(status, fields, body)]."""
    host, port = addr.rsplit(":", 1)
    out = []
    with socket.create_connection((host, int(port)), timeout=5) as s:
        s.sendall(request)
        buf = b""
        while len(out) < answers:
            while b"\r\n\r\n" not in buf:
                chunk = s.recv(65536)
                if not chunk:
                    fail(f"{addr} closed before answering")
                buf += chunk
            head, buf = buf.split(b"\r\n\r\n", 1)
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split()[1])
            fields = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                fields[name.strip().lower()] = value.strip()
            if "transfer-encoding" in fields:
                fail(f"{addr} answered with Transfer-Encoding; the test expects Content-Length")
            length = int(fields.get("content-length", "0"))
            while len(buf) < length:
                chunk = s.recv(65536)
                if not chunk:
                    fail(f"{addr} closed mid-body")
                buf += chunk
            out.append((status, fields, buf[:length]))
            buf = buf[length:]
    return out


def check_alike(servers, probes, alike_fields):
    """Every server answers each probe alike: status, Content-Length, body
    and `alike_fields`, with a Date and a Content-Length."""
    for probe, n in probes:
        seen = []
        for s in servers:
            got = exchange(s.addr, probe, n)
            for status, fields, _ in got:
                for name in ("date", "content-length"):
                    if name not in fields:
                        fail(f"{s.name} answered without {name}")
            seen.append([(st, f.get("content-length"), body)
                         + tuple(f.get(name) for name in alike_fields)
                         for st, f, body in got])
        for s, answer in zip(servers[1:], seen[1:]):
            if answer != seen[0]:
                fail(f"{s.name} answers {answer!r}, {servers[0].name} {seen[0]!r}")
        what = b" ".join(probe.split(b" ")[:2]).decode()
        print(f"check: {n} x {what} answered alike: {seen[0][0][:2]}")


def browser_fields():
    """h2load's -H options for the 12 fields of testdata/inputs/2_chrome12.http
    (its Host as `:authority`, which h2load sends as its one Host field; its
    User-Agent in place of h2load's), as callgrind.sh's REQ=browser."""
    opts = []
    with open(os.path.join(ROOT, "testdata", "inputs", "2_chrome12.http"), "rb") as f:
        lines = f.read().decode("latin-1").split("\r\n")[1:]
    for line in lines:
        if not line:
            break
        name, _, value = line.partition(":")
        if name.lower() == "host":
            opts += ["-H", ":authority:" + value]
        else:
            opts += ["-H", line]
    return opts


def load(mode, url, window, fields=()):
    """Runs the load generator for `window` seconds: requests completed.
    `fields`: h2load -H options (the request's shape)."""
    pin = ["taskset", "-c", LOAD_CORE]
    if mode in ("keepalive", "pipelined"):
        depth = "1" if mode == "keepalive" else str(PIPELINE)
        cmd = pin + ["h2load", "--h1", "-m", depth, "-c", str(CONNECTIONS),
                     "-D", str(window), *fields, url]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=window + 60).stdout
        m = re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed", out)
        if not m:
            fail(f"h2load printed no request count:\n{out}")
        if int(m.group(2)):
            fail(f"h2load saw {m.group(2)} failed requests:\n{out}")
        return int(m.group(1))
    if mode == "tfb":
        if fields:
            fail("the tfb mode sends wrk's own request; --req browser is for h2load's modes")
        with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
            f.write(
                "init = function(args)\n"
                "  local r = {}\n"
                f"  for i = 1, {PIPELINE} do r[i] = wrk.format(nil) end\n"
                "  req = table.concat(r)\n"
                "end\n"
                "request = function() return req end\n")
            script = f.name
        try:
            cmd = pin + ["wrk", "-t", "1", "-c", str(CONNECTIONS), "-d", f"{window}s",
                         "-s", script, url]
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=window + 60).stdout
        finally:
            os.unlink(script)
        m = re.search(r"(\d+) requests in", out)
        if not m:
            fail(f"wrk printed no request count:\n{out}")
        if "Non-2xx" in out:
            fail(f"wrk saw answers other than 2xx:\n{out}")
        return int(m.group(1))
    fail(f"unknown mode {mode}")


def measure(server, mode, window, fields=()):
    """One window: (user us/request, system us/request, requests/s)."""
    u0, s0 = server.cpu()
    t0 = time.monotonic()
    n = load(mode, server.url, window, fields)
    t1 = time.monotonic()
    u1, s1 = server.cpu()
    if n == 0:
        fail(f"{server.name} completed no request in {mode}")
    return (u1 - u0) * 1e6 / n, (s1 - s0) * 1e6 / n, n / (t1 - t0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--window", type=int, default=3, help="seconds per window")
    ap.add_argument("--modes", default="keepalive,pipelined,tfb")
    ap.add_argument("--server", action="append", default=[],
                    help="NAME=COMMAND (taking --addr, printing 'listening on ADDR'); "
                         "the first is the baseline; default: the --pair's servers")
    ap.add_argument("--pair", choices=sorted(PAIRS), default="hello",
                    help="hello: hyper (the baseline), h1, h1-tokio; axum: axum-hyper "
                         "(the baseline), axum-h1 (one axum Router on hyper and on "
                         "h1-tokio); also picks the answers checked alike")
    ap.add_argument("--req", choices=["h2load", "browser"], default="h2load",
                    help="the request's shape in h2load's modes: h2load's own head "
                         "(GET /plaintext, Host, user-agent) or the 12 fields of "
                         "testdata/inputs/2_chrome12.http (a Chrome page load)")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--markdown", help="also write the report to this file")
    args = ap.parse_args()
    if os.cpu_count() < 2:
        fail("needs two cores (server and load apart)")
    for tool in ("h2load", "wrk", "taskset"):
        if subprocess.run(["which", tool], capture_output=True).returncode:
            fail(f"{tool} is not installed (apt-get install nghttp2-client wrk util-linux)")
    if args.server:
        specs = []
        for s in args.server:
            name, _, cmd = s.partition("=")
            specs.append((name, None, cmd.split()))
    else:
        specs = [(n, b, c) for n, (b, c) in PAIRS[args.pair][0].items()]
    if not args.no_build:
        for name, build, _ in specs:
            if build:
                subprocess.run(build, cwd=ROOT, check=True)
    modes = args.modes.split(",")
    fields = browser_fields() if args.req == "browser" else []
    servers = []
    try:
        for name, _, cmd in specs:
            servers.append(Server(name, cmd))
        check_alike(servers, PAIRS[args.pair][1], PAIRS[args.pair][2])
        # One window each to warm up (connections, caches), not counted.
        for mode in modes:
            for s in servers:
                measure(s, mode, 1, fields)
        results = {(m, s.name): [] for m in modes for s in servers}
        for r in range(args.rounds):
            order = servers if r % 2 == 0 else list(reversed(servers))
            for mode in modes:
                for s in order:
                    results[(mode, s.name)].append(measure(s, mode, args.window, fields))
            print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    finally:
        for s in servers:
            s.stop()
    report = render(args, modes, [s.name for s in servers], results)
    print(report)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(report)


def render(args, modes, names, results):
    base = names[0]
    lines = [
        f"e2e: {args.rounds} rounds of {args.window} s windows, {CONNECTIONS} connections, "
        f"server on core {SERVER_CORE}, load on core {LOAD_CORE}, request {args.req}",
        "",
        "| mode | server | user µs/req | system µs/req | CPU µs/req | req/s | CPU / " + base + " |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for mode in modes:
        for name in names:
            w = results[(mode, name)]
            user = statistics.median(x[0] for x in w)
            system = statistics.median(x[1] for x in w)
            total = statistics.median(x[0] + x[1] for x in w)
            rate = statistics.median(x[2] for x in w)
            ratio = statistics.median(
                (a[0] + a[1]) / (b[0] + b[1])
                for a, b in zip(w, results[(mode, base)]))
            lines.append(f"| {mode} | {name} | {user:.2f} | {system:.2f} | {total:.2f} | "
                         f"{rate:,.0f} | {ratio:.2f} |")
    lines.append("")
    lines.append("µs/req and req/s: medians over the rounds; CPU / " + base
                 + ": median of the per-round ratios of CPU per request")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
