//! Byte classes of RFC 9110 §5.6.2 (tokens) and §5.5 (field values).
//!
//! These predicates are *the* definition of each class for the whole
//! workspace: h1-parse's SIMD scanners are tested against them, and the
//! owned blob validates with them.

/// `TOKEN[b]` is true when `b` is a `tchar` (RFC 9110 §5.6.2):
/// ``"!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA``.
///
/// A constant, not a static, so that other constants can be computed from it
/// (h1-parse's SIMD tables are) on every compiler the crates support.
pub const TOKEN: [bool; 256] = {
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
/// (No early exit per byte: names are short and the loop stays branch-free.)
#[inline]
pub fn is_token(name: &[u8]) -> bool {
    !name.is_empty() && name.iter().fold(true, |ok, &b| ok & is_tchar(b))
}

/// Whether `value` is a valid field value: only field-value bytes, and no
/// whitespace at either end (the OWS around a value is not part of it).
///
/// Checked eight bytes at a time: a word with no byte below 0x20 and no DEL
/// is valid as a whole; a word with one (often a harmless HTAB) is checked
/// byte by byte with [`is_field_value_byte`], the definition.
#[inline]
pub fn is_field_value(value: &[u8]) -> bool {
    if value.first().is_some_and(|&b| is_ows(b)) || value.last().is_some_and(|&b| is_ows(b)) {
        return false;
    }
    if value.len() < 8 {
        return value.iter().all(|&b| is_field_value_byte(b));
    }
    let word_ok = |word: &[u8]| {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(word);
        !has_control(u64::from_le_bytes(bytes)) || word.iter().all(|&b| is_field_value_byte(b))
    };
    let mut words = value.chunks_exact(8);
    if !words.all(word_ok) {
        return false;
    }
    // The last eight bytes, overlapping the words already checked.
    words.remainder().is_empty() || word_ok(&value[value.len() - 8..])
}

/// Whether some byte of `x` is below 0x20 or is 0x7F (exact as a yes/no
/// answer: the borrow tricks only blur *which* byte).
#[inline]
fn has_control(x: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below_space = x.wrapping_sub(ONES * 0x20) & !x & HIGH;
    let y = x ^ (ONES * 0x7f);
    let del = y.wrapping_sub(ONES) & !y & HIGH;
    (below_space | del) != 0
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

    /// `has_control` answers exactly whether a word holds a control byte
    /// (below 0x20, or DEL), whatever the other seven bytes are: the
    /// borrows between bytes never make it miss one or see one that is not
    /// there.
    #[test]
    fn has_control_is_exact_for_every_word() {
        let def = |x: u64| x.to_le_bytes().iter().any(|&b| b < 0x20 || b == 0x7f);
        // Every byte at every position, among fillers at the edges of the
        // classes (borrows start at 0x00 and 0x20 and at 0x7f and 0x80).
        for filler in [0x00u8, 0x1f, 0x20, 0x21, 0x7e, 0x7f, 0x80, 0xff, b'a'] {
            for pos in 0..8 {
                for b in 0..=255u8 {
                    let mut bytes = [filler; 8];
                    bytes[pos] = b;
                    let x = u64::from_le_bytes(bytes);
                    assert_eq!(has_control(x), def(x), "{bytes:02x?}");
                }
            }
        }
        // Random words biased towards the edges.
        let mut x = 0x0123_4567_89ab_cdefu64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut bytes = [0u8; 8];
            for (i, b) in bytes.iter_mut().enumerate() {
                let r = x.rotate_left(i as u32 * 8);
                *b = [
                    0x00, 0x01, 0x1f, 0x20, 0x21, 0x7e, 0x7f, 0x80, 0xa0, 0xff, b'a',
                ][(r % 11) as usize];
            }
            let w = u64::from_le_bytes(bytes);
            assert_eq!(has_control(w), def(w), "{bytes:02x?}");
            assert_eq!(has_control(x), def(x), "{x:#018x}");
        }
    }

    /// The word-at-a-time checks against the byte-at-a-time definitions.
    #[test]
    fn fast_checks_match_the_definitions() {
        use std::vec::Vec;
        let token_def = |v: &[u8]| !v.is_empty() && v.iter().all(|&b| is_tchar(b));
        let value_def = |v: &[u8]| {
            v.iter().all(|&b| is_field_value_byte(b))
                && !v.first().is_some_and(|&b| is_ows(b))
                && !v.last().is_some_and(|&b| is_ows(b))
        };
        // Every byte at every position of values of length 0..=20.
        for len in 0..=20usize {
            for pos in 0..len {
                for b in 0..=255u8 {
                    let mut v = std::vec![b'a'; len];
                    v[pos] = b;
                    assert_eq!(is_field_value(&v), value_def(&v), "{v:?}");
                    assert_eq!(is_token(&v), token_def(&v), "{v:?}");
                }
            }
            let v = std::vec![b'a'; len];
            assert_eq!(is_token(&v), token_def(&v));
        }
        // Random bytes, biased towards the edges of the classes.
        let mut x = 0x1234_5678_9abc_def1u64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 40) as usize;
            let v: Vec<u8> = (0..len)
                .map(|i| {
                    let r = x.rotate_left(i as u32 * 7);
                    [
                        0x00, 0x09, 0x0a, 0x1f, 0x20, 0x21, 0x7e, 0x7f, 0x80, 0xff, b'a', b'-',
                    ][(r % 12) as usize]
                })
                .collect();
            assert_eq!(is_field_value(&v), value_def(&v), "{v:?}");
            assert_eq!(is_token(&v), token_def(&v), "{v:?}");
        }
    }
}
