//! The connection's own answer to a failed request, owed behind a response
//! that then closes the connection: it is dropped (nothing follows a
//! closing response, RFC 9112 §9.6), and the connection ends instead of
//! waiting for an answer it can no longer send.

use h1_conn::{Closing, DateLine, Framing, Pause, ServerConn, ServerEvent};

fn srv() -> ServerConn {
    let mut c = ServerConn::default();
    c.set_date(DateLine::new(b"Sun, 06 Nov 1994 08:49:37 GMT").unwrap());
    c
}

/// After `Request(A)`, `End`, `Error(400)`: the connection owes A's response
/// and then its own 400. Returns the connection there.
fn a_then_garbage(a: &[u8]) -> ServerConn {
    let mut conn = srv();
    let mut input = a.to_vec();
    input.extend_from_slice(b"BAD\x01 / HTTP/1.1\r\n\r\n");
    conn.feed(&input);
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    assert_eq!(conn.next_event(), ServerEvent::End);
    assert!(matches!(conn.next_event(), ServerEvent::Error(_)));
    conn
}

/// What a driver sees once A's response is done: it must be told to close,
/// not to finish responses that cannot be sent.
fn assert_ends(conn: &mut ServerConn) {
    let ev = conn.next_event();
    let closing = conn.closing();
    let respond = conn.respond(200, Framing::Empty).map(|_| ());
    assert!(
        ev == ServerEvent::Closed && closing != Closing::Open,
        "hangs: next_event = {ev:?} (nothing can be responded: {respond:?}), \
         closing() = {closing:?}, unanswered() = {}",
        conn.unanswered()
    );
}

/// A failed request behind one being answereda: `close()` (graceful shutdown) while an error answer is owed
/// behind A: A's response becomes "the last" and says `Connection: close`,
/// `Send` goes `Closed`, `Recv::Failed { answer: Some(400) }` ignores
/// `Close`, and the 400 can never be written: `Paused(ResponsesOwed)`
/// forever, `closing()` `Open`.
#[test]
fn close_with_an_error_answer_owed_does_not_hang() {
    let mut conn = a_then_garbage(b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
    conn.close();
    conn.respond_with(200, [("X", "y")], b"hi").unwrap();
    assert_ends(&mut conn);
}

/// A failed request behind one being answeredb: the same hang when A's response is delimited by the close.
#[test]
fn close_delimited_response_with_an_error_answer_owed_does_not_hang() {
    let mut conn = a_then_garbage(b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
    let sent = conn
        .respond(200, Framing::UntilClose)
        .unwrap()
        .finish()
        .unwrap();
    assert!(sent.body && sent.close);
    conn.send_data(b"hi").unwrap();
    conn.send_end().unwrap();
    assert_ends(&mut conn);
}

/// A failed request behind one being answeredc: attacker-chosen trigger: an HTTP/1.0 keep-alive request and
/// a garbage line. A server that streams its answer (`Framing::Chunked`)
/// gets a close-delimited body (no chunked to HTTP/1.0), and hangs.
#[test]
fn streamed_answer_to_http10_with_an_error_answer_owed_does_not_hang() {
    let mut conn = a_then_garbage(b"GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    let sent = conn
        .respond(200, Framing::Chunked)
        .unwrap()
        .finish()
        .unwrap();
    assert!(sent.body && sent.close);
    conn.send_data(b"hi").unwrap();
    conn.send_end().unwrap();
    assert_ends(&mut conn);
}

/// A failed request behind one being answeredd: `close()` first, then the request being read fails in its
/// body: it is dropped, the earlier A becomes "the last" and closes, and
/// the 400 is stranded the same way.
#[test]
fn close_then_a_failed_body_does_not_hang() {
    let mut conn = srv();
    conn.feed(
        b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n\
          POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
    );
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    assert_eq!(conn.next_event(), ServerEvent::End);
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    conn.close();
    conn.feed(b"zz\r\n");
    assert!(matches!(conn.next_event(), ServerEvent::Error(_)));
    assert_eq!(conn.next_event(), ServerEvent::Paused(Pause::ResponsesOwed));
    conn.respond_with(200, [("X", "y")], b"hi").unwrap();
    assert_ends(&mut conn);
}
