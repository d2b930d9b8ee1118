//! One server-side round trip through `h1-conn`, in process: the
//! TechEmpower plaintext request in, `Hello, World!` out.
//!
//! The request is the one `testdata/inputs/3_tfb_pipelined16.http` holds 16
//! times (`GET /plaintext`, `Host`, `Accept`, `Connection: keep-alive`,
//! 161 bytes). Each round trip feeds it, takes the `Request` event, answers
//! through `respond` (`200`, `Server` and `Content-Type` from one
//! `PreEncoded`, the `Date` line the connection adds from a fixed
//! `DateLine` (`set_date`), `Content-Length: 13` and the body through
//! `send_data`/`send_end`), takes the `End` event and
//! writes the output (`out()`, then `written(len)`). The connection, its
//! buffers, the `PreEncoded` and the `DateLine` are made once, outside the
//! timed loop, as a server makes them per connection or once a second.
//!
//! Two groups, each timing one batch per iteration:
//!
//! - `conn_keep_alive`: one request per iteration on a long-lived
//!   connection (one feed, one answer, one write);
//! - `conn_pipelined16`: the 16 requests of the input in one feed, 16
//!   answers, one write.
//!
//! Beside `h1` each group times `naive`: httparse parses the same bytes
//! (advancing by each head's length) and `write!` formats the same
//! response bytes into a `Vec`, with no connection state, no framing
//! decisions and no validation of the answer. Before anything is timed,
//! both must produce the same bytes, and the connection the expected
//! events. Throughput is in requests, so criterion's `elem/s` is requests
//! per second; RESULTS.md gives ns per request.
//!
//! Run: `cargo bench -p h1-benches --bench conn`. The machine is shared and
//! noisy: compare `h1` with `naive` within one run, as ratios.

use std::hint::black_box;
use std::io::Write;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use h1_benches::load_input;
use h1_conn::{ServerConn, ServerEvent};
use h1_encode::{DateLine, Framing, PreEncoded};

const OK: (u16, &str) = (200, "OK");
const DATE: &str = "Sun, 06 Nov 1994 08:49:37 GMT";
const SERVER: &str = "h1";
const CONTENT_TYPE: &str = "text/plain";
const BODY: &[u8] = b"Hello, World!";

/// What the server builds once.
struct Statics {
    fields: PreEncoded,
}

/// Answers every request in the bytes fed so far, then writes the output
/// once; returns how many requests were answered.
fn h1_serve(conn: &mut ServerConn, s: &Statics, input: &[u8]) -> usize {
    let fed = conn.feed(input);
    debug_assert_eq!(fed, input.len());
    let mut answered = 0;
    loop {
        match conn.next_event() {
            ServerEvent::Request(_) => {
                let mut r = conn
                    .respond(200, Framing::Length(BODY.len() as u64))
                    .expect("a request waits");
                r.pre_encoded(&s.fields);
                let sent = r.finish().expect("valid head");
                debug_assert!(sent.body);
                conn.send_data(BODY).expect("declared length");
                conn.send_end().expect("whole body");
            }
            ServerEvent::End => answered += 1,
            ServerEvent::NeedMore => break,
            other => panic!("unexpected event {other:?}"),
        }
    }
    let out = conn.out();
    black_box(out);
    let n = out.len();
    conn.written(n);
    answered
}

/// The same work without a connection: parse with httparse, format with
/// `write!`. The status is an argument, as it would be for any server that
/// does not answer only 200.
fn naive_serve(buf: &mut Vec<u8>, input: &[u8], status: (u16, &str), date: &str) -> usize {
    buf.clear();
    let mut at = 0;
    let mut answered = 0;
    while at < input.len() {
        let mut headers = [httparse::EMPTY_HEADER; 16];
        let mut req = httparse::Request::new(&mut headers);
        let len = match req.parse(&input[at..]) {
            Ok(httparse::Status::Complete(len)) => len,
            other => panic!("httparse: {other:?}"),
        };
        black_box(&req);
        at += len;
        let _ = write!(buf, "HTTP/1.1 {} {}\r\n", status.0, status.1);
        let _ = write!(buf, "Server: {}\r\n", SERVER);
        let _ = write!(buf, "Content-Type: {}\r\n", CONTENT_TYPE);
        let _ = write!(buf, "Date: {}\r\n", date);
        let _ = write!(buf, "Content-Length: {}\r\n\r\n", BODY.len());
        buf.extend_from_slice(BODY);
        answered += 1;
    }
    black_box(buf.as_slice());
    answered
}

fn new_conn(date: DateLine) -> ServerConn {
    let mut conn = ServerConn::default();
    conn.set_date(date);
    conn
}

/// Runs `input` through a fresh connection and returns its output, without
/// writing it; checks the events on the way.
fn h1_output(s: &Statics, date: DateLine, input: &[u8], requests: usize) -> Vec<u8> {
    let mut conn = new_conn(date);
    assert_eq!(conn.feed(input), input.len());
    let mut events = Vec::new();
    loop {
        let ev = conn.next_event();
        match ev {
            ServerEvent::Request(req) => {
                assert_eq!(req.head.target.slice(conn.received()), b"/plaintext");
                assert!(req.persistent);
                let mut r = conn
                    .respond(200, Framing::Length(BODY.len() as u64))
                    .unwrap();
                r.pre_encoded(&s.fields);
                r.finish().unwrap();
                conn.send_data(BODY).unwrap();
                conn.send_end().unwrap();
                events.push("Request");
            }
            ServerEvent::End => events.push("End"),
            ServerEvent::NeedMore => break,
            other => panic!("unexpected event {other:?}"),
        }
    }
    assert_eq!(events, ["Request", "End"].repeat(requests), "events");
    assert_eq!(conn.unanswered(), 0);
    conn.out().to_vec()
}

fn conn(c: &mut Criterion) {
    let pipelined = load_input("3_tfb_pipelined16").unwrap_or_else(|e| panic!("{e}"));
    let all = &pipelined.bytes[..];
    let one_len = all
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete head")
        + 4;
    let one = &all[..one_len];
    assert_eq!(all.len(), 16 * one_len, "16 identical requests");
    assert!(one.starts_with(b"GET /plaintext HTTP/1.1\r\n"));

    let s = Statics {
        fields: PreEncoded::new([("Server", SERVER), ("Content-Type", CONTENT_TYPE)])
            .expect("valid fields"),
    };
    let date = DateLine::new(DATE.as_bytes()).expect("IMF-fixdate");

    // The two must write the same bytes before anything is timed.
    let mut naive = Vec::with_capacity(8192);
    for (input, requests) in [(one, 1), (all, 16)] {
        let h1 = h1_output(&s, date, input, requests);
        assert_eq!(naive_serve(&mut naive, input, OK, DATE), requests);
        assert_eq!(
            h1,
            naive,
            "outputs differ:\n{}\n{}",
            String::from_utf8_lossy(&h1),
            String::from_utf8_lossy(&naive)
        );
    }
    assert!(naive.starts_with(
        b"HTTP/1.1 200 OK\r\nServer: h1\r\nContent-Type: text/plain\r\n\
          Date: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 13\r\n\r\nHello, World!"
    ));

    for (name, input, requests) in [("conn_keep_alive", one, 1), ("conn_pipelined16", all, 16)] {
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Elements(requests as u64));
        // One connection for all iterations: keep-alive.
        let mut conn = new_conn(date);
        group.bench_function("h1", |b| {
            b.iter(|| {
                let n = h1_serve(&mut conn, &s, black_box(input));
                debug_assert_eq!(n, requests);
                n
            })
        });
        assert_eq!(conn.unanswered(), 0, "{name}: requests left unanswered");
        group.bench_function("naive", |b| {
            b.iter(|| naive_serve(&mut naive, black_box(input), OK, black_box(DATE)))
        });
        group.finish();
    }
}

criterion_group!(benches, conn);
criterion_main!(benches);
