//! The live runner, and the binary's live mode, against fake servers on
//! 127.0.0.1:0: a server that misbehaves on the wire (answers to smuggled
//! requests, late answers, a cut-off extra response, a connection kept
//! after `close`, endless interim responses) fails; a conforming one (a
//! lingering close, one connection at a time) passes; and the binary says
//! what a live run could not check or reach. Every wait is bounded.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use h1_conformance::case::{Case, Outcome};
use h1_conformance::heads::Sent;
use h1_conformance::judge::{judge, Verdict};
use h1_conformance::live::Live;
use h1_conformance::observe::{Answer, Ending};
use h1_conformance::reader::Reader;

mod common;

use common::{echo_answer, get, obs, ECHO, PLAIN};

/// Serves each accepted connection (at most 8) with `handler` on its own
/// thread. The handlers bound their own reads with timeouts.
fn serve<F>(handler: F) -> SocketAddr
where
    F: Fn(TcpStream) + Send + Sync + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let handler = Arc::new(handler);
    thread::spawn(move || {
        for stream in listener.incoming().take(8).flatten() {
            let h = Arc::clone(&handler);
            thread::spawn(move || h(stream));
        }
    });
    addr
}

fn live(addr: SocketAddr) -> Live {
    let mut l = Live::new(addr).unwrap();
    l.timeout = Duration::from_secs(3);
    l
}

/// Reads until `buf` holds a blank line, the peer closes, or 5 s pass;
/// returns the head (up to and with the blank line) and leaves the rest.
fn next_head(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<Vec<u8>> {
    let end = Instant::now() + Duration::from_secs(5);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(50)));
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            return Some(buf.drain(..p + 4).collect());
        }
        if Instant::now() > end {
            return None;
        }
        match stream.read(&mut chunk) {
            Ok(0) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => return None,
        }
    }
}

/// The classic desync bug: every blank-line-terminated head is a request
/// (Content-Length and chunked are ignored), each answered 200 after
/// `delay`, the connection never closed by the server.
fn yes_server(delay: Duration) -> SocketAddr {
    serve(move |mut s| {
        let mut buf = Vec::new();
        while next_head(&mut s, &mut buf).is_some() {
            thread::sleep(delay);
            if s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                .is_err()
            {
                return;
            }
        }
    })
}

/// A correct but sequential server (one connection at a time, as many
/// small servers are) that sends `100 Continue` at once and answers each
/// request with its body; it serves `conns` connections, each until the
/// client closes or 1 s of silence.
fn sequential_server(conns: usize) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    thread::spawn(move || {
        for mut s in listener.incoming().take(conns).flatten() {
            let mut buf = Vec::new();
            while let Some(head) = next_head(&mut s, &mut buf) {
                let text = String::from_utf8_lossy(&head).to_ascii_lowercase();
                let len: usize = text
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0);
                if text.contains("\r\nexpect: 100-continue\r\n") {
                    let _ = s.write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
                }
                let end = Instant::now() + Duration::from_secs(1);
                let mut chunk = [0u8; 4096];
                while buf.len() < len && Instant::now() < end {
                    match s.read(&mut chunk) {
                        Ok(0) => break,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        Err(e)
                            if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                        Err(_) => break,
                    }
                }
                let body: Vec<u8> = buf.drain(..len.min(buf.len())).collect();
                let mut out = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len())
                    .into_bytes();
                out.extend_from_slice(&body);
                if s.write_all(&out).is_err() {
                    break;
                }
            }
        }
    });
    addr
}

/// The answer h1's echo gives the keep-alive probe.
fn probe_answer() -> Answer {
    echo_answer(200, b"GET", b"/keep-alive-probe", b"", 1)
}

// --- a server that misbehaves fails ---

/// In a `close = false` case the runner sends a probe once the answers the
/// case expects are in. A server that ignores Content-Length answers the
/// body of cont-026 (`GET /inner ...`) as a third request: that extra
/// answer is counted and the MUST case fails; it is not read as the probe's
/// answer and dropped.
#[test]
fn an_answer_to_a_smuggled_request_is_not_the_probes() {
    let c = get("cont-026");
    // 20 ms per answer, so that the answer to `GET /b` and the probe's are
    // not read in one piece.
    let addr = yes_server(Duration::from_millis(20));
    let o = live(addr).run(&c);
    let v = judge(&c, &o, PLAIN);
    assert!(
        matches!(v, Verdict::Fail(..)),
        "a server that answered 3 requests (one smuggled in the body) passed cont-026: {v:?}; got {}",
        h1_conformance::judge::describe(&o)
    );
}

/// The same in a one-step keep-alive case, with a little latency per
/// response (20 ms, a real handler): len-037 sends a chunked `PATCH /p`
/// then `GET /next`. A server that takes every blank line for the end of a
/// request answers three times (`PATCH /p`, the chunked body
/// `10\r\n0123...\r\n0\r\n\r\n`, `GET /next`): three answers to two
/// requests fail the case.
#[test]
fn a_slow_server_answering_each_blank_line_fails_a_keep_alive_case() {
    let c = get("len-037");
    let Outcome::Accept { requests, close } = &c.outcome else {
        panic!("len-037 is an accept case")
    };
    assert_eq!((requests.len(), *close), (2, Some(false)));
    let addr = yes_server(Duration::from_millis(20));
    let o = live(addr).run(&c);
    let v = judge(&c, &o, PLAIN);
    assert!(
        matches!(v, Verdict::Fail(..)),
        "a head-only server (3 answers to 2 requests, one per blank line) passed len-037: {v:?}; got {}",
        h1_conformance::judge::describe(&o)
    );
}

/// A desync server that answers the request hidden in a body and then
/// closes (so it never answers the probe) fails a `close = false` case:
/// the runner sees the extra answer before it sends the probe, and does
/// not take it for the probe's.
#[test]
fn an_extra_answer_before_the_probe_is_not_the_probes() {
    let c = get("len-037");
    let addr = serve(|mut s| {
        let mut buf = Vec::new();
        let mut answered = 0;
        // Every blank-line-terminated head is a request; after the case's
        // bytes it closes instead of reading the probe.
        while answered < 3 {
            if next_head(&mut s, &mut buf).is_none() {
                break;
            }
            // The answer to the hidden request comes a moment later than
            // the others, as from a slower backend.
            if answered == 2 {
                thread::sleep(Duration::from_millis(60));
            }
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
            answered += 1;
            if buf.is_empty() {
                let _ = s.set_read_timeout(Some(Duration::from_millis(300)));
                let mut more = [0u8; 256];
                // What comes now is the probe: the server leaves.
                let _ = s.read(&mut more);
                break;
            }
        }
    });
    let o = live(addr).run(&c);
    let v = judge(&c, &o, PLAIN);
    assert!(
        matches!(v, Verdict::Fail(..)),
        "a desync server passed {}: {v:?}; got {}",
        c.id,
        h1_conformance::judge::describe(&o)
    );
}

/// close-006 sends `Connection: close` then a second POST with body
/// `evil!`: a server that ignores `close`, keeps the connection open and
/// answers the second request 300 ms later (after a quiet period) fails the
/// MUST vector: the answer to the request that should not have been read is
/// seen.
#[test]
fn a_late_answer_to_a_request_after_close_is_seen() {
    let c = get("close-006");
    let addr = yes_server(Duration::from_millis(300));
    let o = live(addr).run(&c);
    let v = judge(&c, &o, PLAIN);
    assert!(
        matches!(v, Verdict::Fail(..)),
        "a server that ignores Connection: close and answers the next request late passed close-006: {v:?}; got {}",
        h1_conformance::judge::describe(&o)
    );
}

/// A response that has begun (its head read) but not ended when the runner
/// stops counts: a server that follows its answer to basic-017 with the
/// head of a second, unasked-for response, cut off, and keeps the
/// connection open fails (as does the answer to a smuggled `HEAD` carrying
/// a non-zero Content-Length, which the reader, expecting a GET, waits a
/// body for).
#[test]
fn a_cut_off_extra_response_is_seen() {
    let c = get("basic-017");
    let addr = serve(|mut s| {
        let mut buf = Vec::new();
        if next_head(&mut s, &mut buf).is_some() {
            let _ = s.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok\
                  HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\ntrunc",
            );
            while next_head(&mut s, &mut buf).is_some() {}
        }
    });
    let o = live(addr).run(&c);
    let v = judge(&c, &o, PLAIN);
    assert!(
        matches!(v, Verdict::Fail(..)),
        "a second, cut-off response after the answer passed basic-017: {v:?}; got {}",
        h1_conformance::judge::describe(&o)
    );
}

/// An imported accept vector whose last request closes (close-004:
/// `Connection: CLOSE`, RFC 9112 §9.6 "MUST initiate closure") requires the
/// close: a server that answers the first request and then keeps the
/// connection open, reading and discarding, fails.
#[test]
fn close_vectors_require_the_close() {
    let c = get("close-004");
    let addr = serve(|mut s| {
        let mut buf = Vec::new();
        if next_head(&mut s, &mut buf).is_some() {
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
            // Never answers again, never closes: reads until the client
            // goes (bounded by next_head's 5 s).
            while next_head(&mut s, &mut buf).is_some() {}
        }
    });
    let o = live(addr).run(&c);
    let v = judge(&c, &o, PLAIN);
    assert!(
        matches!(v, Verdict::Fail(..)),
        "a server that kept the connection open after `Connection: CLOSE` passed close-004: {v:?}; got {}",
        h1_conformance::judge::describe(&o)
    );
}

/// The reader keeps a bounded number of interim responses: a server that
/// streams `100 Continue` for the whole case timeout (up to 600 s with
/// `--timeout`) does not grow the runner's memory and the report without
/// bound (it stops, Broken, or keeps only a few).
#[test]
fn interim_responses_are_bounded() {
    let sent = [Sent {
        method: b"POST".to_vec(),
        target: b"/".to_vec(),
        http10: false,
        upgrade: false,
        close: false,
        step: 0,
    }];
    let mut r = Reader::new(&sent);
    let interim = b"HTTP/1.1 100 Continue\r\n\r\n".repeat(1000);
    for _ in 0..100 {
        r.feed(&interim);
    }
    r.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
    let o = r.finish(None);
    let kept = o.answers.first().map_or(0, |a| a.interim.len());
    assert!(
        kept < 1000 || matches!(o.ending, Ending::Broken(_)),
        "100,000 interim responses accepted and {kept} kept"
    );
}

// --- a conforming server passes ---

/// A server that answers `Connection: close` and closes a little after
/// the quiet period (a lingering close) conforms: the runner must wait for
/// the close to the case's deadline, not call the connection open.
#[test]
fn a_close_after_the_quiet_period_still_counts() {
    let c = get("close-006");
    let addr = serve(|mut s| {
        let mut buf = Vec::new();
        if next_head(&mut s, &mut buf).is_some() {
            let _ =
                s.write_all(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok");
            thread::sleep(Duration::from_millis(600));
        }
    });
    let o = live(addr).run(&c);
    assert_eq!(
        judge(&c, &o, PLAIN),
        Verdict::Pass,
        "{}",
        h1_conformance::judge::describe(&o)
    );
}

/// A conforming server that serves one connection at a time (as many small
/// servers do) and sends `100 Continue` at once passes the continue cases,
/// run alone and as the binary runs them by default (one plain request to
/// identify the server, then the cases one at a time): a case's quiet
/// periods do not run while it waits for the server to accept its
/// connection, so verdicts do not depend on cases running at once.
#[test]
fn a_server_of_one_connection_at_a_time_passes() {
    let ids = ["cont-001", "cont-009", "cont-008", "cont-007"];
    let cases: Vec<Case> = ids.iter().map(|id| get(id)).collect();
    // Alone, one after the other: all pass.
    let addr = sequential_server(cases.len());
    for c in &cases {
        let o = live(addr).run(c);
        assert_eq!(
            judge(c, &o, PLAIN),
            Verdict::Pass,
            "{} alone: {}",
            c.id,
            h1_conformance::judge::describe(&o)
        );
    }
    // As the binary runs them by default (one plain request first to
    // identify the server, then the cases one at a time): all pass.
    let addr = sequential_server(cases.len() + 1).to_string();
    let mut args = vec!["--target", addr.as_str(), "--echo", "no"];
    for id in ids {
        args.extend(["--filter", id]);
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_h1-conformance"))
        .args(&args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("4 passed, 0 failed"), "{text}");
}

// --- what the binary says about a live run ---

/// `fields` expectations are checked against what the server saw, which
/// only the in-process runner knows. Live, the judge passes field-006
/// (`X-Pad: \t a b \t` must be seen trimmed) for any server that answers
/// 200, e.g. one that folds the value to `a b`; the binary's report says
/// the expectation was checked only in process.
#[test]
fn a_live_run_reports_field_expectations_unchecked() {
    let c = get("field-006");
    let Outcome::Accept { requests, .. } = &c.outcome else {
        panic!()
    };
    assert!(!requests[0].fields.is_empty());
    let mut o = obs(vec![echo_answer(200, b"GET", b"/", b"", 0)], Ending::Open);
    o.probe = Some(Some(probe_answer()));
    // The judge can only pass what it can see; the report must say what
    // a live run did not check.
    assert_eq!(judge(&c, &o, ECHO), Verdict::Pass);
    let addr = yes_server(Duration::ZERO).to_string();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_h1-conformance"))
        .args(["--target", &addr, "--filter", "field-006", "--timeout", "2"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("checked only in process"),
        "a live run does not say field expectations went unchecked:\n{text}"
    );
}

/// The README's exit status 2 "when the target does not answer" holds with
/// `--echo yes` or `--echo no` too, where no auto-detection asks the
/// target: not exit 1 ("the server fails") with every case "cannot
/// connect", where nothing was tested.
#[test]
fn a_target_that_is_not_there_exits_2_whatever_echo_says() {
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let target = format!("127.0.0.1:{port}");
    let out = Command::new(env!("CARGO_BIN_EXE_h1-conformance"))
        .args([
            "--target",
            &target,
            "--echo",
            "no",
            "--filter",
            "basic-00",
            "--timeout",
            "1",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("run h1-conformance");
    assert_eq!(
        out.status.code(),
        Some(2),
        "no server at {target}, yet:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
