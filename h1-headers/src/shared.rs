//! [`SharedHeaders`]: spans into a frozen `bytes::Bytes`, free of lifetimes.

use alloc::vec::Vec;
use core::fmt;

use bytes::Bytes;

use crate::blob::HeaderError;
use crate::span::Entry;
use crate::view::{GetAll, HeadersView, Iter};

/// Header fields that own the bytes they arrived in, without copying them: a
/// [`Bytes`] (the head split off the receive buffer and frozen) and the
/// [`Entry`] spans into it.
///
/// The spans are kept in a `Vec<Entry>`, sixteen bytes per field. The caller
/// hands that `Vec` in, and [`into_parts`](Self::into_parts) hands it back,
/// so a connection can reuse one index allocation across requests instead of
/// allocating per head. (An inline array would make the type large to move
/// for the common 5–20 fields and would need a limit of its own; the parser
/// already has `max_fields`.)
///
/// Every span is checked to lie inside the bytes when the value is made, so
/// lookups always find every field and [`get_bytes`](Self::get_bytes) can
/// slice without a check failing. Names and values are *not* re-validated:
/// they are expected to come from the parser, which already checked them.
///
/// ```
/// use bytes::{BufMut, BytesMut};
/// use h1_headers::{Entry, SharedHeaders, Span};
///
/// let mut recv = BytesMut::new();
/// recv.put_slice(b"Host: example.com\r\nAccept: */*\r\n\r\nbody bytes...");
/// // What a parser would report for the fields of this head:
/// let entries = [
///     Entry::new(Span::new(0, 4).unwrap(), Span::new(6, 11).unwrap()),
///     Entry::new(Span::new(19, 6).unwrap(), Span::new(27, 3).unwrap()),
/// ];
/// let head = recv.split_to(32).freeze(); // no copy
/// let headers = SharedHeaders::from_head(head, &entries)?;
/// drop(recv); // the rest of the receive buffer goes on its way
///
/// assert_eq!(headers.get(b"host"), Some(&b"example.com"[..]));
/// let host = headers.get_bytes(b"HOST").unwrap(); // a zero-copy `Bytes`
/// assert_eq!(host, "example.com");
/// # Ok::<(), h1_headers::HeaderError>(())
/// ```
#[derive(Clone, Default)]
#[cfg_attr(docsrs, doc(cfg(feature = "bytes")))]
pub struct SharedHeaders {
    /// Invariant: every span of `entries` lies inside `bytes`.
    bytes: Bytes,
    entries: Vec<Entry>,
}

impl SharedHeaders {
    /// Headers whose fields `entries` locates in `bytes`.
    ///
    /// # Errors
    ///
    /// [`HeaderError::OutOfRange`] if a name or value span reaches past the
    /// end of `bytes`.
    pub fn new(bytes: Bytes, entries: Vec<Entry>) -> Result<Self, HeaderError> {
        let len = bytes.len();
        if entries
            .iter()
            .any(|e| e.name.end() > len || e.value.end() > len)
        {
            return Err(HeaderError::OutOfRange);
        }
        Ok(SharedHeaders { bytes, entries })
    }

    /// As [`new`](Self::new), copying the entries (for example the filled
    /// part of the parser's entry array) into a new `Vec`.
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    pub fn from_head(bytes: Bytes, entries: &[Entry]) -> Result<Self, HeaderError> {
        SharedHeaders::new(bytes, entries.to_vec())
    }

    /// A borrowed view of the fields.
    #[inline]
    pub fn view(&self) -> HeadersView<'_> {
        HeadersView::new(&self.bytes, &self.entries)
    }

    /// The value of the first field named `name` (ASCII case-insensitive).
    #[inline]
    pub fn get(&self, name: &[u8]) -> Option<&[u8]> {
        self.view().get(name)
    }

    /// The value of the first field named `name` (ASCII case-insensitive) as
    /// a [`Bytes`] sharing this one's storage: no copy, one reference count
    /// increment.
    pub fn get_bytes(&self, name: &[u8]) -> Option<Bytes> {
        let e = self.entries.iter().find(|e| {
            e.name.len() == name.len()
                && e.name
                    .get(&self.bytes)
                    .is_some_and(|n| n.eq_ignore_ascii_case(name))
        })?;
        // In range: checked when the value was made.
        Some(self.bytes.slice(e.value.range()))
    }

    /// The values of every field named `name` (ASCII case-insensitive), in
    /// arrival order.
    #[inline]
    pub fn get_all<'n>(&self, name: &'n [u8]) -> GetAll<'_, 'n> {
        self.view().get_all(name)
    }

    /// Whether a field named `name` (ASCII case-insensitive) is present.
    #[inline]
    pub fn contains(&self, name: &[u8]) -> bool {
        self.view().contains(name)
    }

    /// Every field as a `(name, value)` pair, in arrival order.
    #[inline]
    pub fn iter(&self) -> Iter<'_> {
        self.view().iter()
    }

    /// The number of fields.
    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no fields.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The bytes the spans point into.
    #[inline]
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// The spans of each field's name and value in [`bytes`](Self::bytes).
    #[inline]
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The bytes and the entries, for reusing the entry `Vec`.
    #[inline]
    pub fn into_parts(self) -> (Bytes, Vec<Entry>) {
        (self.bytes, self.entries)
    }
}

impl<'a> IntoIterator for &'a SharedHeaders {
    type Item = (&'a [u8], &'a [u8]);
    type IntoIter = Iter<'a>;

    #[inline]
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// Shows the fields as a map from name to value.
impl fmt::Debug for SharedHeaders {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.view(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Span;
    use crate::HeaderBlob;
    use bytes::{BufMut, BytesMut};
    use std::format;
    use std::vec;
    use std::vec::Vec;

    fn head(fields: &[(&[u8], &[u8])]) -> (BytesMut, Vec<Entry>) {
        let mut buf = BytesMut::new();
        let mut entries = Vec::new();
        for (n, v) in fields {
            let name = Span::new(buf.len(), n.len()).unwrap();
            buf.put_slice(n);
            buf.put_slice(b": ");
            let value = Span::new(buf.len(), v.len()).unwrap();
            buf.put_slice(v);
            buf.put_slice(b"\r\n");
            entries.push(Entry::new(name, value));
        }
        buf.put_slice(b"\r\n");
        (buf, entries)
    }

    const FIELDS: &[(&[u8], &[u8])] = &[
        (b"Host", b"example.com"),
        (b"Accept", b"*/*"),
        (b"accept", b"text/html"),
        (b"X-Empty", b""),
    ];

    #[test]
    fn outlives_the_receive_buffer_without_copying() {
        let (mut recv, entries) = head(FIELDS);
        let head_len = recv.len();
        recv.put_slice(b"GET /next HTTP/1.1\r\n");
        let head = recv.split_to(head_len).freeze();
        let base = head.as_ptr();
        let headers = SharedHeaders::from_head(head, &entries).unwrap();
        drop(recv);

        assert_eq!(headers.len(), 4);
        assert!(!headers.is_empty());
        assert_eq!(headers.get(b"HOST"), Some(&b"example.com"[..]));
        assert!(headers.contains(b"x-empty"));
        assert!(!headers.contains(b"missing"));
        assert!(!headers.contains(b"hos"));
        assert_eq!(
            headers.get_all(b"ACCEPT").collect::<Vec<_>>(),
            [&b"*/*"[..], b"text/html"]
        );
        assert_eq!(headers.iter().collect::<Vec<_>>(), FIELDS);
        assert_eq!((&headers).into_iter().count(), 4);
        assert_eq!(headers.view().len(), 4);
        assert_eq!(headers.entries(), &entries[..]);
        assert_eq!(headers.bytes().as_ptr(), base);

        let host = headers.get_bytes(b"host").unwrap();
        assert_eq!(host, &b"example.com"[..]);
        // Zero copy: the slice points into the same storage.
        assert_eq!(host.as_ptr(), base.wrapping_add(entries[0].value.offset()));
        let accept = headers.get_bytes(b"Accept").unwrap();
        assert_eq!(accept, &b"*/*"[..]);
        assert_eq!(headers.get_bytes(b"x-empty").unwrap(), &b""[..]);
        assert_eq!(headers.get_bytes(b"missing"), None);
        assert_eq!(headers.get_bytes(b"hos"), None);

        // The slice outlives the headers.
        drop(headers);
        assert_eq!(host, &b"example.com"[..]);
    }

    #[test]
    fn spans_are_checked_up_front() {
        let (buf, mut entries) = head(FIELDS);
        let bytes = buf.freeze();
        let len = bytes.len();
        assert!(SharedHeaders::new(bytes.clone(), entries.clone()).is_ok());
        entries.push(Entry::new(
            Span::new(0, 4).unwrap(),
            Span::new(len, 0).unwrap(),
        ));
        assert!(SharedHeaders::new(bytes.clone(), entries.clone()).is_ok());
        for bad in [
            Entry::new(Span::new(0, 4).unwrap(), Span::new(len, 1).unwrap()),
            Entry::new(Span::new(len - 1, 2).unwrap(), Span::EMPTY),
            Entry::new(Span::new(Span::MAX, 0).unwrap(), Span::EMPTY),
            Entry::new(Span::EMPTY, Span::new(0, Span::MAX).unwrap()),
        ] {
            let mut e = entries.clone();
            e.insert(1, bad);
            assert_eq!(
                SharedHeaders::new(bytes.clone(), e).unwrap_err(),
                HeaderError::OutOfRange
            );
            assert_eq!(
                SharedHeaders::from_head(Bytes::new(), &[bad]).unwrap_err(),
                HeaderError::OutOfRange
            );
        }
        let empty = SharedHeaders::new(Bytes::new(), vec![]).unwrap();
        assert!(empty.is_empty());
        assert_eq!(empty.get_bytes(b"host"), None);
        assert!(SharedHeaders::default().is_empty());
    }

    #[test]
    fn parts_reuse_and_conversions() {
        let (buf, entries) = head(FIELDS);
        let headers = SharedHeaders::new(buf.freeze(), entries).unwrap();
        assert_eq!(
            format!("{headers:?}"),
            r#"{"Host": "example.com", "Accept": "*/*", "accept": "text/html", "X-Empty": ""}"#
        );
        let blob = HeaderBlob::from_view(&headers.view()).unwrap();
        assert_eq!(blob.get(b"host"), Some(&b"example.com"[..]));
        assert_eq!(blob.len(), 4);
        let cap = headers.entries().len();
        let (bytes, mut entries) = headers.into_parts();
        assert!(bytes.starts_with(b"Host: "));
        entries.clear();
        assert!(entries.capacity() >= cap);
    }
}
