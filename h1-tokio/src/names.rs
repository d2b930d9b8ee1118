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
            if **sent == *name {
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
    fn an_invalid_name_is_refused_and_not_kept() {
        let mut cache = NameCache::default();
        assert!(cache.get(0, b"bad name").is_err());
        assert!(cache.get(0, b"").is_err());
        assert!(cache.names.is_empty());
    }
}
