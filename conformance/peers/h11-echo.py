#!/usr/bin/env python3
"""The conformance suite's echo contract (conformance/cases/README.md) served
by h11's state machine over blocking sockets: a peer that
conformance/run-peers.sh runs the live suite against (with h11 from PyPI,
the version the script pins).

    python3 conformance/peers/h11-echo.py --addr 127.0.0.1:0   # prints "listening on ADDR"

Written as a user of h11 writes a server: a thread per connection
(socketserver), bytes from the socket into ``receive_data``, events out of
``next_event``; every request's body read to ``EndOfMessage`` and answered
200 with it and the fields x-echo-method, x-echo-target (the target as h11
received it) and x-echo-version (the version h11 serves it as: HTTP/1.0, or
HTTP/1.1 for any later 1.x, since h11 reads any ``HTTP/d.d``). Exceptions:

- CONNECT: 501 (not a proxy), which h11 takes as declining the switch;
- an https absolute-form target: 421 (RFC 9110 §7.4);
- a websocket upgrade (HTTP/1.1, Connection: upgrade, Upgrade: websocket):
  101 (an InformationalResponse, h11's switch), then the connection closes;
  other upgrades are answered as any request (h11's decline);
- an Expect other than 100-continue: 417 with Connection: close, the body
  unread; for 100-continue, 100 Continue when h11 says the client is
  waiting for it (``they_are_waiting_for_100_continue``), before the body
  is read;
- a body over 1 MiB: 413 with Connection: close (at once when
  Content-Length says so).

What h11 refuses (a RemoteProtocolError) is answered with its own
``error_status_hint``, then the connection closes, as h11's documentation
and example server do; the close sends EOF first and drains what the
client still sends, for a bounded time. The head limit of the contract
(64 KiB) is set as ``max_incomplete_event_size``.
"""

import argparse
import socket
import socketserver
import sys
import time

import h11

MAX_BODY = 1 << 20
MAX_HEAD = 64 << 10
IDLE_TIMEOUT = 30.0
DRAIN_TIMEOUT = 2.0


def elements(headers, name):
    """The elements of a comma-separated field, lowercased, empty ones left out."""
    out = []
    for n, v in headers:
        if n == name:
            out.extend(e.strip().lower() for e in v.split(b","))
    return [e for e in out if e]


def version(v):
    """The version h11 serves a request as: HTTP/1.0, or HTTP/1.1 for any later
    1.x (h11 reads any digit.digit, and treats every version from 1.1 on as
    1.1); other versions are shown as received."""
    if v == b"1.0":
        return b"HTTP/1.0"
    if v.startswith(b"1."):
        return b"HTTP/1.1"
    return b"HTTP/" + v


class Connection:
    def __init__(self, sock):
        self.sock = sock
        self.conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)

    def send(self, event):
        data = self.conn.send(event)
        if data:
            self.sock.sendall(data)

    def next_event(self):
        while True:
            event = self.conn.next_event()
            if event is h11.NEED_DATA:
                if self.conn.they_are_waiting_for_100_continue:
                    self.send(h11.InformationalResponse(status_code=100, headers=[]))
                self.conn.receive_data(self.sock.recv(65536))
                continue
            return event

    def respond(self, status, fields, body=b"", head=False):
        headers = fields + [(b"content-length", str(len(body)).encode())]
        try:
            self.send(h11.Response(status_code=status, headers=headers))
        except h11.LocalProtocolError:
            # A target no field value may hold: answer without echoing it.
            self.send(h11.Response(status_code=500, headers=[(b"x-echo-error", b"target"),
                                                             (b"content-length", b"0")]))
            body = b""
        if body and not head:
            self.send(h11.Data(data=body))
        self.send(h11.EndOfMessage())

    def serve(self):
        while True:
            try:
                event = self.next_event()
                if isinstance(event, h11.ConnectionClosed):
                    return
                self.answer(event)
            except h11.RemoteProtocolError as e:
                if self.conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
                    self.respond(e.error_status_hint, [(b"connection", b"close")])
                return
            if self.conn.our_state is h11.DONE and self.conn.their_state is h11.DONE:
                self.conn.start_next_cycle()
            else:
                return

    def answer(self, req):
        fields = [
            (b"x-echo-method", req.method),
            (b"x-echo-target", req.target),
            (b"x-echo-version", version(req.http_version)),
            (b"server", b"h11-echo"),
        ]
        close = [(b"connection", b"close")]
        if any(e != b"100-continue" for e in elements(req.headers, b"expect")):
            # An expectation this server cannot meet; the client may be
            # holding its body back, so the connection closes.
            self.respond(417, fields + close)
            return
        length = elements(req.headers, b"content-length")
        if length and length[0].isdigit() and int(length[0]) > MAX_BODY:
            self.respond(413, fields + close)
            return
        body = bytearray()
        while True:
            event = self.next_event()
            if isinstance(event, h11.EndOfMessage):
                break
            if isinstance(event, h11.Data):
                body += event.data
                if len(body) > MAX_BODY:
                    self.respond(413, fields + close)
                    return
        if (req.http_version == b"1.1" and b"upgrade" in elements(req.headers, b"connection")
                and b"websocket" in elements(req.headers, b"upgrade")):
            # The switch; this server speaks no websocket, so it then closes.
            self.send(h11.InformationalResponse(
                status_code=101, headers=[(b"upgrade", b"websocket"), (b"connection", b"upgrade")]))
            return
        if req.method == b"CONNECT":
            self.respond(501, fields)
        elif req.target[:8].lower() == b"https://":
            self.respond(421, fields)
        else:
            self.respond(200, fields, bytes(body), head=req.method == b"HEAD")

    def close(self):
        """Sends EOF, then reads (bounded) until the client closes too, so that
        its unread bytes do not reset the connection before it reads the
        last response."""
        try:
            self.sock.shutdown(socket.SHUT_WR)
            deadline = time.monotonic() + DRAIN_TIMEOUT
            while (left := deadline - time.monotonic()) > 0:
                self.sock.settimeout(left)
                if not self.sock.recv(65536):
                    break
        except OSError:
            pass
        finally:
            self.sock.close()


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.settimeout(IDLE_TIMEOUT)
        c = Connection(self.request)
        try:
            c.serve()
        except (OSError, h11.LocalProtocolError) as e:
            print(f"connection: {e!r}", file=sys.stderr)
        finally:
            c.close()


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--addr", default="127.0.0.1:8080")
    a = ap.parse_args()
    host, _, port = a.addr.rpartition(":")
    with Server((host, int(port)), Handler) as server:
        h, p = server.server_address[:2]
        print(f"listening on {h}:{p}", flush=True)
        server.serve_forever()


if __name__ == "__main__":
    main()
