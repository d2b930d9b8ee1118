//! `Expect` (RFC 9110 §10.1.1): `100 Continue` for a client that waits for
//! it, once, and never where it is not expected.

mod common;

use common::{head, take_out};
use h1_conn::{Closing, Expect, Framing, SendError, ServerConn, ServerEvent};

#[test]
fn continue_is_sent_on_request_and_only_once() {
    let mut conn = ServerConn::default();
    conn.feed(b"POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n");
    let req = head(&mut conn);
    assert_eq!(req.expect(), Expect::Continue);
    assert_eq!(conn.send_continue(), Ok(true));
    assert_eq!(take_out(&mut conn), "HTTP/1.1 100 Continue\r\n\r\n");
    // Neither asked again nor when the body is asked for.
    assert_eq!(conn.send_continue(), Ok(false));
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    assert_eq!(take_out(&mut conn), "");
    assert_eq!(
        conn.respond(100, Framing::Empty).err(),
        Some(SendError::NotExpected)
    );
    conn.feed(b"abc");
    assert!(matches!(conn.next_event(), ServerEvent::Data(_)));
    assert_eq!(conn.next_event(), ServerEvent::End);
    conn.respond_with(200, [("a", "b")], b"ok").unwrap();
    assert!(take_out(&mut conn).starts_with("HTTP/1.1 200 OK\r\n"));
    assert_eq!(conn.closing(), Closing::Open);
}

#[test]
fn expect_is_ignored_in_http10() {
    let mut conn = ServerConn::default();
    conn.feed(b"POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n");
    let req = head(&mut conn);
    assert_eq!(req.expect(), Expect::None);
    assert_eq!(conn.send_continue(), Ok(false));
    assert_eq!(
        conn.respond(100, Framing::Empty).err(),
        Some(SendError::NotExpected)
    );
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    assert!(conn.out().is_empty(), "{:?}", take_out(&mut conn));
}

/// A `100 Continue` written with `respond(100, ..)` counts as sent: it is
/// not written again when the body is asked for. Another 1xx (103 Early
/// Hints) does not: the `100` is still written for the client that waits.
#[test]
fn only_a_100_sent_by_hand_settles_the_continue() {
    let req = b"POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n";
    let mut conn = ServerConn::default();
    conn.feed(req);
    head(&mut conn);
    conn.respond(100, Framing::Empty).unwrap().finish().unwrap();
    assert_eq!(take_out(&mut conn), "HTTP/1.1 100 Continue\r\n\r\n");
    assert_eq!(conn.send_continue(), Ok(false));
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    assert_eq!(take_out(&mut conn), "");

    let mut conn = ServerConn::default();
    conn.feed(req);
    head(&mut conn);
    let mut hints = conn.respond(103, Framing::Empty).unwrap();
    hints.field(b"Link", b"</a.css>; rel=preload").unwrap();
    hints.finish().unwrap();
    assert!(take_out(&mut conn).starts_with("HTTP/1.1 103 Early Hints\r\n"));
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    assert_eq!(take_out(&mut conn), "HTTP/1.1 100 Continue\r\n\r\n");
}
