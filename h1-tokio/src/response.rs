//! A service's `http::Response` as h1-conn writes it: the fields that say
//! how the message is delimited become its [`Framing`], the others are
//! written as they are.

use h1_conn::headers::{list_contains, list_elements, parse_content_length};
use h1_conn::Framing;
use http::header::{HeaderValue, CONNECTION, CONTENT_LENGTH, TRANSFER_ENCODING};
use http::HeaderMap;

/// How a response is delimited, and whether it asks to close.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Delimiting {
    pub(crate) framing: Framing,
    /// The service set `Connection: close`.
    pub(crate) close: bool,
}

/// A framing field the encoder cannot honour: the response is replaced by
/// a 500.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct BadFraming;

/// Takes `Content-Length`, `Transfer-Encoding` and the `close` and
/// `keep-alive` tokens of `Connection` out of `headers` (h1-encode writes
/// them itself from the framing) and says how the message is delimited:
/// by the service's `Content-Length` or `Transfer-Encoding: chunked` when
/// it set one, else by the body's exact size when it knows it, else
/// chunked. A status without content (1xx, 204, 304) has none. A response
/// to HEAD (`head`) with an empty body and no stated length says no length
/// at all: the body was left out, and the length GET would have is not
/// known (RFC 9110 §9.3.2), not zero.
pub(crate) fn delimiting(
    status: u16,
    headers: &mut HeaderMap,
    exact: Option<u64>,
    head: bool,
) -> Result<Delimiting, BadFraming> {
    // Usually none of the three is there: one pass over the names says so.
    let special = headers
        .keys()
        .any(|n| n == CONTENT_LENGTH || n == TRANSFER_ENCODING || n == CONNECTION);
    let (stated, close) = if special {
        (take_framing(headers)?, take_close(headers))
    } else {
        (None, false)
    };
    let framing = if matches!(status, 100..=199 | 204 | 304) {
        Framing::Empty
    } else {
        stated.unwrap_or(match exact {
            // No length field for HEAD: the close that would delimit a body
            // is not needed where no body follows.
            Some(0) if head => Framing::UntilClose,
            Some(n) => Framing::Length(n),
            None => Framing::Chunked,
        })
    };
    Ok(Delimiting { framing, close })
}

/// Takes the service's own `Content-Length` or `Transfer-Encoding:
/// chunked` out of `headers`: the framing it states, if any.
fn take_framing(headers: &mut HeaderMap) -> Result<Option<Framing>, BadFraming> {
    let mut framing = None;
    if let Some(v) = take_single(headers, &CONTENT_LENGTH)? {
        let n = parse_content_length(v.as_bytes()).map_err(|_| BadFraming)?;
        framing = Some(Framing::Length(n));
    }
    if let Some(v) = take_single(headers, &TRANSFER_ENCODING)? {
        // Only the chunked coding, which the encoder applies: any other
        // would have to be applied here too.
        if framing.is_some() || !v.as_bytes().eq_ignore_ascii_case(b"chunked") {
            return Err(BadFraming);
        }
        framing = Some(Framing::Chunked);
    }
    Ok(framing)
}

/// Removes `name` from `headers`: its one value, `BadFraming` when it was
/// repeated.
fn take_single(
    headers: &mut HeaderMap,
    name: &http::header::HeaderName,
) -> Result<Option<HeaderValue>, BadFraming> {
    if headers.get_all(name).iter().nth(1).is_some() {
        return Err(BadFraming);
    }
    Ok(headers.remove(name))
}

/// Removes `close` and `keep-alive` from the `Connection` fields (the
/// connection decides persistence and writes them), keeping the other
/// tokens; whether `close` was among them.
fn take_close(headers: &mut HeaderMap) -> bool {
    if !headers.contains_key(CONNECTION) {
        return false;
    }
    let mut close = false;
    let mut kept = Vec::new();
    for value in headers.get_all(CONNECTION) {
        for token in list_elements(value.as_bytes()) {
            if token.eq_ignore_ascii_case(b"close") {
                close = true;
            } else if !token.eq_ignore_ascii_case(b"keep-alive") {
                kept.push(token.to_vec());
            }
        }
    }
    headers.remove(CONNECTION);
    if !kept.is_empty() {
        if let Ok(v) = HeaderValue::from_bytes(&kept.join(&b", "[..])) {
            headers.insert(CONNECTION, v);
        }
    }
    close
}

/// The fields of `headers` as the encoder takes them.
pub(crate) fn pairs(headers: &HeaderMap) -> impl Iterator<Item = (&[u8], &[u8])> {
    headers
        .iter()
        .map(|(name, value)| (name.as_str().as_bytes(), value.as_bytes()))
}

/// Whether `headers` has the `upgrade` connection option.
pub(crate) fn has_upgrade_option(headers: &HeaderMap) -> bool {
    headers
        .get_all(CONNECTION)
        .iter()
        .any(|v| list_contains(v.as_bytes(), b"upgrade"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(fields: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut m = HeaderMap::new();
        for (n, v) in fields {
            m.append(*n, HeaderValue::from_static(v));
        }
        m
    }

    #[test]
    fn a_known_size_is_a_content_length_and_an_unknown_one_chunked() {
        let mut h = map(&[("x", "y")]);
        let d = delimiting(200, &mut h, Some(13), false).expect("fine");
        assert_eq!(
            d,
            Delimiting {
                framing: Framing::Length(13),
                close: false
            }
        );
        let d = delimiting(200, &mut h, None, false).expect("fine");
        assert_eq!(d.framing, Framing::Chunked);
        assert_eq!(h.len(), 1, "other fields stay");
    }

    #[test]
    fn the_services_own_framing_fields_win_and_are_taken_out() {
        let mut h = map(&[("content-length", "5")]);
        assert_eq!(
            delimiting(200, &mut h, None, false).expect("fine").framing,
            Framing::Length(5)
        );
        assert!(h.is_empty());
        let mut h = map(&[("transfer-encoding", "Chunked")]);
        assert_eq!(
            delimiting(200, &mut h, Some(3), false)
                .expect("fine")
                .framing,
            Framing::Chunked
        );
        assert!(h.is_empty());
    }

    #[test]
    fn framing_fields_the_encoder_cannot_honour_are_refused() {
        for fields in [
            &[("content-length", "5"), ("content-length", "5")][..],
            &[("content-length", "-1")],
            &[("content-length", "")],
            &[("content-length", "5"), ("transfer-encoding", "chunked")],
            &[("transfer-encoding", "gzip, chunked")],
        ] {
            let mut h = map(fields);
            assert_eq!(
                delimiting(200, &mut h, None, false),
                Err(BadFraming),
                "{fields:?}"
            );
        }
    }

    #[test]
    fn connection_close_is_taken_as_a_decision_and_other_tokens_kept() {
        let mut h = map(&[("connection", "Keep-Alive, close"), ("connection", "x-hop")]);
        let d = delimiting(200, &mut h, Some(0), false).expect("fine");
        assert!(d.close);
        assert_eq!(h.get_all(CONNECTION).iter().collect::<Vec<_>>(), ["x-hop"]);
        let mut h = map(&[("connection", "keep-alive")]);
        assert!(!delimiting(200, &mut h, Some(0), false).expect("fine").close);
        assert!(h.is_empty());
    }

    #[test]
    fn statuses_without_content_have_no_framing() {
        for status in [101, 204, 304] {
            let mut h = HeaderMap::new();
            let d = delimiting(status, &mut h, None, false).expect("fine");
            assert_eq!(d.framing, Framing::Empty, "{status}");
        }
    }
}
