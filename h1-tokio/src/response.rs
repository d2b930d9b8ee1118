//! A service's `http::Response` as h1-conn writes it: the fields that say
//! how the message is delimited become its [`Framing`], the others are
//! written as they are.

use h1_conn::headers::{list_contains, list_elements, parse_content_length};
use h1_conn::Framing;
use http::header::{HeaderName, HeaderValue, CONNECTION, CONTENT_LENGTH, TRANSFER_ENCODING};
use http::HeaderMap;

/// How a response is delimited, and whether it asks to close.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Delimiting {
    pub(crate) framing: Framing,
    /// The service set `Connection: close`.
    pub(crate) close: bool,
    /// Which of the map's fields the connection writes itself, from the
    /// framing: [`fields`] leaves them out.
    owned: Owned,
}

/// The fields of a response map that [`fields`] leaves out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owned {
    /// None: the map has no framing field and no `Connection`.
    None,
    /// `Content-Length` and `Transfer-Encoding`.
    Framing,
    /// Those and `Connection` (it held only `close` and `keep-alive`).
    FramingAndConnection,
}

/// A framing field the encoder cannot honour: the response is replaced by
/// a 500.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct BadFraming;

/// Says how the message is delimited, from one pass over `headers`: by
/// the service's `Content-Length` or `Transfer-Encoding: chunked` when it
/// set one, else by the body's exact size when it knows it, else chunked.
/// A status without content (1xx, 204, 304) has none. A response to HEAD
/// (`head`) with an empty body and no stated length says no length at
/// all: the body was left out, and the length GET would have is not known
/// (RFC 9110 §9.3.2), not zero. The `close` and `keep-alive` tokens of
/// `Connection` are the connection's to write (it decides persistence):
/// `close` is taken as the service asking for it; a `Connection` that
/// holds other tokens too is rewritten with those alone.
pub(crate) fn delimiting(
    status: u16,
    headers: &mut HeaderMap,
    exact: Option<u64>,
    head: bool,
) -> Result<Delimiting, BadFraming> {
    let mut length = None;
    let mut chunked = false;
    let mut close = false;
    let mut connection = false;
    let mut other_tokens = false;
    // One pass, no look-ups: usually the map holds a few fields, of which
    // at most `Content-Length` (axum sets it) is the connection's.
    for (name, value) in headers.iter() {
        if *name == CONTENT_LENGTH {
            let n = parse_content_length(value.as_bytes()).map_err(|_| BadFraming)?;
            if length.replace(n).is_some() {
                return Err(BadFraming);
            }
        } else if *name == TRANSFER_ENCODING {
            // Only the chunked coding, which the encoder applies, once:
            // any other would have to be applied here too.
            if chunked || !value.as_bytes().eq_ignore_ascii_case(b"chunked") {
                return Err(BadFraming);
            }
            chunked = true;
        } else if *name == CONNECTION {
            connection = true;
            for token in list_elements(value.as_bytes()) {
                if token.eq_ignore_ascii_case(b"close") {
                    close = true;
                } else if !token.eq_ignore_ascii_case(b"keep-alive") {
                    other_tokens = true;
                }
            }
        }
    }
    let stated = match (length, chunked) {
        (Some(_), true) => return Err(BadFraming),
        (Some(n), false) => Some(Framing::Length(n)),
        (None, true) => Some(Framing::Chunked),
        (None, false) => None,
    };
    if other_tokens {
        keep_other_tokens(headers);
    }
    let owned = if connection && !other_tokens {
        Owned::FramingAndConnection
    } else if stated.is_some() || connection {
        Owned::Framing
    } else {
        Owned::None
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
    Ok(Delimiting {
        framing,
        close,
        owned,
    })
}

/// Rewrites the `Connection` fields with their tokens but `close` and
/// `keep-alive` (rare: a response naming hop-by-hop fields of its own).
#[cold]
fn keep_other_tokens(headers: &mut HeaderMap) {
    let mut kept = Vec::new();
    for value in headers.get_all(CONNECTION) {
        for token in list_elements(value.as_bytes()) {
            if !token.eq_ignore_ascii_case(b"close") && !token.eq_ignore_ascii_case(b"keep-alive") {
                kept.push(token.to_vec());
            }
        }
    }
    headers.remove(CONNECTION);
    if let Ok(v) = HeaderValue::from_bytes(&kept.join(&b", "[..])) {
        headers.insert(CONNECTION, v);
    }
}

/// The fields of `headers` as the encoder takes them, but those `d` says
/// the connection writes itself.
pub(crate) fn fields<'a>(
    headers: &'a HeaderMap,
    d: &Delimiting,
) -> impl Iterator<Item = (&'a HeaderName, &'a HeaderValue)> {
    let owned = d.owned;
    headers.iter().filter(move |(name, _)| match owned {
        Owned::None => true,
        Owned::Framing => **name != CONTENT_LENGTH && **name != TRANSFER_ENCODING,
        Owned::FramingAndConnection => {
            **name != CONTENT_LENGTH && **name != TRANSFER_ENCODING && **name != CONNECTION
        }
    })
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

    /// The names `fields` writes, as it writes them.
    fn written(h: &HeaderMap, d: &Delimiting) -> Vec<String> {
        fields(h, d).map(|(n, _)| n.as_str().to_owned()).collect()
    }

    #[test]
    fn a_known_size_is_a_content_length_and_an_unknown_one_chunked() {
        let mut h = map(&[("x", "y")]);
        let d = delimiting(200, &mut h, Some(13), false).expect("fine");
        assert_eq!(d.framing, Framing::Length(13));
        assert!(!d.close);
        let d = delimiting(200, &mut h, None, false).expect("fine");
        assert_eq!(d.framing, Framing::Chunked);
        assert_eq!(written(&h, &d), ["x"], "other fields are written");
    }

    #[test]
    fn the_services_own_framing_fields_win_and_are_not_written() {
        let mut h = map(&[("content-length", "5"), ("a", "b")]);
        let d = delimiting(200, &mut h, None, false).expect("fine");
        assert_eq!(d.framing, Framing::Length(5));
        assert_eq!(written(&h, &d), ["a"]);
        let mut h = map(&[("transfer-encoding", "Chunked"), ("a", "b")]);
        let d = delimiting(200, &mut h, Some(3), false).expect("fine");
        assert_eq!(d.framing, Framing::Chunked);
        assert_eq!(written(&h, &d), ["a"]);
    }

    #[test]
    fn framing_fields_the_encoder_cannot_honour_are_refused() {
        for fields in [
            &[("content-length", "5"), ("content-length", "5")][..],
            &[("content-length", "-1")],
            &[("content-length", "")],
            &[("content-length", "5"), ("transfer-encoding", "chunked")],
            &[("transfer-encoding", "chunked"), ("content-length", "5")],
            &[
                ("transfer-encoding", "chunked"),
                ("transfer-encoding", "chunked"),
            ],
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
        assert_eq!(written(&h, &d), ["connection"]);
        let mut h = map(&[("connection", "keep-alive"), ("a", "b")]);
        let d = delimiting(200, &mut h, Some(0), false).expect("fine");
        assert!(!d.close);
        assert_eq!(written(&h, &d), ["a"]);
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
