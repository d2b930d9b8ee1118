//! Adversarial review of the connection state machine: each test pins one
//! finding (see the `// finding N` comments) and fails on the code it was
//! written against.

mod common;

use common::{head, take_out};
use h1_conn::{ClientConn, Closing, Config, Event, SendError, ServerConn};
use h1_encode::Framing;

/// Up to `n` events, stopping at the first that needs the driver (not
/// Data/Trailers/End), as owned debug strings plus the stopping event.
fn until_driver(conn: &mut ServerConn, n: usize) -> Vec<String> {
    let mut seen = Vec::new();
    for _ in 0..n {
        let e = conn.next_event();
        seen.push(format!("{e:?}"));
        if !matches!(e, Event::Data(_) | Event::Trailers(_) | Event::End) {
            break;
        }
    }
    seen
}

// finding 1: a switch request (Upgrade, CONNECT) declined while its head is
// the last event seen (before `End`) leaves the receiver in `AwaitSwitch`
// with no request left to answer: `Paused` forever, the connection hangs.
#[test]
fn f1_declining_an_upgrade_at_its_head_does_not_hang() {
    let mut conn = ServerConn::default();
    conn.feed(
        b"GET /chat HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n\
          GET /next HTTP/1.1\r\nHost: a\r\n\r\n",
    );
    assert!(head(&mut conn).upgrade);
    // Decline right away (the request has no body): RFC 9110 §7.8 lets a
    // server ignore Upgrade.
    conn.respond_with(200, [("x", "y")], b"no").unwrap();
    assert_eq!(conn.unanswered(), 0);
    let mut events = Vec::new();
    for _ in 0..4 {
        let e = conn.next_event();
        events.push(format!("{e:?}"));
        if matches!(e, Event::Head(_)) {
            break;
        }
    }
    assert!(
        events.last().is_some_and(|e| e.starts_with("Head")),
        "nothing is owed, yet the next request is never read: {events:?}"
    );
}

// finding 1 (CONNECT variant): a 405 to CONNECT at its head.
#[test]
fn f1_refusing_connect_at_its_head_does_not_hang() {
    let mut conn = ServerConn::default();
    conn.feed(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
    head(&mut conn);
    conn.respond_with(405, [("x", "y")], b"").unwrap();
    let events: Vec<String> = (0..4).map(|_| format!("{:?}", conn.next_event())).collect();
    assert!(
        events.iter().any(|e| e == "Closed" || e == "NeedMore"),
        "stuck: {events:?}"
    );
}

// finding 2: answering an earlier pipelined request while a later one waits
// for its switch decision is taken as the decision ("declined"): the
// switch is then refused, and the bytes after the upgrade request (the new
// protocol's) are parsed as HTTP/1.1.
#[test]
fn f2_answering_an_earlier_request_keeps_the_pending_upgrade() {
    let mut conn = ServerConn::default();
    conn.feed(
        b"GET /a HTTP/1.1\r\nHost: a\r\n\r\n\
          GET /chat HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n\
          \x81\x05hello",
    );
    head(&mut conn);
    assert_eq!(conn.next_event(), Event::End);
    assert!(head(&mut conn).upgrade);
    assert_eq!(conn.next_event(), Event::End);
    assert_eq!(conn.next_event(), Event::Paused);
    conn.respond_with(200, [("n", "a")], b"a").unwrap();
    // The upgrade request's bytes after it must not be read as HTTP.
    assert_eq!(
        conn.next_event(),
        Event::Paused,
        "websocket bytes parsed as HTTP before the switch was decided"
    );
    let mut r = conn
        .respond(101, Framing::Empty)
        .expect("the upgrade is still answerable");
    r.field(b"Upgrade", b"websocket").unwrap();
    r.finish().unwrap();
    let Event::Switch(rest) = conn.next_event() else {
        panic!("switch")
    };
    assert_eq!(rest.slice(conn.received()), b"\x81\x05hello");
}

// finding 2 (smuggling variant): with HTTP bytes behind the upgrade
// request, they come out as a request before the upgrade is answered.
#[test]
fn f2_bytes_behind_a_pending_upgrade_are_not_a_request() {
    let mut conn = ServerConn::default();
    conn.feed(
        b"GET /a HTTP/1.1\r\nHost: a\r\n\r\n\
          GET /chat HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n\
          GET /admin HTTP/1.1\r\nHost: a\r\n\r\n",
    );
    head(&mut conn);
    assert_eq!(conn.next_event(), Event::End);
    head(&mut conn);
    assert_eq!(conn.next_event(), Event::End);
    conn.respond_with(200, [("n", "a")], b"a").unwrap();
    let e = conn.next_event();
    assert!(
        !matches!(e, Event::Head(_)),
        "a request read before the pending upgrade was answered: {e:?}"
    );
}

// finding 3: once a response head announcing `Connection: close` is written
// (its body still being sent), the receiver keeps parsing: the next
// pipelined request is surfaced as `Head` (the driver acts on it), then
// dropped unanswered when the closing response ends.
#[test]
fn f3_no_request_is_read_after_a_closing_response_head() {
    let mut conn = ServerConn::default();
    conn.feed(b"POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\n");
    head(&mut conn);
    // Answer before the body: the connection must close after this one.
    let sent = conn
        .respond(200, Framing::Chunked)
        .unwrap()
        .finish()
        .unwrap();
    assert!(sent.close);
    assert!(take_out(&mut conn).contains("Connection: close\r\n"));
    conn.feed(b"abcDELETE /all HTTP/1.1\r\nHost: a\r\n\r\n");
    let events = until_driver(&mut conn, 6);
    assert!(
        !events.iter().any(|e| e.starts_with("Head")),
        "a request after `Connection: close` was processed: {events:?}"
    );
}

// finding 3 (HTTP/1.0 variant): a streamed answer to a keep-alive HTTP/1.0
// request is delimited by the close, yet the next request is parsed.
#[test]
fn f3_no_request_is_read_behind_a_close_delimited_response() {
    let mut conn = ServerConn::default();
    conn.feed(
        b"GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n\
          GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
    );
    head(&mut conn);
    assert_eq!(conn.next_event(), Event::End);
    conn.respond(200, Framing::Chunked)
        .unwrap()
        .finish()
        .unwrap();
    assert!(take_out(&mut conn).contains("Connection: close\r\n"));
    let e = conn.next_event();
    assert!(
        !matches!(e, Event::Head(_)),
        "request read behind a close-delimited body: {e:?}"
    );
}

// finding 3 (`close()` variant): "no request after it is read" (the docs
// of `ServerConn::close`), but the next pipelined request is read.
#[test]
fn f3_close_reads_no_further_request() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), Event::End);
    conn.close();
    let e = conn.next_event();
    assert!(
        !matches!(e, Event::Head(_)),
        "request read after close(): {e:?}"
    );
}

// finding 4: `respond(101)` at the head of a bodiless upgrade request is
// refused (NotUpgradable) although "its body has arrived" (the docs of
// `respond`); only after the `End` event does it work.
#[test]
fn f4_switching_at_the_head_of_a_bodiless_upgrade() {
    let mut conn = ServerConn::default();
    conn.feed(
        b"GET /chat HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n",
    );
    assert!(head(&mut conn).upgrade);
    let r = conn.respond(101, Framing::Empty);
    assert!(r.is_ok(), "{:?}", r.err());
}

// finding 5: `OutgoingResponse::closes` says false for a response the
// encoder delimits by closing (streamed to HTTP/1.0), whose head carries
// `Connection: close`.
#[test]
fn f5_closes_reports_a_close_delimited_response() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    head(&mut conn);
    let sent = conn
        .respond(200, Framing::Chunked)
        .unwrap()
        .finish()
        .unwrap();
    let out = take_out(&mut conn);
    assert!(out.contains("Connection: close\r\n"), "{out}");
    assert!(sent.close, "finish() disagrees with the head written");
}

// finding 6: after the server's response switched the connection (101),
// the client still accepts requests and writes HTTP/1.1 into the new
// protocol's stream.
#[test]
fn f6_client_refuses_requests_after_a_switch() {
    let mut conn = ClientConn::default();
    let mut r = conn
        .request(b"GET", b"/chat", Some(b"h"), Framing::Empty)
        .unwrap();
    r.field(b"Connection", b"upgrade").unwrap();
    r.field(b"Upgrade", b"websocket").unwrap();
    r.upgrade();
    r.finish().unwrap();
    conn.written(conn.out().len());
    conn.feed(
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n",
    );
    assert!(matches!(conn.next_event(), Event::Head(_)));
    assert_eq!(conn.next_event(), Event::End);
    assert!(matches!(conn.next_event(), Event::Switch(_)));
    let r = conn.request(b"GET", b"/x", Some(b"h"), Framing::Empty);
    assert!(
        matches!(r, Err(SendError::Closed)),
        "request accepted after the switch"
    );
}

// finding 6 (closed variant): the server answered `Connection: close`; the
// client still accepts (and encodes) a new request that can never be
// answered on this connection.
#[test]
fn f6_client_refuses_requests_after_the_server_closed() {
    let mut conn = ClientConn::default();
    conn.request(b"GET", b"/", Some(b"h"), Framing::Empty)
        .unwrap()
        .finish()
        .unwrap();
    conn.written(conn.out().len());
    conn.feed(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    assert!(matches!(conn.next_event(), Event::Head(_)));
    assert_eq!(conn.next_event(), Event::End);
    assert_eq!(conn.closing(), Closing::Close);
    let r = conn.request(b"GET", b"/again", Some(b"h"), Framing::Empty);
    assert!(
        matches!(r, Err(SendError::Closed)),
        "request accepted on a closed connection"
    );
}

// finding 7: a request pipelined behind CONNECT (before its answer) is
// accepted: when the proxy answers 2xx those bytes are already inside the
// tunnel (h11 refuses to send while a switch is proposed).
#[test]
fn f7_client_does_not_pipeline_behind_connect() {
    let mut conn = ClientConn::default();
    conn.request(
        b"CONNECT",
        b"example.com:443",
        Some(b"example.com:443"),
        Framing::Empty,
    )
    .unwrap()
    .finish()
    .unwrap();
    let r = conn.request(b"GET", b"/", Some(b"h"), Framing::Empty);
    assert!(r.is_err(), "request pipelined into a would-be tunnel");
}

// finding 8: a `max_unanswered` of `usize::MAX` ("no limit") panics in the
// constructors (arithmetic overflow / capacity overflow).
#[test]
fn f8_unbounded_pipelining_depth_does_not_panic() {
    let mut config = Config::default();
    config.max_unanswered = usize::MAX;
    let server = std::panic::catch_unwind(|| drop(ServerConn::new(config.clone())));
    let client = std::panic::catch_unwind(|| drop(ClientConn::new(config.clone())));
    assert!(server.is_ok() && client.is_ok(), "constructor panicked");
}

// finding 9: the request head's field spans are marked valid again by a
// later `Trailers` event even after `read_buf`/`feed` compacted the buffer,
// so `fields()` returns `Some` over stale spans (wrong bytes).
#[test]
fn f9_fields_stay_invalid_after_compaction() {
    let mut conn = ServerConn::default();
    conn.feed(
        b"POST / HTTP/1.1\r\nHost: example.org\r\nX-Long-Header-Name: 0123456789\r\n\
          Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n",
    );
    head(&mut conn);
    assert!(matches!(conn.next_event(), Event::Data(_)));
    assert_eq!(conn.next_event(), Event::NeedMore);
    // The consumed head moves out of the way: its spans end here.
    conn.feed(b"0\r\nTrailer-Field: v\r\n\r\n");
    assert!(conn.fields().is_none());
    assert_eq!(conn.next_event(), Event::Trailers(1));
    assert_eq!(
        conn.trailers().and_then(|t| t.get(b"trailer-field")),
        Some(&b"v"[..])
    );
    if let Some(f) = conn.fields() {
        assert_eq!(
            f.get(b"host"),
            Some(&b"example.org"[..]),
            "fields() serves stale spans after compaction"
        );
    }
}

// finding 9 (trailers variant): a new head marks the previous request's
// trailer spans valid again, after compaction moved other bytes under them.
#[test]
fn f9_old_trailers_are_not_served_over_new_bytes() {
    let mut conn = ServerConn::default();
    conn.feed(
        b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n\
          1\r\nx\r\n0\r\nX-Sig: good\r\n\r\n",
    );
    head(&mut conn);
    assert!(matches!(conn.next_event(), Event::Data(_)));
    assert_eq!(conn.next_event(), Event::Trailers(1));
    assert_eq!(conn.next_event(), Event::End);
    conn.respond_with(200, [("a", "b")], b"").unwrap();
    assert_eq!(conn.next_event(), Event::NeedMore);
    conn.feed(b"GET /next-request-with-a-target-long-enough-to-cover-the-old-trailer-bytes HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    if let Some(t) = conn.trailers() {
        let pairs: Vec<(Vec<u8>, Vec<u8>)> =
            t.iter().map(|(n, v)| (n.to_vec(), v.to_vec())).collect();
        assert!(
            pairs.is_empty() || pairs == [(b"X-Sig".to_vec(), b"good".to_vec())],
            "trailers() over bytes of the next request: {pairs:?}"
        );
    }
}

// finding 10: `respond_with(2xx, .., b"")` to CONNECT is refused: it
// states `Framing::Length(0)`, which the encoder forbids in a tunnel answer.
#[test]
fn f10_respond_with_can_open_a_tunnel() {
    let mut conn = ServerConn::default();
    conn.feed(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), Event::End);
    let r = conn.respond_with(200, [("Via", "1.1 h1")], b"");
    assert!(r.is_ok(), "{r:?}");
    assert!(matches!(conn.next_event(), Event::Switch(_)));
}

// finding 11: `max_buffered_output = 0` pauses parsing forever, even with
// nothing buffered and nothing owed.
#[test]
fn f11_an_empty_output_buffer_never_pauses() {
    let mut config = Config::default();
    config.max_buffered_output = 0;
    let mut conn = ServerConn::new(config);
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    assert!(conn.out().is_empty());
    assert_eq!(conn.unanswered(), 0);
    let e = conn.next_event();
    assert!(matches!(e, Event::Head(_)), "{e:?}");
}

// finding 12: `filled(n)` with an `n` past the buffer overflows (panics in
// debug) instead of being clamped like `written(n)`.
#[test]
fn f12_filled_does_not_overflow() {
    let r = std::panic::catch_unwind(|| {
        let mut conn = ServerConn::default();
        conn.feed(b"G");
        let _ = conn.read_buf();
        conn.filled(usize::MAX);
        let _ = conn.next_event();
    });
    assert!(r.is_ok(), "filled(usize::MAX) panicked");
}

// finding 13: "Dropped without finishing, it leaves nothing behind" (the
// docs of `OutgoingResponse`) did not hold for a 101 to a request that
// also expected 100-continue: the interim `100 Continue` written by
// `respond` stays in the output. Resolved by documenting it: the 100 is a
// valid interim response to that request whatever follows (RFC 9110
// §10.1.1), so the stream stays valid; what must hold is that it is sent
// once and that the request can still be answered.
#[test]
fn f13_a_dropped_101_leaves_a_valid_stream() {
    let mut conn = ServerConn::default();
    conn.feed(
        b"POST /u HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: h2c\r\n\
          Expect: 100-continue\r\nContent-Length: 1\r\n\r\nx",
    );
    head(&mut conn);
    assert!(matches!(conn.next_event(), Event::Data(_)));
    assert_eq!(conn.next_event(), Event::End);
    drop(conn.respond(101, Framing::Empty).unwrap());
    // A second attempt does not send a second 100.
    drop(conn.respond(101, Framing::Empty).unwrap());
    conn.respond_with(200, [("a", "b")], b"declined").unwrap();
    let out = take_out(&mut conn);
    assert_eq!(
        out.matches("HTTP/1.1 100 Continue\r\n\r\n").count(),
        1,
        "{out}"
    );
    assert!(
        out.starts_with("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"),
        "{out}"
    );
}
