//! Field-value helpers that later layers need without allocating:
//! comma-separated lists, `Content-Length`, case-insensitive comparison.

use crate::chars::trim_ows;

/// The elements of a comma-separated list (RFC 9110 §5.6.1), each without its
/// surrounding OWS; empty elements (`a, , b`) are skipped as the RFC requires
/// of recipients.
///
/// ```
/// use h1_headers::list_elements;
/// let v: Vec<&[u8]> = list_elements(b"keep-alive , ,Upgrade").collect();
/// assert_eq!(v, [&b"keep-alive"[..], b"Upgrade"]);
/// ```
pub fn list_elements(value: &[u8]) -> ListElements<'_> {
    ListElements { rest: Some(value) }
}

/// Iterator returned by [`list_elements`].
#[derive(Clone, Debug)]
pub struct ListElements<'a> {
    rest: Option<&'a [u8]>,
}

impl<'a> Iterator for ListElements<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        loop {
            let rest = self.rest?;
            let (elem, tail) = match memchr_comma(rest) {
                Some(i) => (&rest[..i], Some(&rest[i + 1..])),
                None => (rest, None),
            };
            self.rest = tail;
            let elem = trim_ows(elem);
            if !elem.is_empty() {
                return Some(elem);
            }
        }
    }
}

#[inline]
fn memchr_comma(s: &[u8]) -> Option<usize> {
    s.iter().position(|&b| b == b',')
}

/// Whether the comma-separated list `value` has an element equal to `token`,
/// compared ASCII case-insensitively (`Connection: keep-alive, Upgrade`
/// contains `upgrade`).
///
/// ```
/// use h1_headers::list_contains;
/// assert!(list_contains(b"gzip, Chunked", b"chunked"));
/// assert!(!list_contains(b"gzip, chunked-x", b"chunked"));
/// ```
pub fn list_contains(value: &[u8], token: &[u8]) -> bool {
    list_elements(value).any(|e| e.eq_ignore_ascii_case(token))
}

/// Whether `a` and `b` are equal ignoring ASCII case.
#[inline]
pub fn value_eq_ignore_case(a: &[u8], b: &[u8]) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// Why a `Content-Length` value was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContentLengthError {
    /// The value, or one element of its list, is empty.
    Empty,
    /// A byte other than a digit: a sign, a space inside the number, a letter.
    NotDigits,
    /// The number does not fit in a `u64`.
    Overflow,
    /// Several values (list members or fields) that differ.
    Conflicting,
}

impl core::fmt::Display for ContentLengthError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            ContentLengthError::Empty => "empty Content-Length",
            ContentLengthError::NotDigits => "Content-Length is not plain digits",
            ContentLengthError::Overflow => "Content-Length overflows 64 bits",
            ContentLengthError::Conflicting => "differing Content-Length values",
        })
    }
}

/// Parses one `Content-Length` field value: `1*DIGIT`, or a list of identical
/// numbers such as `5, 5` (RFC 9110 §8.6 allows a recipient to accept that).
/// Signs, spaces inside the number, hex and overflow are refused.
///
/// ```
/// use h1_headers::{parse_content_length, ContentLengthError};
/// assert_eq!(parse_content_length(b"42"), Ok(42));
/// assert_eq!(parse_content_length(b"42 , 42"), Ok(42));
/// assert_eq!(parse_content_length(b"+42"), Err(ContentLengthError::NotDigits));
/// assert_eq!(parse_content_length(b"4 2"), Err(ContentLengthError::NotDigits));
/// assert_eq!(parse_content_length(b"1, 2"), Err(ContentLengthError::Conflicting));
/// ```
pub fn parse_content_length(value: &[u8]) -> Result<u64, ContentLengthError> {
    if !value.contains(&b',') {
        return digits(value);
    }
    let mut seen: Option<u64> = None;
    for elem in value.split(|&b| b == b',') {
        let n = digits(trim_ows(elem))?;
        match seen {
            Some(prev) if prev != n => return Err(ContentLengthError::Conflicting),
            _ => seen = Some(n),
        }
    }
    seen.ok_or(ContentLengthError::Empty)
}

#[inline]
fn digits(s: &[u8]) -> Result<u64, ContentLengthError> {
    if s.is_empty() {
        return Err(ContentLengthError::Empty);
    }
    let mut n: u64 = 0;
    for &b in s {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return Err(ContentLengthError::NotDigits);
        }
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(u64::from(d)))
            .ok_or(ContentLengthError::Overflow)?;
    }
    Ok(n)
}

/// Merges the values of every `Content-Length` field of a message: `None`
/// when there is none, the length when all agree.
///
/// ```
/// use h1_headers::{content_length, ContentLengthError};
/// assert_eq!(content_length([&b"5"[..], b"5"]), Ok(Some(5)));
/// assert_eq!(content_length([&b"5"[..], b"6"]), Err(ContentLengthError::Conflicting));
/// assert_eq!(content_length(core::iter::empty::<&[u8]>()), Ok(None));
/// ```
pub fn content_length<'a, I>(values: I) -> Result<Option<u64>, ContentLengthError>
where
    I: IntoIterator<Item = &'a [u8]>,
{
    let mut seen = None;
    for v in values {
        let n = parse_content_length(v)?;
        match seen {
            Some(prev) if prev != n => return Err(ContentLengthError::Conflicting),
            _ => seen = Some(n),
        }
    }
    Ok(seen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ContentLengthError::*;

    #[test]
    fn content_length_values() {
        assert_eq!(parse_content_length(b"0"), Ok(0));
        assert_eq!(parse_content_length(b"007"), Ok(7));
        assert_eq!(parse_content_length(b"18446744073709551615"), Ok(u64::MAX));
        assert_eq!(parse_content_length(b"18446744073709551616"), Err(Overflow));
        assert_eq!(
            parse_content_length(b"99999999999999999999999"),
            Err(Overflow)
        );
        assert_eq!(parse_content_length(b""), Err(Empty));
        assert_eq!(parse_content_length(b"-1"), Err(NotDigits));
        assert_eq!(parse_content_length(b"0x10"), Err(NotDigits));
        assert_eq!(parse_content_length(b"1 0"), Err(NotDigits));
        assert_eq!(parse_content_length(b"5,5"), Ok(5));
        assert_eq!(parse_content_length(b"5,\t5 ,5"), Ok(5));
        assert_eq!(parse_content_length(b"5,"), Err(Empty));
        assert_eq!(parse_content_length(b",5"), Err(Empty));
        assert_eq!(parse_content_length(b"5, 6"), Err(Conflicting));
        assert_eq!(parse_content_length(b"5, +5"), Err(NotDigits));
    }

    #[test]
    fn content_length_errors_display() {
        use std::string::ToString;
        for (e, s) in [
            (Empty, "empty Content-Length"),
            (NotDigits, "Content-Length is not plain digits"),
            (Overflow, "Content-Length overflows 64 bits"),
            (Conflicting, "differing Content-Length values"),
        ] {
            assert_eq!(e.to_string(), s);
        }
    }

    #[test]
    fn lists() {
        let all: std::vec::Vec<&[u8]> = list_elements(b"").collect();
        assert!(all.is_empty());
        let all: std::vec::Vec<&[u8]> = list_elements(b" , ,").collect();
        assert!(all.is_empty());
        let all: std::vec::Vec<&[u8]> = list_elements(b"a,b c ,\td").collect();
        assert_eq!(all, [&b"a"[..], b"b c", b"d"]);
        assert!(list_contains(b"Keep-Alive, UPGRADE", b"upgrade"));
        assert!(!list_contains(b"keep-alive", b"keep"));
        assert!(value_eq_ignore_case(b"100-Continue", b"100-continue"));
        assert!(!value_eq_ignore_case(b"100-continue ", b"100-continue"));
    }
}
