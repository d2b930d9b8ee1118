#!/usr/bin/env python3
"""Writes the committed seed corpus of every fuzz target under fuzz/corpus/.

Sources (the repository's test data, testdata/ at the root, by default):
  testdata/inputs/*.http                   the benchmark heads
  testdata/conformance/vectors.jsonl       the `raw` of every vector,
                                           decoded as ISO-8859-1 (one char = one byte)
and a few hand-written heads below for what those lack (responses).

Derived seeds:
  parse_request     every input and every vector, as is
  parse_response    the response input, hand-written responses, and every
                    vector's field lines under a status line
  parse_chunk_size  every chunk-size line of the chunked vectors, with what
                    follows it (cut to 256 bytes)
  parse_trailers    what follows the last chunk of each chunked vector, and the
                    field lines of every input
  scan_*            every input and every vector
  server_splits     every input and every vector, and hand-written
                    connection-level sequences (pipelined bodies, upgrade
                    and CONNECT with bytes behind, close with bytes behind)
  body_decoder      the body after the head of every vector with
                    Transfer-Encoding: chunked ('C' + body) or Content-Length
                    ('L' + the length as two little-endian bytes + body), and
                    hand-written bodies ('U' + body: until close)
  roundtrip         the inputs (any bytes are a structured input for
                    `arbitrary`) and a few SHA-256 chains
  diff_request,     the seeds of parse_request
  diff_pico_request
  diff_response     the seeds of parse_response
  diff_chunked      the body after the head of every vector with
                    Transfer-Encoding: chunked, and the hand-written chunked
                    bodies of body_decoder without their 'C'
  header_blob       the inputs and a few SHA-256 chains, as for roundtrip
                    (operations drawn by `arbitrary`)

Usage: python3 fuzz/seeds.py [--data DIR] [--check]
  --data    the directory holding inputs/ and conformance/ (default testdata/)
  --check   write nothing; exit 1 if fuzz/corpus/ differs from what would be
            written (CI runs this so the corpus stays reproducible).

The script owns fuzz/corpus/: it deletes files there that it would not write.
Inputs found by fuzzing go to fuzz/corpus-work/ (git-ignored); reproducers
worth keeping go to fuzz/regressions/<target>/ by hand.
"""

import argparse
import hashlib
import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
CORPUS = HERE / "corpus"

TARGETS = [
    "parse_request",
    "parse_response",
    "parse_chunk_size",
    "parse_trailers",
    "scan_token",
    "scan_target",
    "scan_value",
    "scan_head_end",
    "server_splits",
    "body_decoder",
    "roundtrip",
    "diff_request",
    "diff_pico_request",
    "diff_response",
    "diff_chunked",
    "header_blob",
]

# Responses: the vectors are all requests, so these cover the status line and
# response framing.
HAND_RESPONSES = {
    "ok-cl": b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
    "ok-chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
    "te-not-chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
    "no-content": b"HTTP/1.1 204 No Content\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n",
    "continue": b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
    "switching": b"HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n",
    "http10-close": b"HTTP/1.0 200 OK\r\nConnection: close\r\n\r\n",
    "empty-reason": b"HTTP/1.1 404 \r\nContent-Length: 0\r\n\r\n",
    "no-reason-sp": b"HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n",
    "obs-text-reason": b"HTTP/1.1 200 \xc4\xd6\tK\r\n\r\n",
    "obs-fold": b"HTTP/1.1 200 OK\r\nX-Long: a\r\n b\r\n\tc\r\nContent-Length: 0\r\n\r\n",
    "bare-lf": b"HTTP/1.1 200 OK\nContent-Length: 0\n\n",
    "cl-and-te": b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
    "bad-status": b"HTTP/1.1 20 OK\r\n\r\n",
    "major-2": b"HTTP/2.0 200 OK\r\n\r\n",
    "minor-9": b"HTTP/1.9 200 OK\r\nConnection: keep-alive, Upgrade\r\n\r\n",
    "empty-line-first": b"\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
}

# Connection-level sequences the vectors (one message each, mostly) lack.
HAND_CONN = {
    "pipelined-bodies": b"POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
    b"POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"3;e=1\r\nabc\r\n0\r\nX-Sum: 1\r\n\r\n"
    b"GET /c HTTP/1.1\r\nHost: x\r\n\r\n",
    "upgrade-then-bytes": b"GET /chat HTTP/1.1\r\nHost: x\r\nConnection: upgrade\r\n"
    b"Upgrade: websocket\r\n\r\n\x81\x05hello",
    "connect-then-bytes": b"CONNECT x.example:443 HTTP/1.1\r\nHost: x.example:443\r\n\r\n"
    b"\x16\x03\x01 tunnel",
    "close-then-more": b"GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    b"GET /b HTTP/1.1\r\nHost: x\r\n\r\n",
    "http10-keep-alive": b"GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
    b"GET /b HTTP/1.0\r\n\r\nGET /c HTTP/1.0\r\n\r\n",
    "expect-continue": b"PUT /a HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
    b"Content-Length: 4\r\n\r\nbody",
    "head-then-bad": b"HEAD /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\n\r\n",
    "chunked-cut": b"POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
}

# Bodies for the decoder: the first byte picks the framing.
HAND_BODIES = {
    "chunked-trailers": b"C4\r\nWiki\r\n5;a=b\r\npedia\r\n0\r\nX-Sum: 1\r\nX-B: 2\r\n\r\nNEXT",
    "chunked-empty-trailers": b"C1\r\nx\r\n0\r\n\r\n",
    "chunked-bad-end": b"C3\r\nabcX\r\n0\r\n\r\n",
    "length-short": b"L\x0a\x00abc",
    "length-exact": b"L\x03\x00abcNEXT",
    "until-close": b"Uany bytes\r\n0\r\n\r\n",
}


def latin1(s):
    """Each char (all <= U+00FF) is one byte."""
    return s.encode("latin-1")


def head_end(raw):
    i = raw.find(b"\r\n\r\n")
    return None if i < 0 else i + 4


def chunk_walk(raw):
    """Yields (index, bytes from a chunk-size line on) for a chunked request,
    and finally ('trailers', bytes after the last-chunk line) if it gets there."""
    end = head_end(raw)
    if end is None or b"chunked" not in raw[:end].lower():
        return
    pos = end
    for n in range(64):
        nl = raw.find(b"\n", pos)
        yield n, raw[pos : pos + 256]
        if nl < 0:
            return
        m = re.match(rb"([0-9A-Fa-f]+)", raw[pos:nl])
        if not m:
            return
        size = int(m.group(1), 16)
        if size == 0:
            yield "trailers", raw[nl + 1 :]
            return
        pos = nl + 1 + size
        if raw[pos : pos + 2] != b"\r\n":
            return
        pos += 2


def field_lines(raw):
    """The bytes after the first line (a request or status line)."""
    nl = raw.find(b"\n")
    return None if nl < 0 else raw[nl + 1 :]


def build(data):
    inputs = sorted((data / "inputs").glob("*.http"))
    if not inputs:
        sys.exit(f"no inputs under {data / 'inputs'}")
    vectors = [
        json.loads(line)
        for line in (data / "conformance" / "vectors.jsonl").read_text("utf-8").splitlines()
        if line.strip()
    ]
    if not vectors:
        sys.exit("no conformance vectors")

    seeds = {t: {} for t in TARGETS}

    def add(target, name, data):
        if data is None or not data:
            return
        if data in seeds[target].values():
            return
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
        assert name not in seeds[target], (target, name)
        seeds[target][name] = data

    raws = [(f"input-{p.stem}", p.read_bytes()) for p in inputs]
    raws += [(f"vec-{v['id']}", latin1(v["raw"])) for v in vectors]

    for name, raw in raws:
        add("parse_request", name, raw)
        for t in ("scan_token", "scan_target", "scan_value", "scan_head_end"):
            add(t, name, raw)
        if raw.startswith(b"HTTP/"):
            add("parse_response", name, raw)
        else:
            add("parse_response", f"resp-{name}", b"HTTP/1.1 200 OK\r\n" + (field_lines(raw) or b""))
            add("parse_trailers", f"fields-{name}", field_lines(raw))
        for n, data in chunk_walk(raw):
            if n == "trailers":
                add("parse_trailers", f"{name}-trailers", data)
            else:
                add("parse_chunk_size", f"{name}-chunk{n}", data)
    for name, raw in raws:
        add("server_splits", name, raw)
        end = head_end(raw)
        if end is None or raw.startswith(b"HTTP/"):
            continue
        head = raw[:end].lower()
        cl = re.search(rb"\ncontent-length:[ \t]*([0-9]+)\r\n", head)
        if b"chunked" in head:
            add("body_decoder", f"{name}-chunked", b"C" + raw[end:])
        elif cl and int(cl.group(1)) < 65536:
            add("body_decoder", f"{name}-length", b"L" + int(cl.group(1)).to_bytes(2, "little") + raw[end:])
    for name, raw in HAND_CONN.items():
        add("server_splits", f"hand-{name}", raw)
    for name, raw in HAND_BODIES.items():
        add("body_decoder", f"hand-{name}", raw)
    for p in inputs:
        add("roundtrip", f"input-{p.stem}", p.read_bytes())
    for target in ("roundtrip", "header_blob"):
        chain = f"h1 {target}".encode()
        for n in range(16):
            chain = hashlib.sha256(chain).digest()
            add(target, f"sha256-{n:02}", b"".join(hashlib.sha256(chain + bytes([i])).digest() for i in range(n + 1)))
    for p in inputs:
        add("header_blob", f"input-{p.stem}", p.read_bytes())
    for name, raw in HAND_RESPONSES.items():
        add("parse_response", f"hand-{name}", raw)
        add("parse_trailers", f"hand-{name}", field_lines(raw))
    # The differential targets parse what the parse targets parse.
    for t in ("diff_request", "diff_pico_request"):
        seeds[t] = dict(seeds["parse_request"])
    seeds["diff_response"] = dict(seeds["parse_response"])
    for name, raw in seeds["body_decoder"].items():
        if raw.startswith(b"C"):
            add("diff_chunked", name, raw[1:])
    return seeds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=pathlib.Path, default=HERE.parent / "testdata")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    seeds = build(args.data)

    differ = []
    for target, files in seeds.items():
        if not files:
            sys.exit(f"no seeds for {target}")
        d = CORPUS / target
        have = {p.name: p.read_bytes() for p in d.glob("*")} if d.is_dir() else {}
        if have != files:
            differ.append(target)
        if args.check:
            continue
        d.mkdir(parents=True, exist_ok=True)
        for name in have.keys() - files.keys():
            (d / name).unlink()
        for name, data in files.items():
            if have.get(name) != data:
                (d / name).write_bytes(data)
    total = sum(len(f) for f in seeds.values())
    digest = hashlib.sha256(
        b"".join(n.encode() + d for t in TARGETS for n, d in sorted(seeds[t].items()))
    ).hexdigest()[:16]
    summary = ", ".join(f"{t} {len(seeds[t])}" for t in TARGETS)
    if args.check:
        if differ:
            sys.exit(f"fuzz/corpus differs from seeds.py output for: {', '.join(differ)}")
        print(f"seed corpus up to date: {total} files ({summary}), digest {digest}")
    else:
        print(f"wrote {total} seed files ({summary}), digest {digest}")


if __name__ == "__main__":
    main()
