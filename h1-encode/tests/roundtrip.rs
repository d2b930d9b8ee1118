//! Round trip: random valid heads and bodies (Content-Length, chunked with
//! trailers, close-delimited; registered and custom statuses; HTTP/1.0 and
//! 1.1; HEAD) are encoded, several into one buffer, and parsed back with
//! h1-parse, which must see the same start line, every field in order
//! (the caller's and the framing fields the encoder added) and the same
//! body and trailers. The generator is a deterministic xorshift, so a
//! failure names its iteration and repeats.

use h1_encode::{DateLine, Exchange, Framing, PreEncoded, RequestWriter, ResponseWriter, Version};
use h1_headers::{Entry, HeaderBlob};
use h1_parse::{
    parse_chunk_size, parse_request, parse_response, parse_trailers, Config, RequestHead,
    ResponseHead, Status, TransferEncoding,
};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn usize(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }
    fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.usize(items.len())]
    }
}

const TCHARS: &[u8] =
    b"!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
/// Names the encoder owns; generated names that hit one are replaced.
const OWNED: &[&[u8]] = &[
    b"content-length",
    b"transfer-encoding",
    b"connection",
    b"host",
    b"date",
    b"trailer",
];

fn token(rng: &mut Rng, max: usize) -> Vec<u8> {
    loop {
        let len = 1 + rng.usize(max);
        let t: Vec<u8> = (0..len).map(|_| *rng.pick(TCHARS)).collect();
        if !OWNED.iter().any(|o| t.eq_ignore_ascii_case(o)) {
            return t;
        }
    }
}

fn value(rng: &mut Rng) -> Vec<u8> {
    let len = rng.usize(40);
    let mut v: Vec<u8> = (0..len)
        .map(|_| match rng.below(10) {
            0 => b'\t',
            1 => b' ',
            2 => 0x80 + rng.below(128) as u8,
            _ => 0x21 + rng.below(0x7f - 0x21) as u8,
        })
        .collect();
    while v.first().is_some_and(|&b| b == b' ' || b == b'\t') {
        v.remove(0);
    }
    while v.last().is_some_and(|&b| b == b' ' || b == b'\t') {
        v.pop();
    }
    v
}

fn fields(rng: &mut Rng, max: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
    (0..rng.usize(max + 1))
        .map(|_| (token(rng, 20), value(rng)))
        .collect()
}

fn body(rng: &mut Rng) -> Vec<u8> {
    let len = match rng.below(4) {
        0 => 0,
        1 => rng.usize(16),
        2 => rng.usize(300),
        _ => rng.usize(5000),
    };
    (0..len).map(|_| rng.next() as u8).collect()
}

/// Writes `data` through the body writer in random pieces (empty ones too).
fn write_body(rng: &mut Rng, out: &mut Vec<u8>, w: &mut h1_encode::BodyWriter, data: &[u8]) {
    let mut rest = data;
    while !rest.is_empty() || rng.chance(4) {
        let n = rng.usize(rest.len() + 1);
        let (piece, tail) = rest.split_at(n);
        if rng.chance(2) {
            w.write(out, piece).unwrap();
        } else {
            let f = w.frame(piece).unwrap();
            out.extend_from_slice(f.prefix());
            out.extend_from_slice(f.data());
            out.extend_from_slice(f.suffix());
        }
        rest = tail;
        if rest.is_empty() {
            break;
        }
    }
}

/// Reads a chunked body starting at `buf[0]`; returns the data, the
/// trailer fields and the bytes consumed.
#[allow(clippy::type_complexity)]
fn read_chunked(buf: &[u8]) -> (Vec<u8>, Vec<(Vec<u8>, Vec<u8>)>, usize) {
    let config = Config::default();
    let mut pos = 0;
    let mut data = Vec::new();
    loop {
        let Status::Complete(c) = parse_chunk_size(&buf[pos..], &config).unwrap() else {
            panic!("partial chunk-size line")
        };
        pos += c.len;
        if c.size == 0 {
            break;
        }
        let size = c.size as usize;
        data.extend_from_slice(&buf[pos..pos + size]);
        pos += size;
        assert_eq!(&buf[pos..pos + 2], b"\r\n");
        pos += 2;
    }
    let mut entries = [Entry::EMPTY; 64];
    let Status::Complete(t) = parse_trailers(&buf[pos..], &mut entries, &config).unwrap() else {
        panic!("partial trailers")
    };
    let tbuf = &buf[pos..];
    let trailers = entries[..t.field_count]
        .iter()
        .map(|e| {
            (
                e.name.slice(tbuf).to_ascii_lowercase(),
                e.value.slice(tbuf).to_vec(),
            )
        })
        .collect();
    (data, trailers, pos + t.len)
}

fn lower(f: &[(Vec<u8>, Vec<u8>)]) -> Vec<(Vec<u8>, Vec<u8>)> {
    f.iter()
        .map(|(n, v)| (n.to_ascii_lowercase(), v.clone()))
        .collect()
}

fn framing_fields(head: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    // The fields the encoder appended: every line after the last caller
    // field is one of these three names, so take them from the end.
    let text = head.strip_suffix(b"\r\n\r\n").unwrap();
    let mut out = Vec::new();
    for line in text.split(|&b| b == b'\n').rev() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            break;
        };
        let name = line[..colon].to_ascii_lowercase();
        if !matches!(
            &name[..],
            b"content-length" | b"transfer-encoding" | b"connection"
        ) {
            break;
        }
        out.push((name, line[colon + 2..].to_vec()));
    }
    out.reverse();
    out
}

const STATUSES: &[u16] = &[
    100, 103, 200, 200, 200, 201, 204, 205, 206, 301, 304, 400, 404, 418, 431, 500, 503, 599,
];

#[derive(Debug)]
struct Expected {
    status: u16,
    reason: Vec<u8>,
    fields: Vec<(Vec<u8>, Vec<u8>)>,
    body: Vec<u8>,
    trailers: Vec<(Vec<u8>, Vec<u8>)>,
    framing: Framing,
    close: bool,
}

#[test]
fn responses_round_trip() {
    let mut rng = Rng(0x853c_49e6_748f_ea9b);
    let date = DateLine::new(b"Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
    let server =
        PreEncoded::new([("Server", "h1-roundtrip"), ("X-Frame-Options", "DENY")]).unwrap();
    let mut buf = Vec::new();
    let mut counts = [0usize; 5];
    for iteration in 0..3000 {
        buf.clear();
        let mut expected = Vec::new();
        // One to four responses back to back in one buffer.
        for _ in 0..1 + rng.usize(4) {
            let status = *rng.pick(STATUSES);
            let version = if rng.chance(4) {
                Version::Http10
            } else {
                Version::Http11
            };
            let ex = Exchange::new(version)
                .head(rng.chance(6))
                .close(rng.chance(5))
                .clock(rng.chance(2));
            let data = body(&mut rng);
            let kind = match rng.below(3) {
                0 => Framing::Empty,
                1 => Framing::Length(data.len() as u64),
                _ => Framing::Chunked,
            };
            let custom = rng.chance(4);
            let reason = if custom {
                value(&mut rng)
            } else {
                h1_encode::reason(status).unwrap_or("").as_bytes().to_vec()
            };
            let start = buf.len();
            let w = if custom {
                ResponseWriter::start_with_reason(&mut buf, status, &reason, &ex, kind)
            } else {
                ResponseWriter::start(&mut buf, status, &ex, kind)
            };
            let Some(mut w) = w.ok() else {
                // Refused framing (1xx to 1.0, a body for 204, ...):
                // tests/musts.rs checks each; here only that nothing was
                // written.
                assert_eq!(buf.len(), start);
                counts[4] += 1;
                continue;
            };
            let mut want = Vec::new();
            if rng.chance(2) {
                w.date(&date);
                want.push((b"date".to_vec(), date.date().to_vec()));
            }
            if rng.chance(2) {
                w.pre_encoded(&server);
                want.push((b"server".to_vec(), b"h1-roundtrip".to_vec()));
                want.push((b"x-frame-options".to_vec(), b"DENY".to_vec()));
            }
            let caller = fields(&mut rng, 12);
            match rng.below(3) {
                0 => {
                    for (n, v) in &caller {
                        w.field(n, v).unwrap();
                    }
                }
                1 => {
                    w.fields(caller.iter().map(|(n, v)| (n, v))).unwrap();
                }
                _ => {
                    let mut blob = HeaderBlob::new();
                    for (n, v) in &caller {
                        blob.append(n, v).unwrap();
                    }
                    w.blob(&blob).unwrap();
                }
            }
            want.extend(lower(&caller));
            let needs_date = ex.clock && (200..500).contains(&status);
            let has_date = want.iter().any(|(n, _)| n == b"date");
            let mut head = match w.finish() {
                Ok(head) => head,
                Err(e) => {
                    assert!(needs_date && !has_date, "{iteration}: {e:?}");
                    assert_eq!(buf.len(), start);
                    continue;
                }
            };
            assert_eq!(head.start, start);
            want.extend(framing_fields(head.bytes(&buf)));
            let framing = head.framing;
            let mut trailers = Vec::new();
            let mut sent = Vec::new();
            match framing {
                Framing::Empty => {}
                Framing::Length(n) => {
                    // `Framing::Empty` is `Content-Length: 0`.
                    sent = data[..n as usize].to_vec();
                    write_body(&mut rng, &mut buf, &mut head.body, &sent);
                }
                Framing::Chunked => {
                    sent = data.clone();
                    write_body(&mut rng, &mut buf, &mut head.body, &sent);
                    trailers = fields(&mut rng, 3);
                    head.body
                        .finish_with_trailers(&mut buf, trailers.iter().map(|(n, v)| (n, v)))
                        .unwrap();
                    trailers = lower(&trailers);
                }
                Framing::UntilClose => {
                    sent = data.clone();
                    write_body(&mut rng, &mut buf, &mut head.body, &sent);
                }
            }
            head.body.finish(&mut buf).unwrap_or_else(|e| {
                assert_eq!(e, h1_encode::Error::BodyFinished);
            });
            counts[match framing {
                Framing::Empty => 0,
                Framing::Length(_) => 1,
                Framing::Chunked => 2,
                _ => 3,
            }] += 1;
            let close = head.close;
            expected.push(Expected {
                status,
                reason,
                fields: want,
                body: sent,
                trailers,
                framing,
                close,
            });
            if close {
                break;
            }
        }
        // Parse everything back.
        let config = Config::default();
        let mut pos = 0;
        for (i, e) in expected.iter().enumerate() {
            let mut entries = [Entry::EMPTY; 64];
            let rest = &buf[pos..];
            let mut head = ResponseHead::EMPTY;
            match parse_response(rest, &mut head, &mut entries, &config) {
                Ok(Status::Complete(len)) => assert_eq!(len, head.len),
                other => panic!(
                    "{iteration}/{i}: {other:?}\n{:?}",
                    String::from_utf8_lossy(rest)
                ),
            };
            assert_eq!(head.status, e.status, "{iteration}/{i}");
            assert_eq!(head.reason.slice(rest), &e.reason[..], "{iteration}/{i}");
            let got: Vec<(Vec<u8>, Vec<u8>)> = head
                .fields(rest, &entries)
                .iter()
                .map(|(n, v)| (n.to_ascii_lowercase(), v.to_vec()))
                .collect();
            assert_eq!(got, e.fields, "{iteration}/{i}");
            assert_eq!(head.facts.connection.close(), e.close, "{iteration}/{i}");
            pos += head.len;
            match e.framing {
                Framing::Empty => {}
                Framing::Length(n) => {
                    assert_eq!(head.facts.content_length, Some(n));
                    assert_eq!(&buf[pos..pos + n as usize], &e.body[..]);
                    pos += n as usize;
                }
                Framing::Chunked => {
                    assert_eq!(head.facts.transfer_encoding, TransferEncoding::Chunked);
                    let (data, trailers, used) = read_chunked(&buf[pos..]);
                    assert_eq!(data, e.body, "{iteration}/{i}");
                    assert_eq!(trailers, e.trailers, "{iteration}/{i}");
                    pos += used;
                }
                _ => {
                    // Close-delimited: no length, the rest is the body.
                    assert_eq!(head.facts.content_length, None);
                    assert_eq!(head.facts.transfer_encoding, TransferEncoding::Absent);
                    assert!(e.close);
                    assert_eq!(&buf[pos..], &e.body[..]);
                    pos = buf.len();
                }
            }
        }
        assert_eq!(pos, buf.len(), "{iteration}: trailing bytes");
    }
    // Every framing was exercised, and some refusals.
    assert!(counts.iter().all(|&c| c > 100), "{counts:?}");
}

#[test]
fn requests_round_trip() {
    let mut rng = Rng(0xda3e_39cb_94b9_5bdb);
    let mut buf = Vec::new();
    let config = Config::default();
    let mut chunked = 0;
    for iteration in 0..3000 {
        buf.clear();
        let version = if rng.chance(4) {
            Version::Http10
        } else {
            Version::Http11
        };
        let ex = Exchange::new(version).close(rng.chance(4));
        let method = match rng.below(4) {
            0 => b"GET".to_vec(),
            1 => b"POST".to_vec(),
            _ => loop {
                let t = token(&mut rng, 10);
                if t != b"CONNECT" && t != b"OPTIONS" {
                    break t;
                }
            },
        };
        let target: Vec<u8> = core::iter::once(b'/')
            .chain((0..rng.usize(60)).map(|_| loop {
                let b = 0x21 + rng.below(0x7f - 0x21) as u8;
                if b != b'#' {
                    break b;
                }
            }))
            .collect();
        let host: Vec<u8> = {
            let mut h: Vec<u8> = (0..1 + rng.usize(20))
                .map(|_| *rng.pick(b"abcdefghijklmnopqrstuvwxyz0123456789-."))
                .collect();
            if rng.chance(2) {
                h.extend_from_slice(format!(":{}", rng.below(65536)).as_bytes());
            }
            h
        };
        let data = body(&mut rng);
        let kind = match (rng.below(3), version) {
            (0, _) => Framing::Empty,
            (2, Version::Http11) => Framing::Chunked,
            _ => Framing::Length(data.len() as u64),
        };
        let mut w =
            RequestWriter::start(&mut buf, &method, &target, Some(&host), &ex, kind).unwrap();
        let caller = fields(&mut rng, 12);
        w.fields(caller.iter().map(|(n, v)| (n, v))).unwrap();
        let mut head = w.finish().unwrap();
        let mut want = vec![(b"host".to_vec(), host.clone())];
        want.extend(lower(&caller));
        want.extend(framing_fields(head.bytes(&buf)));
        let mut trailers = Vec::new();
        match kind {
            Framing::Empty => {}
            Framing::Length(_) => write_body(&mut rng, &mut buf, &mut head.body, &data),
            Framing::Chunked => {
                chunked += 1;
                write_body(&mut rng, &mut buf, &mut head.body, &data);
                trailers = fields(&mut rng, 3);
                head.body
                    .finish_with_trailers(&mut buf, trailers.iter().map(|(n, v)| (n, v)))
                    .unwrap();
                trailers = lower(&trailers);
            }
            Framing::UntilClose => unreachable!("never chosen for a request"),
        }
        if kind != Framing::Chunked {
            head.body.finish(&mut buf).unwrap();
        }

        let mut entries = [Entry::EMPTY; 64];
        let mut parsed = RequestHead::EMPTY;
        match parse_request(&buf, &mut parsed, &mut entries, &config) {
            Ok(Status::Complete(len)) => assert_eq!(len, parsed.len),
            other => panic!(
                "{iteration}: {other:?}\n{:?}",
                String::from_utf8_lossy(&buf)
            ),
        };
        assert_eq!(parsed.method.slice(&buf), &method[..], "{iteration}");
        assert_eq!(parsed.target.slice(&buf), &target[..], "{iteration}");
        assert_eq!(
            parsed.version == h1_parse::Version::Http10,
            version == Version::Http10
        );
        let got: Vec<(Vec<u8>, Vec<u8>)> = parsed
            .fields(&buf, &entries)
            .iter()
            .map(|(n, v)| (n.to_ascii_lowercase(), v.to_vec()))
            .collect();
        assert_eq!(got, want, "{iteration}");
        let persistent = !parsed.facts.connection.close()
            && (version == Version::Http11 || parsed.facts.connection.keep_alive());
        assert_eq!(persistent, !head.close, "{iteration}");
        let rest = &buf[parsed.len..];
        match kind {
            Framing::Empty => {
                assert_eq!(parsed.facts.content_length, None);
                assert!(rest.is_empty());
            }
            Framing::Length(n) => {
                assert_eq!(parsed.facts.content_length, Some(n));
                assert_eq!(rest, &data[..]);
            }
            Framing::Chunked => {
                assert_eq!(parsed.facts.transfer_encoding, TransferEncoding::Chunked);
                let (got, t, used) = read_chunked(rest);
                assert_eq!(got, data, "{iteration}");
                assert_eq!(t, trailers, "{iteration}");
                assert_eq!(used, rest.len());
            }
            Framing::UntilClose => unreachable!("never chosen for a request"),
        }
    }
    assert!(chunked > 500);
}
