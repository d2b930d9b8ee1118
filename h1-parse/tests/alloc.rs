//! Zero heap allocations (DESIGN.md principle 2): a counting global
//! allocator proves that `parse_request`, `parse_response`,
//! `parse_chunk_size`, `parse_trailers` and `HeadParser` allocate nothing on
//! the reference inputs, valid or not. The counter only counts on the thread
//! that asked (tests run in parallel) and is itself tested.
//!
//! The allocator is `counting-alloc`, shared by the workspace's allocation
//! tests.

#[path = "parse/common/mod.rs"]
mod common;

use common::HeadValue;

use std::hint::black_box;

use counting_alloc::{allocations, Counting};

use common::*;
use common::{parse_request, parse_response};
use h1_headers::Entry;
use h1_parse::{parse_chunk_size, parse_trailers, Config, HeadParser, Status};

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn the_counter_counts() {
    let (v, n) = allocations(|| black_box(vec![1u8; 100]));
    assert_eq!(v.len(), 100);
    assert!(n >= 1, "a Vec allocation went uncounted");
    let (s, n) = allocations(|| {
        let mut s = String::new();
        for i in 0..100 {
            s.push_str(black_box(&i.to_string()));
        }
        s
    });
    assert!(s.len() > 100);
    assert!(n >= 100, "{n}");
    let (_, n) = allocations(|| black_box(1 + 1));
    assert_eq!(n, 0);
}

/// Parses every head of `buf` one-shot and with `HeadParser` (one read and
/// byte by byte), returning a checksum so nothing is optimised away.
fn parse_all_requests(buf: &[u8], config: &Config, storage: &mut [Entry]) -> usize {
    let mut sum = 0;
    let mut at = 0;
    while at < buf.len() {
        let Ok(Status::Complete(h)) = parse_request(&buf[at..], storage, config) else {
            return usize::MAX;
        };
        sum += h.len + h.field_count + h.target.len();
        if let Some(host) = h.facts.host {
            sum += host.len();
        }
        // The same head through HeadParser, in one read and byte by byte.
        let mut p = HeadParser::new(config.clone());
        if let Ok(Status::Complete(h2)) = p.request(&buf[at..], storage) {
            sum += h2.len;
        }
        p.reset();
        for end in 0..=h.len {
            match p.request(&buf[at..at + end], storage) {
                Ok(Status::Partial) => {}
                Ok(Status::Complete(h3)) => {
                    sum += h3.len;
                    break;
                }
                Err(_) => return usize::MAX,
            }
        }
        // The field section as a trailer section.
        let fields_at = at + storage[0].name.offset();
        if h.field_count > 0 {
            if let Ok(Status::Complete(t)) =
                parse_trailers(&buf[fields_at..at + h.len], storage, config)
            {
                sum += t.len + t.field_count;
            }
        }
        at += h.len;
    }
    sum
}

#[test]
fn request_parsing_does_not_allocate() {
    let config = Config::default();
    for (name, buf) in request_inputs() {
        let mut storage = [Entry::EMPTY; STORAGE];
        let warm = parse_all_requests(&buf, &config, &mut storage);
        assert_ne!(warm, usize::MAX, "{name}");
        let (sum, n) = allocations(|| parse_all_requests(&buf, &config, &mut storage));
        assert_eq!(sum, warm, "{name}");
        assert_eq!(n, 0, "{name}: {n} allocations");
        // Every scanner path too.
        for path in h1_parse::scan::Path::ALL
            .into_iter()
            .filter(|p| p.is_available())
        {
            let (r, n) =
                allocations(|| common::parse_request_with_path(path, &buf, &mut storage, &config));
            assert!(matches!(r, Ok(Status::Complete(_))), "{name} {path:?}");
            assert_eq!(n, 0, "{name} {path:?}: {n} allocations");
        }
    }
}

#[test]
fn response_parsing_does_not_allocate() {
    let buf = response_input();
    let config = Config::default();
    let mut storage = [Entry::EMPTY; 16];
    let run = |storage: &mut [Entry]| {
        let mut sum = 0;
        if let Ok(Status::Complete(h)) = parse_response(&buf, storage, &config) {
            sum += h.len + h.field_count;
        }
        let mut p = HeadParser::new(config.clone());
        for end in 0..=buf.len() {
            match p.response(&buf[..end], storage) {
                Ok(Status::Partial) => {}
                Ok(Status::Complete(h)) => {
                    sum += h.len;
                    break;
                }
                Err(_) => return 0,
            }
        }
        sum
    };
    let warm = run(&mut storage);
    assert_eq!(warm, 2 * buf.len() + 4);
    let (sum, n) = allocations(|| run(&mut storage));
    assert_eq!(sum, warm);
    assert_eq!(n, 0, "{n} allocations");
}

#[test]
fn chunked_framing_does_not_allocate() {
    let config = Config::default();
    let body: &[u8] = b"5\r\nhello\r\n1a;name=value;q=\"x y\"\r\nabcdefghijklmnopqrstuvwxyz\r\n\
                        00000\r\nExpires: never\r\nDigest: sha-256=abc\r\n\r\n";
    let walk = || {
        let mut at = 0;
        let mut sum = 0u64;
        loop {
            let c = match parse_chunk_size(&body[at..], &config) {
                Ok(Status::Complete(c)) => c,
                _ => return u64::MAX,
            };
            sum += c.size + c.extensions.len() as u64;
            at += c.len;
            if c.size == 0 {
                break;
            }
            at += c.size as usize + 2;
        }
        let mut storage = [Entry::EMPTY; 8];
        match parse_trailers(&body[at..], &mut storage, &config) {
            Ok(Status::Complete(t)) if at + t.len == body.len() => sum + t.field_count as u64,
            _ => u64::MAX,
        }
    };
    let warm = walk();
    assert_eq!(warm, 5 + 26 + 19 + 2);
    let (sum, n) = allocations(walk);
    assert_eq!(sum, warm);
    assert_eq!(n, 0, "{n} allocations");
}

#[test]
fn errors_do_not_allocate() {
    let bad: &[&[u8]] = &[
        b"GET / HTTP/1.1\r\nHost: a\r\nX: \x00\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
        b"GET / HTTP/2.0\r\nHost: a\r\n\r\n",
        b"G@T / HTTP/1.1\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost : a\r\n\r\n",
        b"GET / HTTP/1.1\r\nX: y\r\n\r\n",
        b"GET / HTTP/1.1\nHost: a\n\n",
        b"HTTP/1.1 200 OK\r\n\r\n",
    ];
    let chunk_bad: &[&[u8]] = &[b"-5\r\n", b"5\n", b"5;\x00\r\n", b"FFFFFFFFFFFFFFFFF\r\n"];
    let config = Config::default();
    let run = || {
        let mut errors = 0;
        let mut storage = [Entry::EMPTY; 8];
        for &b in bad {
            errors += usize::from(parse_request(b, &mut storage, &config).is_err());
            errors += usize::from(parse_response(b, &mut storage, &config).is_err());
            errors += usize::from(parse_trailers(b, &mut storage, &config).is_err());
            let mut p = HeadParser::new(config.clone());
            for end in 0..=b.len() {
                match p.request(&b[..end], &mut storage) {
                    Ok(Status::Partial) => {}
                    Ok(Status::Complete(_)) => break,
                    Err(e) => {
                        errors += usize::from(e.offset() <= b.len());
                        break;
                    }
                }
            }
        }
        for &b in chunk_bad {
            errors += usize::from(parse_chunk_size(b, &config).is_err());
        }
        errors
    };
    let warm = run();
    assert!(warm > 20, "{warm}");
    let (errors, n) = allocations(run);
    assert_eq!(errors, warm);
    assert_eq!(n, 0, "{n} allocations");
}
