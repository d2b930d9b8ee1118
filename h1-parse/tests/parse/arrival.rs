//! Heads that arrive in pieces, and the limits that bound them: the verdict
//! of `HeadParser` fed a few bytes at a time is the one-shot parser's, an
//! unfinished line that can no longer become valid is refused when it
//! arrives, and a line or head over its limit is refused as such whatever
//! ends it.

use crate::common::HeadValue;

use crate::common::*;
use h1_headers::Entry;
use h1_parse::{ErrorKind as K, HeadParser, Status};

/// Feeds `buf` to a fresh `HeadParser` `step` bytes at a time; the first
/// verdict that is not Partial, or the last one.
fn feed(buf: &[u8], config: &h1_parse::Config, step: usize) -> Result<Status<usize>, K> {
    let mut p = HeadParser::new(config.clone());
    let mut storage = [Entry::EMPTY; 16];
    let mut n = 0;
    loop {
        n = (n + step).min(buf.len());
        match p.request(&buf[..n], &mut storage) {
            Ok(Status::Partial) if n < buf.len() => {}
            Ok(Status::Partial) => return Ok(Status::Partial),
            Ok(Status::Complete(h)) => return Ok(Status::Complete(h.len)),
            Err(e) => return Err(e.kind()),
        }
    }
}

/// Fed `step` bytes at a time, for each of `steps`, `buf` is refused with
/// `kind`.
fn assert_fed_refused(buf: &[u8], config: &h1_parse::Config, kind: K, steps: &[usize]) {
    for &step in steps {
        assert_eq!(
            feed(buf, config, step),
            Err(kind),
            "step {step}: {}",
            show(buf)
        );
    }
}

#[test]
fn empty_lines_before_the_request_line_count_against_the_head_limit() {
    let mut buf = b"\r\n".repeat(40_000);
    buf.extend_from_slice(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    let e = error(&buf);
    assert_eq!((e.kind(), e.status()), (K::HeadTooLarge, 431));
    assert_eq!(feed(&buf, &Default::default(), 2), Err(K::HeadTooLarge));
    assert_eq!(feed(&buf, &Default::default(), 4096), Err(K::HeadTooLarge));
    // Only CRLFs: refused at the limit, not Partial forever.
    let crlfs = b"\r\n".repeat(40_000);
    assert_eq!(error(&crlfs).kind(), K::HeadTooLarge);
    assert_eq!(
        feed(&crlfs, &Default::default(), 1000),
        Err(K::HeadTooLarge)
    );
}

#[test]
fn a_line_at_the_end_of_the_buffer_waits_for_its_continuation() {
    let fold = config(|c| c.allow_obs_fold = true);
    let full = b"GET / HTTP/1.1\r\nHost:\r\n a\r\n\r\n";
    // A folded Host is refused (a framing field), but only once the
    // continuation line shows it is folded.
    assert_eq!(error_with(full, &fold).kind(), K::ObsFold);
    for n in 0..full.len() {
        let (r, _) = request_with(&full[..n], &fold);
        assert!(
            matches!(r, Ok(Status::Partial) | Err(_)),
            "{}",
            show(&full[..n])
        );
        // The prefix that ends after "Host:\r\n" must not be refused for an
        // empty Host: a continuation line may follow (it did, before the fix).
        if n == 23 {
            assert_eq!(r, Ok(Status::Partial), "{}", show(&full[..n]));
        }
    }
}

#[test]
fn whitespace_after_a_name_is_bounded_by_the_line_limit() {
    let mut buf = b"GET / HTTP/1.1\r\nHost: a\r\nX".to_vec();
    buf.resize(buf.len() + 20_000, b' ');
    assert_eq!(error(&buf).kind(), K::FieldLineTooLong);
}

#[test]
fn head_parser_survives_a_shorter_buffer_without_reset() {
    let mut p = HeadParser::new(Default::default());
    let mut storage = [Entry::EMPTY; 8];
    let first = b"\r\n\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n";
    assert!(p.request(first, &mut storage).unwrap().is_complete());
    // A new, shorter buffer: treated as a new message.
    assert_eq!(p.request(b"GE", &mut storage), Ok(Status::Partial));
    let second = b"GET /2 HTTP/1.1\r\nHost: a\r\n\r\n";
    let h = p.request(second, &mut storage).unwrap().complete().unwrap();
    assert_eq!(h.len, second.len());
}

#[test]
fn an_over_long_field_line_is_refused_whatever_ends_it() {
    // The line is over the limit before its end is looked at, so the error
    // does not depend on what (or whether anything) ends it.
    let small = config(|c| c.max_field_line_len = 16);
    let start = b"GET / HTTP/1.1\r\nHost: a\r\n";
    let line = b"X: 0123456789abcdefgh"; // 21 bytes
    for end in [
        &b"\r\n\r\n"[..],
        b"\rx\r\n\r\n",
        b"\n\r\n",
        b"\x01\r\n\r\n",
        b"",
    ] {
        let buf = [&start[..], line, end].concat();
        let e = error_with(&buf, &small);
        assert_eq!(
            (e.kind(), e.offset()),
            (K::FieldLineTooLong, start.len()),
            "{}",
            show(&buf)
        );
        assert_fed_refused(&buf, &small, K::FieldLineTooLong, &[1, 7, buf.len()]);
    }
}

#[test]
fn a_folded_line_at_the_end_of_the_buffer_may_fold_again() {
    let fold = config(|c| c.allow_obs_fold = true);
    let full = b"GET / HTTP/1.1\r\nHost: h\r\nX-Note: a\r\n b\r\n c\r\n\r\n";
    let (h, f) = head_with(full, &fold);
    assert!(h.obs_fold);
    assert_eq!(
        h.fields(full, &f).get(b"x-note"),
        Some(&b"a\r\n b\r\n c"[..])
    );
    // Cut right after the first continuation: the second may still come.
    let cut = find(full, b" c\r\n");
    assert_eq!(request_with(&full[..cut], &fold).0, Ok(Status::Partial));
    for step in 1..full.len() {
        assert_eq!(
            feed(full, &fold, step),
            Ok(Status::Complete(full.len())),
            "step {step}"
        );
    }
}

#[test]
fn a_bare_cr_starting_the_unfinished_line_is_refused_when_it_arrives() {
    // The head can never end (no CRLF CRLF), so HeadParser must not wait.
    let buf = b"GET / HTTP/1.1\r\nHost: a\r\n\rx";
    assert_eq!(error(buf).kind(), K::BareCr);
    assert_fed_refused(buf, &Default::default(), K::BareCr, &[1, 5, buf.len()]);
}

#[test]
fn a_request_line_that_starts_with_no_method_is_refused_when_it_arrives() {
    // A TLS ClientHello on a plain-text port, or binary junk: no line end
    // may ever come, so HeadParser must not wait for one.
    // The verdict is the one-shot parser's on the same bytes.
    for (buf, kind, at) in [
        (
            &b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03"[..],
            K::InvalidMethod,
            0,
        ),
        (b"GE(T", K::InvalidMethod, 2),
        (b"\r\n\r\nG\x00ET", K::InvalidMethod, 5),
        (b"GET\t/ HTTP/1.1", K::InvalidRequestLine, 3),
    ] {
        assert_eq!((error(buf).kind(), error(buf).offset()), (kind, at));
        assert_fed_refused(buf, &Default::default(), kind, &[1, 3, buf.len()]);
        let mut p = HeadParser::new(Default::default());
        let mut fields = [Entry::EMPTY; 4];
        assert_eq!(p.request(buf, &mut fields).unwrap_err().offset(), at);
    }
    // Valid prefixes and a CR that may start an empty line wait.
    for buf in [&b"GET"[..], b"\r", b"\r\n"] {
        assert_eq!(
            feed(buf, &Default::default(), buf.len()),
            Ok(Status::Partial),
            "{buf:?}"
        );
    }
    // A bad byte past the method is judged with its line: by the first
    // call, which walks all it got as the one-shot parser does, or, when it
    // arrives later, once its line ends or the input does.
    let late = b"PROPFIND /x\x01";
    assert_eq!(
        feed(late, &Default::default(), late.len()),
        Err(K::InvalidTarget)
    );
    let mut p = HeadParser::new(Default::default());
    let mut fields = [Entry::EMPTY; 4];
    assert_eq!(p.request(&late[..11], &mut fields), Ok(Status::Partial));
    assert_eq!(p.request(late, &mut fields), Ok(Status::Partial));
    let mut head = h1_parse::RequestHead::EMPTY;
    let eof = p.parse_request_at_eof(late, &mut head, &mut fields);
    assert_eq!(eof.map_err(|e| e.kind()), Err(K::InvalidTarget));
}

#[test]
fn with_obs_fold_a_complete_line_is_measured_without_its_crlf() {
    // Found by fuzzing: the line waiting for a possible continuation was
    // measured with its CRLF, so a split could refuse what the whole accepts.
    let c = config(|c| {
        c.allow_obs_fold = true;
        c.max_field_line_len = 7;
    });
    let mut storage = [Entry::EMPTY; 4];
    assert_eq!(
        h1_parse::parse_trailers(b"X: aaaa\r\n", &mut storage, &c),
        Ok(Status::Partial)
    );
    assert!(
        h1_parse::parse_trailers(b"X: aaaa\r\n\r\n", &mut storage, &c)
            .unwrap()
            .is_complete()
    );
    let head = b"GET / HTTP/1.1\r\nHost: a\r\nX: aaaa\r\n\r\n";
    assert_eq!(
        request_with(&head[..head.len() - 2], &c).0,
        Ok(Status::Partial)
    );
    assert!(head_with(head, &c).0.len == head.len());
}

#[test]
fn a_defect_past_the_line_limit_is_the_limit() {
    // Found by fuzzing h1-conn: a name byte that is not a tchar lies past the
    // field-line limit. A reader that has the bytes up to the limit refuses
    // the line as too long; the whole head must get the same verdict, or the
    // answer (431 or 400) depends on how the bytes arrived.
    let mut head = b"GET / HTTP/1.1\r\nHost: a\r\nX".to_vec();
    head.extend(std::iter::repeat(b'n').take(8200));
    head.extend_from_slice(b"\x00: v\r\n\r\n");
    let whole = request_with(&head, &config(|_| {})).0;
    assert_eq!(whole.map(|_| ()).unwrap_err().kind(), K::FieldLineTooLong);
    let mut parser = HeadParser::new(config(|_| {}));
    let mut storage = [Entry::EMPTY; STORAGE];
    let mut got = Ok(false);
    for n in [100, 8226, head.len()] {
        got = parser
            .request(&head[..n], &mut storage)
            .map(|s| s.is_complete());
        if got.is_err() {
            break;
        }
    }
    assert_eq!(got.unwrap_err().kind(), K::FieldLineTooLong);

    // Whitespace before the colon that runs past the limit, likewise.
    let mut head = b"GET / HTTP/1.1\r\nHost: a\r\nX".to_vec();
    head.extend(std::iter::repeat(b' ').take(8200));
    head.extend_from_slice(b": v\r\n\r\n");
    let whole = request_with(&head, &config(|_| {})).0;
    assert_eq!(whole.map(|_| ()).unwrap_err().kind(), K::FieldLineTooLong);
}

#[test]
fn leading_empty_lines_and_the_head_limit_give_one_verdict() {
    // Found by fuzzing h1-conn: the incremental parser skipped empty lines
    // past the head limit (and met a bare CR there) where the one-shot
    // parser, which looks at no byte past the limit, reported the limit.
    let inputs: [&[u8]; 3] = [
        b"\n\r\0\0 .c/\r\"",
        b"\r\n\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
        b"\n\n\rX",
    ];
    for lf in [false, true] {
        for limit in 0..8 {
            let c = config(|c| {
                c.allow_bare_lf = lf;
                c.max_head_len = limit;
            });
            for input in inputs {
                let mut storage = [Entry::EMPTY; STORAGE];
                let whole =
                    crate::common::parse_request(input, &mut storage, &c).map(|s| s.is_complete());
                let mut parser = HeadParser::new(c.clone());
                let mut bytewise = Ok(false);
                for n in 1..=input.len() {
                    bytewise = parser
                        .request(&input[..n], &mut storage)
                        .map(|s| s.is_complete());
                    if bytewise.is_err() {
                        break;
                    }
                }
                let mut parser = HeadParser::new(c.clone());
                let one_read = parser.request(input, &mut storage).map(|s| s.is_complete());
                assert_eq!(
                    one_read, whole,
                    "one read, lf {lf}, limit {limit}, {input:?}"
                );
                assert_eq!(
                    bytewise, whole,
                    "bytewise, lf {lf}, limit {limit}, {input:?}"
                );
            }
        }
    }
}

#[test]
fn a_folded_line_over_the_limit_is_the_limit_whatever_ends_it() {
    // Found by fuzzing h1-conn: with obs-fold allowed, a continuation line
    // that took the field line past its limit and then ended in a bare CR
    // was refused as the bare CR by the one-shot parser, and as the limit
    // by the incremental one (which stopped at the limit).
    let c = config(|c| {
        c.allow_obs_fold = true;
        c.max_field_line_len = 20;
    });
    let head = b"GET / HTTP/1.1\r\nHost: a\r\nX-Long: 0123456789\r\n abcdefghijklmnopqrstuvwxyz\r;\r\n\r\n";
    let mut storage = [Entry::EMPTY; STORAGE];
    let whole = crate::common::parse_request(head, &mut storage, &c).map(|s| s.is_complete());
    assert_eq!(whole.unwrap_err().kind(), K::FieldLineTooLong);
    let mut parser = HeadParser::new(c.clone());
    let mut bytewise = Ok(false);
    for n in 1..=head.len() {
        bytewise = parser
            .request(&head[..n], &mut storage)
            .map(|s| s.is_complete());
        if bytewise.is_err() {
            break;
        }
    }
    assert_eq!(bytewise, whole);
}

#[test]
fn a_field_line_is_refused_at_the_limit_whatever_lines_came_before() {
    // An earlier unfinished line that was looked at for its limit and found
    // within it must not spare a later line that passes the limit before
    // its end arrives: the one-shot parser refuses that prefix, and so must
    // the parser fed in pieces.
    let small = config(|c| c.max_field_line_len = 16);
    let fold = config(|c| {
        c.max_field_line_len = 16;
        c.allow_obs_fold = true;
    });
    let long = b"X: 0123456789abcdefgh"; // 21 bytes, no line end yet
    let cases: [(&[u8], &h1_parse::Config); 3] = [
        // A request line longer than the field line limit (its own limit
        // is the target's).
        (b"GET /0123456789abcdefghij HTTP/1.1\r\nHost: a\r\n", &small),
        // A field line exactly at the limit, a read ending after its CR.
        (b"GET / HTTP/1.1\r\nHost: 0123456789\r\n", &small),
        // A field line waiting for the next byte to know if it folds.
        (b"GET / HTTP/1.1\r\nHost: a\r\nY: b\r\n", &fold),
    ];
    for (before, c) in cases {
        let buf = [before, &long[..]].concat();
        let e = error_with(&buf, c);
        assert_eq!(
            (e.kind(), e.offset()),
            (K::FieldLineTooLong, before.len()),
            "{}",
            show(&buf)
        );
        assert_fed_refused(&buf, c, K::FieldLineTooLong, &[1, 2, 3, 5, 7]);
    }
}

#[test]
fn a_line_at_the_limit_is_judged_again_when_it_goes_on() {
    // A field line exactly at the limit whose CR (or, with obs-fold, CRLF)
    // has arrived is still valid; what comes next decides, and the parser
    // fed in pieces must give that verdict when it arrives, not wait for a
    // line end that may never come.
    let small = config(|c| c.max_field_line_len = 16);
    let fold = config(|c| {
        c.max_field_line_len = 16;
        c.allow_obs_fold = true;
    });
    let start = b"GET / HTTP/1.1\r\nHost: a\r\n";
    let at_limit = b"X: 0123456789abc"; // 16 bytes
    let cases: [(&[u8], &h1_parse::Config, K); 3] = [
        (b"\rx", &small, K::BareCr),
        (b"\rx", &fold, K::BareCr),
        // The fold's CRLF counts: the folded line is over the limit.
        (b"\r\n y", &fold, K::FieldLineTooLong),
    ];
    for (after, c, kind) in cases {
        let buf = [&start[..], at_limit, after].concat();
        assert_eq!(error_with(&buf, c).kind(), kind, "{}", show(&buf));
        // The line at the limit, up to its CR or CRLF: valid so far.
        let line_end = after.iter().take_while(|&&b| b == b'\r' || b == b'\n');
        let so_far = &buf[..start.len() + at_limit.len() + line_end.count()];
        assert_eq!(request_with(so_far, c).0, Ok(Status::Partial));
        assert_fed_refused(&buf, c, kind, &[1, 2, 3]);
    }
}

#[test]
fn a_status_line_is_held_to_the_limit_before_its_code_is_complete() {
    // A status line already longer than the limit is refused whatever
    // comes, even before its status code is whole: the parser fed in
    // pieces looks at an over-long line once, and must get the verdict
    // then.
    let small = config(|c| c.max_field_line_len = 10);
    let line = b"HTTP/1.1 200 OK\r\n\r\n";
    for n in 11..line.len() {
        let (r, _) = response_with(&line[..n], &small);
        assert_eq!(
            r.map(|s| s.is_complete())
                .map_err(|e| (e.kind(), e.offset())),
            Err((K::FieldLineTooLong, 0)),
            "{}",
            show(&line[..n])
        );
    }
    assert_eq!(response_with(&line[..10], &small).0, Ok(Status::Partial));
    let mut p = HeadParser::new(small);
    let mut storage = [Entry::EMPTY; 8];
    let mut got = Ok(false);
    for n in 1..=13 {
        got = p
            .response(&line[..n], &mut storage)
            .map(|s| s.is_complete());
        if got.is_err() {
            assert_eq!(n, 11);
            break;
        }
    }
    assert_eq!(got.map_err(|e| e.kind()), Err(K::FieldLineTooLong));
}

#[test]
fn head_parser_keeps_its_config() {
    let c = config(|c| c.max_target_len = 8);
    assert_eq!(HeadParser::new(c.clone()).config(), &c);
}

#[test]
fn reset_forgets_an_unfinished_head() {
    let mut p = HeadParser::new(Default::default());
    let mut storage = [Entry::EMPTY; 8];
    let first = b"GET /a HTTP/1.1\r\nHost: a\r\n";
    assert_eq!(p.request(first, &mut storage), Ok(Status::Partial));
    p.reset();
    // Longer than the first: without the reset, taken for its next bytes.
    let second = b"POST /bb HTTP/1.1\r\nHost: b\r\n\r\n";
    let h = p.request(second, &mut storage).unwrap().complete().unwrap();
    assert_eq!(h.target.slice(second), b"/bb");
    assert_eq!((h.len, h.field_count), (second.len(), 1));
}

#[test]
fn a_shorter_buffer_after_an_unfinished_head_is_a_new_message() {
    let mut p = HeadParser::new(Default::default());
    let mut storage = [Entry::EMPTY; 8];
    let first = b"GET /first HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n";
    assert_eq!(p.request(first, &mut storage), Ok(Status::Partial));
    let second = b"GET /2 HTTP/1.1\r\nHost: a\r\n\r\n";
    assert!(second.len() < first.len());
    let h = p.request(second, &mut storage).unwrap().complete().unwrap();
    assert_eq!(h.target.slice(second), b"/2");
    assert_eq!(h.len, second.len());
    // Each walked once, from its start.
    assert_eq!(p.examined(), first.len() + second.len());
}

#[test]
fn a_field_line_is_held_to_its_own_limit_not_the_targets() {
    // A field line longer than the target limit is no target: it waits for
    // its own limit, and is refused when it passes it.
    let c = config(|c| {
        c.max_target_len = 8;
        c.max_field_line_len = 32;
    });
    let mut buf = b"GET / HTTP/1.1\r\nX: ".to_vec();
    buf.resize(buf.len() + 12, b'a');
    let mut p = HeadParser::new(c.clone());
    let mut storage = [Entry::EMPTY; 8];
    let mut verdict = Ok(false);
    while buf.len() < 60 {
        verdict = p.request(&buf, &mut storage).map(|s| s.is_complete());
        let line = buf.len() - 16;
        if line <= 32 {
            assert_eq!(verdict, Ok(false), "{}", show(&buf));
        }
        if verdict.is_err() {
            break;
        }
        buf.extend_from_slice(b"aaa");
    }
    assert_eq!(verdict.map_err(|e| e.kind()), Err(K::FieldLineTooLong));
    assert_eq!(error_with(&buf, &c).kind(), K::FieldLineTooLong);
}

#[test]
fn a_target_is_held_to_its_limit_whatever_comes_before_it() {
    // The target's limit holds as the target arrives, as the one-shot
    // parser holds it: after a long method, and leniently after an HTAB or
    // a run of SP and HTAB.
    let strict = config(|c| c.max_target_len = 8);
    let spaces = config(|c| {
        c.allow_multiple_spaces_in_request_line = true;
        c.max_target_len = 8;
    });
    let long_method = [&[b'M'; 100][..], b" "].concat();
    let cases: [(&[u8], &h1_parse::Config); 4] = [
        (&long_method, &strict),
        (b"GET\t", &spaces),
        (b"GET \t", &spaces),
        (b"GET\t \t", &spaces),
    ];
    for (before, c) in cases {
        let buf = [before, b"/abcdefghijkl"].concat();
        let e = error_with(&buf, c);
        assert_eq!((e.kind(), e.offset()), (K::TargetTooLong, before.len()));
        assert_fed_refused(&buf, c, K::TargetTooLong, &[1, 2, 5]);
    }
}

#[test]
fn a_head_is_refused_at_the_byte_past_its_limit_within_a_short_line() {
    // With a head limit below the line limit, an unfinished line that is
    // short for its own limit still takes the head past its limit: the
    // parser fed a byte at a time refuses it at that byte, not at the
    // line's end, and a buffer exactly at the limit is not parsed again.
    let small_head = config(|c| c.max_head_len = 32);
    let buf = b"GET / HTTP/1.1\r\nHost: a\r\nX: 0123456789abcdef";
    let mut storage = [Entry::EMPTY; STORAGE];
    let mut p = HeadParser::new(small_head.clone());
    for n in 1..=32 {
        let r = p.request(&buf[..n], &mut storage);
        assert_eq!(r, Ok(Status::Partial), "at {n}");
    }
    // Each byte searched for a line end once, each finished line walked
    // once: "GET / HTTP/1.1\r\n" (16) and "Host: a\r\n" (9).
    assert_eq!(p.examined(), 32 + 16 + 9);
    let e = p.request(&buf[..33], &mut storage).unwrap_err();
    assert_eq!(e.kind(), K::HeadTooLarge);
    let whole = crate::common::parse_request(&buf[..33], &mut storage, &small_head);
    assert_eq!(whole.unwrap_err().kind(), K::HeadTooLarge);
}

#[test]
fn a_long_request_line_is_examined_at_most_four_times() {
    // A method longer than the field-line limit, then a target past its own
    // limit: the line is walked once while unfinished (when it passes the
    // line limit), its method and target searched once for the target's
    // end, and walked again for the verdict, besides the search for a line
    // end among each call's new bytes: four looks at most bytes, still O(n).
    let tight = config(|c| {
        c.max_field_line_len = 622;
        c.max_target_len = 302;
    });
    let mut buf = vec![b'M'; 2000];
    buf.push(b' ');
    buf.push(b'/');
    buf.resize(2402, b'a');
    let mut storage = [Entry::EMPTY; STORAGE];
    let mut p = HeadParser::new(tight);
    assert_eq!(p.request(&buf[..100], &mut storage), Ok(Status::Partial));
    assert_eq!(p.request(&buf[..1000], &mut storage), Ok(Status::Partial));
    let e = p.request(&buf, &mut storage).unwrap_err();
    assert_eq!(e.kind(), K::TargetTooLong);
    let searched = buf.len();
    let walked = 1000 + buf.len();
    let target_search = 2001 + 303;
    assert_eq!(p.examined(), searched + walked + target_search);
}

#[test]
fn a_bare_lf_at_the_line_limit_waits_and_a_fold_past_it_is_refused() {
    // With bare LF and obs-fold allowed, a field line exactly at its limit
    // ends in an LF whose follower decides whether the line goes on: the
    // LF is not counted (as the one-shot parser does not count it), so the
    // line is not taken as over its limit and then skipped when the fold
    // that really takes it over arrives. Found by the parse_request
    // campaign (fuzz/regressions/parse_request/bare-lf-fold-past-the-line-limit).
    let c = config(|c| {
        c.max_field_line_len = 13;
        c.allow_bare_lf = true;
        c.allow_obs_fold = true;
    });
    let buf = b"PUT /url HTTP/1.1\r\nHost: example\n  abc\r\n\r\n";
    let mut storage = [Entry::EMPTY; STORAGE];
    let mut p = HeadParser::new(c.clone());
    assert_eq!(p.request(&buf[..25], &mut storage), Ok(Status::Partial));
    assert_eq!(p.request(&buf[..33], &mut storage), Ok(Status::Partial));
    let e = p.request(&buf[..34], &mut storage).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (K::FieldLineTooLong, 19));
    let whole = crate::common::parse_request(&buf[..34], &mut storage, &c);
    assert_eq!(whole.unwrap_err(), e);
}
