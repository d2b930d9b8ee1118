//! Field lines: validation, the names the encoder owns, pre-encoded lines.

use alloc::vec::Vec;

use h1_headers::chars::{is_field_value, is_token};
#[cfg(feature = "http")]
use h1_headers::chars::{is_field_value_byte, is_ows};
use h1_headers::list_contains;

use crate::sink::Sink;
use crate::Error;

/// Which role a head is written for; decides which names the encoder owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    Response,
    Request,
    Trailer,
}

/// What a field name means to the encoder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Plain,
    Date,
    /// `Upgrade`.
    Upgrade,
    /// `Expect` listing `100-continue`.
    ExpectContinue,
}

/// What the fields written so far hold, for the checks that span fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Seen {
    pub(crate) date: bool,
    pub(crate) upgrade: bool,
    pub(crate) expect_continue: bool,
}

impl Seen {
    /// Records a field of kind `kind`; refuses a second `Date`
    /// (RFC 9110 §5.3: `Date` is not a list, so one field line only).
    #[inline]
    pub(crate) fn add(&mut self, kind: Kind) -> Result<(), Error> {
        match kind {
            Kind::Plain => {}
            Kind::Date if self.date => return Err(Error::DuplicateDate),
            Kind::Date => self.date = true,
            Kind::Upgrade => self.upgrade = true,
            Kind::ExpectContinue => self.expect_continue = true,
        }
        Ok(())
    }

    /// Both sets of fields together; refuses two `Date`s.
    #[inline]
    pub(crate) fn merge(&mut self, other: Seen) -> Result<(), Error> {
        let twice = self.date && other.date;
        self.date |= other.date;
        self.upgrade |= other.upgrade;
        self.expect_continue |= other.expect_continue;
        if twice {
            return Err(Error::DuplicateDate);
        }
        Ok(())
    }
}

/// Checks a field the caller supplies, returning its [`Kind`].
#[inline]
pub(crate) fn check(name: &[u8], value: &[u8], role: Role) -> Result<Kind, Error> {
    if !is_token(name) {
        return Err(Error::InvalidFieldName);
    }
    if !is_field_value(value) {
        return Err(Error::InvalidFieldValue);
    }
    special(name, value, role)
}

/// Fields whose definitions do not allow them in trailers (RFC 9110 §6.5.1:
/// framing, routing, request modifiers, authentication, response control
/// data, content format and processing), beyond the framing fields that
/// `special` refuses everywhere.
const NOT_IN_TRAILERS: [&[u8]; 27] = [
    b"age",
    b"authorization",
    b"cache-control",
    b"content-encoding",
    b"content-range",
    b"content-type",
    b"cookie",
    b"date",
    b"etag",
    b"expect",
    b"expires",
    b"if-match",
    b"if-modified-since",
    b"if-none-match",
    b"if-range",
    b"if-unmodified-since",
    b"last-modified",
    b"location",
    b"max-forwards",
    b"pragma",
    b"proxy-authenticate",
    b"proxy-authorization",
    b"range",
    b"retry-after",
    b"set-cookie",
    b"te",
    b"www-authenticate",
];

/// The framing check for a field whose name and value are already valid.
#[inline]
pub(crate) fn special(name: &[u8], value: &[u8], role: Role) -> Result<Kind, Error> {
    let eq = |probe: &[u8]| name.eq_ignore_ascii_case(probe);
    if role == Role::Trailer && NOT_IN_TRAILERS.iter().any(|n| eq(n)) {
        return Err(Error::ForbiddenTrailer);
    }
    // Length first: most names match none of these lengths.
    match name.len() {
        4 if eq(b"date") => return Ok(Kind::Date),
        4 if role != Role::Response && eq(b"host") => return Err(framing(role)),
        14 if eq(b"content-length") => return Err(framing(role)),
        17 if eq(b"transfer-encoding") => return Err(framing(role)),
        10 if eq(b"connection") => {
            if role == Role::Trailer {
                return Err(Error::ForbiddenTrailer);
            }
            if list_contains(value, b"close") || list_contains(value, b"keep-alive") {
                return Err(Error::FramingField);
            }
        }
        7 if role == Role::Trailer && eq(b"trailer") => return Err(Error::ForbiddenTrailer),
        7 if eq(b"upgrade") => return Ok(Kind::Upgrade),
        6 if role != Role::Trailer && eq(b"expect") && list_contains(value, b"100-continue") => {
            return Ok(Kind::ExpectContinue)
        }
        _ => {}
    }
    Ok(Kind::Plain)
}

/// The refusal of a field the encoder writes itself: in a trailer section
/// it is not allowed at all, elsewhere it would contradict the framing.
fn framing(role: Role) -> Error {
    if role == Role::Trailer {
        Error::ForbiddenTrailer
    } else {
        Error::FramingField
    }
}

/// Appends `name: value\r\n`.
#[inline]
pub(crate) fn put_field<S: Sink + ?Sized>(out: &mut S, name: &[u8], value: &[u8]) {
    out.reserve(name.len() + value.len() + 4);
    out.put(name);
    out.put(b": ");
    out.put(value);
    out.put(b"\r\n");
}

/// Appends every `(name, value)` after checking it; on a refusal the
/// fields this call wrote are removed. `seen` starts as what was written
/// before (a second `Date` is refused) and ends with these fields added.
pub(crate) fn put_fields<S, I, N, V>(
    out: &mut S,
    fields: I,
    role: Role,
    seen: &mut Seen,
) -> Result<(), Error>
where
    S: Sink + ?Sized,
    I: IntoIterator<Item = (N, V)>,
    N: AsRef<[u8]>,
    V: AsRef<[u8]>,
{
    put_checked(out, fields, role, seen, check)
}

/// [`put_fields`] for fields the `http` crate's types hold: their bytes
/// are not checked again, since a `HeaderName` holds a lowercase token and
/// a `HeaderValue` only bytes a field value may hold (the very predicates
/// [`check`] applies). What they do not rule out still is: whitespace at
/// either end of a value (OWS, not part of a value), and the framing check.
#[cfg(feature = "http")]
pub(crate) fn put_http_fields<'a, S, I>(
    out: &mut S,
    fields: I,
    role: Role,
    seen: &mut Seen,
) -> Result<(), Error>
where
    S: Sink + ?Sized,
    I: IntoIterator<Item = (&'a http::HeaderName, &'a http::HeaderValue)>,
{
    let fields = fields
        .into_iter()
        .map(|(name, value)| (name.as_str().as_bytes(), value.as_bytes()));
    put_checked(out, fields, role, seen, |name, value, role| {
        debug_assert!(is_token(name) && value.iter().all(|&b| is_field_value_byte(b)));
        let padded =
            value.first().is_some_and(|&b| is_ows(b)) || value.last().is_some_and(|&b| is_ows(b));
        if padded {
            return Err(Error::InvalidFieldValue);
        }
        special(name, value, role)
    })
}

/// Appends every field `check` lets through, as [`put_fields`] says.
#[inline]
fn put_checked<S, I, N, V>(
    out: &mut S,
    fields: I,
    role: Role,
    seen: &mut Seen,
    check: impl Fn(&[u8], &[u8], Role) -> Result<Kind, Error>,
) -> Result<(), Error>
where
    S: Sink + ?Sized,
    I: IntoIterator<Item = (N, V)>,
    N: AsRef<[u8]>,
    V: AsRef<[u8]>,
{
    let start = out.len();
    let mut now = *seen;
    for (name, value) in fields {
        let (name, value) = (name.as_ref(), value.as_ref());
        if let Err(e) = check(name, value, role).and_then(|kind| now.add(kind)) {
            out.truncate(start);
            return Err(e);
        }
        put_field(out, name, value);
    }
    *seen = now;
    Ok(())
}

/// Field lines encoded and validated once, copied into every head without
/// another check: `Server`, a fixed `Content-Type`, security headers.
///
/// Names keep the case they were given. The framing fields the encoder
/// writes itself (`Content-Length`, `Transfer-Encoding`, `Host`, a
/// `Connection` with `close` or `keep-alive`) are refused when the lines are
/// built, so copying them can never contradict the framing.
///
/// ```
/// use h1_encode::PreEncoded;
/// let server = PreEncoded::new([("Server", "h1")])?;
/// assert_eq!(server.as_bytes(), b"Server: h1\r\n");
/// assert!(PreEncoded::new([("Content-Length", "5")]).is_err());
/// # Ok::<(), h1_encode::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PreEncoded {
    lines: Vec<u8>,
    seen: Seen,
}

impl PreEncoded {
    /// Encodes and checks `fields` (name, value pairs) once.
    pub fn new<I, N, V>(fields: I) -> Result<PreEncoded, Error>
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        let mut lines = Vec::new();
        let mut seen = Seen::default();
        put_fields(&mut lines, fields, Role::Request, &mut seen)?;
        lines.shrink_to_fit();
        Ok(PreEncoded { lines, seen })
    }

    /// The encoded lines, each ending in CRLF.
    pub fn as_bytes(&self) -> &[u8] {
        &self.lines
    }

    /// Whether one of the lines is a `Date` field.
    pub fn has_date(&self) -> bool {
        self.seen.date
    }

    /// What the lines hold, for the checks that span fields.
    pub(crate) fn seen(&self) -> Seen {
        self.seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_names_are_refused_in_any_case() {
        for role in [Role::Response, Role::Request] {
            for name in [
                &b"Content-Length"[..],
                b"TRANSFER-ENCODING",
                b"transfer-encoding",
            ] {
                assert_eq!(check(name, b"1", role), Err(Error::FramingField));
            }
            for value in [&b"close"[..], b"Keep-Alive", b"upgrade, CLOSE"] {
                assert_eq!(check(b"Connection", value, role), Err(Error::FramingField));
            }
            assert!(check(b"Connection", b"upgrade", role).is_ok());
            assert!(check(b"Content-Lengths", b"1", role).is_ok());
        }
        assert!(check(b"Host", b"a", Role::Response).is_ok());
        assert_eq!(
            check(b"HOST", b"a", Role::Request),
            Err(Error::FramingField)
        );
        assert_eq!(
            check(b"Trailer", b"x", Role::Trailer),
            Err(Error::ForbiddenTrailer)
        );
        assert_eq!(
            check(b"Content-Length", b"1", Role::Trailer),
            Err(Error::ForbiddenTrailer)
        );
        assert!(check(b"Date", b"x", Role::Response) == Ok(Kind::Date));
    }

    /// `Upgrade` is told by its name, not by its length; `Expect` counts
    /// only when it lists `100-continue`.
    #[test]
    fn kinds_by_name_and_value() {
        for role in [Role::Response, Role::Request] {
            assert_eq!(check(b"Upgrade", b"h2c", role), Ok(Kind::Upgrade));
            assert_eq!(check(b"UPGRADE", b"h2c", role), Ok(Kind::Upgrade));
            assert_eq!(check(b"Upgrad3", b"h2c", role), Ok(Kind::Plain));
            assert_eq!(check(b"Warning", b"h2c", role), Ok(Kind::Plain));
            assert_eq!(
                check(b"Expect", b"100-continue", role),
                Ok(Kind::ExpectContinue)
            );
            assert_eq!(check(b"Expect", b"foo", role), Ok(Kind::Plain));
            assert_eq!(check(b"X-Test", b"100-continue", role), Ok(Kind::Plain));
        }
        assert_eq!(
            check(b"X-Test", b"100-continue", Role::Trailer),
            Ok(Kind::Plain)
        );
    }

    #[test]
    fn seen_merges_every_kind() {
        for (kind, want) in [
            (
                Kind::Upgrade,
                Seen {
                    upgrade: true,
                    ..Seen::default()
                },
            ),
            (
                Kind::ExpectContinue,
                Seen {
                    expect_continue: true,
                    ..Seen::default()
                },
            ),
            (
                Kind::Date,
                Seen {
                    date: true,
                    ..Seen::default()
                },
            ),
        ] {
            let mut other = Seen::default();
            other.add(kind).unwrap();
            let mut seen = Seen::default();
            seen.merge(other).unwrap();
            assert_eq!(seen, want, "{kind:?}");
            // Merging nothing keeps what was seen.
            seen.merge(Seen::default()).unwrap();
            assert_eq!(seen, want, "{kind:?}");
        }
    }

    #[test]
    fn pre_encoded_knows_its_date() {
        let with = PreEncoded::new([("Server", "h1"), ("Date", "x")]).unwrap();
        assert!(with.has_date());
        let without = PreEncoded::new([("Server", "h1")]).unwrap();
        assert!(!without.has_date());
        assert!(!PreEncoded::default().has_date());
    }

    #[test]
    fn invalid_bytes_are_refused() {
        assert_eq!(
            check(b"", b"x", Role::Response),
            Err(Error::InvalidFieldName)
        );
        assert_eq!(
            check(b"a b", b"x", Role::Response),
            Err(Error::InvalidFieldName)
        );
        assert_eq!(
            check(b"a:", b"x", Role::Response),
            Err(Error::InvalidFieldName)
        );
        for bad in [&b"a\r\nX: y"[..], b"a\nb", b"\0", b" a", b"a\t", b"\x7f"] {
            assert_eq!(
                check(b"a", bad, Role::Response),
                Err(Error::InvalidFieldValue)
            );
        }
        assert!(check(b"a", b"caf\xe9 \t x", Role::Response).is_ok());
    }

    #[test]
    fn a_refused_field_removes_what_the_call_wrote() {
        let mut out = b"keep".to_vec();
        let r = put_fields(
            &mut out,
            [("a", "1"), ("b", "2\r\n")],
            Role::Response,
            &mut Seen::default(),
        );
        assert_eq!(r, Err(Error::InvalidFieldValue));
        assert_eq!(out, b"keep");
    }
}
