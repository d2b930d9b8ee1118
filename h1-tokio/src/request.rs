//! A request head as h1-conn read it, in the `http` crate's types.
//!
//! h1-conn has already judged every byte of the head (method token, target
//! form, field syntax, framing); this only moves it into an
//! `http::Request`. The head's bytes are not copied: the target and the
//! field values share them; what is left is the `http` types' own cost:
//! names looked up (and copied when not one of the standard ones), a
//! `HeaderMap` filled.

use std::fmt;

use bytes::Bytes;
use h1_conn::{Entry, HeadersView, Request, Span, Version};
use http::header::{HeaderName, HeaderValue};
use http::{HeaderMap, Method, Uri};

use crate::trusted::{self, CheckedValues};
use crate::Body;

/// A head h1-conn accepted that the `http` types cannot hold (a target
/// `http::Uri` does not parse, say): the request is answered 400.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Unrepresentable(&'static str);

impl fmt::Display for Unrepresentable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the request's {} has no http-crate form", self.0)
    }
}

/// The `http::Request` of `req`, carrying `body`: `head` holds its bytes
/// (taken out of the connection's buffer without a copy, see
/// [`ServerConn::freeze`](h1_conn::ServerConn::freeze)), and its spans and
/// those of its field entries `fields` index `head`. The target and the
/// field values are slices of `head`: no copy, no allocation. `headers` is
/// an empty map to fill (a response's, reused: its allocation is kept).
/// With `checked`, the values are taken as h1-parse checked them.
pub(crate) fn to_http(
    req: &Request,
    head: &Bytes,
    fields: &[Entry],
    mut headers: HeaderMap,
    checked: Option<CheckedValues>,
    body: Body,
) -> Result<http::Request<Body>, Unrepresentable> {
    let h = &req.head;
    let part = |span: Span| (span.end() <= head.len()).then(|| head.slice(span.range()));
    let method = match req.method() {
        h1_conn::Method::Get => Method::GET,
        h1_conn::Method::Post => Method::POST,
        h1_conn::Method::Head => Method::HEAD,
        _ => Method::from_bytes(h.method.get(head).ok_or(Unrepresentable("method"))?)
            .map_err(|_| Unrepresentable("method"))?,
    };
    let target = part(h.target).ok_or(Unrepresentable("request-target"))?;
    let uri = Uri::from_maybe_shared(target).map_err(|_| Unrepresentable("request-target"))?;
    let version = match req.version() {
        Version::Http10 => http::Version::HTTP_10,
        Version::Http11 => http::Version::HTTP_11,
    };
    headers.clear();
    headers.reserve(fields.len());
    for e in fields {
        let (Some(name), Some(value)) = (e.name.get(head), part(e.value)) else {
            return Err(Unrepresentable("field"));
        };
        // Standard names come from http's table without an allocation;
        // only the value needs the shared head.
        let name = HeaderName::from_bytes(name).map_err(|_| Unrepresentable("field name"))?;
        let value = match checked {
            Some(proof) => trusted::header_value(value, proof),
            None => {
                HeaderValue::from_maybe_shared(value).map_err(|_| Unrepresentable("field value"))?
            }
        };
        headers.append(name, value);
    }
    let mut out = http::Request::new(body);
    *out.method_mut() = method;
    *out.uri_mut() = uri;
    *out.version_mut() = version;
    *out.headers_mut() = headers;
    Ok(out)
}

/// The trailer fields of a chunked request body as an `http::HeaderMap`
/// (a field the `http` types cannot hold is left out: h1-conn has judged
/// them all, so none is).
pub(crate) fn trailer_map(view: HeadersView<'_>) -> HeaderMap {
    let mut map = HeaderMap::with_capacity(view.len());
    for (name, value) in view {
        if let (Ok(n), Ok(v)) = (HeaderName::from_bytes(name), HeaderValue::from_bytes(value)) {
            map.append(n, v);
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use h1_conn::{Config, ServerConn, ServerEvent};

    use super::*;

    /// The `http` form of the first request of `bytes`.
    fn convert(bytes: &[u8]) -> Result<http::Request<Body>, Unrepresentable> {
        let mut conn = ServerConn::new(Config::default());
        assert_eq!(conn.feed(bytes), bytes.len());
        match conn.next_event() {
            ServerEvent::Request(req) => {
                let head = conn.freeze();
                let fields = &conn.field_entries()[..req.head.field_count];
                let checked = CheckedValues::of(&Config::default());
                to_http(
                    &req,
                    &head,
                    fields,
                    HeaderMap::new(),
                    checked,
                    Body::empty(),
                )
            }
            other => panic!("expected a request, got {other:?}"),
        }
    }

    #[test]
    fn method_target_version_and_fields_are_carried_over() {
        let r = convert(
            b"POST /a/b?c=d HTTP/1.1\r\nHost: example.com\r\nContent-Length: 0\r\n\
              X-Many: 1\r\nx-many: 2\r\n\r\n",
        )
        .expect("representable");
        assert_eq!(r.method(), Method::POST);
        assert_eq!(r.uri().path(), "/a/b");
        assert_eq!(r.uri().query(), Some("c=d"));
        assert_eq!(r.version(), http::Version::HTTP_11);
        assert_eq!(r.headers()["host"], "example.com");
        let many: Vec<_> = r.headers().get_all("x-many").iter().collect();
        assert_eq!(many, ["1", "2"], "repeated fields keep their order");
        assert_eq!(r.headers().len(), 4);
    }

    #[test]
    fn every_target_form_has_its_uri() {
        let r =
            convert(b"GET http://example.com:8080/x HTTP/1.1\r\nHost: example.com:8080\r\n\r\n")
                .expect("absolute form");
        assert_eq!(
            r.uri().authority().map(|a| a.as_str()),
            Some("example.com:8080")
        );
        assert_eq!(r.uri().path(), "/x");
        let r = convert(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
            .expect("authority form");
        assert_eq!(r.method(), Method::CONNECT);
        assert_eq!(
            r.uri().authority().map(|a| a.as_str()),
            Some("example.com:443")
        );
        let r = convert(b"OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n").expect("asterisk form");
        assert_eq!(r.uri(), "*");
    }

    #[test]
    fn http_1_0_and_extension_methods_are_kept() {
        let r = convert(b"PURGE /cache HTTP/1.0\r\n\r\n").expect("representable");
        assert_eq!(r.method().as_str(), "PURGE");
        assert_eq!(r.version(), http::Version::HTTP_10);
        assert!(r.headers().is_empty());
    }

    #[test]
    fn every_value_byte_the_parser_accepts_is_one_a_header_value_may_hold() {
        let mut accepted = 0;
        for b in 0..=255u8 {
            let mut req = b"GET / HTTP/1.1\r\nHost: a\r\nX-V: a".to_vec();
            req.extend_from_slice(&[b, b'z']);
            req.extend_from_slice(b"\r\n\r\n");
            let mut conn = ServerConn::new(Config::default());
            conn.feed(&req);
            let ServerEvent::Request(r) = conn.next_event() else {
                // Refused by the parser: never reaches the http types.
                continue;
            };
            accepted += 1;
            let head = conn.freeze();
            let fields = &conn.field_entries()[..r.head.field_count];
            let checked = CheckedValues::of(&Config::default());
            assert!(checked.is_some(), "the strict parser gives the proof");
            let out = to_http(&r, &head, fields, HeaderMap::new(), checked, Body::empty())
                .expect("representable");
            let value = &out.headers()["x-v"];
            assert_eq!(value.as_bytes(), [b'a', b, b'z'], "byte {b:#04x}");
            assert!(
                HeaderValue::from_bytes(value.as_bytes()).is_ok(),
                "byte {b:#04x} accepted by the parser but not by http"
            );
        }
        // HTAB, SP to `~`, and obs-text 0x80 to 0xFF.
        assert_eq!(accepted, 1 + 95 + 128);
    }

    #[test]
    fn a_folded_value_is_checked_and_refused_by_the_http_types() {
        let mut config = Config::default();
        config.parse.allow_obs_fold = true;
        assert!(
            CheckedValues::of(&config).is_none(),
            "no proof with obs-fold"
        );
        let mut conn = ServerConn::new(config);
        conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\nX-V: a\r\n b\r\n\r\n");
        let ServerEvent::Request(r) = conn.next_event() else {
            panic!("the lenient parser takes the fold");
        };
        let head = conn.freeze();
        let fields = &conn.field_entries()[..r.head.field_count];
        let got = to_http(&r, &head, fields, HeaderMap::new(), None, Body::empty());
        assert_eq!(got.err(), Some(Unrepresentable("field value")));
    }

    #[test]
    fn field_values_keep_their_bytes_and_names_are_lowercased() {
        let r = convert(b"GET / HTTP/1.1\r\nHost: a\r\nX-Opaque: caf\xc3\xa9 \t x\r\n\r\n")
            .expect("representable");
        assert_eq!(r.headers()["x-opaque"].as_bytes(), b"caf\xc3\xa9 \t x");
    }
}
