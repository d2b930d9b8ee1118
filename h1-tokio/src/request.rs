//! A request head as h1-conn read it, in the `http` crate's types.
//!
//! h1-conn has already judged every byte of the head (method token, target
//! form, field syntax, framing); this only moves it into an
//! `http::Request`. What that costs is the `http` types' own: a `HeaderMap`
//! and a `Uri` allocate, and every name and value is copied.

use std::fmt;

use bytes::Bytes;
use h1_conn::{HeadersView, Request, Version};
use http::header::{HeaderName, HeaderValue};
use http::{HeaderMap, Method, Uri};

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

/// The `http::Request` of `req`, whose bytes are in `received` and whose
/// fields `fields` holds, carrying `body`.
pub(crate) fn to_http(
    req: &Request,
    received: &[u8],
    fields: Option<HeadersView<'_>>,
    body: Body,
) -> Result<http::Request<Body>, Unrepresentable> {
    let head = &req.head;
    let method =
        Method::from_bytes(head.method.slice(received)).map_err(|_| Unrepresentable("method"))?;
    let uri = Uri::from_maybe_shared(Bytes::copy_from_slice(head.target.slice(received)))
        .map_err(|_| Unrepresentable("request-target"))?;
    let version = match req.version() {
        Version::Http10 => http::Version::HTTP_10,
        Version::Http11 => http::Version::HTTP_11,
    };
    let mut headers = HeaderMap::with_capacity(head.field_count);
    for (name, value) in fields.into_iter().flatten() {
        let name = HeaderName::from_bytes(name).map_err(|_| Unrepresentable("field name"))?;
        let value = HeaderValue::from_bytes(value).map_err(|_| Unrepresentable("field value"))?;
        headers.append(name, value);
    }
    let mut out = http::Request::new(body);
    *out.method_mut() = method;
    *out.uri_mut() = uri;
    *out.version_mut() = version;
    *out.headers_mut() = headers;
    Ok(out)
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
                to_http(&req, conn.received(), conn.fields(), Body::empty())
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
    fn field_values_keep_their_bytes_and_names_are_lowercased() {
        let r = convert(b"GET / HTTP/1.1\r\nHost: a\r\nX-Opaque: caf\xc3\xa9 \t x\r\n\r\n")
            .expect("representable");
        assert_eq!(r.headers()["x-opaque"].as_bytes(), b"caf\xc3\xa9 \t x");
    }
}
