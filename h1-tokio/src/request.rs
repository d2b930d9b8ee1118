//! A request head as h1-conn read it, in the `http` crate's types.
//!
//! h1-conn has already judged every byte of the head (method token, target
//! form, field syntax, framing); this only moves it into an
//! `http::Request`. The head is copied once (into the connection's
//! [`HeadArena`]), and the target and the field values share that copy;
//! what is left is the `http` types' own cost:
//! names looked up (and copied when not one of the standard ones), a
//! `HeaderMap` filled.

use std::fmt;

use bytes::Bytes;
use h1_conn::{Entry, HeadersView, Request, Span, TargetForm, Version};
use http::header::{HeaderName, HeaderValue};
use http::{HeaderMap, Method, Uri};

use crate::arena::HeadArena;
use crate::names::NameCache;
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

/// What a connection keeps to move its request heads into the `http`
/// types: where heads are copied, the names seen, and whether field values
/// need a second check.
#[derive(Debug)]
pub(crate) struct Converter {
    arena: HeadArena,
    names: NameCache,
    checked: Option<CheckedValues>,
}

impl Converter {
    /// For a connection whose machine runs `config`.
    pub(crate) fn new(config: &h1_conn::Config) -> Converter {
        Converter {
            arena: HeadArena::default(),
            names: NameCache::default(),
            checked: CheckedValues::of(config),
        }
    }

    /// The `http::Request` of `req`, carrying `body`: see [`to_http`].
    pub(crate) fn request(
        &mut self,
        req: &Request,
        received: &[u8],
        fields: &[Entry],
        headers: HeaderMap,
        body: Body,
    ) -> Result<http::Request<Body>, Unrepresentable> {
        to_http(req, received, fields, self, headers, body)
    }
}

/// The `http::Request` of `req`, carrying `body`: its bytes are in
/// `received`, its field entries (spans into `received`) in `fields`. The
/// head but its line ends is copied once, into the converter's arena, and
/// the target and every field value are slices of that copy. `headers` is
/// an empty map to fill (a response's, reused: its allocation is kept).
fn to_http(
    req: &Request,
    received: &[u8],
    fields: &[Entry],
    with: &mut Converter,
    mut headers: HeaderMap,
    body: Body,
) -> Result<http::Request<Body>, Unrepresentable> {
    let h = &req.head;
    // From the method to the end of the last span.
    let start = h.method.offset();
    let end = fields
        .last()
        .map_or(h.target.end(), |e| e.value.end().max(h.target.end()));
    let head = with
        .arena
        .copy(received.get(start..end).ok_or(Unrepresentable("head"))?);
    let part = |span: Span| {
        span.shift_down(start)
            .filter(|s| s.end() <= head.len())
            .map(|s| head.slice(s.range()))
    };
    let method = match req.method() {
        h1_conn::Method::Get => Method::GET,
        h1_conn::Method::Post => Method::POST,
        h1_conn::Method::Head => Method::HEAD,
        _ => Method::from_bytes(h.method.get(received).ok_or(Unrepresentable("method"))?)
            .map_err(|_| Unrepresentable("method"))?,
    };
    let target = part(h.target).ok_or(Unrepresentable("request-target"))?;
    let origin = h.target_form == TargetForm::Origin;
    let as_sent = (!origin).then(|| RequestTarget(target.clone()));
    let uri = match Uri::from_maybe_shared(target) {
        Ok(uri) => uri,
        Err(_) if !origin => as_sent
            .as_ref()
            .and_then(|t| unreserved_decoded(&t.0))
            .and_then(|t| Uri::from_maybe_shared(t).ok())
            .ok_or(Unrepresentable("request-target"))?,
        Err(_) => return Err(Unrepresentable("request-target")),
    };
    let version = match req.version() {
        Version::Http10 => http::Version::HTTP_10,
        Version::Http11 => http::Version::HTTP_11,
    };
    headers.clear();
    headers.reserve(fields.len());
    for (i, e) in fields.iter().enumerate() {
        let (Some(name), Some(value)) = (e.name.get(received), part(e.value)) else {
            return Err(Unrepresentable("field"));
        };
        let name = with
            .names
            .get(i, name)
            .map_err(|_| Unrepresentable("field name"))?;
        let value = match with.checked {
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
    if let Some(target) = as_sent {
        out.extensions_mut().insert(target);
    }
    Ok(out)
}

/// The request-target as the client sent it, in the extensions of each
/// request whose target is not in origin form (`/path?query`).
///
/// `http::Uri` spells such targets its own way: an absolute-form
/// target's scheme in lowercase (`HTTP://a/` is `http://a/`), `/` for its
/// empty path (`http://a?q` is `http://a/?q`); and it refuses a host with
/// percent-encoded octets, which RFC 3986 allows: the `Uri` then holds the
/// host with the octets of unreserved characters decoded (§6.2.2.2, an
/// equivalent form), and only this holds what was sent. For an
/// origin-form target, which `Uri` keeps byte for byte (`uri().path()`
/// and `query()`), there is none (it would cost an allocation a request).
///
/// ```
/// # fn handler(req: http::Request<h1_tokio::Body>) {
/// use h1_tokio::RequestTarget;
///
/// let sent = match req.extensions().get::<RequestTarget>() {
///     Some(target) => target.as_str().to_owned(),
///     None => req.uri().to_string(),
/// };
/// # let _ = sent;
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RequestTarget(Bytes);

impl RequestTarget {
    /// The target's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The target as text (h1-parse accepts only visible ASCII in a
    /// target, so it always is).
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

/// `target` (absolute or authority form) with every percent-encoded
/// octet of an unreserved character in its authority decoded (`%65` is
/// `e`), when it had any: RFC 3986 §6.2.2.2 makes both spellings
/// equivalent, and `http::Uri` takes only the decoded one.
fn unreserved_decoded(target: &[u8]) -> Option<Bytes> {
    // The authority: after `scheme://` to the path, query or end; or all
    // of an authority-form target.
    let start = target
        .windows(3)
        .position(|w| w == b"://")
        .map_or(0, |i| i + 3);
    let end = target[start..]
        .iter()
        .position(|&b| b == b'/' || b == b'?')
        .map_or(target.len(), |i| start + i);
    let authority = &target[start..end];
    if !authority.contains(&b'%') {
        return None;
    }
    let mut out = Vec::with_capacity(target.len());
    out.extend_from_slice(&target[..start]);
    let mut i = 0;
    while i < authority.len() {
        let decoded = (authority[i] == b'%')
            .then(|| authority.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok())
            .filter(|&b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
        match decoded {
            Some(b) => {
                out.push(b);
                i += 3;
            }
            None => {
                out.push(authority[i]);
                i += 1;
            }
        }
    }
    out.extend_from_slice(&target[end..]);
    Some(Bytes::from(out))
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
                let fields = &conn.field_entries()[..req.head.field_count];
                Converter::new(&Config::default()).request(
                    &req,
                    conn.received(),
                    fields,
                    HeaderMap::new(),
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
    fn a_target_not_in_origin_form_is_kept_as_sent_beside_the_uri() {
        let r =
            convert(b"GET HTTP://EXAMPLE.COM:8080?q HTTP/1.1\r\nHost: EXAMPLE.COM:8080\r\n\r\n")
                .expect("absolute form");
        assert_eq!(r.uri(), "http://EXAMPLE.COM:8080/?q");
        let sent = r.extensions().get::<RequestTarget>().expect("kept");
        assert_eq!(sent.as_str(), "HTTP://EXAMPLE.COM:8080?q");
        let r = convert(b"GET /a?b HTTP/1.1\r\nHost: a\r\n\r\n").expect("origin form");
        assert!(r.extensions().get::<RequestTarget>().is_none());
        assert_eq!(r.uri(), "/a?b");
    }

    #[test]
    fn a_percent_encoded_host_has_its_unreserved_octets_decoded_in_the_uri() {
        let r = convert(b"GET http://%65xample.com/e%41 HTTP/1.1\r\nHost: example.com\r\n\r\n")
            .expect("representable");
        assert_eq!(r.uri().host(), Some("example.com"));
        assert_eq!(r.uri().path(), "/e%41", "the path is not the authority");
        let sent = r.extensions().get::<RequestTarget>().expect("kept");
        assert_eq!(sent.as_str(), "http://%65xample.com/e%41");
        let r = convert(b"CONNECT %65xample.com:443 HTTP/1.1\r\nHost: %65xample.com:443\r\n\r\n")
            .expect("authority form");
        assert_eq!(
            r.uri().authority().map(|a| a.as_str()),
            Some("example.com:443")
        );
        // An octet that is not an unreserved character stays encoded, and
        // `Uri` refuses it: 400.
        assert_eq!(
            convert(b"GET http://a%20b/ HTTP/1.1\r\nHost: a\r\n\r\n").err(),
            Some(Unrepresentable("request-target"))
        );
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
            let fields = &conn.field_entries()[..r.head.field_count];
            let checked = CheckedValues::of(&Config::default());
            assert!(checked.is_some(), "the strict parser gives the proof");
            let out = Converter::new(&Config::default())
                .request(&r, conn.received(), fields, HeaderMap::new(), Body::empty())
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
        let mut conn = ServerConn::new(config.clone());
        conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\nX-V: a\r\n b\r\n\r\n");
        let ServerEvent::Request(r) = conn.next_event() else {
            panic!("the lenient parser takes the fold");
        };
        let fields = &conn.field_entries()[..r.head.field_count];
        let got = Converter::new(&config).request(
            &r,
            conn.received(),
            fields,
            HeaderMap::new(),
            Body::empty(),
        );
        assert_eq!(got.err(), Some(Unrepresentable("field value")));
    }

    #[test]
    fn field_values_keep_their_bytes_and_names_are_lowercased() {
        let r = convert(b"GET / HTTP/1.1\r\nHost: a\r\nX-Opaque: caf\xc3\xa9 \t x\r\n\r\n")
            .expect("representable");
        assert_eq!(r.headers()["x-opaque"].as_bytes(), b"caf\xc3\xa9 \t x");
    }
}
