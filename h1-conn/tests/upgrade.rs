//! Protocol switches, server role: `Upgrade` answered `101`, and CONNECT
//! answered `2xx` (a tunnel). Nothing after the request is parsed as
//! HTTP/1.1 until its answer says whether the protocol switched; a
//! declined switch goes on with HTTP/1.1.

mod common;

use common::{head, take_out};
use h1_conn::{Error, Framing, Pause, RecvState, SendError, SendState, ServerConn, ServerEvent};

#[test]
fn upgrade_hands_off_the_bytes_after_the_head() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET /chat HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n\x81\x05hello");
    let req = head(&mut conn);
    assert!(req.upgrade);
    assert_eq!(conn.next_event(), ServerEvent::End);
    assert_eq!(
        conn.next_event(),
        ServerEvent::Paused(Pause::SwitchPending),
        "nothing parsed until the answer"
    );
    let mut r = conn.respond(101, Framing::Empty).unwrap();
    r.field(b"Upgrade", b"websocket").unwrap();
    r.field(b"Connection", b"Upgrade").unwrap();
    r.finish().unwrap();
    let ServerEvent::Switch(rest) = conn.next_event() else {
        panic!("switch")
    };
    assert_eq!(rest.slice(conn.received()), b"\x81\x05hello");
    assert_eq!(conn.recv_state(), RecvState::Switched);
    assert_eq!(conn.send_state(), SendState::Switched);
    assert!(take_out(&mut conn).starts_with("HTTP/1.1 101 Switching Protocols\r\n"));
    assert_eq!(
        conn.respond(200, Framing::Empty).err(),
        Some(SendError::Closed)
    );
}

#[test]
fn a_declined_upgrade_continues_with_http() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: h2c\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n");
    assert!(head(&mut conn).upgrade);
    assert_eq!(conn.next_event(), ServerEvent::End);
    conn.respond_with(200, [("a", "b")], b"").unwrap();
    let next = head(&mut conn);
    assert_eq!(next.head.target.slice(conn.received()), b"/2");
}

#[test]
fn declining_an_upgrade_at_its_head_reads_the_next_request() {
    // A switch request declined while its head is the last event seen
    // (before `End`) must not leave the receiver waiting for a decision
    // with no request left to answer (paused forever).
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
        if matches!(e, ServerEvent::Request(_)) {
            break;
        }
    }
    assert!(
        events.last().is_some_and(|e| e.starts_with("Request")),
        "nothing is owed, yet the next request is never read: {events:?}"
    );
}

#[test]
fn refusing_connect_at_its_head_does_not_hang() {
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

#[test]
fn answering_an_earlier_request_keeps_a_pending_upgrade() {
    // Answering a pipelined request while a later one waits for its switch
    // decision is not that decision: the switch stays possible, and the
    // bytes after the upgrade request (the new protocol's) are not parsed
    // as HTTP/1.1.
    let mut conn = ServerConn::default();
    conn.feed(
        b"GET /a HTTP/1.1\r\nHost: a\r\n\r\n\
          GET /chat HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n\
          \x81\x05hello",
    );
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    assert!(head(&mut conn).upgrade);
    assert_eq!(conn.next_event(), ServerEvent::End);
    assert_eq!(conn.next_event(), ServerEvent::Paused(Pause::SwitchPending));
    conn.respond_with(200, [("n", "a")], b"a").unwrap();
    // The upgrade request's bytes after it must not be read as HTTP.
    assert_eq!(
        conn.next_event(),
        ServerEvent::Paused(Pause::SwitchPending),
        "websocket bytes parsed as HTTP before the switch was decided"
    );
    let mut r = conn
        .respond(101, Framing::Empty)
        .expect("the upgrade is still answerable");
    r.field(b"Upgrade", b"websocket").unwrap();
    r.finish().unwrap();
    let ServerEvent::Switch(rest) = conn.next_event() else {
        panic!("switch")
    };
    assert_eq!(rest.slice(conn.received()), b"\x81\x05hello");
}

#[test]
fn bytes_behind_a_pending_upgrade_are_not_a_request() {
    // With HTTP bytes behind the upgrade request, they must not come out
    // as a request before the upgrade is answered (smuggling).
    let mut conn = ServerConn::default();
    conn.feed(
        b"GET /a HTTP/1.1\r\nHost: a\r\n\r\n\
          GET /chat HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n\
          GET /admin HTTP/1.1\r\nHost: a\r\n\r\n",
    );
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    conn.respond_with(200, [("n", "a")], b"a").unwrap();
    let e = conn.next_event();
    assert!(
        !matches!(e, ServerEvent::Request(_)),
        "a request read before the pending upgrade was answered: {e:?}"
    );
}

#[test]
fn a_bodiless_upgrade_can_switch_at_its_head() {
    // Its body (none) has arrived: `respond(101)` works before `End` is
    // reported.
    let mut conn = ServerConn::default();
    conn.feed(
        b"GET /chat HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n",
    );
    assert!(head(&mut conn).upgrade);
    let r = conn.respond(101, Framing::Empty);
    assert!(r.is_ok(), "{:?}", r.err());
}

#[test]
fn upgrade_needs_connection_upgrade_and_http11() {
    for raw in [
        &b"GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n\r\n"[..],
        b"GET / HTTP/1.0\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n",
    ] {
        let mut conn = ServerConn::default();
        conn.feed(raw);
        assert!(!head(&mut conn).upgrade);
        assert_eq!(conn.next_event(), ServerEvent::End);
        assert_eq!(
            conn.respond(101, Framing::Empty).err(),
            Some(SendError::NotUpgradable)
        );
    }
}

#[test]
fn a_dropped_101_leaves_a_valid_stream() {
    // "Dropped without finishing, it leaves nothing behind" (the docs of
    // `Outgoing`) does not hold for a 101 to a request that also expected
    // 100-continue: the interim `100 Continue` written by `respond` stays
    // in the output. Documented: the 100 is a valid interim response to
    // that request whatever follows (RFC 9110 §10.1.1), so the stream
    // stays valid; what must hold is that it is sent once and that the
    // request can still be answered.
    let mut conn = ServerConn::default();
    conn.feed(
        b"POST /u HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: h2c\r\n\
          Expect: 100-continue\r\nContent-Length: 1\r\n\r\nx",
    );
    head(&mut conn);
    assert!(matches!(conn.next_event(), ServerEvent::Data(_)));
    assert_eq!(conn.next_event(), ServerEvent::End);
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

#[test]
fn a_2xx_to_connect_is_a_tunnel_and_a_4xx_is_not() {
    let mut conn = ServerConn::default();
    conn.feed(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n\x16\x03\x01");
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    conn.respond(200, Framing::Empty).unwrap().finish().unwrap();
    let out = take_out(&mut conn);
    assert!(!out.contains("Content-Length"), "{out}");
    let ServerEvent::Switch(rest) = conn.next_event() else {
        panic!()
    };
    assert_eq!(rest.slice(conn.received()), b"\x16\x03\x01");

    let mut conn = ServerConn::default();
    conn.feed(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    conn.respond_with(403, [("a", "b")], b"no").unwrap();
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
}

#[test]
fn respond_with_can_open_a_tunnel() {
    // `respond_with(2xx, .., b"")` to CONNECT must not state
    // `Content-Length: 0`, which a tunnel answer may not carry.
    let mut conn = ServerConn::default();
    conn.feed(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
    head(&mut conn);
    assert_eq!(conn.next_event(), ServerEvent::End);
    let r = conn.respond_with(200, [("Via", "1.1 h1")], b"");
    assert!(r.is_ok(), "{r:?}");
    assert!(matches!(conn.next_event(), ServerEvent::Switch(_)));
}

#[test]
fn connect_with_content_is_refused() {
    // RFC 9110 §9.3.6: CONNECT has no content; a body would put the tunnel's
    // start somewhere else for this server than for a peer that follows it.
    for raw in [
        &b"CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\nContent-Length: 5\r\n\r\nhello"[..],
        b"CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ] {
        let mut conn = ServerConn::default();
        conn.feed(raw);
        assert_eq!(
            conn.next_event(),
            ServerEvent::Error(Error::ContentInConnect)
        );
        assert!(take_out(&mut conn).starts_with("HTTP/1.1 400 "));
    }
    let mut conn = ServerConn::default();
    conn.feed(b"CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\nContent-Length: 0\r\n\r\n");
    head(&mut conn);
}
