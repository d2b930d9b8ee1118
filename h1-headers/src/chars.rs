//! Byte classes of RFC 9110 §5.6.2 (tokens) and §5.5 (field values).
//!
//! These predicates are *the* definition of each class for the whole
//! workspace: h1-parse's SIMD scanners are tested against them, and the
//! owned blob validates with them.

/// `TOKEN[b]` is true when `b` is a `tchar` (RFC 9110 §5.6.2):
/// ``"!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA``.
pub static TOKEN: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'!' | b'#'
                    | b'$'
                    | b'%'
                    | b'&'
                    | b'\''
                    | b'*'
                    | b'+'
                    | b'-'
                    | b'.'
                    | b'^'
                    | b'_'
                    | b'`'
                    | b'|'
                    | b'~'
            );
        b += 1;
    }
    t
};

/// Whether `b` may appear in a token (method, field name, coding name).
#[inline]
pub fn is_tchar(b: u8) -> bool {
    TOKEN[b as usize]
}

/// Whether `b` may appear in a field value: SP, HTAB, VCHAR or obs-text
/// (RFC 9110 §5.5). Everything else is a control byte (NUL, CR, LF, the other
/// C0 controls and DEL) and is rejected.
#[inline]
pub const fn is_field_value_byte(b: u8) -> bool {
    b == b'\t' || (b >= 0x20 && b != 0x7f)
}

/// Whether `b` is optional whitespace (SP or HTAB, RFC 9110 §5.6.3).
#[inline]
pub const fn is_ows(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Whether every byte of `name` is a tchar and there is at least one.
#[inline]
pub fn is_token(name: &[u8]) -> bool {
    !name.is_empty() && name.iter().all(|&b| is_tchar(b))
}

/// Whether `value` is a valid field value: only field-value bytes, and no
/// whitespace at either end (the OWS around a value is not part of it).
#[inline]
pub fn is_field_value(value: &[u8]) -> bool {
    value.iter().all(|&b| is_field_value_byte(b))
        && !value.first().is_some_and(|&b| is_ows(b))
        && !value.last().is_some_and(|&b| is_ows(b))
}

/// `value` without leading and trailing SP/HTAB.
#[inline]
pub fn trim_ows(value: &[u8]) -> &[u8] {
    let start = value
        .iter()
        .position(|&b| !is_ows(b))
        .unwrap_or(value.len());
    let end = value
        .iter()
        .rposition(|&b| !is_ows(b))
        .map_or(start, |e| e + 1);
    &value[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tchar_is_exactly_the_rfc_set() {
        let specials = b"!#$%&'*+-.^_`|~";
        for b in 0..=255u8 {
            let expect = b.is_ascii_alphanumeric() || specials.contains(&b);
            assert_eq!(is_tchar(b), expect, "byte {b:#04x}");
        }
        assert_eq!((0..=255u8).filter(|&b| is_tchar(b)).count(), 62 + 15);
    }

    #[test]
    fn value_bytes_exclude_controls_but_not_htab_or_obs_text() {
        for b in 0..=255u8 {
            let ctl = b < 0x20 || b == 0x7f;
            assert_eq!(is_field_value_byte(b), !ctl || b == b'\t', "byte {b:#04x}");
        }
        assert!(is_field_value(b"caf\xe9 au lait"));
        assert!(!is_field_value(b"a\r\nb"));
        assert!(!is_field_value(b" a"));
        assert!(!is_field_value(b"a\t"));
        assert!(is_field_value(b""));
    }

    #[test]
    fn trimming() {
        assert_eq!(trim_ows(b" \t a b \t"), b"a b");
        assert_eq!(trim_ows(b"   "), b"");
        assert_eq!(trim_ows(b""), b"");
    }
}
