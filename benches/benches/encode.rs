//! Response encoding: `h1-encode` beside a naive `write!`-into-`Vec`
//! encoder of the same bytes, in the same run.
//!
//! Two responses:
//!
//! - `plaintext`: the TechEmpower plaintext answer: `200 OK`, `Server`,
//!   `Date`, `Content-Type: text/plain`, `Content-Length: 13`, body
//!   `Hello, World!`;
//! - `json`: `200 OK`, `Server`, `Date`, ten fields of a typical JSON API
//!   answer (`Content-Type: application/json`, caching, CORS, security
//!   headers, an ETag), `Content-Length`, a 27-byte JSON body.
//!
//! Both encoders append to a `Vec<u8>` made once and cleared before each
//! response, so neither allocates in the timed loop, and both are handed
//! the same pre-formatted date (a server formats it once a second):
//! what is measured is producing the bytes. `h1` is the encoder as a server
//! uses it: pre-encoded status line, the `Date` line and `Server` copied
//! from values built once, the caller's fields validated (name a token,
//! value free of CR/LF/controls), the framing decided and `Content-Length`
//! formatted, the body counted against it. `naive` is `write!` of each
//! line with `format_args`-style `{}` formatting and no validation. Before
//! anything is timed, the two must produce identical bytes.
//!
//! `h1_date_cache` adds what the `Date` costs in a real server: a
//! `DateCache::line()` lookup per response (one `SystemTime::now()` and a
//! comparison; the line is formatted once per second).
//!
//! Run: `cargo bench -p h1-benches --bench encode`. The machine is shared
//! and noisy: compare the encoders within one run, as ratios.

use std::hint::black_box;
use std::io::Write;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use h1_encode::{DateCache, DateLine, Exchange, Framing, PreEncoded, ResponseWriter, Version};

const OK: (u16, &str) = (200, "OK");
const DATE: &str = "Sun, 06 Nov 1994 08:49:37 GMT";
const SERVER: &str = "h1";
const PLAIN: &[u8] = b"Hello, World!";
const JSON: &[u8] = br#"{"message":"Hello, World!"}"#;
const JSON_FIELDS: [(&str, &str); 10] = [
    ("Content-Type", "application/json"),
    ("Cache-Control", "no-store"),
    ("X-Request-Id", "4bf92f3577b34da6a3ce929d0e0e4736"),
    ("Vary", "Accept-Encoding"),
    ("X-Content-Type-Options", "nosniff"),
    (
        "Strict-Transport-Security",
        "max-age=63072000; includeSubDomains",
    ),
    ("Access-Control-Allow-Origin", "*"),
    ("ETag", "\"33a64df551425fcc55e4d42a148795d9f25f89d4\""),
    ("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT"),
    ("X-Frame-Options", "DENY"),
];

/// What a server builds once.
struct Statics {
    server: PreEncoded,
    ex: Exchange,
}

impl Statics {
    fn new() -> Statics {
        Statics {
            server: PreEncoded::new([("Server", SERVER)]).expect("valid"),
            ex: Exchange::new(Version::Http11),
        }
    }
}

fn h1_plaintext(buf: &mut Vec<u8>, s: &Statics, date: &DateLine, body: &[u8]) {
    let mut w = ResponseWriter::start(&mut *buf, 200, &s.ex, Framing::Length(body.len() as u64))
        .expect("valid status");
    w.pre_encoded(&s.server).date(date);
    w.field(b"Content-Type", b"text/plain")
        .expect("valid field");
    let mut head = w.finish().expect("date present");
    head.body.write(buf, body).expect("declared length");
}

fn h1_json(buf: &mut Vec<u8>, s: &Statics, date: &DateLine, body: &[u8]) {
    let mut w = ResponseWriter::start(&mut *buf, 200, &s.ex, Framing::Length(body.len() as u64))
        .expect("valid status");
    w.pre_encoded(&s.server).date(date);
    w.fields(black_box(JSON_FIELDS)).expect("valid fields");
    let mut head = w.finish().expect("date present");
    head.body.write(buf, body).expect("declared length");
}

/// The status, reason and content type are arguments, as they would be
/// for any encoder that is not specialised to one response.
fn naive_plaintext(buf: &mut Vec<u8>, status: (u16, &str), date: &str, body: &[u8]) {
    let content_type = "text/plain";
    let _ = write!(buf, "HTTP/1.1 {} {}\r\n", status.0, status.1);
    let _ = write!(buf, "Server: {}\r\n", SERVER);
    let _ = write!(buf, "Date: {}\r\n", date);
    let _ = write!(buf, "Content-Type: {}\r\n", content_type);
    let _ = write!(buf, "Content-Length: {}\r\n\r\n", body.len());
    buf.extend_from_slice(body);
}

fn naive_json(buf: &mut Vec<u8>, status: (u16, &str), date: &str, body: &[u8]) {
    let _ = write!(buf, "HTTP/1.1 {} {}\r\n", status.0, status.1);
    let _ = write!(buf, "Server: {}\r\n", SERVER);
    let _ = write!(buf, "Date: {}\r\n", date);
    for (name, value) in black_box(JSON_FIELDS) {
        let _ = write!(buf, "{}: {}\r\n", name, value);
    }
    let _ = write!(buf, "Content-Length: {}\r\n\r\n", body.len());
    buf.extend_from_slice(body);
}

fn encode(c: &mut Criterion) {
    let s = Statics::new();
    let date = DateLine::new(DATE.as_bytes()).expect("IMF-fixdate");
    let mut cache = DateCache::new();

    // The two encoders must agree byte for byte before anything is timed.
    let (mut a, mut b) = (Vec::new(), Vec::new());
    h1_plaintext(&mut a, &s, &date, PLAIN);
    naive_plaintext(&mut b, OK, DATE, PLAIN);
    assert_eq!(
        a,
        b,
        "plaintext differs:\n{}\n{}",
        String::from_utf8_lossy(&a),
        String::from_utf8_lossy(&b)
    );
    assert_eq!(
        &a[..],
        &b"HTTP/1.1 200 OK\r\nServer: h1\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\
           Content-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!"[..]
    );
    let (mut a, mut b) = (Vec::new(), Vec::new());
    h1_json(&mut a, &s, &date, JSON);
    naive_json(&mut b, OK, DATE, JSON);
    assert_eq!(
        a,
        b,
        "json differs:\n{}\n{}",
        String::from_utf8_lossy(&a),
        String::from_utf8_lossy(&b)
    );

    let mut buf = Vec::with_capacity(4096);
    let plain_len = {
        h1_plaintext(&mut buf, &s, &date, PLAIN);
        buf.len() as u64
    };
    let mut group = c.benchmark_group("encode_plaintext");
    group.throughput(Throughput::Bytes(plain_len));
    group.bench_function("h1", |bench| {
        bench.iter(|| {
            buf.clear();
            h1_plaintext(&mut buf, &s, black_box(&date), black_box(PLAIN));
            black_box(buf.as_slice());
        })
    });
    group.bench_function("h1_date_cache", |bench| {
        bench.iter(|| {
            buf.clear();
            let date = *cache.line();
            h1_plaintext(&mut buf, &s, &date, black_box(PLAIN));
            black_box(buf.as_slice());
        })
    });
    group.bench_function("naive", |bench| {
        bench.iter(|| {
            buf.clear();
            naive_plaintext(&mut buf, OK, black_box(DATE), black_box(PLAIN));
            black_box(buf.as_slice());
        })
    });
    group.finish();

    buf.clear();
    h1_json(&mut buf, &s, &date, JSON);
    let mut group = c.benchmark_group("encode_json");
    group.throughput(Throughput::Bytes(buf.len() as u64));
    group.bench_function("h1", |bench| {
        bench.iter(|| {
            buf.clear();
            h1_json(&mut buf, &s, black_box(&date), black_box(JSON));
            black_box(buf.as_slice());
        })
    });
    group.bench_function("naive", |bench| {
        bench.iter(|| {
            buf.clear();
            naive_json(&mut buf, OK, black_box(DATE), black_box(JSON));
            black_box(buf.as_slice());
        })
    });
    group.finish();
}

criterion_group!(benches, encode);
criterion_main!(benches);
