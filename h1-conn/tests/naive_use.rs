//! The connection used the way a newcomer writes it from the docs alone:
//! each test is a trap such a server fell into, and pins that the natural
//! code now does the right thing.

use h1_conn::{Config, Error, Expect, Pause, SendError, ServerConn, ServerEvent, Version};

/// Drives `conn` the naive way: answer each request with `hi` once its
/// end is seen, ask for continues where the client expects one, stop when
/// the connection needs bytes or is done. Returns the events' names.
fn naive_loop(conn: &mut ServerConn) -> Vec<String> {
    let mut seen = Vec::new();
    for _ in 0..100 {
        let event = conn.next_event();
        seen.push(format!("{event:?}").split('(').next().unwrap().to_string());
        match event {
            ServerEvent::Request(req) => {
                if req.expect() == Expect::Continue {
                    conn.send_continue()
                        .expect("send_continue never fails here");
                }
            }
            ServerEvent::End => conn.respond_with(200, [("X", "y")], b"hi").unwrap(),
            ServerEvent::Data(_) | ServerEvent::Trailers(_) | ServerEvent::Error(_) => {}
            ServerEvent::Paused(Pause::OutputFull) => {
                let n = conn.out().len();
                conn.written(n);
            }
            ServerEvent::NeedMore | ServerEvent::Closed | ServerEvent::Paused(_) => break,
            other => panic!("{other:?}"),
        }
    }
    seen
}

fn count(out: &[u8], what: &[u8]) -> usize {
    out.windows(what.len()).filter(|w| *w == what).count()
}

#[test]
fn send_continue_for_a_request_whose_body_is_already_here_does_nothing() {
    let mut conn = ServerConn::default();
    conn.feed(b"POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok");
    naive_loop(&mut conn);
    let out = conn.out();
    assert_eq!(
        count(out, b"100 Continue"),
        0,
        "{}",
        String::from_utf8_lossy(out)
    );
    assert_eq!(count(out, b"HTTP/1.1 200 OK"), 1);
    assert_eq!(conn.recv_state(), h1_conn::RecvState::Head);
}

#[test]
fn send_continue_for_a_request_without_a_body_does_nothing() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n\r\n");
    naive_loop(&mut conn);
    assert_eq!(count(conn.out(), b"100 Continue"), 0);
    assert_eq!(count(conn.out(), b"HTTP/1.1 200 OK"), 1);
}

#[test]
fn a_client_waiting_for_100_gets_it_when_its_body_is_asked_for() {
    let mut conn = ServerConn::default();
    conn.feed(b"PUT / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
    let ServerEvent::Request(req) = conn.next_event() else {
        panic!()
    };
    assert_eq!(req.expect(), Expect::Continue);
    assert!(
        conn.out().is_empty(),
        "nothing before the body is asked for"
    );
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    assert_eq!(conn.out(), b"HTTP/1.1 100 Continue\r\n\r\n");
    // Asked again: written once.
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    assert_eq!(conn.send_continue(), Ok(false));
    assert_eq!(count(conn.out(), b"100 Continue"), 1);
    conn.feed(b"ok");
    naive_loop(&mut conn);
    assert_eq!(count(conn.out(), b"HTTP/1.1 200 OK"), 1);
}

#[test]
fn without_auto_continue_only_send_continue_writes_it() {
    let mut config = Config::default();
    config.auto_continue = false;
    let mut conn = ServerConn::new(config);
    conn.feed(b"PUT / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    assert!(conn.out().is_empty());
    assert_eq!(conn.send_continue(), Ok(true));
    assert_eq!(conn.out(), b"HTTP/1.1 100 Continue\r\n\r\n");
    assert_eq!(conn.send_continue(), Ok(false));
}

#[test]
fn http10_expectations_are_ignored() {
    let mut conn = ServerConn::default();
    conn.feed(b"PUT / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
    let ServerEvent::Request(req) = conn.next_event() else {
        panic!()
    };
    assert_eq!(req.version(), Version::Http10);
    assert_eq!(req.expect(), Expect::None);
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    assert!(conn.out().is_empty());
}

#[test]
fn an_unknown_expectation_is_answered_417_and_closes() {
    let mut conn = ServerConn::default();
    conn.feed(b"POST / HTTP/1.1\r\nHost: a\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\nok");
    let events = naive_loop(&mut conn);
    assert_eq!(events, ["Error", "Closed"]);
    assert!(
        conn.out()
            .starts_with(b"HTTP/1.1 417 Expectation Failed\r\n"),
        "{}",
        String::from_utf8_lossy(conn.out())
    );
    assert_eq!(count(conn.out(), b"Connection: close"), 1);
    assert!(!matches!(conn.closing(), h1_conn::Closing::Open));
}

#[test]
fn an_unknown_expectation_reaches_the_caller_when_asked() {
    let mut config = Config::default();
    config.refuse_unknown_expect = false;
    let mut conn = ServerConn::new(config);
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\nExpect: teapot\r\n\r\n");
    let ServerEvent::Request(req) = conn.next_event() else {
        panic!()
    };
    assert_eq!(req.expect(), Expect::Other);
    assert!(conn.out().is_empty());
}

#[test]
fn each_pause_says_why() {
    // The pipelining depth.
    let mut config = Config::default();
    config.max_unanswered = 1;
    let mut conn = ServerConn::new(config);
    conn.feed(b"GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n");
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    assert_eq!(conn.next_event(), ServerEvent::End);
    assert_eq!(conn.next_event(), ServerEvent::Paused(Pause::Unanswered));

    // The output buffer.
    let mut config = Config::default();
    config.max_buffered_output = 10;
    let mut conn = ServerConn::new(config);
    conn.feed(b"GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n");
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    assert_eq!(conn.next_event(), ServerEvent::End);
    conn.respond_with(200, [("X", "y")], b"hi").unwrap();
    assert_eq!(conn.next_event(), ServerEvent::Paused(Pause::OutputFull));
    let n = conn.out().len();
    conn.written(n);
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));

    // A switch.
    let mut conn = ServerConn::default();
    conn.feed(
        b"GET / HTTP/1.1\r\nHost: a\r\nUpgrade: x\r\nConnection: upgrade\r\n\r\nGET / HTTP/1.1\r\n",
    );
    assert!(matches!(conn.next_event(), ServerEvent::Request(r) if r.upgrade));
    assert_eq!(conn.next_event(), ServerEvent::End);
    assert_eq!(conn.next_event(), ServerEvent::Paused(Pause::SwitchPending));

    // Closing with a response owed.
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    assert_eq!(conn.next_event(), ServerEvent::End);
    conn.close();
    assert_eq!(conn.next_event(), ServerEvent::Paused(Pause::ResponsesOwed));
    conn.respond_with(200, [("X", "y")], b"hi").unwrap();
    assert_eq!(conn.next_event(), ServerEvent::Closed);
    assert_eq!(count(conn.out(), b"Connection: close"), 1);
}

#[test]
fn an_eof_mid_request_has_no_status_to_answer() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHo");
    assert_eq!(conn.next_event(), ServerEvent::NeedMore);
    conn.eof();
    let ServerEvent::Error(e) = conn.next_event() else {
        panic!()
    };
    assert_eq!(e, Error::UnexpectedEof);
    assert_eq!(e.status(), None);
    assert_eq!(conn.next_event(), ServerEvent::Closed);
    assert!(conn.out().is_empty(), "nothing is answered");
}

#[test]
fn malformed_requests_have_their_status() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n");
    let ServerEvent::Error(e) = conn.next_event() else {
        panic!()
    };
    assert_eq!(e.status(), Some(400));
    assert!(conn.out().starts_with(b"HTTP/1.1 400 Bad Request\r\n"));
}

#[cfg(feature = "std")]
#[test]
fn responses_carry_a_date_without_the_caller_keeping_one() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    naive_loop(&mut conn);
    let out = String::from_utf8_lossy(conn.out()).into_owned();
    let date = out
        .lines()
        .find_map(|l| l.strip_prefix("Date: "))
        .unwrap_or_else(|| panic!("no Date in {out}"));
    // IMF-fixdate of the current time, not the epoch.
    assert_eq!(date.len(), 29, "{date}");
    assert!(date.ends_with(" GMT") && !date.contains("1970"), "{date}");
}

#[test]
fn a_date_field_from_the_caller_is_not_doubled() {
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    conn.respond_with(200, [("Date", "Sun, 06 Nov 1994 08:49:37 GMT")], b"hi")
        .unwrap();
    assert_eq!(count(conn.out(), b"Date: "), 1);
    assert_eq!(count(conn.out(), b"Date: Sun, 06 Nov 1994 08:49:37 GMT"), 1);
}

#[test]
fn switching_before_the_body_has_arrived_says_so() {
    let mut conn = ServerConn::default();
    conn.feed(b"POST / HTTP/1.1\r\nHost: a\r\nUpgrade: x\r\nConnection: upgrade\r\nContent-Length: 4\r\n\r\nab");
    assert!(matches!(conn.next_event(), ServerEvent::Request(r) if r.upgrade));
    assert_eq!(
        conn.respond(101, h1_conn::Framing::Empty).map(|_| ()),
        Err(SendError::BodyPending)
    );
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    assert_eq!(
        conn.respond(101, h1_conn::Framing::Empty).map(|_| ()),
        Err(SendError::NotUpgradable)
    );
}

#[cfg(feature = "std")]
/// RFC 9110 §6.6.1: `Date` is "the best available approximation of the
/// date and time of message generation": a response made long after its
/// request arrived (a slow handler, a long poll) carries the time it was
/// made, as hyper and Go do.
#[test]
fn date_is_taken_when_the_response_is_generated() {
    let mut conn = ServerConn::default(); // `send_date`: the connection's own clock
    conn.feed(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(matches!(conn.next_event(), ServerEvent::Request(_)));
    assert_eq!(conn.next_event(), ServerEvent::End);
    std::thread::sleep(std::time::Duration::from_millis(2100)); // the handler works
    let mut clock = h1_conn::DateCache::new();
    let before = *clock.line();
    conn.respond_with(200, [("X", "y")], b"hi").unwrap();
    let after = *clock.line();
    let out = conn.out();
    let at = out
        .windows(6)
        .position(|w| w == b"Date: ")
        .expect("a Date line");
    let sent = &out[at..at + before.as_bytes().len()];
    assert!(
        sent == before.as_bytes() || sent == after.as_bytes(),
        "sent {:?}, now {:?}",
        String::from_utf8_lossy(sent),
        String::from_utf8_lossy(after.as_bytes())
    );
}
