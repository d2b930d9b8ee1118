//! The classes excuse only inputs that show them: each case is a refusal h1
//! might make by mistake, on an input outside the class it would be filed
//! under, and must not be excused; beside it, the refusals the class is
//! for.

use super::*;

/// What [`h1_stricter`] says of h1 refusing `data` with `kind` at `at`.
fn excuse(
    k: Kind,
    data: &[u8],
    config: &Config,
    kind: K,
    at: usize,
) -> Result<&'static str, String> {
    h1_stricter(k, data, config, &Error::new(kind, at))
}

fn request_with(fields: &str) -> Vec<u8> {
    format!("POST / HTTP/1.1\r\nHost: a\r\n{fields}\r\n").into_bytes()
}

fn response_with(fields: &str) -> Vec<u8> {
    format!("HTTP/1.1 200 OK\r\n{fields}\r\n").into_bytes()
}

#[test]
fn a_transfer_encoding_the_rfc_lets_through_is_no_excuse() {
    let te = K::InvalidTransferEncoding;
    // Chunked last, with a parameter on the coding before it (BWS after
    // `=`, RFC 9110 §10.1.4): h1 refused this once, and the class hid it.
    for valid in [
        "Transfer-Encoding: gzip; q= 1, chunked\r\n",
        "Transfer-Encoding: chunked\r\n",
        "Transfer-Encoding: gzip\r\n",
        "Transfer-Encoding: gzip;a=\"x\", chunked\r\n",
        "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n",
    ] {
        let data = response_with(valid);
        assert!(
            excuse(Kind::Response, &data, &strict(), te, 17).is_err(),
            "{valid}"
        );
    }
    for valid in [
        "Transfer-Encoding: chunked,\r\n",
        "Transfer-Encoding: , chunked\r\n",
    ] {
        let data = request_with(valid);
        assert!(
            excuse(Kind::Request, &data, &strict(), te, 26).is_err(),
            "{valid}"
        );
    }
    // An unknown coding before chunked is 501 in a request, never in a
    // response.
    let data = response_with("Transfer-Encoding: gzip, chunked\r\n");
    assert!(excuse(
        Kind::Response,
        &data,
        &strict(),
        K::UnsupportedTransferCoding,
        17
    )
    .is_err());
    let data = request_with("Transfer-Encoding: chunked\r\n");
    assert!(excuse(
        Kind::Request,
        &data,
        &strict(),
        K::UnsupportedTransferCoding,
        26
    )
    .is_err());

    for refusable in [
        "Transfer-Encoding: chunked, gzip\r\n",
        "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
        "Transfer-Encoding: chunked;a=1\r\n",
        "Transfer-Encoding: gzip;\r\n",
        "Transfer-Encoding: gzip;a=\"x\r\n",
        "Transfer-Encoding: \r\nTransfer-Encoding: chunked\r\n",
        "Transfer-Encoding: ,\r\n",
        "Transfer-Encoding: gzip;a=\"x,y\", chunked\r\n",
        "Transfer-Encoding: gzip;a=\"x;y\", chunked\r\n",
        // Escaped, still inside the quotes: h1 refuses these too.
        "Transfer-Encoding: gzip;a=\"x\\,y\", chunked\r\n",
        "Transfer-Encoding: gzip;a=\"x\\;y\"\r\n",
    ] {
        let data = response_with(refusable);
        assert_eq!(
            excuse(Kind::Response, &data, &strict(), te, 17),
            Ok("transfer-coding"),
            "{refusable}"
        );
    }
    for refusable in [
        "Transfer-Encoding: gzip\r\n",
        "Transfer-Encoding: chunked, chunked\r\n",
    ] {
        let data = request_with(refusable);
        assert_eq!(
            excuse(Kind::Request, &data, &strict(), te, 26),
            Ok("transfer-coding")
        );
    }
    let data = request_with("Transfer-Encoding: gzip, chunked\r\n");
    assert_eq!(
        excuse(
            Kind::Request,
            &data,
            &strict(),
            K::UnsupportedTransferCoding,
            26
        ),
        Ok("transfer-coding")
    );
}

#[test]
fn obs_fold_is_excused_only_where_the_head_folds() {
    let fold = K::ObsFold;
    // `\n x` in the body, not the head.
    let body = b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\n\n x";
    assert!(excuse(Kind::Request, body, &strict(), fold, 17).is_err());
    assert!(excuse(Kind::Request, body, &strict(), fold, 50).is_err());
    let folded = b"GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n";
    // Strict: at the continuation line's first byte, not elsewhere.
    assert_eq!(
        excuse(Kind::Request, folded, &strict(), fold, 31),
        Ok("obs-fold")
    );
    assert!(excuse(Kind::Request, folded, &strict(), fold, 29).is_err());
    // With the leniency a folded field other than a framing one is
    // unfolded, not refused.
    assert!(excuse(Kind::Request, folded, &lenient(), fold, 29).is_err());
    assert!(excuse(Kind::Request, folded, &lenient(), fold, 31).is_err());
    let framing = b"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n 2\r\n\r\n";
    assert_eq!(
        excuse(Kind::Request, framing, &lenient(), fold, 41),
        Ok("obs-fold")
    );
    // A framing field whose value starts on its continuation line: h1
    // names the value's first byte.
    let late = b"GET / HTTP/1.1\r\nHost:\r\n a\r\n\r\n";
    assert_eq!(
        excuse(Kind::Request, late, &lenient(), fold, 24),
        Ok("obs-fold")
    );
    // Whitespace before the request line is no fold.
    let before = b"\r\n GET / HTTP/1.1\r\nHost: a\r\n\r\n";
    assert!(excuse(Kind::Request, before, &strict(), fold, 2).is_err());
    let first = b"GET / HTTP/1.1\r\n X: a\r\nHost: a\r\n\r\n";
    assert_eq!(
        excuse(Kind::Request, first, &lenient(), fold, 16),
        Ok("obs-fold")
    );
}

#[test]
fn valid_targets_and_hosts_are_no_excuse() {
    let form = K::InvalidTargetForm;
    for valid in [
        &b"CONNECT a:80 HTTP/1.1\r\nHost: a:80\r\n\r\n"[..],
        b"CONNECT [::1]:443 HTTP/1.1\r\nHost: a\r\n\r\n",
        b"OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n",
        b"GET http://a/ HTTP/1.1\r\nHost: a\r\n\r\n",
        b"GET https://a.b:8080?q HTTP/1.1\r\nHost: a\r\n\r\n",
    ] {
        assert!(
            excuse(Kind::Request, valid, &strict(), form, 8).is_err(),
            "{}",
            valid.escape_ascii()
        );
    }
    for refusable in [
        &b"CONNECT a HTTP/1.1\r\nHost: a\r\n\r\n"[..],
        b"CONNECT a:0 HTTP/1.1\r\nHost: a\r\n\r\n",
        b"CONNECT a:65536 HTTP/1.1\r\nHost: a\r\n\r\n",
        b"CONNECT /a HTTP/1.1\r\nHost: a\r\n\r\n",
        b"GET * HTTP/1.1\r\nHost: a\r\n\r\n",
        b"GET a:80 HTTP/1.1\r\nHost: a\r\n\r\n",
        b"GET http://u@a/ HTTP/1.1\r\nHost: a\r\n\r\n",
        b"GET http:///a HTTP/1.1\r\nHost: a\r\n\r\n",
        b"GET urn:a HTTP/1.1\r\nHost: a\r\n\r\n",
    ] {
        assert_eq!(
            excuse(Kind::Request, refusable, &strict(), form, 4),
            Ok("target-form"),
            "{}",
            refusable.escape_ascii()
        );
    }
    let host =
        |target: &str, value: &str| format!("GET {target} HTTP/1.1\r\nHost: {value}\r\n\r\n");
    for (target, valid) in [
        ("/", "[::1]:80"),
        ("/", "a%20b"),
        ("/", "[v1.x]"),
        ("/", "1.2.3.4:"),
        ("/", "a.b-c_d~!$&'()*+,;="),
        ("http://a/", ""),
    ] {
        let data = host(target, valid);
        assert!(
            excuse(
                Kind::Request,
                data.as_bytes(),
                &strict(),
                K::InvalidHost,
                22
            )
            .is_err(),
            "{valid}"
        );
    }
    for (target, refusable) in [
        ("/", ""),
        ("/", "a b"),
        ("/", "u@a"),
        ("/", "a/b"),
        ("/", "[::1"),
        ("/", "a:b"),
        ("/", "%zz"),
        // Not absolute-form, though a URI (scheme `a`).
        ("a:80", ""),
    ] {
        let data = host(target, refusable);
        assert_eq!(
            excuse(
                Kind::Request,
                data.as_bytes(),
                &strict(),
                K::InvalidHost,
                22
            ),
            Ok("invalid-host"),
            "{refusable}"
        );
    }
}

#[test]
fn limits_are_excused_only_past_them() {
    let config = strict();
    // A small head with a large body is not a large head.
    let mut data = b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 70000\r\n\r\n".to_vec();
    data.resize(data.len() + 70_000, b'x');
    assert!(excuse(Kind::Request, &data, &config, K::HeadTooLarge, 10).is_err());
    let mut data = b"GET / HTTP/1.1\r\nX: ".to_vec();
    data.resize(config.max_head_len + 1, b'x');
    assert_eq!(
        excuse(Kind::Request, &data, &config, K::HeadTooLarge, 10),
        Ok("limit")
    );

    // The field count is of field lines: as many as the limit, with
    // continuation lines between them, is within it.
    let fields = |n: usize, fold: &str| {
        let mut d = b"GET / HTTP/1.1\r\n".to_vec();
        for i in 0..n {
            d.extend_from_slice(format!("X{i}: a\r\n{fold}").as_bytes());
        }
        d.extend_from_slice(b"\r\n");
        d
    };
    let at = config.max_fields;
    assert!(excuse(
        Kind::Request,
        &fields(at, ""),
        &config,
        K::TooManyFields,
        16
    )
    .is_err());
    assert!(excuse(
        Kind::Request,
        &fields(at, " b\r\n"),
        &lenient(),
        K::TooManyFields,
        16
    )
    .is_err());
    assert_eq!(
        excuse(
            Kind::Request,
            &fields(at + 1, ""),
            &config,
            K::TooManyFields,
            16
        ),
        Ok("limit")
    );
    // Unfinished, the one past the limit counts.
    let mut d = fields(at, "");
    d.truncate(d.len() - 2);
    d.extend_from_slice(b"Y: b");
    assert_eq!(
        excuse(Kind::Request, &d, &config, K::TooManyFields, 16),
        Ok("limit")
    );

    // A field line unfinished but for a CR that may start its line end is
    // at the limit, not past it.
    let mut d = b"GET / HTTP/1.1\r\nHost: a\r\nX: ".to_vec();
    d.resize(25 + config.max_field_line_len, b'a');
    d.push(b'\r');
    assert!(excuse(Kind::Request, &d, &config, K::FieldLineTooLong, 25).is_err());
    d.insert(30, b'a');
    assert_eq!(
        excuse(Kind::Request, &d, &config, K::FieldLineTooLong, 25),
        Ok("limit")
    );
    // The request line is held to the target limit, not the field-line one.
    let mut d = b"GET /".to_vec();
    d.resize(5 + config.max_field_line_len, b'a');
    d.extend_from_slice(b" HTTP/1.1\r\nHost: a\r\n\r\n");
    assert!(excuse(Kind::Request, &d, &config, K::FieldLineTooLong, 0).is_err());

    // A target ends at its line's end, not at the next SP; a run in the
    // body is no target.
    let mut data = b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 9000\r\n\r\n".to_vec();
    data.resize(data.len() + 9000, b'b');
    assert!(excuse(Kind::Request, &data, &config, K::TargetTooLong, 60).is_err());
    let mut data = b"GET /a\r\nX: ".to_vec();
    data.resize(data.len() + config.max_target_len, b'b');
    data.extend_from_slice(b" HTTP/1.1\r\n\r\n");
    assert!(excuse(Kind::Request, &data, &config, K::TargetTooLong, 4).is_err());
}

#[test]
fn a_deferred_verdict_needs_the_other_parser_to_reject() {
    // h1 asking for more on heads httparse reads whole would be h1 missing
    // a head's end: no class may excuse it.
    for data in [
        &b"GET / HTTP/1.1\r\nHost: a\r\n\r\n"[..],
        b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
    ] {
        let judged = std::panic::catch_unwind(|| {
            judge(
                Reference::Httparse { lenient: false },
                Kind::Request,
                data,
                &strict(),
                &Ours::Partial,
            )
        });
        assert!(judged.is_err(), "{}", data.escape_ascii());
    }
    let _ = take_classes_seen();
    // What the class is for: httparse rejects a version h1 names only at
    // the line's end.
    let data = b"GET / HTTP/2.0";
    judge(
        Reference::Httparse { lenient: false },
        Kind::Request,
        data,
        &strict(),
        &h1_head(Kind::Request, data, &strict()),
    );
    assert!(take_classes_seen().contains(&("deferred-verdict", "httparse")));
}

#[test]
fn host_rules_are_no_excuse_in_a_response() {
    // RFC 9112 §3.2 holds requests to one valid Host; in a response Host
    // is a field like any other.
    let two = response_with("Host: a\r\nHost: b\r\n");
    assert!(excuse(Kind::Response, &two, &strict(), K::DuplicateHost, 26).is_err());
    let spaced = response_with("Host: a b\r\n");
    assert!(excuse(Kind::Response, &spaced, &strict(), K::InvalidHost, 23).is_err());
}

#[test]
fn request_line_errors_are_excused_only_where_the_line_breaks() {
    let valid = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n";
    for (kind, at) in [
        (K::InvalidRequestLine, 3),
        (K::InvalidRequestLine, 5),
        (K::InvalidRequestLine, 14),
        (K::InvalidMethod, 3),
        (K::InvalidTarget, 5),
        (K::InvalidTarget, 14),
        (K::InvalidVersion, 13),
        (K::BareLf, 15),
    ] {
        assert!(
            excuse(Kind::Request, valid, &strict(), kind, at).is_err(),
            "{kind:?} at {at}"
        );
    }
    let digits = b"GET /12 HTTP/1.1\r\nHost: a\r\n\r\n";
    assert!(excuse(Kind::Request, digits, &strict(), K::InvalidVersion, 6).is_err());
    // A bare LF in the body is not the head's.
    let body = b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\n\nab";
    assert!(excuse(Kind::Request, body, &strict(), K::BareLf, 47).is_err());

    for (input, kind, at, class) in [
        (
            &b" GET / HTTP/1.1\r\n"[..],
            K::InvalidRequestLine,
            0,
            "request-line-empty-part",
        ),
        (
            b"GET  / HTTP/1.1\r\n",
            K::InvalidRequestLine,
            4,
            "request-line-empty-part",
        ),
        (
            b"GET\t/ HTTP/1.1\r\n",
            K::InvalidRequestLine,
            3,
            "request-line-empty-part",
        ),
        (
            b"GET \r\n",
            K::InvalidRequestLine,
            4,
            "request-line-empty-part",
        ),
        (
            b"GET / HTTP/1.1 \r\n",
            K::InvalidRequestLine,
            14,
            "request-line-empty-part",
        ),
        (
            b"G@T / HTTP/1.1\r\n",
            K::InvalidMethod,
            1,
            "method-not-token",
        ),
        (
            b"GET /a\x7f HTTP/1.1\r\n",
            K::InvalidTarget,
            6,
            "target-byte",
        ),
        (
            b"GET / HTTP/1.11\r\n",
            K::InvalidVersion,
            14,
            "version-digits",
        ),
        (b"GET / HTTP/1.1\nHost: a\r\n\r\n", K::BareLf, 14, "bare-lf"),
    ] {
        assert_eq!(
            excuse(Kind::Request, input, &strict(), kind, at),
            Ok(class),
            "{}",
            input.escape_ascii()
        );
    }
}
