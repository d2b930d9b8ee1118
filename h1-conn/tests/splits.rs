//! Random valid request streams (several requests; `Content-Length`,
//! chunked and bodiless; chunk extensions; trailers; HTTP/1.0 keep-alive)
//! give the events the generator says they must, and any split of the bytes
//! into reads gives the same events and the same output as one read.

mod common;

use common::{run, split_at, Ev, Policy, Rng};
use h1_conn::{Config, Expect, Framing};
use h1_parse::Version;

type Fields = Vec<(Vec<u8>, Vec<u8>)>;

/// One generated stream and the events it must give.
struct Stream {
    bytes: Vec<u8>,
    expected: Vec<Ev>,
}

const METHODS: [&[u8]; 6] = [b"GET", b"POST", b"PUT", b"DELETE", b"OPTIONS", b"PATCH"];
const TCHAR: &[u8] =
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~";

fn token(rng: &mut Rng, max: usize) -> Vec<u8> {
    (0..1 + rng.below(max))
        .map(|_| TCHAR[rng.below(TCHAR.len())])
        .collect()
}

fn value(rng: &mut Rng) -> Vec<u8> {
    // Visible ASCII, inner spaces and tabs, obs-text; no leading or
    // trailing whitespace (that would be OWS, not part of the value).
    let n = rng.below(40);
    let mut v: Vec<u8> = (0..n)
        .map(|_| match rng.below(20) {
            0 => b' ',
            1 => b'\t',
            2 => 0x80 + rng.below(0x80) as u8,
            _ => 0x21 + rng.below(0x5e) as u8,
        })
        .collect();
    while v.first().is_some_and(|b| *b == b' ' || *b == b'\t') {
        v.remove(0);
    }
    while v.last().is_some_and(|b| *b == b' ' || *b == b'\t') {
        v.pop();
    }
    v
}

fn body_bytes(rng: &mut Rng, max: usize) -> Vec<u8> {
    // Bytes that look like framing, to catch a decoder that peeks.
    const LOOKALIKE: [&[u8]; 4] = [b"\r\n", b"0\r\n\r\n", b"GET / HTTP/1.1\r\n", b"\n"];
    let mut b = Vec::new();
    let n = rng.below(max + 1);
    while b.len() < n {
        if rng.chance(10) {
            b.extend_from_slice(LOOKALIKE[rng.below(LOOKALIKE.len())]);
        } else {
            b.push(rng.below(256) as u8);
        }
    }
    b.truncate(n);
    b
}

fn generate(rng: &mut Rng) -> Stream {
    let mut bytes = Vec::new();
    let mut expected = Vec::new();
    let count = 1 + rng.below(5);
    for i in 0..count {
        let last = i + 1 == count;
        let method = METHODS[rng.below(METHODS.len())];
        let http10 = rng.chance(15);
        let mut target = b"/".to_vec();
        for _ in 0..rng.below(4) {
            // Path characters (no `#`, which the target may not hold).
            const PCHAR: &[u8] = b"abcxyzABC0189-._~!$&'()*+,;=:@%";
            target.extend((0..1 + rng.below(8)).map(|_| PCHAR[rng.below(PCHAR.len())]));
            target.push(b'/');
        }
        if rng.chance(30) {
            target.extend_from_slice(b"?q=1&r=%20");
        }
        if rng.chance(20) {
            bytes.extend_from_slice(b"\r\n"); // empty line before a request (RFC 9112 §2.2)
        }
        bytes.extend_from_slice(method);
        bytes.push(b' ');
        bytes.extend_from_slice(&target);
        bytes.extend_from_slice(if http10 {
            b" HTTP/1.0\r\n"
        } else {
            b" HTTP/1.1\r\n"
        });

        let mut fields: Fields = vec![(b"Host".to_vec(), b"example.com".to_vec())];
        for _ in 0..rng.below(6) {
            let mut name = token(rng, 12);
            name.insert(0, b'X');
            fields.push((name, value(rng)));
        }
        // Closing the connection ends the stream: only on the last request.
        let close = last && rng.chance(30);
        if http10 && !close {
            fields.push((b"Connection".to_vec(), b"keep-alive".to_vec()));
        } else if close {
            fields.push((b"Connection".to_vec(), b"close".to_vec()));
        }
        let chunked = !http10 && rng.chance(40);
        let max = if rng.chance(10) { 3000 } else { 60 };
        let body = body_bytes(rng, max);
        let with_length = !chunked && (!body.is_empty() || rng.chance(30));
        if chunked {
            fields.push((b"Transfer-Encoding".to_vec(), b"chunked".to_vec()));
        } else if with_length {
            fields.push((
                b"Content-Length".to_vec(),
                body.len().to_string().into_bytes(),
            ));
        }
        for (n, v) in &fields {
            bytes.extend_from_slice(n);
            bytes.extend_from_slice(if rng.chance(50) { b": " } else { b":" });
            bytes.extend_from_slice(v);
            if rng.chance(10) {
                bytes.extend_from_slice(b" \t");
            }
            bytes.extend_from_slice(b"\r\n");
        }
        bytes.extend_from_slice(b"\r\n");

        let kind = if chunked {
            Framing::Chunked
        } else if with_length {
            Framing::Length(body.len() as u64)
        } else {
            Framing::Empty
        };
        expected.push(Ev::Request {
            method: method.to_vec(),
            target,
            version: if http10 {
                Version::Http10
            } else {
                Version::Http11
            },
            fields,
            framing: kind,
            expect: Expect::None,
            upgrade: false,
            persistent: !close,
        });
        if !body.is_empty() {
            expected.push(Ev::Data(body.clone()));
        }
        if with_length {
            bytes.extend_from_slice(&body);
        }
        if chunked {
            let mut rest = &body[..];
            while !rest.is_empty() {
                let n = (1 + rng.below(rest.len().min(700))).min(rest.len());
                let size = if rng.chance(20) {
                    format!("00{n:X}")
                } else {
                    format!("{n:x}")
                };
                bytes.extend_from_slice(size.as_bytes());
                if rng.chance(20) {
                    bytes.extend_from_slice(b" ; ext=\"quoted \\\" value\";flag");
                }
                bytes.extend_from_slice(b"\r\n");
                bytes.extend_from_slice(&rest[..n]);
                bytes.extend_from_slice(b"\r\n");
                rest = &rest[n..];
            }
            bytes.extend_from_slice(b"0\r\n");
            if rng.chance(40) {
                let trailers: Fields = (0..1 + rng.below(3))
                    .map(|_| (token(rng, 10), value(rng)))
                    .collect();
                for (n, v) in &trailers {
                    bytes.extend_from_slice(n);
                    bytes.extend_from_slice(b": ");
                    bytes.extend_from_slice(v);
                    bytes.extend_from_slice(b"\r\n");
                }
                expected.push(Ev::Trailers(trailers));
            }
            bytes.extend_from_slice(b"\r\n");
        }
        expected.push(Ev::End);
        if close {
            // Pipelined bytes after a request that closes the connection
            // are never processed (RFC 9112 §9.6).
            bytes.extend_from_slice(b"GET /never HTTP/1.1\r\nHost: x\r\n\r\n");
        }
    }
    expected.push(Ev::Closed);
    Stream { bytes, expected }
}

#[test]
fn any_split_gives_the_events_of_one_read() {
    let config = Config::default();
    let policy = Policy::default();
    let mut rng = Rng::new(0x5EED);
    let mut splits = 0;
    for case in 0..400 {
        let s = generate(&mut rng);
        let whole = run(&config, &[&s.bytes], policy);
        assert_eq!(
            whole.events,
            s.expected,
            "case {case}: one read gives other events than generated for {:?}",
            String::from_utf8_lossy(&s.bytes)
        );
        let mut all_cuts: Vec<Vec<usize>> = (0..8)
            .map(|_| {
                let mut c: Vec<usize> = (0..1 + rng.below(12))
                    .map(|_| rng.below(s.bytes.len() + 1))
                    .collect();
                c.sort_unstable();
                c
            })
            .collect();
        if case % 10 == 0 {
            all_cuts.push((1..s.bytes.len()).collect()); // one byte at a time
        }
        for cuts in all_cuts {
            let r = run(&config, &split_at(&s.bytes, &cuts), policy);
            splits += 1;
            assert_eq!(r, whole, "case {case}, cuts {cuts:?}");
        }
    }
    assert!(splits >= 3200);
}

#[test]
fn the_oracle_notices_a_wrong_body() {
    // The generator's expectation is an independent oracle: a stream whose
    // bytes disagree with it must fail the comparison.
    let mut rng = Rng::new(7);
    let mut s = generate(&mut rng);
    while !s.expected.iter().any(|e| matches!(e, Ev::Data(_))) {
        s = generate(&mut rng);
    }
    for e in &mut s.expected {
        if let Ev::Data(d) = e {
            d[0] ^= 1;
        }
    }
    let whole = run(&Config::default(), &[&s.bytes], Policy::default());
    assert_ne!(whole.events, s.expected);
}
