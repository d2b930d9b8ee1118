//! Encoding the `http` crate's head types (`http` feature).

use http::header::HOST;
use http::{request, response, Method};

use crate::date::DateLine;
use h1_headers::{Framing, Version};

use crate::framing::Exchange;
use crate::sink::Sink;
use crate::writer::{Head, RequestWriter, ResponseWriter};
use crate::{status, Error};

/// Encodes a response head from `http::response::Parts`.
///
/// The status line is always `HTTP/1.1` (RFC 9112 §2.3; `parts.version`
/// is ignored); the reason phrase is the registered one, or the `http`
/// crate's canonical one for codes this crate has none for. Fields are
/// written in `parts.headers` order (names lowercase, as `http` holds them)
/// and checked like [`ResponseWriter::fields`]: `Content-Length`,
/// `Transfer-Encoding` and a `Connection` with `close`/`keep-alive` are
/// refused, since the framing comes from `body` and `ex`. `date` is written
/// first unless the headers hold a `Date` of their own.
///
/// ```
/// use h1_encode::{encode_response_parts, Exchange, Framing, Version};
/// let (parts, ()) = http::Response::builder()
///     .status(404)
///     .header("content-type", "text/plain")
///     .body(())
///     .unwrap()
///     .into_parts();
/// let mut buf = Vec::new();
/// let ex = Exchange::new(Version::Http11).clock(false);
/// let head = encode_response_parts(&mut buf, &parts, &ex, Framing::Length(0), None)?;
/// assert_eq!(buf, b"HTTP/1.1 404 Not Found\r\ncontent-type: text/plain\r\nContent-Length: 0\r\n\r\n");
/// assert_eq!(head.len, buf.len());
/// # Ok::<(), h1_encode::Error>(())
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub fn encode_response_parts<S: Sink + ?Sized>(
    out: &mut S,
    parts: &response::Parts,
    ex: &Exchange,
    body: Framing,
    date: Option<&DateLine>,
) -> Result<Head, Error> {
    let code = parts.status.as_u16();
    let mut w = match (status::line(code), parts.status.canonical_reason()) {
        (None, Some(reason)) => {
            ResponseWriter::start_with_reason(out, code, reason.as_bytes(), ex, body)?
        }
        _ => ResponseWriter::start(out, code, ex, body)?,
    };
    if let Some(date) = date {
        if !parts.headers.contains_key(http::header::DATE) {
            w.date(date);
        }
    }
    w.fields(
        parts
            .headers
            .iter()
            .map(|(name, value)| (name.as_str().as_bytes(), value.as_bytes())),
    )?;
    w.finish()
}

/// Encodes a request head from `http::request::Parts`.
///
/// The version comes from `parts.version` (HTTP/1.0 or HTTP/1.1; others
/// are [`Error::UnsupportedVersion`]). The target is the URI's authority
/// for CONNECT (which must have an explicit port, RFC 9112 §3.2.3, else
/// [`Error::InvalidConnectTarget`]) and its path and query (origin form,
/// `/` when empty) otherwise. A URI with userinfo is refused
/// ([`Error::UserinfoInUri`], RFC 9110 §4.2.4). `Host` is the headers'
/// `Host` when present (exactly one), else the URI's authority; it is written right after the request line.
/// The other fields are checked like [`RequestWriter::fields`].
///
/// ```
/// use h1_encode::{encode_request_parts, Framing};
/// let (parts, ()) = http::Request::get("http://example.com/a?b=c").body(()).unwrap().into_parts();
/// let mut buf = Vec::new();
/// let _head = encode_request_parts(&mut buf, &parts, Framing::Empty, false)?;
/// assert_eq!(buf, b"GET /a?b=c HTTP/1.1\r\nHost: example.com\r\n\r\n");
/// # Ok::<(), h1_encode::Error>(())
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub fn encode_request_parts<S: Sink + ?Sized>(
    out: &mut S,
    parts: &request::Parts,
    body: Framing,
    close: bool,
) -> Result<Head, Error> {
    let version = match parts.version {
        http::Version::HTTP_10 => Version::Http10,
        http::Version::HTTP_11 => Version::Http11,
        _ => return Err(Error::UnsupportedVersion),
    };
    let ex = Exchange::new(version).close(close);
    // RFC 9110 §4.2.4: a sender MUST NOT generate userinfo; it would
    // otherwise leak into `Host` (and a CONNECT target).
    if parts
        .uri
        .authority()
        .is_some_and(|a| a.as_str().contains('@'))
    {
        return Err(Error::UserinfoInUri);
    }
    let authority = parts.uri.authority().map(|a| a.as_str().as_bytes());
    let target: &[u8] = if parts.method == Method::CONNECT {
        // RFC 9112 §3.2.3: authority-form is `uri-host ":" port`.
        match parts.uri.authority() {
            Some(a) if a.port().is_some() => a.as_str().as_bytes(),
            _ => return Err(Error::InvalidConnectTarget),
        }
    } else {
        match parts.uri.path_and_query().map(|p| p.as_str()) {
            None | Some("") => b"/",
            Some(p) => p.as_bytes(),
        }
    };
    let mut hosts = parts.headers.get_all(HOST).iter();
    let host = match (hosts.next(), hosts.next()) {
        (Some(_), Some(_)) => return Err(Error::FramingField),
        (Some(h), None) => Some(h.as_bytes()),
        (None, _) => authority,
    };
    let mut w = RequestWriter::start(
        out,
        parts.method.as_str().as_bytes(),
        target,
        host,
        &ex,
        body,
    )?;
    w.fields(
        parts
            .headers
            .iter()
            .filter(|(name, _)| **name != HOST)
            .map(|(name, value)| (name.as_str().as_bytes(), value.as_bytes())),
    )?;
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn responses() {
        let mut buf = Vec::new();
        let date = DateLine::new(b"Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        let ex = Exchange::new(Version::Http11);
        let (parts, ()) = http::Response::builder()
            .status(418)
            .header("x-a", "1")
            .body(())
            .unwrap()
            .into_parts();
        let head =
            encode_response_parts(&mut buf, &parts, &ex, Framing::Empty, Some(&date)).unwrap();
        assert_eq!(
            buf,
            b"HTTP/1.1 418 I'm a teapot\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nx-a: 1\r\nContent-Length: 0\r\n\r\n"
        );
        assert_eq!(head.len, buf.len());

        // The date the headers carry wins; no clock date is needed then.
        buf.clear();
        let (parts, ()) = http::Response::builder()
            .header("date", "Mon, 07 Nov 1994 08:49:37 GMT")
            .body(())
            .unwrap()
            .into_parts();
        let _head =
            encode_response_parts(&mut buf, &parts, &ex, Framing::Empty, Some(&date)).unwrap();
        assert_eq!(
            buf.windows(5)
                .filter(|w| w.eq_ignore_ascii_case(b"date:"))
                .count(),
            1
        );
        buf.clear();
        let _head = encode_response_parts(&mut buf, &parts, &ex, Framing::Empty, None).unwrap();

        // Framing fields in the parts are refused, nothing is left behind.
        buf.clear();
        let (parts, ()) = http::Response::builder()
            .header("content-length", "5")
            .body(())
            .unwrap()
            .into_parts();
        assert_eq!(
            encode_response_parts(&mut buf, &parts, &ex, Framing::Length(5), Some(&date)),
            Err(Error::FramingField)
        );
        assert!(buf.is_empty());
        // No clock date and none in the headers.
        let (parts, ()) = http::Response::new(()).into_parts();
        assert_eq!(
            encode_response_parts(&mut buf, &parts, &ex, Framing::Empty, None),
            Err(Error::MissingDate)
        );
        assert!(buf.is_empty());
    }

    #[test]
    fn requests() {
        let mut buf = Vec::new();
        let (parts, ()) = http::Request::post("/x")
            .header("host", "h.example")
            .header("accept", "*/*")
            .version(http::Version::HTTP_10)
            .body(())
            .unwrap()
            .into_parts();
        let head = encode_request_parts(&mut buf, &parts, Framing::Length(3), false).unwrap();
        assert_eq!(
            buf,
            b"POST /x HTTP/1.0\r\nHost: h.example\r\naccept: */*\r\nContent-Length: 3\r\nConnection: keep-alive\r\n\r\n"
        );
        assert!(!head.close);

        buf.clear();
        let (parts, ()) = http::Request::connect("proxy.example:443")
            .body(())
            .unwrap()
            .into_parts();
        let _head = encode_request_parts(&mut buf, &parts, Framing::Empty, false).unwrap();
        assert_eq!(
            buf,
            b"CONNECT proxy.example:443 HTTP/1.1\r\nHost: proxy.example:443\r\n\r\n"
        );

        buf.clear();
        let (parts, ()) = http::Request::get("/").body(()).unwrap().into_parts();
        assert_eq!(
            encode_request_parts(&mut buf, &parts, Framing::Empty, false),
            Err(Error::MissingHost)
        );
        let (parts, ()) = http::Request::get("http://a/")
            .version(http::Version::HTTP_2)
            .body(())
            .unwrap()
            .into_parts();
        assert_eq!(
            encode_request_parts(&mut buf, &parts, Framing::Empty, false),
            Err(Error::UnsupportedVersion)
        );
        let (parts, ()) = http::Request::get("http://a/")
            .header("host", "a")
            .header("host", "b")
            .body(())
            .unwrap()
            .into_parts();
        assert_eq!(
            encode_request_parts(&mut buf, &parts, Framing::Empty, false),
            Err(Error::FramingField)
        );
        assert!(buf.is_empty());
    }
}
