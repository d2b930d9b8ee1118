//! The scalar twins: one byte at a time, straight from the predicates in
//! `h1_headers::chars`. They are the oracle every wider path is tested and
//! fuzzed against, and the classifier behind [`Path::Scalar`](super::Path::Scalar).

use super::{Block, Classify};
use h1_headers::chars::{is_field_value_byte, is_tchar};

/// Whether `b` may appear in a request-target: a VCHAR other than `#`
/// (RFC 9112 §3.2; the fragment is never sent).
#[inline]
pub const fn is_target_byte(b: u8) -> bool {
    b > 0x20 && b < 0x7f && b != b'#'
}

/// Whether `b` is one of the usual bytes of a host name: an ASCII letter or
/// digit, `-` or `.` (a subset of RFC 3986's reg-name, enough for DNS names
/// and IPv4 addresses; the rest of the grammar is checked byte by byte).
#[inline]
pub const fn is_host_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'.'
}

/// How many leading bytes of `buf` are tchars.
pub fn token_len(buf: &[u8]) -> usize {
    buf.iter().position(|&b| !is_tchar(b)).unwrap_or(buf.len())
}

/// How many leading bytes of `buf` may appear in a request-target.
pub fn target_len(buf: &[u8]) -> usize {
    buf.iter()
        .position(|&b| !is_target_byte(b))
        .unwrap_or(buf.len())
}

/// How many leading bytes of `buf` may appear in a field value.
pub fn value_len(buf: &[u8]) -> usize {
    buf.iter()
        .position(|&b| !is_field_value_byte(b))
        .unwrap_or(buf.len())
}

/// The index after the first `\n\r\n` or `\n\n` in `buf`.
pub fn find_head_end(buf: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < buf.len() {
        if buf[i] == b'\n' {
            match buf.get(i + 1) {
                Some(b'\n') => return Some(i + 2),
                Some(b'\r') if buf.get(i + 2) == Some(&b'\n') => return Some(i + 3),
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// The byte-at-a-time classifier.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scalar;

#[inline(always)]
fn mask(b: &Block, pred: impl Fn(u8) -> bool) -> u64 {
    let mut m = 0u64;
    for (i, &x) in b.iter().enumerate() {
        m |= u64::from(pred(x)) << i;
    }
    m
}

impl Classify for Scalar {
    #[inline(always)]
    fn non_token(self, b: &Block) -> u64 {
        mask(b, |x| !is_tchar(x))
    }
    #[inline(always)]
    fn non_value(self, b: &Block) -> u64 {
        mask(b, |x| !is_field_value_byte(x))
    }
    #[inline(always)]
    fn non_target(self, b: &Block) -> u64 {
        mask(b, |x| !is_target_byte(x))
    }
    #[inline(always)]
    fn non_host_name(self, b: &Block) -> u64 {
        mask(b, |x| !is_host_name_byte(x))
    }
    #[inline(always)]
    fn lf(self, b: &Block) -> u64 {
        mask(b, |x| x == b'\n')
    }
}
