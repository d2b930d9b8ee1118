//! Field lines through the public API: name and value spans, every byte in
//! names and values, whitespace before the colon, obs-fold, missing colons,
//! the field, line and head limits (one-shot and with `HeadParser`), and the
//! three leniencies.
use crate::common::HeadValue;

use crate::common::*;
use h1_headers::{Entry, Span};
use h1_parse::{unfold_in_place, Config, ErrorKind as K, HeadParser, Status};

/// `GET / HTTP/1.1`, Host, then `lines` verbatim, then the empty line.
fn get_with(lines: &[u8]) -> Vec<u8> {
    [&b"GET / HTTP/1.1\r\nHost: a\r\n"[..], lines, b"\r\n"].concat()
}

// ---------------------------------------------------------------------------
// Spans.

#[test]
fn name_and_value_spans() {
    let buf = get_with(
        b"X-A:  \t v a l \t \r\nX-B:\r\nX-C:   \r\nX-D: \x80\xffobs\r\nx-e:v\r\n\
          X-F: \"quoted, list\"; a=b\r\nX-G:\t\ttabs\t\r\n!#$%&'*+-.^_`|~09: t\r\n",
    );
    let (h, f) = head(&buf);
    let want: &[(&[u8], &[u8])] = &[
        (b"Host", b"a"),
        (b"X-A", b"v a l"),
        (b"X-B", b""),
        (b"X-C", b""),
        (b"X-D", b"\x80\xffobs"),
        (b"x-e", b"v"),
        (b"X-F", b"\"quoted, list\"; a=b"),
        (b"X-G", b"tabs"),
        (b"!#$%&'*+-.^_`|~09", b"t"),
    ];
    assert_eq!(h.field_count, want.len());
    for (e, &(name, value)) in f.iter().zip(want) {
        assert_eq!(e.name.slice(&buf), name);
        assert_eq!(e.value.slice(&buf), value, "{}", show(name));
        assert!(e.name.end() <= h.len && e.value.end() <= h.len);
    }
    // The spans are where the bytes are, not copies.
    assert_eq!(f[1].name.offset(), find(&buf, b"X-A"));
    assert_eq!(f[1].value.offset(), find(&buf, b"v a l"));
    assert_eq!(f[4].value.offset(), find(&buf, b"\x80"));
    // An empty value lies inside its own line.
    for e in &f[2..4] {
        assert!(e.value.offset() > e.name.end() && e.value.end() <= h.len);
    }
    let view = h.fields(&buf, &f);
    assert_eq!(view.get(b"x-a"), Some(&b"v a l"[..]));
    assert_eq!(view.get(b"X-E"), Some(&b"v"[..]));
    assert_eq!(view.get(b"x-b"), Some(&b""[..]));
    assert_eq!(view.len(), want.len());
}

/// `len` bytes of `a` to `z`, over and over.
fn letters(len: usize) -> Vec<u8> {
    (0..len).map(|i| b'a' + (i % 26) as u8).collect()
}

#[test]
fn long_values_across_blocks() {
    for len in 0..=200usize {
        let value = letters(len);
        let buf = get_with(&[&b"X-Long: "[..], &value, b"\r\nX-Next: n\r\n"].concat());
        let (h, f) = head(&buf);
        assert_eq!(f[1].value.slice(&buf), &value[..], "{len}");
        assert_eq!(f[2].value.slice(&buf), b"n");
        assert_eq!(h.len, buf.len());
    }
}

/// Names of every length up to three blocks, so a name's colon lands on
/// every offset of a block it did not start in (the last one too), with a
/// value, an empty value and a value without the SP after the colon.
#[test]
fn long_names_across_blocks() {
    for len in 1..=200usize {
        let name = letters(len);
        for (sep, value) in [(&b": "[..], &b"v"[..]), (b":", b""), (b":", b"w x")] {
            let line = [&name[..], sep, value, b"\r\n"].concat();
            let buf = get_with(&[&line[..], b"X-Next: n\r\n"].concat());
            let (h, f) = head(&buf);
            assert_eq!(f[1].name.slice(&buf), &name[..], "{len}");
            assert_eq!(f[1].value.slice(&buf), value, "{len}");
            assert_eq!(f[2].name.slice(&buf), b"X-Next", "{len}");
            assert_eq!(f[2].value.slice(&buf), b"n", "{len}");
            assert_eq!(h.len, buf.len());
        }
    }
}

// ---------------------------------------------------------------------------
// Every byte in a value.

/// Every byte in the middle, at the start and at the end of a value: only
/// HTAB, SP, VCHAR and obs-text are accepted; CR and LF are line-ending
/// errors, every other byte InvalidFieldValue, each at its own offset.
#[test]
fn every_byte_in_a_value() {
    for b in 0..=255u8 {
        for (pre, post) in [(&b"a"[..], &b"b"[..]), (b"", b"b"), (b"a", b"")] {
            let line = [&b"X: "[..], pre, &[b], post].concat();
            let buf = get_with(&[&line[..], b"\r\n"].concat());
            let at = find(&buf, b"X: ") + 3 + pre.len();
            if is_value_byte(b) {
                let (_, f) = head(&buf);
                let mut want = [pre, &[b], post].concat();
                // OWS at either end of the value is not part of it.
                while want.first().is_some_and(|&c| c == b' ' || c == b'\t') {
                    want.remove(0);
                }
                while want.last().is_some_and(|&c| c == b' ' || c == b'\t') {
                    want.pop();
                }
                assert_eq!(f[1].value.slice(&buf), &want[..], "{b:#04x}");
                continue;
            }
            let kind = match b {
                b'\r' => K::BareCr,
                b'\n' => K::BareLf,
                _ => K::InvalidFieldValue,
            };
            if b == b'\n' && post.is_empty() {
                // "X: a\n\r\n": the bare LF ends the line.
                assert_error(&buf, K::BareLf, at);
                continue;
            }
            assert_error(&buf, kind, at);
        }
    }
}

/// A bad byte at every position of values of many lengths.
#[test]
fn bad_value_byte_at_every_position() {
    for len in [1usize, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 130] {
        for p in 0..len {
            for bad in [0x00u8, 0x01, 0x0b, 0x0c, 0x1f, 0x7f, b'\r', b'\n'] {
                let mut value = vec![b'v'; len];
                value[p] = bad;
                let buf = get_with(&[&b"X-Value: "[..], &value, b"\r\n"].concat());
                let at = find(&buf, b"X-Value: ") + 9 + p;
                let kind = match bad {
                    b'\r' => K::BareCr,
                    b'\n' => K::BareLf,
                    _ => K::InvalidFieldValue,
                };
                assert_error(&buf, kind, at);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Every byte in a name.

#[test]
fn every_byte_in_a_name() {
    for b in 0..=255u8 {
        let buf = get_with(&[&b"X"[..], &[b], b"Y: v\r\n"].concat());
        let at = find(&buf, b"\r\nX") + 3;
        if is_tchar(b) {
            let (_, f) = head(&buf);
            assert_eq!(f[1].name.slice(&buf), &[b'X', b, b'Y'], "{b:#04x}");
            continue;
        }
        if b == b':' {
            let (_, f) = head(&buf);
            assert_eq!(f[1].name.slice(&buf), b"X");
            assert_eq!(f[1].value.slice(&buf), b"Y: v");
            continue;
        }
        let e = error(&buf);
        assert_eq!(e.offset(), at, "{b:#04x}: {e}");
        let allowed: &[K] = match b {
            b'\r' => &[K::InvalidFieldName, K::BareCr],
            b'\n' => &[K::InvalidFieldName, K::BareLf],
            _ => &[K::InvalidFieldName],
        };
        assert!(allowed.contains(&e.kind()), "{b:#04x}: {e}");
    }
}

#[test]
fn every_byte_at_the_start_of_a_name() {
    for b in 0..=255u8 {
        let buf = get_with(&[&[b][..], b"X: v\r\n"].concat());
        let at = find(&buf, b"a\r\n") + 3;
        if is_tchar(b) {
            let (_, f) = head(&buf);
            assert_eq!(f[1].name.slice(&buf), &[b, b'X'], "{b:#04x}");
            continue;
        }
        let kind = match b {
            b' ' | b'\t' => K::ObsFold,
            b'\r' => K::BareCr,
            b'\n' => K::BareLf,
            _ => K::InvalidFieldName,
        };
        assert_error(&buf, kind, at);
    }
}

#[test]
fn bad_name_byte_at_every_position() {
    for len in [1usize, 8, 16, 17, 32, 33, 63, 64, 65, 100] {
        for p in 0..len {
            for bad in [0x00u8, b'"', b'(', b'@', 0x7f, 0x80, 0xff] {
                let mut name = vec![b'n'; len];
                name[p] = bad;
                let buf = get_with(&[&name[..], b": v\r\n"].concat());
                let at = find(&buf, b"a\r\n") + 3 + p;
                assert_error(&buf, K::InvalidFieldName, at);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Whitespace before the colon, obs-fold, colon and name errors.

#[test]
fn whitespace_before_colon() {
    for line in [
        &b"Host : a"[..],
        b"X-Foo\t: b",
        b"X-Foo   : b",
        b"X-Foo \t :b",
        b"Content-Length : 5",
        b"Transfer-Encoding : chunked",
    ] {
        let buf = [&b"GET / HTTP/1.1\r\nHost: a\r\n"[..], line, b"\r\n\r\n"].concat();
        let at =
            find(&buf, b"a\r\n") + 3 + line.iter().position(|&b| b == b' ' || b == b'\t').unwrap();
        assert_error(&buf, K::WhitespaceBeforeColon, at);
    }
    // As the first field line, too.
    assert_error(
        b"GET / HTTP/1.1\r\nHost : a\r\n\r\n",
        K::WhitespaceBeforeColon,
        20,
    );
    // Whitespace inside the name followed by something else is not a colon
    // case.
    assert_error(&get_with(b"X Y: v\r\n"), K::InvalidFieldName, 26);
}

#[test]
fn obs_fold_is_refused() {
    for cont in [&b" folded"[..], b"\tfolded", b"  ", b" \t x"] {
        let buf = get_with(&[&b"X: a\r\n"[..], cont, b"\r\n"].concat());
        let at = find(&buf, b"X: a\r\n") + 6;
        assert_error(&buf, K::ObsFold, at);
        assert_eq!(error(&buf).status(), 400);
    }
    // A first field line starting with whitespace (RFC 9112 §2.2).
    for buf in [
        &b"GET / HTTP/1.1\r\n Host: a\r\n\r\n"[..],
        b"GET / HTTP/1.1\r\n\tHost: a\r\n\r\n",
    ] {
        assert_error(buf, K::ObsFold, 16);
        // Never taken as a continuation of the request line, not even with
        // the obs-fold leniency.
        let e = error_with(buf, &config(|c| c.allow_obs_fold = true));
        assert_eq!((e.kind(), e.offset()), (K::ObsFold, 16));
    }
}

#[test]
fn missing_colon_and_empty_name() {
    let buf = get_with(b"NoColon\r\n");
    assert_error(&buf, K::InvalidFieldName, find(&buf, b"NoColon") + 7);
    let buf = get_with(b"No Colon Here\r\n");
    assert_error(&buf, K::InvalidFieldName, find(&buf, b"No Colon") + 2);
    let buf = get_with(b": value\r\n");
    assert_error(&buf, K::InvalidFieldName, find(&buf, b": value"));
    let buf = get_with(b":\r\n");
    assert_error(&buf, K::InvalidFieldName, find(&buf, b":\r\n"));
    // The colon the only byte up to the end of its 64-byte block that may
    // not be in a name: the walk must still see the name as empty.
    let buf = get_with(&[&b":"[..], &[b'a'; 100], b"\r\n"].concat());
    assert_eq!(find(&buf, b":a") % 64, 25);
    assert_error(&buf, K::InvalidFieldName, find(&buf, b":a"));
}

// ---------------------------------------------------------------------------
// Limits.

/// A request with `n` field lines (Host first).
fn with_fields(n: usize) -> Vec<u8> {
    let mut v = b"GET / HTTP/1.1\r\nHost: a\r\n".to_vec();
    for i in 1..n {
        v.extend_from_slice(format!("X-{i}: {i}\r\n").as_bytes());
    }
    v.extend_from_slice(b"\r\n");
    v
}

/// The offset of the `i`-th field line (0-based) of [`with_fields`].
fn line_start(buf: &[u8], i: usize) -> usize {
    if i == 0 {
        return find(buf, b"Host");
    }
    find(buf, format!("\r\nX-{i}:").as_bytes()) + 2
}

#[test]
fn max_fields_default() {
    let buf = with_fields(100);
    let (h, f) = head(&buf);
    assert_eq!(h.field_count, 100);
    assert_eq!(f[99].value.slice(&buf), b"99");
    let buf = with_fields(101);
    let e = error(&buf);
    assert_eq!(
        (e.kind(), e.offset(), e.status()),
        (K::TooManyFields, line_start(&buf, 100), 431)
    );
}

#[test]
fn max_fields_configured() {
    let config = config(|c| c.max_fields = 3);
    assert_eq!(head_with(&with_fields(3), &config).0.field_count, 3);
    let buf = with_fields(4);
    assert_error_with(&buf, &config, K::TooManyFields, line_start(&buf, 3));
    let zero = config_zero_fields();
    assert_eq!(head_with(b"GET / HTTP/1.0\r\n\r\n", &zero).0.field_count, 0);
    assert_error_with(&with_fields(1), &zero, K::TooManyFields, 16);
}

fn config_zero_fields() -> Config {
    config(|c| c.max_fields = 0)
}

#[test]
fn storage_smaller_than_max_fields() {
    let cfg = Config::default();
    let mut storage = [Entry::EMPTY; 4];
    let buf = with_fields(4);
    let r = crate::common::parse_request(&buf, &mut storage, &cfg);
    assert_eq!(r.map(|s| s.complete().map(|h| h.field_count)), Ok(Some(4)));
    let buf = with_fields(5);
    let e = crate::common::parse_request(&buf, &mut storage, &cfg).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset(), e.status()),
        (K::TooManyFields, line_start(&buf, 4), 431)
    );
    let e = crate::common::parse_request(&with_fields(1), &mut [], &cfg).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (K::TooManyFields, 16));
    // HeadParser: same.
    let e = HeadParser::new(cfg)
        .request(&buf, &mut storage)
        .unwrap_err();
    assert_eq!(
        (e.kind(), e.offset()),
        (K::TooManyFields, line_start(&buf, 4))
    );
}

/// A field line of exactly `len` bytes (name through value, no CRLF).
fn line_of(len: usize) -> Vec<u8> {
    let mut l = b"X-Long: ".to_vec();
    l.resize(len, b'v');
    l
}

#[test]
fn max_field_line_len_default() {
    let at = b"GET / HTTP/1.1\r\nHost: a\r\n".len();
    let buf = get_with(&[&line_of(8192)[..], b"\r\n"].concat());
    let (h, f) = head(&buf);
    assert_eq!(f[1].name.offset(), at);
    assert_eq!(f[1].value.end() - at, 8192);
    assert_eq!(h.len, buf.len());
    let buf = get_with(&[&line_of(8193)[..], b"\r\n"].concat());
    let e = error(&buf);
    assert_eq!(
        (e.kind(), e.offset(), e.status()),
        (K::FieldLineTooLong, at, 431)
    );
}

#[test]
fn max_field_line_len_while_partial() {
    let at = b"GET / HTTP/1.1\r\nHost: a\r\n".len();
    let buf = get_with(&[&line_of(9000)[..], b"\r\n"].concat());
    // The line is too long before its end arrives.
    for n in [at + 8193, at + 8194, at + 9000] {
        let e = error(&buf[..n]);
        assert_eq!(
            (e.kind(), e.offset(), e.status()),
            (K::FieldLineTooLong, at, 431)
        );
    }
    // Exactly at the limit and waiting for the CRLF: fine.
    let buf = get_with(&[&line_of(8192)[..], b"\r\n"].concat());
    assert_eq!(
        request_with(&buf[..at + 8192], &Config::default()).0,
        Ok(Status::Partial)
    );
}

/// Regression: the CR of a line exactly at the limit was counted while its
/// LF had not arrived yet.
#[test]
fn max_field_line_len_partial_with_cr() {
    let at = b"GET / HTTP/1.1\r\nHost: a\r\n".len();
    let buf = get_with(&[&line_of(8192)[..], b"\r\n"].concat());
    assert_eq!(
        request_with(&buf[..at + 8193], &Config::default()).0,
        Ok(Status::Partial),
        "prefix ends in the CR of a line at the limit"
    );
    let config = config(|c| c.max_field_line_len = 16);
    let buf = get_with(b"X: 0123456789abc\r\n");
    assert_eq!(head_with(&buf, &config).0.field_count, 2);
    let cr = find(&buf, b"abc\r") + 4;
    assert_eq!(request_with(&buf[..cr], &config).0, Ok(Status::Partial));
}

/// `HeadParser` refuses an unfinished field line as soon as it passes the
/// limit, not at the head limit.
#[test]
fn head_parser_refuses_a_long_partial_line_at_the_limit() {
    let at = b"GET / HTTP/1.1\r\nHost: a\r\n".len();
    let mut buf = get_with(b"");
    buf.truncate(at);
    buf.extend_from_slice(b"X: ");
    buf.resize(70_000, b'v');
    let mut p = HeadParser::new(Config::default());
    let mut storage = [Entry::EMPTY; 8];
    let mut verdict = None;
    for n in 0..=buf.len() {
        match p.request(&buf[..n], &mut storage) {
            Ok(Status::Partial) => {}
            r => {
                verdict = Some((n, r));
                break;
            }
        }
    }
    let (n, r) = verdict.expect("refused");
    let e = r.unwrap_err();
    assert_eq!((e.kind(), e.offset()), (K::FieldLineTooLong, at));
    assert_eq!(n, at + 8193);
}

#[test]
fn max_field_line_len_configured() {
    let config = config(|c| c.max_field_line_len = 16);
    let at = b"GET / HTTP/1.1\r\nHost: a\r\n".len();
    let ok = get_with(b"X: 0123456789abc\r\n");
    assert_eq!(head_with(&ok, &config).0.field_count, 2);
    let long = get_with(b"X: 0123456789abcd\r\n");
    assert_error_with(&long, &config, K::FieldLineTooLong, at);
    // Partial, one byte over.
    let e = error_with(&long[..at + 17], &config);
    assert_eq!((e.kind(), e.offset()), (K::FieldLineTooLong, at));
    // A long name counts too.
    let long_name = get_with(b"X-0123456789abcd:\r\n");
    assert_error_with(&long_name, &config, K::FieldLineTooLong, at);
    // A name that ends in a bad byte, or in whitespace before its colon:
    // the defect is the error while the byte that shows it (the bad byte,
    // the colon) is at most the line's first byte over the limit, else
    // the limit is.
    for (defect, kind, name_len) in [
        (&b"@: v"[..], K::InvalidFieldName, 16),
        (b" : v", K::WhitespaceBeforeColon, 15),
        (b"\t \t: v", K::WhitespaceBeforeColon, 13),
        (b"  x: v", K::InvalidFieldName, 14),
    ] {
        let name = &b"X-0123456789abcdef"[..name_len];
        let within = get_with(&[name, defect, b"\r\n"].concat());
        assert_error_with(&within, &config, kind, at + name_len);
        let name = &b"X-0123456789abcdef"[..name_len + 1];
        let past = get_with(&[name, defect, b"\r\n"].concat());
        assert_error_with(&past, &config, K::FieldLineTooLong, at);
    }
    // HeadParser, fed byte by byte, refuses the same line.
    let mut p = HeadParser::new(config.clone());
    let mut storage = [Entry::EMPTY; 8];
    let mut last = Ok(Status::Partial);
    for n in 1..=long.len() {
        last = p.request(&long[..n], &mut storage);
        if last != Ok(Status::Partial) {
            break;
        }
    }
    let e = last.unwrap_err();
    assert_eq!((e.kind(), e.offset()), (K::FieldLineTooLong, at));
}

/// A request head of exactly `len` bytes.
fn head_of(len: usize) -> Vec<u8> {
    let mut v = b"GET / HTTP/1.1\r\nHost: a\r\nX: ".to_vec();
    assert!(len >= v.len() + 4);
    v.resize(len - 4, b'p');
    v.extend_from_slice(b"\r\n\r\n");
    v
}

#[test]
fn max_head_len() {
    let config = config(|c| c.max_head_len = 64);
    let buf = head_of(64);
    assert_eq!(head_with(&buf, &config).0.len, 64);
    let buf = head_of(65);
    let e = error_with(&buf, &config);
    assert_eq!(
        (e.kind(), e.offset(), e.status()),
        (K::HeadTooLarge, 64, 431)
    );
    // Before the end of the head arrives.
    let e = error_with(&buf[..65], &config);
    assert_eq!((e.kind(), e.offset()), (K::HeadTooLarge, 64));
    assert_eq!(request_with(&buf[..64], &config).0, Ok(Status::Partial));
    // Skipped empty lines count: otherwise CRLFs would bypass the limit.
    let buf = [&b"\r\n\r\n"[..], &head_of(60)].concat();
    assert_eq!(head_with(&buf, &config).0.len, 64);
    let buf = [&b"\r\n\r\n"[..], &head_of(61)].concat();
    let e = error_with(&buf, &config);
    assert_eq!((e.kind(), e.offset()), (K::HeadTooLarge, 64));
    let buf = b"\r\n".repeat(40);
    let e = error_with(&buf, &config);
    assert_eq!((e.kind(), e.offset()), (K::HeadTooLarge, 64));
    // Body bytes after a head at the limit do not count.
    let buf = [&head_of(64)[..], b"body bytes after the head"].concat();
    assert_eq!(head_with(&buf, &config).0.len, 64);
}

#[test]
fn max_head_len_with_head_parser() {
    let config = config(|c| c.max_head_len = 64);
    for (buf, want) in [
        (head_of(64), Ok(64)),
        (head_of(65), Err(64)),
        (head_of(200), Err(64)),
        ([&b"\r\n"[..], &head_of(62)].concat(), Ok(64)),
        ([&b"\r\n"[..], &head_of(63)].concat(), Err(64)),
        (b"\r\n".repeat(40), Err(64)),
    ] {
        // One read, two reads, byte by byte.
        for step in [buf.len(), 40, 1] {
            let mut p = HeadParser::new(config.clone());
            let mut storage = [Entry::EMPTY; 8];
            let mut n = 0;
            let got = loop {
                n = (n + step).min(buf.len());
                match p.request(&buf[..n], &mut storage) {
                    Ok(Status::Partial) if n < buf.len() => {}
                    r => break r,
                }
            };
            let got = got.map(|s| s.complete().map(|h| h.len).unwrap_or(0));
            let got = got.map_err(|e| {
                assert_eq!(e.kind(), K::HeadTooLarge, "{}", show(&buf));
                e.offset()
            });
            assert_eq!(got, want, "step {step}: {}", show(&buf));
        }
    }
}

#[test]
fn max_head_len_default() {
    // 70 field lines of 1000 bytes: within the field limits, over 64 KiB.
    let mut buf = b"GET / HTTP/1.1\r\nHost: a\r\n".to_vec();
    for i in 0..70 {
        let mut l = format!("X-{i:02}: ").into_bytes();
        l.resize(998, b'v');
        buf.extend_from_slice(&l);
        buf.extend_from_slice(b"\r\n");
    }
    buf.extend_from_slice(b"\r\n");
    let e = error(&buf);
    assert_eq!(
        (e.kind(), e.offset(), e.status()),
        (K::HeadTooLarge, 65536, 431)
    );
    let e = HeadParser::new(Config::default())
        .request(&buf, &mut [Entry::EMPTY; 128])
        .unwrap_err();
    assert_eq!((e.kind(), e.offset()), (K::HeadTooLarge, 65536));
}

#[test]
fn a_trailer_section_is_held_to_the_head_limit() {
    let c = config(|c| c.max_head_len = 32);
    let mut storage = [Entry::EMPTY; 4];
    // 17 + 13 bytes of field lines and the empty line: exactly the limit.
    let at_limit = b"X-A: 0123456789\r\nX-B: 012345\r\n\r\n";
    assert_eq!(
        h1_parse::parse_trailers(at_limit, &mut storage, &c),
        Ok(Status::Complete(h1_parse::Trailers {
            len: 32,
            field_count: 2
        }))
    );
    // Past the limit with no end in sight: refused there, not waited for;
    // and a section whose empty line ends one byte past it.
    let over = b"X-A: 0123456789\r\nX-B: 0123456\r\nX-C";
    let e = h1_parse::parse_trailers(over, &mut storage, &c).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (K::HeadTooLarge, 32));
    let e = h1_parse::parse_trailers(b"X-A: 0123456789\r\nX-B: 0123456\r\n\r\n", &mut storage, &c)
        .unwrap_err();
    assert_eq!((e.kind(), e.offset()), (K::HeadTooLarge, 32));
}

// ---------------------------------------------------------------------------
// Leniencies.

#[test]
fn leniencies_are_off_by_default() {
    let c = Config::default();
    assert!(!c.allow_bare_lf);
    assert!(!c.allow_obs_fold);
    assert!(!c.allow_multiple_spaces_in_request_line);
    assert_eq!(c, Config::DEFAULT);
    assert_eq!(c.max_head_len, 64 * 1024);
    assert_eq!(c.max_field_line_len, 8 * 1024);
    assert_eq!(c.max_fields, 100);
    assert_eq!(c.max_target_len, 8 * 1024);
    assert_eq!(c.max_chunk_line_len, 4 * 1024);
}

#[test]
fn bare_lf_leniency() {
    let lf = config(|c| c.allow_bare_lf = true);
    let buf = b"GET / HTTP/1.1\nHost: a\nX: b\n\n";
    assert_error(buf, K::BareLf, 14);
    let (h, f) = head_with(buf, &lf);
    assert_eq!(h.len, buf.len());
    assert_eq!(h.field_count, 2);
    assert_eq!(f[1].name.slice(buf), b"X");
    assert_eq!(f[1].value.slice(buf), b"b");
    // Mixed line ends.
    let buf = b"GET / HTTP/1.1\r\nHost: a\nX: b \r\n\nBODY";
    assert_error(buf, K::BareLf, 23);
    let (h, f) = head_with(buf, &lf);
    assert_eq!(h.len, buf.len() - 4);
    assert_eq!(f[1].value.slice(buf), b"b");
    // The last line ends in a bare LF.
    let buf = b"GET / HTTP/1.1\r\nHost: a\r\n\n";
    assert_error(buf, K::BareLf, 25);
    assert_eq!(head_with(buf, &lf).0.len, buf.len());
    // A bare CR is still refused.
    let buf = b"GET / HTTP/1.1\nHost: a\rb\n\n";
    assert_error_with(buf, &lf, K::BareCr, 22);
    let buf = b"GET / HTTP/1.1\nHost: a\n\r\r\n";
    assert_error_with(buf, &lf, K::BareCr, 23);
}

#[test]
fn obs_fold_leniency() {
    let fold = config(|c| c.allow_obs_fold = true);
    let mut buf = get_with(b"X: a\r\n  b\r\n\tc\r\nY: d\r\n");
    assert_error(&buf, K::ObsFold, find(&buf, b"  b"));
    let (h, f) = head_with(&buf, &fold);
    assert!(h.obs_fold);
    assert_eq!(h.len, buf.len());
    assert_eq!(h.field_count, 3);
    assert_eq!(f[1].value.slice(&buf), b"a\r\n  b\r\n\tc");
    assert_eq!(f[2].name.slice(&buf), b"Y");
    assert_eq!(f[2].value.slice(&buf), b"d");
    unfold_in_place(&mut buf, f[1].value);
    assert_eq!(f[1].value.slice(&buf), b"a    b  \tc");
    // An empty first line: the value starts on the continuation.
    let buf = get_with(b"X:\r\n b\r\n");
    let (h, f) = head_with(&buf, &fold);
    assert!(h.obs_fold);
    assert_eq!(f[1].value.slice(&buf), b"b");
    // A continuation of only whitespace adds nothing.
    let buf = get_with(b"X: a\r\n   \r\n");
    let (_, f) = head_with(&buf, &fold);
    assert_eq!(f[1].value.slice(&buf), b"a");
    // Without folds the flag stays off.
    let (h, _) = head_with(&get_with(b"X: a\r\n"), &fold);
    assert!(!h.obs_fold);
    // A control byte in a continuation is still refused.
    let buf = get_with(b"X: a\r\n b\x01\r\n");
    assert_error_with(&buf, &fold, K::InvalidFieldValue, find(&buf, b"\x01"));
    // The folded line counts against the line limit as a whole.
    let small = config(|c| {
        c.allow_obs_fold = true;
        c.max_field_line_len = 16;
    });
    let buf = get_with(b"X: 0123\r\n 456789abcdef\r\n");
    assert_error_with(&buf, &small, K::FieldLineTooLong, find(&buf, b"X:"));
    // Measured from the name to the last continuation's end, CR LFs
    // included: 16 bytes are within the limit, 17 are not.
    let buf = get_with(b"X: 0123\r\n 456789\r\n");
    let (h, f) = head_with(&buf, &small);
    assert_eq!(f[1].value.slice(&buf), b"0123\r\n 456789");
    assert_eq!(h.len, buf.len());
    let buf = get_with(b"X: 0123\r\n 456789a\r\n");
    assert_error_with(&buf, &small, K::FieldLineTooLong, find(&buf, b"X:"));
}

#[test]
fn unfold_in_place_clips() {
    let mut buf = *b"X: a\r\n b";
    unfold_in_place(&mut buf, Span::new(3, 100).unwrap());
    assert_eq!(&buf, b"X: a   b");
    let mut buf = *b"a\r\n";
    unfold_in_place(&mut buf, Span::new(50, 10).unwrap());
    assert_eq!(&buf, b"a\r\n");
    unfold_in_place(&mut buf, Span::new(0, 1).unwrap());
    assert_eq!(&buf, b"a\r\n");
}

#[test]
fn several_spaces_leniency_does_not_touch_fields() {
    let c = config(|c| c.allow_multiple_spaces_in_request_line = true);
    let buf = get_with(b"X : a\r\n");
    assert_error_with(&buf, &c, K::WhitespaceBeforeColon, find(&buf, b"X :") + 1);
}

#[test]
fn folded_framing_fields_are_refused_with_the_obs_fold_leniency() {
    let fold = config(|c| c.allow_obs_fold = true);
    for line in [
        &b"Connection: keep-alive,\r\n close"[..],
        b"Transfer-Encoding: gzip,\r\n chunked",
        b"Content-Length:\r\n 5",
        b"Host: a,\r\n b",
    ] {
        let buf = [&b"POST / HTTP/1.1\r\nHost: h\r\n"[..], line, b"\r\n\r\n"].concat();
        let buf = if line.starts_with(b"Host") {
            [&b"POST / HTTP/1.1\r\n"[..], line, b"\r\n\r\n"].concat()
        } else {
            buf
        };
        assert_eq!(error_with(&buf, &fold).kind(), K::ObsFold, "{}", show(&buf));
    }
    // Other fields may still be folded.
    let buf = b"GET / HTTP/1.1\r\nHost: h\r\nX-Note: a\r\n b\r\n\r\n";
    assert!(head_with(buf, &fold).0.obs_fold);
}
