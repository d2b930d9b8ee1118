//! The field names a connection has seen, kept as `HeaderName`s.
//!
//! A client sends the same names request after request, in the same
//! order and the same case, and `HeaderName::from_bytes` works each out
//! again: it lowercases the name into a scratch buffer, looks it up among
//! the standard names, and copies one that is not standard
//! (`sec-fetch-mode`, `x-request-id`) into an allocation of its own. Here
//! the bytes a field's name had at the same place in the last request are
//! compared with those arriving (exactly: a byte-wise comparison, which
//! is cheap, unlike one that ignores case) and, when they match, its
//! `HeaderName` is cloned (a copy for a standard name, a reference count
//! for another), so a browser's request with its five `sec-*` fields
//! costs no allocation for its names.

use http::header::{HeaderName, InvalidHeaderName};

/// Most fields of a request whose names are kept: beyond, names are
/// looked up every time.
const KEPT: usize = 32;

/// The names of the last request's fields, by place: as sent, and as
/// `HeaderName`.
#[derive(Debug, Default)]
pub(crate) struct NameCache {
    names: Vec<(Box<[u8]>, HeaderName)>,
}

impl NameCache {
    /// The `HeaderName` of `name`, the request's field number `index`
    /// (any case: names are case-insensitive, and `HeaderName` holds them
    /// lowercase).
    pub(crate) fn get(
        &mut self,
        index: usize,
        name: &[u8],
    ) -> Result<HeaderName, InvalidHeaderName> {
        if let Some((sent, kept)) = self.names.get(index) {
            if same(sent, name) {
                return Ok(kept.clone());
            }
        }
        let made = HeaderName::from_bytes(name)?;
        let entry = (Box::from(name), made.clone());
        if index < self.names.len() {
            self.names[index] = entry;
        } else if index == self.names.len() && index < KEPT {
            self.names.push(entry);
        }
        Ok(made)
    }
}

/// Whether `a` and `b` hold the same bytes: as `a == b`, a word at a
/// time where `==` calls `memcmp` (names are short: most fit in two
/// words, the last one overlapping the first).
#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&s[at..at + 8]);
        u64::from_ne_bytes(w)
    };
    let half = |s: &[u8], at: usize| {
        let mut w = [0u8; 4];
        w.copy_from_slice(&s[at..at + 4]);
        u32::from_ne_bytes(w)
    };
    match n {
        0..=3 => a == b,
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        _ => {
            let mut at = 0;
            while at + 8 < n {
                if word(a, at) != word(b, at) {
                    return false;
                }
                at += 8;
            }
            word(a, n - 8) == word(b, n - 8)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_seen_before_is_the_same_name_in_any_case() {
        let mut cache = NameCache::default();
        let first = cache.get(0, b"Sec-Fetch-Mode").unwrap();
        assert_eq!(first, "sec-fetch-mode");
        let again = cache.get(0, b"sec-fetch-MODE").unwrap();
        assert_eq!(again, first);
        assert_eq!(cache.get(1, b"Host").unwrap(), http::header::HOST);
        assert_eq!(cache.get(1, b"host").unwrap(), http::header::HOST);
    }

    #[test]
    fn names_in_another_order_or_past_the_kept_ones_are_still_right() {
        let mut cache = NameCache::default();
        let names: Vec<String> = (0..100).map(|i| format!("x-field-{i}")).collect();
        for round in 0..4 {
            for (i, name) in names.iter().enumerate() {
                // Every other round, each field at another place.
                let at = if round % 2 == 0 {
                    i
                } else {
                    names.len() - 1 - i
                };
                assert_eq!(cache.get(at, name.as_bytes()).unwrap(), name.as_str());
            }
        }
        assert_eq!(cache.names.len(), KEPT);
    }

    #[test]
    fn same_is_byte_equality_at_every_length() {
        let base: Vec<u8> = (0..40u8).map(|i| b'a' + i % 26).collect();
        for n in 0..40 {
            let a = &base[..n];
            assert!(same(a, a), "{n}");
            assert!(!same(a, &base[..n + 1]), "{n}: lengths differ");
            for at in 0..n {
                let mut b = a.to_vec();
                b[at] ^= 0x20;
                assert!(!same(a, &b), "{n}: byte {at} differs");
            }
        }
    }

    #[test]
    fn an_invalid_name_is_refused_and_not_kept() {
        let mut cache = NameCache::default();
        assert!(cache.get(0, b"bad name").is_err());
        assert!(cache.get(0, b"").is_err());
        assert!(cache.names.is_empty());
    }
}
