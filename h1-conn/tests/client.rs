//! The client role: responses framed by the request they answer.

use h1_conn::{ClientConn, ClientEvent, Closing, Config, Error, Framing, SendError, ServerEvent};

fn body_of(conn: &mut ClientConn) -> (Vec<u8>, ClientEvent) {
    let mut body = Vec::new();
    loop {
        match conn.next_event() {
            ClientEvent::Data(s) => body.extend_from_slice(s.slice(conn.received())),
            ClientEvent::Trailers(_) => {}
            e => return (body, e),
        }
    }
}

fn get(conn: &mut ClientConn, method: &[u8]) {
    conn.request(method, b"/", Some(b"h"), Framing::Empty)
        .unwrap()
        .finish()
        .unwrap();
}

#[test]
fn pipelined_responses_in_order_with_every_framing() {
    let mut conn = ClientConn::default();
    for m in [&b"GET"[..], b"HEAD", b"GET", b"GET"] {
        get(&mut conn, m);
    }
    assert_eq!(conn.outstanding(), 4);
    assert_eq!(conn.out().matches_count(), 4);
    conn.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc");
    conn.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n");
    conn.feed(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nde\r\n0\r\nX: y\r\n\r\n");
    conn.feed(b"HTTP/1.1 204 No Content\r\n\r\n");
    let mut bodies = Vec::new();
    for _ in 0..4 {
        let ClientEvent::Response(r) = conn.next_event() else {
            panic!()
        };
        assert!(r.persistent);
        let (b, end) = body_of(&mut conn);
        assert_eq!(end, ClientEvent::End);
        bodies.push(b);
    }
    assert_eq!(bodies, [b"abc".to_vec(), vec![], b"de".to_vec(), vec![]]);
    assert_eq!(conn.next_event(), ClientEvent::NeedMore);
    assert_eq!(conn.outstanding(), 0);
}

trait CountRequests {
    fn matches_count(&self) -> usize;
}
impl CountRequests for [u8] {
    fn matches_count(&self) -> usize {
        self.windows(9).filter(|w| w == b"HTTP/1.1\r").count()
    }
}

#[test]
fn a_body_without_length_runs_until_close() {
    let mut conn = ClientConn::default();
    get(&mut conn, b"GET");
    conn.feed(b"HTTP/1.1 200 OK\r\n\r\nsome bytes");
    let ClientEvent::Response(r) = conn.next_event() else {
        panic!()
    };
    assert_eq!(r.framing, Framing::UntilClose);
    assert!(!r.persistent);
    let (b, e) = body_of(&mut conn);
    assert_eq!(
        (b.as_slice(), e),
        (&b"some bytes"[..], ClientEvent::NeedMore)
    );
    conn.feed(b" more");
    conn.eof();
    let (b, e) = body_of(&mut conn);
    assert_eq!((b.as_slice(), e), (&b" more"[..], ClientEvent::End));
    assert_eq!(conn.next_event(), ClientEvent::Closed);
    assert_eq!(conn.closing(), Closing::Close);
}

#[test]
fn interim_responses_are_surfaced_then_the_final_one() {
    let mut conn = ClientConn::default();
    conn.request(b"POST", b"/", Some(b"h"), Framing::Length(2))
        .unwrap()
        .finish()
        .unwrap();
    conn.send_data(b"hi").unwrap();
    conn.send_end().unwrap();
    conn.feed(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n");
    let ClientEvent::Interim(r) = conn.next_event() else {
        panic!()
    };
    assert_eq!(r.status(), 100);
    let ClientEvent::Interim(r) = conn.next_event() else {
        panic!()
    };
    assert_eq!(r.status(), 103);
    assert_eq!(conn.fields().unwrap().get(b"link"), Some(&b"</a>"[..]));
    let ClientEvent::Response(r) = conn.next_event() else {
        panic!()
    };
    assert_eq!(r.status(), 201);
    assert_eq!(conn.next_event(), ClientEvent::End);
}

#[test]
fn connection_close_ends_reading() {
    let mut conn = ClientConn::default();
    get(&mut conn, b"GET");
    get(&mut conn, b"GET");
    conn.feed(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nxHTTP/1.1 200 OK\r\n\r\n");
    let ClientEvent::Response(r) = conn.next_event() else {
        panic!()
    };
    assert!(!r.persistent);
    assert!(matches!(conn.next_event(), ClientEvent::Data(_)));
    assert_eq!(conn.next_event(), ClientEvent::End);
    assert_eq!(conn.next_event(), ClientEvent::Closed);
}

#[test]
fn http10_responses_close_unless_keep_alive() {
    let mut conn = ClientConn::default();
    get(&mut conn, b"GET");
    conn.feed(b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n");
    let ClientEvent::Response(r) = conn.next_event() else {
        panic!()
    };
    assert!(!r.persistent);
    let mut conn = ClientConn::default();
    get(&mut conn, b"GET");
    conn.feed(b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n");
    let ClientEvent::Response(r) = conn.next_event() else {
        panic!()
    };
    assert!(r.persistent);
}

#[test]
fn switching_needs_a_request_that_asked() {
    let mut conn = ClientConn::default();
    get(&mut conn, b"GET");
    conn.feed(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n");
    assert_eq!(
        conn.next_event(),
        ClientEvent::Error(Error::UnexpectedStatus)
    );

    let mut conn = ClientConn::default();
    let mut r = conn
        .request(b"GET", b"/chat", Some(b"h"), Framing::Empty)
        .unwrap();
    r.field(b"Connection", b"upgrade").unwrap();
    r.field(b"Upgrade", b"websocket").unwrap();
    r.upgrade();
    r.finish().unwrap();
    conn.feed(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n\x81\x00");
    assert!(matches!(conn.next_event(), ClientEvent::Response(_)));
    assert_eq!(conn.next_event(), ClientEvent::End);
    let ClientEvent::Switch(rest) = conn.next_event() else {
        panic!()
    };
    assert_eq!(rest.slice(conn.received()), b"\x81\x00");
}

#[test]
fn a_2xx_to_connect_is_a_tunnel() {
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
    conn.feed(b"HTTP/1.1 200 Connection Established\r\nContent-Length: 5\r\n\r\n\x16\x03");
    let ClientEvent::Response(r) = conn.next_event() else {
        panic!()
    };
    assert_eq!(r.framing, Framing::Empty);
    assert_eq!(conn.next_event(), ClientEvent::End);
    let ClientEvent::Switch(rest) = conn.next_event() else {
        panic!()
    };
    assert_eq!(rest.slice(conn.received()), b"\x16\x03");
}

#[test]
fn unsolicited_bytes_and_eof_mid_message_are_errors() {
    let mut conn = ClientConn::default();
    conn.feed(b"HTTP/1.1 200 OK\r\n\r\n");
    assert_eq!(
        conn.next_event(),
        ClientEvent::Error(Error::UnsolicitedResponse)
    );

    let mut conn = ClientConn::default();
    get(&mut conn, b"GET");
    conn.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab");
    assert!(matches!(conn.next_event(), ClientEvent::Response(_)));
    assert!(matches!(conn.next_event(), ClientEvent::Data(_)));
    conn.eof();
    assert_eq!(conn.next_event(), ClientEvent::Error(Error::UnexpectedEof));
}

#[test]
fn raw_requests_can_be_registered() {
    let mut conn = ClientConn::default();
    conn.sent(b"HEAD", false, false, false).unwrap();
    conn.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n");
    assert!(matches!(conn.next_event(), ClientEvent::Response(_)));
    assert_eq!(conn.next_event(), ClientEvent::End);
}

#[test]
fn outstanding_requests_are_bounded() {
    let mut config = Config::default();
    config.max_unanswered = 2;
    let mut conn = ClientConn::new(config);
    get(&mut conn, b"GET");
    get(&mut conn, b"GET");
    assert_eq!(
        conn.request(b"GET", b"/", Some(b"h"), Framing::Empty)
            .err()
            .map(|_| ()),
        Some(())
    );
    assert!(matches!(
        conn.request(b"GET", b"/", Some(b"h"), Framing::Empty),
        Err(SendError::TooManyOutstanding)
    ));
}

#[test]
fn no_request_after_one_that_closes() {
    let mut conn = ClientConn::default();
    conn.close();
    get(&mut conn, b"GET");
    assert!(conn
        .out()
        .windows(19)
        .any(|w| w == b"Connection: close\r\n"));
    assert!(matches!(
        conn.request(b"GET", b"/", Some(b"h"), Framing::Empty),
        Err(SendError::Closed)
    ));
    // The server says it closes: no request may follow, even before the
    // response ends (RFC 9112 §9.6).
    let mut conn = ClientConn::default();
    get(&mut conn, b"GET");
    conn.feed(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5\r\n\r\nab");
    assert!(matches!(conn.next_event(), ClientEvent::Response(_)));
    assert!(matches!(
        conn.request(b"GET", b"/", Some(b"h"), Framing::Empty),
        Err(SendError::Closed)
    ));
}

#[test]
fn body_data_up_to_the_limit_comes_before_the_error() {
    // Found by fuzzing: how much data preceded `BodyTooLarge` depended on
    // the reads. Now the data within the limit is always delivered first.
    let mut config = Config::default();
    config.max_body_len = 4;
    for cut in [22, 19 + 8] {
        let raw = b"HTTP/1.1 200 OK\r\n\r\nabcdefgh";
        let mut conn = ClientConn::new(config.clone());
        get(&mut conn, b"GET");
        conn.feed(&raw[..cut.min(raw.len())]);
        let mut events = Vec::new();
        let mut body = Vec::new();
        let mut fed = false;
        loop {
            match conn.next_event() {
                ClientEvent::NeedMore if !fed => {
                    conn.feed(&raw[cut.min(raw.len())..]);
                    fed = true;
                }
                ClientEvent::Data(s) => body.extend_from_slice(s.slice(conn.received())),
                ClientEvent::Response(_) => {}
                e => {
                    events.push(e);
                    break;
                }
            }
        }
        assert_eq!(body, b"abcd", "cut {cut}");
        assert_eq!(
            events,
            [ClientEvent::Error(Error::BodyTooLarge)],
            "cut {cut}"
        );
    }
}

#[test]
fn a_chunked_request_ends_with_trailers() {
    let mut conn = ClientConn::default();
    conn.request(b"PUT", b"/up", Some(b"h"), Framing::Chunked)
        .unwrap()
        .finish()
        .unwrap();
    conn.send_data(b"hello").unwrap();
    conn.send_end_with_trailers([("Digest", "x")]).unwrap();
    assert!(conn
        .out()
        .ends_with(b"\r\n\r\n5\r\nhello\r\n0\r\nDigest: x\r\n\r\n"));
    assert_eq!(conn.send_end(), Err(SendError::NoMessage));
    // The server role reads it back with the trailer.
    let mut server = h1_conn::ServerConn::default();
    server.feed(conn.out());
    assert!(matches!(server.next_event(), ServerEvent::Request(_)));
    assert!(matches!(server.next_event(), ServerEvent::Data(_)));
    assert_eq!(server.next_event(), ServerEvent::Trailers(1));
    assert_eq!(server.trailers().unwrap().get(b"digest"), Some(&b"x"[..]));
    assert_eq!(server.next_event(), ServerEvent::End);
}

#[test]
fn no_request_after_a_switch() {
    // After the server's 101 the stream is the new protocol's: an HTTP/1.1
    // request written into it would be garbage there.
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
    assert!(matches!(conn.next_event(), ClientEvent::Response(_)));
    assert_eq!(conn.next_event(), ClientEvent::End);
    assert!(matches!(conn.next_event(), ClientEvent::Switch(_)));
    let r = conn.request(b"GET", b"/x", Some(b"h"), Framing::Empty);
    assert!(
        matches!(r, Err(SendError::Closed)),
        "request accepted after the switch"
    );
}

#[test]
fn no_request_after_the_server_closed() {
    // The server answered `Connection: close`: a new request could never
    // be answered on this connection.
    let mut conn = ClientConn::default();
    conn.request(b"GET", b"/", Some(b"h"), Framing::Empty)
        .unwrap()
        .finish()
        .unwrap();
    conn.written(conn.out().len());
    conn.feed(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    assert!(matches!(conn.next_event(), ClientEvent::Response(_)));
    assert_eq!(conn.next_event(), ClientEvent::End);
    assert_eq!(conn.closing(), Closing::Close);
    let r = conn.request(b"GET", b"/again", Some(b"h"), Framing::Empty);
    assert!(
        matches!(r, Err(SendError::Closed)),
        "request accepted on a closed connection"
    );
}

#[test]
fn no_request_is_pipelined_behind_connect() {
    // When the proxy answers 2xx, bytes sent behind CONNECT are already
    // inside the tunnel (h11 refuses to send while a switch is proposed).
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
    assert!(
        matches!(r, Err(SendError::SwitchPending)),
        "request pipelined into a would-be tunnel: {:?}",
        r.map(|_| ())
    );
}

/// A request written by hand is registered with its method and whether it
/// closes: only a CONNECT makes a 2xx a tunnel, and a request that does not
/// close leaves the connection persistent.
#[test]
fn raw_requests_keep_their_method_and_persistence() {
    let mut conn = ClientConn::default();
    conn.sent(b"GET", false, false, false).unwrap();
    conn.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi");
    let ClientEvent::Response(r) = conn.next_event() else {
        panic!()
    };
    assert_eq!(r.framing, Framing::Length(2));
    assert!(r.persistent);
    assert_eq!(body_of(&mut conn), (b"hi".to_vec(), ClientEvent::End));
    assert_eq!(conn.closing(), Closing::Open);

    conn.sent(b"CONNECT", false, false, false).unwrap();
    conn.feed(b"HTTP/1.1 200 Connection Established\r\n\r\n\x16\x03");
    let ClientEvent::Response(r) = conn.next_event() else {
        panic!()
    };
    assert_eq!(r.framing, Framing::Empty);
    assert_eq!(conn.next_event(), ClientEvent::End);
    let ClientEvent::Switch(rest) = conn.next_event() else {
        panic!()
    };
    assert_eq!(rest.slice(conn.received()), b"\x16\x03");

    // One that closes: the response does not keep the connection.
    let mut conn = ClientConn::default();
    conn.sent(b"GET", false, false, true).unwrap();
    conn.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
    let ClientEvent::Response(r) = conn.next_event() else {
        panic!()
    };
    assert!(!r.persistent);
}

/// A request that closes (after `close()`) makes its response the last
/// one, even when the server would keep the connection.
#[test]
fn a_request_that_closes_gets_a_response_that_is_not_persistent() {
    let mut conn = ClientConn::default();
    conn.close();
    get(&mut conn, b"GET");
    conn.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx");
    let ClientEvent::Response(r) = conn.next_event() else {
        panic!()
    };
    assert!(!r.persistent);
    assert_eq!(body_of(&mut conn), (b"x".to_vec(), ClientEvent::End));
    assert_eq!(conn.next_event(), ClientEvent::Closed);
    assert_eq!(conn.closing(), Closing::Close);
}

/// The server closing before any byte of the response is an error, not a
/// clean end: the request was not answered (RFC 9112 §8).
#[test]
fn eof_before_the_response_is_an_error() {
    let mut conn = ClientConn::default();
    get(&mut conn, b"GET");
    assert_eq!(conn.next_event(), ClientEvent::NeedMore);
    conn.eof();
    assert_eq!(conn.next_event(), ClientEvent::Error(Error::UnexpectedEof));
    assert_eq!(conn.closing(), Closing::Close);
}

/// A `Content-Length` of exactly `max_body_len` is read; one byte more is
/// refused at the head, before any data.
#[test]
fn a_response_content_length_includes_the_limit() {
    let mut config = Config::default();
    config.max_body_len = 4;
    let mut conn = ClientConn::new(config.clone());
    get(&mut conn, b"GET");
    conn.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nabcd");
    assert!(matches!(conn.next_event(), ClientEvent::Response(_)));
    assert_eq!(body_of(&mut conn), (b"abcd".to_vec(), ClientEvent::End));

    let mut conn = ClientConn::new(config);
    get(&mut conn, b"GET");
    conn.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nabcd");
    assert_eq!(conn.next_event(), ClientEvent::Error(Error::BodyTooLarge));
}

/// A response's reason phrase and fields point into `received()` whatever
/// came before them in the buffer, and all its fields are there.
#[test]
fn a_later_response_has_its_reason_and_every_field() {
    let mut conn = ClientConn::default();
    get(&mut conn, b"GET");
    get(&mut conn, b"GET");
    conn.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 404 Not Found\r\nA: 1\r\nContent-Length: 0\r\n\r\n");
    assert!(matches!(conn.next_event(), ClientEvent::Response(_)));
    assert_eq!(conn.next_event(), ClientEvent::End);
    let ClientEvent::Response(r) = conn.next_event() else {
        panic!()
    };
    assert_eq!(r.head.reason.slice(conn.received()), b"Not Found");
    let fields: Vec<(&[u8], &[u8])> = conn
        .field_entries()
        .iter()
        .map(|e| {
            (
                e.name.slice(conn.received()),
                e.value.slice(conn.received()),
            )
        })
        .collect();
    assert_eq!(fields, [(&b"A"[..], &b"1"[..]), (b"Content-Length", b"0")]);
}

/// Only a 2xx makes a tunnel of CONNECT (RFC 9110 §9.3.6): a 300 is an
/// ordinary response, its body framed, the connection kept.
#[test]
fn a_3xx_to_connect_is_not_a_tunnel() {
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
    conn.feed(b"HTTP/1.1 300 Multiple Choices\r\nContent-Length: 2\r\n\r\nab");
    let ClientEvent::Response(r) = conn.next_event() else {
        panic!()
    };
    assert_eq!(r.framing, Framing::Length(2));
    assert!(r.persistent);
    assert_eq!(body_of(&mut conn), (b"ab".to_vec(), ClientEvent::End));
    assert_eq!(conn.next_event(), ClientEvent::NeedMore);
    assert_eq!(conn.closing(), Closing::Open);
}
