//! [`HeaderBlob`]: owned fields, all bytes in one buffer with a span index.

use alloc::vec::Vec;
use core::fmt;

use crate::chars::{is_field_value, is_token};
use crate::span::{Entry, Span};
use crate::view::{GetAll, HeadersView, Iter};

/// Why a field was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HeaderError {
    /// The name is empty or has a byte that is not a `tchar`
    /// (RFC 9110 §5.6.2).
    InvalidName,
    /// The value has a control byte (anything below 0x20 except HTAB, or
    /// DEL), or starts or ends with SP or HTAB (RFC 9110 §5.5).
    InvalidValue,
    /// The bytes would not fit: a [`Span`] reaches no further than
    /// [`Span::MAX`] (4 GiB).
    TooLarge,
    /// An entry's name or value span reaches past the end of its buffer.
    OutOfRange,
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HeaderError::InvalidName => "invalid header field name",
            HeaderError::InvalidValue => "invalid header field value",
            HeaderError::TooLarge => "header fields exceed the 4 GiB span limit",
            HeaderError::OutOfRange => "header field span outside its buffer",
        })
    }
}

/// Checks that `name` and `value` may form a field.
#[inline]
fn validate(name: &[u8], value: &[u8]) -> Result<(), HeaderError> {
    if !is_token(name) {
        return Err(HeaderError::InvalidName);
    }
    if !is_field_value(value) {
        return Err(HeaderError::InvalidValue);
    }
    Ok(())
}

/// `current + extra` if spans can still address every byte of it.
#[inline]
fn grown(current: usize, extra: usize) -> Result<usize, HeaderError> {
    match current.checked_add(extra) {
        Some(total) if total <= Span::MAX => Ok(total),
        _ => Err(HeaderError::TooLarge),
    }
}

/// The span `off..off + len`, for offsets already checked against
/// [`Span::MAX`] (the blob never holds more bytes than that).
#[inline]
fn span(off: usize, len: usize) -> Span {
    Span::new(off, len).expect("blob offsets are kept within Span::MAX")
}

/// An owned set of header fields: every name and value back to back in one
/// byte buffer, with an index of [`Entry`] spans into it.
///
/// This is the form for fields a program builds (response headers) or keeps
/// after the receive buffer is gone. Two allocations hold any number of
/// fields, and [`clear`](Self::clear) keeps both for reuse.
///
/// - Names are checked to be tokens and **lowercased** when stored; lookups
///   are ASCII case-insensitive anyway.
/// - Values are checked: no control bytes except HTAB (so no CR, LF or NUL),
///   obs-text (0x80–0xFF) allowed, no leading or trailing SP/HTAB. A refused
///   field leaves the blob unchanged.
/// - Fields keep the order in which they were appended; duplicates are kept.
/// - [`remove`](Self::remove) compacts the buffer, so cycles of appending and
///   removing do not grow it without bound.
///
/// The buffer holds exactly the names and values of the fields, in order,
/// with nothing between them, so two blobs compare equal exactly when they
/// hold the same fields in the same order.
///
/// ```
/// use h1_headers::{HeaderBlob, HeaderError};
///
/// let mut headers = HeaderBlob::with_capacity(64, 4);
/// headers.append(b"Content-Type", b"text/plain")?;
/// headers.append(b"Set-Cookie", b"a=1")?;
/// headers.append(b"set-cookie", b"b=2")?;
///
/// assert_eq!(headers.get(b"content-type"), Some(&b"text/plain"[..]));
/// let cookies: Vec<&[u8]> = headers.get_all(b"Set-Cookie").collect();
/// assert_eq!(cookies, [&b"a=1"[..], b"b=2"]);
///
/// // Names are stored lowercased, values as given.
/// assert_eq!(headers.as_bytes(), b"content-typetext/plainset-cookiea=1set-cookieb=2");
///
/// assert_eq!(headers.append(b"X-Bad", b"a\r\nInjected: 1"), Err(HeaderError::InvalidValue));
/// assert_eq!(headers.append(b"Bad Name", b"x"), Err(HeaderError::InvalidName));
///
/// assert_eq!(headers.remove(b"set-cookie"), 2);
/// assert_eq!(headers.len(), 1);
/// # Ok::<(), HeaderError>(())
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct HeaderBlob {
    /// Invariant: the names and values of `entries`, in order, back to back;
    /// each entry's value starts where its name ends; `buf.len() <= Span::MAX`.
    buf: Vec<u8>,
    entries: Vec<Entry>,
}

impl HeaderBlob {
    /// An empty blob; allocates nothing until the first field.
    #[inline]
    pub const fn new() -> Self {
        HeaderBlob {
            buf: Vec::new(),
            entries: Vec::new(),
        }
    }

    /// An empty blob with room for `bytes` bytes of names and values and for
    /// `fields` fields.
    #[inline]
    pub fn with_capacity(bytes: usize, fields: usize) -> Self {
        HeaderBlob {
            buf: Vec::with_capacity(bytes),
            entries: Vec::with_capacity(fields),
        }
    }

    /// Makes room for at least `bytes` more bytes of names and values and
    /// `fields` more fields, so that appending that much does not reallocate.
    #[inline]
    pub fn reserve(&mut self, bytes: usize, fields: usize) {
        self.buf.reserve(bytes);
        self.entries.reserve(fields);
    }

    /// Adds the field `name: value` after the others, keeping any field of the
    /// same name. The name is stored lowercased.
    ///
    /// # Errors
    ///
    /// [`HeaderError::InvalidName`] if `name` is not a token,
    /// [`HeaderError::InvalidValue`] if `value` is not a valid field value,
    /// [`HeaderError::TooLarge`] if the blob would exceed [`Span::MAX`]
    /// bytes. The blob is unchanged on error.
    pub fn append(&mut self, name: &[u8], value: &[u8]) -> Result<(), HeaderError> {
        validate(name, value)?;
        grown(self.buf.len(), name.len() + value.len())?;
        self.push_unchecked(name, value);
        Ok(())
    }

    /// Replaces every field named `name` (ASCII case-insensitive) by the
    /// single field `name: value`, added after the remaining fields. Returns
    /// how many fields were removed.
    ///
    /// # Errors
    ///
    /// As [`append`](Self::append); the blob is unchanged on error (the old
    /// fields stay).
    pub fn insert(&mut self, name: &[u8], value: &[u8]) -> Result<usize, HeaderError> {
        validate(name, value)?;
        // Checked against the current size: removing only shrinks it.
        grown(self.buf.len(), name.len() + value.len())?;
        let removed = self.remove(name);
        self.push_unchecked(name, value);
        Ok(removed)
    }

    /// Appends a field already validated and size-checked.
    fn push_unchecked(&mut self, name: &[u8], value: &[u8]) {
        let start = self.buf.len();
        self.buf.extend_from_slice(name);
        self.buf[start..].make_ascii_lowercase();
        let value_start = self.buf.len();
        self.buf.extend_from_slice(value);
        self.entries.push(Entry::new(
            span(start, name.len()),
            span(value_start, value.len()),
        ));
    }

    /// Removes every field named `name` (ASCII case-insensitive) and returns
    /// how many there were. The remaining fields keep their order and the
    /// buffer is compacted in one pass; capacity is kept.
    pub fn remove(&mut self, name: &[u8]) -> usize {
        let before = self.entries.len();
        let mut write = 0;
        let mut kept = 0;
        for i in 0..self.entries.len() {
            let e = self.entries[i];
            let field = e.name.offset()..e.value.end();
            if e.name.len() == name.len() && self.buf[e.name.range()].eq_ignore_ascii_case(name) {
                continue;
            }
            if field.start != write {
                self.buf.copy_within(field.clone(), write);
            }
            self.entries[kept] = Entry::new(
                span(write, e.name.len()),
                span(write + e.name.len(), e.value.len()),
            );
            write += field.len();
            kept += 1;
        }
        self.buf.truncate(write);
        self.entries.truncate(kept);
        before - kept
    }

    /// Removes every field, keeping the allocated capacity.
    #[inline]
    pub fn clear(&mut self) {
        self.buf.clear();
        self.entries.clear();
    }

    /// A borrowed view of the fields, for the lookups of [`HeadersView`].
    #[inline]
    pub fn view(&self) -> HeadersView<'_> {
        HeadersView::new(&self.buf, &self.entries)
    }

    /// The value of the first field named `name` (ASCII case-insensitive).
    #[inline]
    pub fn get(&self, name: &[u8]) -> Option<&[u8]> {
        self.view().get(name)
    }

    /// The values of every field named `name` (ASCII case-insensitive), in
    /// the order they were appended.
    #[inline]
    pub fn get_all<'n>(&self, name: &'n [u8]) -> GetAll<'_, 'n> {
        self.view().get_all(name)
    }

    /// Whether a field named `name` (ASCII case-insensitive) is present.
    #[inline]
    pub fn contains(&self, name: &[u8]) -> bool {
        self.view().contains(name)
    }

    /// Every field as a `(name, value)` pair in the order they were appended;
    /// names are lowercase.
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

    /// The number of bytes of names and values held.
    #[inline]
    pub fn byte_len(&self) -> usize {
        self.buf.len()
    }

    /// How many bytes of names and values fit without reallocating.
    #[inline]
    pub fn byte_capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// How many fields fit without reallocating the index.
    #[inline]
    pub fn field_capacity(&self) -> usize {
        self.entries.capacity()
    }

    /// Every name and value, back to back, in order.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// The spans of each field's name and value in [`as_bytes`](Self::as_bytes).
    #[inline]
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// An owned copy of the fields of `view`, made in a single copy into
    /// exactly-sized buffers. Names are lowercased.
    ///
    /// ```
    /// use h1_headers::{Entry, HeaderBlob, HeadersView, Span};
    ///
    /// let buf = b"Host: example.com\r\n";
    /// let entries = [Entry::new(Span::new(0, 4).unwrap(), Span::new(6, 11).unwrap())];
    /// let blob = HeaderBlob::from_view(&HeadersView::new(buf, &entries))?;
    /// assert_eq!(blob.as_bytes(), b"hostexample.com");
    /// # Ok::<(), h1_headers::HeaderError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`HeaderError::OutOfRange`] if a span of the view reaches past its
    /// buffer, and otherwise as [`append`](Self::append) for the first field
    /// that is refused.
    pub fn from_view(view: &HeadersView<'_>) -> Result<HeaderBlob, HeaderError> {
        let mut blob = HeaderBlob::new();
        blob.append_view_exact(view)?;
        Ok(blob)
    }

    /// Appends every field of `view` after the others, names lowercased.
    /// Either all fields are added or, on error, none are.
    ///
    /// # Errors
    ///
    /// As [`from_view`](Self::from_view).
    pub fn extend_from_view(&mut self, view: &HeadersView<'_>) -> Result<(), HeaderError> {
        let (bytes, fields) = Self::measure(view, self.buf.len())?;
        self.reserve(bytes, fields);
        self.copy_view(view);
        Ok(())
    }

    fn append_view_exact(&mut self, view: &HeadersView<'_>) -> Result<(), HeaderError> {
        let (bytes, fields) = Self::measure(view, self.buf.len())?;
        self.buf.reserve_exact(bytes);
        self.entries.reserve_exact(fields);
        self.copy_view(view);
        Ok(())
    }

    /// Validates every field of `view` and returns the bytes and fields it
    /// adds to a blob of `current` bytes.
    fn measure(view: &HeadersView<'_>, current: usize) -> Result<(usize, usize), HeaderError> {
        let buf = view.buf();
        let mut bytes = 0usize;
        for e in view.entries() {
            let name = e.name.get(buf).ok_or(HeaderError::OutOfRange)?;
            let value = e.value.get(buf).ok_or(HeaderError::OutOfRange)?;
            validate(name, value)?;
            bytes = grown(bytes, name.len() + value.len())?;
        }
        grown(current, bytes)?;
        Ok((bytes, view.len()))
    }

    /// Copies the fields of a view that [`measure`](Self::measure) accepted.
    fn copy_view(&mut self, view: &HeadersView<'_>) {
        for (name, value) in view.iter() {
            self.push_unchecked(name, value);
        }
    }
}

impl<'a> TryFrom<HeadersView<'a>> for HeaderBlob {
    type Error = HeaderError;

    /// As [`HeaderBlob::from_view`].
    #[inline]
    fn try_from(view: HeadersView<'a>) -> Result<Self, HeaderError> {
        HeaderBlob::from_view(&view)
    }
}

impl<'a> IntoIterator for &'a HeaderBlob {
    type Item = (&'a [u8], &'a [u8]);
    type IntoIter = Iter<'a>;

    #[inline]
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// Shows the fields as a map from name to value.
impl fmt::Debug for HeaderBlob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.view(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chars::is_tchar;
    use std::format;
    use std::string::ToString;
    use std::vec;
    use std::vec::Vec;

    /// The blob's invariant: names and values back to back, in order.
    fn check_invariant(b: &HeaderBlob) {
        let mut expect = Vec::new();
        for e in b.entries() {
            assert_eq!(e.name.offset(), expect.len());
            expect.extend_from_slice(e.name.slice(b.as_bytes()));
            assert_eq!(e.value.offset(), expect.len());
            expect.extend_from_slice(e.value.slice(b.as_bytes()));
        }
        assert_eq!(expect, b.as_bytes());
        assert_eq!(b.byte_len(), expect.len());
        for (n, _) in b.iter() {
            assert!(!n.iter().any(u8::is_ascii_uppercase));
        }
    }

    #[test]
    fn append_lowercases_names_and_keeps_order() {
        let mut b = HeaderBlob::new();
        assert!(b.is_empty());
        b.append(b"Content-Type", b"text/plain").unwrap();
        b.append(b"X-ID", b"42").unwrap();
        b.append(b"SET-COOKIE", b"a=1").unwrap();
        b.append(b"Set-Cookie", b"b=2").unwrap();
        b.append(b"x-empty", b"").unwrap();
        check_invariant(&b);
        assert_eq!(b.len(), 5);
        assert!(!b.is_empty());
        let pairs: Vec<_> = b.iter().collect();
        assert_eq!(
            pairs,
            [
                (&b"content-type"[..], &b"text/plain"[..]),
                (b"x-id", b"42"),
                (b"set-cookie", b"a=1"),
                (b"set-cookie", b"b=2"),
                (b"x-empty", b""),
            ]
        );
        assert_eq!(b.get(b"CONTENT-TYPE"), Some(&b"text/plain"[..]));
        assert_eq!(b.get(b"x-Id"), Some(&b"42"[..]));
        assert_eq!(b.get(b"x-empty"), Some(&b""[..]));
        assert!(b.contains(b"Set-Cookie"));
        assert!(!b.contains(b"cookie"));
        assert_eq!(
            b.get_all(b"set-cookie").collect::<Vec<_>>(),
            [&b"a=1"[..], b"b=2"]
        );
        let via_ref: Vec<_> = (&b).into_iter().collect();
        assert_eq!(via_ref, pairs);
        assert_eq!(
            format!("{b:?}"),
            r#"{"content-type": "text/plain", "x-id": "42", "set-cookie": "a=1", "set-cookie": "b=2", "x-empty": ""}"#
        );
    }

    #[test]
    fn names_reject_every_non_tchar() {
        let mut b = HeaderBlob::new();
        b.append(b"keep", b"1").unwrap();
        let snapshot = b.clone();
        for byte in 0..=255u8 {
            for name in [
                vec![byte],
                vec![b'a', byte],
                vec![byte, b'a'],
                vec![b'a', byte, b'b'],
            ] {
                let r = b.append(&name, b"v");
                if is_tchar(byte) {
                    assert_eq!(r, Ok(()), "{byte:#04x}");
                } else {
                    assert_eq!(r, Err(HeaderError::InvalidName), "{byte:#04x}");
                    assert_eq!(b.insert(&name, b"v"), Err(HeaderError::InvalidName));
                }
            }
            b.clone_from(&snapshot);
        }
        assert_eq!(b.append(b"", b"v"), Err(HeaderError::InvalidName));
        for bad in [
            &b"a b"[..],
            b"a:",
            b":a",
            b"a\tb",
            b"(a)",
            b"a/b",
            b"{a}",
            b"a\"",
            b"a\\b",
            b"\xe9",
        ] {
            assert_eq!(b.append(bad, b"v"), Err(HeaderError::InvalidName));
        }
        for good in [&b"!#$%&'*+-.^_`|~"[..], b"X-0", b"a"] {
            assert_eq!(b.append(good, b"v"), Ok(()));
        }
        check_invariant(&b);
    }

    #[test]
    fn values_reject_every_control_but_htab() {
        let mut b = HeaderBlob::new();
        for byte in (0x00..=0x1fu8).chain([0x7f]) {
            let inside = [b'a', byte, b'b'];
            let alone = [byte];
            if byte == b'\t' {
                assert_eq!(b.append(b"x", &inside), Ok(()));
                // Whitespace at either end is not part of a value.
                assert_eq!(b.append(b"x", &alone), Err(HeaderError::InvalidValue));
                assert_eq!(b.append(b"x", b"\ta"), Err(HeaderError::InvalidValue));
                assert_eq!(b.append(b"x", b"a\t"), Err(HeaderError::InvalidValue));
                continue;
            }
            for v in [&inside[..], &alone, &[byte, b'a'], &[b'a', byte]] {
                assert_eq!(
                    b.append(b"x", v),
                    Err(HeaderError::InvalidValue),
                    "{byte:#04x}"
                );
                assert_eq!(b.insert(b"x", v), Err(HeaderError::InvalidValue));
            }
        }
        assert_eq!(b.len(), 1, "only the inner HTAB value was accepted");
        for bad in [
            &b" a"[..],
            b"a ",
            b" ",
            b"a\r\nb",
            b"a\nb",
            b"a\rb",
            b"a\0b",
        ] {
            assert_eq!(b.append(b"x", bad), Err(HeaderError::InvalidValue));
        }
        assert_eq!(b.append(b"x", b"a b"), Ok(()));
        assert_eq!(b.len(), 2);
        check_invariant(&b);
    }

    #[test]
    fn values_accept_visible_ascii_and_obs_text() {
        let mut b = HeaderBlob::new();
        let visible: Vec<u8> = (0x21..=0x7eu8).collect();
        b.append(b"vchar", &visible).unwrap();
        let obs: Vec<u8> = (0x80..=0xffu8).collect();
        b.append(b"obs", &obs).unwrap();
        b.append(b"latin1", b"caf\xe9 au lait").unwrap();
        assert_eq!(b.get(b"vchar"), Some(&visible[..]));
        assert_eq!(b.get(b"obs"), Some(&obs[..]));
        assert_eq!(b.get(b"LATIN1"), Some(&b"caf\xe9 au lait"[..]));
        check_invariant(&b);
    }

    #[test]
    fn remove_compacts_and_keeps_order() {
        let mut b = HeaderBlob::new();
        for (n, v) in [
            (&b"A"[..], &b"1"[..]),
            (b"b", b"22"),
            (b"a", b"333"),
            (b"c", b""),
            (b"A", b"4444"),
            (b"d", b"5"),
        ] {
            b.append(n, v).unwrap();
        }
        assert_eq!(b.remove(b"a"), 3);
        check_invariant(&b);
        assert_eq!(b.as_bytes(), b"b22cd5");
        let pairs: Vec<_> = b.iter().collect();
        assert_eq!(pairs, [(&b"b"[..], &b"22"[..]), (b"c", b""), (b"d", b"5")]);
        assert_eq!(b.remove(b"a"), 0);
        assert_eq!(b.remove(b"missing"), 0);
        assert_eq!(b.remove(b"D"), 1);
        assert_eq!(b.as_bytes(), b"b22c");
        assert_eq!(b.remove(b"b"), 1);
        assert_eq!(b.remove(b"c"), 1);
        assert!(b.is_empty());
        assert_eq!(b.byte_len(), 0);
        check_invariant(&b);

        // A blob after removals equals one built directly.
        let mut x = HeaderBlob::new();
        x.append(b"keep", b"1").unwrap();
        x.append(b"drop", b"2").unwrap();
        x.append(b"keep", b"3").unwrap();
        x.remove(b"drop");
        let mut y = HeaderBlob::new();
        y.append(b"Keep", b"1").unwrap();
        y.append(b"KEEP", b"3").unwrap();
        assert_eq!(x, y);
    }

    #[test]
    fn append_remove_cycles_do_not_grow() {
        let mut b = HeaderBlob::new();
        b.append(b"server", b"h1").unwrap();
        b.append(b"x-request-id", b"0000000000").unwrap();
        let mut caps = None;
        for i in 0..10_000u32 {
            assert_eq!(b.remove(b"x-request-id"), 1);
            let id = format!("{i:010}");
            b.append(b"X-Request-Id", id.as_bytes()).unwrap();
            assert_eq!(b.byte_len(), 6 + 2 + 12 + 10);
            let now = (b.byte_capacity(), b.field_capacity());
            match caps {
                None => caps = Some(now),
                Some(c) => assert_eq!(c, now, "reallocated in cycle {i}"),
            }
        }
        check_invariant(&b);
        assert_eq!(b.get(b"x-request-id"), Some(&b"0000009999"[..]));
        assert_eq!(b.get(b"server"), Some(&b"h1"[..]));
    }

    #[test]
    fn insert_replaces_every_field_of_the_name() {
        let mut b = HeaderBlob::new();
        b.append(b"vary", b"a").unwrap();
        b.append(b"date", b"x").unwrap();
        b.append(b"Vary", b"b").unwrap();
        assert_eq!(b.insert(b"VARY", b"c"), Ok(2));
        assert_eq!(b.insert(b"etag", b"\"1\""), Ok(0));
        check_invariant(&b);
        let pairs: Vec<_> = b.iter().collect();
        assert_eq!(
            pairs,
            [
                (&b"date"[..], &b"x"[..]),
                (b"vary", b"c"),
                (b"etag", b"\"1\"")
            ]
        );
        // A refused value leaves the old fields in place.
        assert_eq!(b.insert(b"vary", b"bad\n"), Err(HeaderError::InvalidValue));
        assert_eq!(b.get_all(b"vary").collect::<Vec<_>>(), [&b"c"[..]]);
    }

    #[test]
    fn clear_keeps_capacity() {
        let mut b = HeaderBlob::new();
        for i in 0..20 {
            b.append(b"x-field", format!("value-{i}").as_bytes())
                .unwrap();
        }
        let (bytes, fields) = (b.byte_capacity(), b.field_capacity());
        assert!(bytes >= b.byte_len() && fields >= 20);
        b.clear();
        assert!(b.is_empty());
        assert_eq!(b.byte_len(), 0);
        assert_eq!(b.get(b"x-field"), None);
        assert_eq!((b.byte_capacity(), b.field_capacity()), (bytes, fields));
        b.append(b"a", b"b").unwrap();
        assert_eq!(b.as_bytes(), b"ab");
        assert_eq!((b.byte_capacity(), b.field_capacity()), (bytes, fields));
    }

    #[test]
    fn reserve_and_with_capacity_avoid_reallocation() {
        let b = HeaderBlob::new();
        assert_eq!((b.byte_capacity(), b.field_capacity()), (0, 0));
        let mut b = HeaderBlob::with_capacity(100, 10);
        assert!(b.byte_capacity() >= 100 && b.field_capacity() >= 10);
        b.append(b"a", b"b").unwrap();
        b.reserve(500, 40);
        assert!(b.byte_capacity() >= 2 + 500);
        assert!(b.field_capacity() >= 41);
        let caps = (b.byte_capacity(), b.field_capacity());
        for i in 0..40 {
            // 40 fields of 12 bytes: 480 <= 500.
            b.append(b"name", format!("val-{i:04}").as_bytes()).unwrap();
        }
        assert_eq!((b.byte_capacity(), b.field_capacity()), caps);
        check_invariant(&b);
    }

    /// `fields` laid out as field lines, with spans.
    fn head(fields: &[(&[u8], &[u8])]) -> (Vec<u8>, Vec<Entry>) {
        let mut buf = b"GET / HTTP/1.1\r\n".to_vec();
        let mut entries = Vec::new();
        for (n, v) in fields {
            let name = Span::new(buf.len(), n.len()).unwrap();
            buf.extend_from_slice(n);
            buf.extend_from_slice(b":\t");
            let value = Span::new(buf.len(), v.len()).unwrap();
            buf.extend_from_slice(v);
            buf.extend_from_slice(b" \r\n");
            entries.push(Entry::new(name, value));
        }
        buf.extend_from_slice(b"\r\n");
        (buf, entries)
    }

    #[test]
    fn from_view_round_trip() {
        let fields: &[(&[u8], &[u8])] = &[
            (b"Host", b"example.com"),
            (b"Accept-Encoding", b"gzip, br"),
            (b"X-Latin1", b"\xe9t\xe9"),
            (b"accept-encoding", b"zstd"),
            (b"Empty", b""),
        ];
        let (buf, entries) = head(fields);
        let view = HeadersView::new(&buf, &entries);
        let blob = HeaderBlob::from_view(&view).unwrap();
        check_invariant(&blob);
        assert_eq!(blob.len(), fields.len());
        for ((n, v), (bn, bv)) in fields.iter().zip(blob.iter()) {
            assert_eq!(n.to_ascii_lowercase(), bn);
            assert_eq!(*v, bv);
        }
        let total: usize = fields.iter().map(|(n, v)| n.len() + v.len()).sum();
        assert_eq!(blob.byte_len(), total);
        // Exactly sized: one allocation each, no slack.
        assert_eq!(blob.byte_capacity(), total);
        assert_eq!(blob.field_capacity(), fields.len());
        assert_eq!(
            blob.get_all(b"ACCEPT-ENCODING").collect::<Vec<_>>(),
            [&b"gzip, br"[..], b"zstd"]
        );
        // Blob -> view -> blob is the identity.
        let again = HeaderBlob::from_view(&blob.view()).unwrap();
        assert_eq!(again, blob);
        let via_try: HeaderBlob = view.try_into().unwrap();
        assert_eq!(via_try, blob);
        // Building by hand gives the same blob.
        let mut manual = HeaderBlob::new();
        for (n, v) in fields {
            manual.append(n, v).unwrap();
        }
        assert_eq!(manual, blob);
        // An empty view.
        let empty = HeaderBlob::from_view(&HeadersView::default()).unwrap();
        assert!(empty.is_empty());
    }

    #[test]
    fn from_view_refuses_bad_fields_atomically() {
        let (buf, entries) = head(&[(b"Host", b"a"), (b"Bad Name", b"x")]);
        let view = HeadersView::new(&buf, &entries);
        assert_eq!(
            HeaderBlob::from_view(&view).unwrap_err(),
            HeaderError::InvalidName
        );

        // A value span that takes in the trailing SP and CRLF.
        let mut wide = entries[..1].to_vec();
        wide[0].value = Span::new(wide[0].value.offset(), 4).unwrap();
        let view = HeadersView::new(&buf, &wide);
        assert_eq!(HeaderBlob::from_view(&view), Err(HeaderError::InvalidValue));

        let mut out = entries[..1].to_vec();
        out.push(Entry::new(
            Span::new(0, 3).unwrap(),
            Span::new(buf.len(), 1).unwrap(),
        ));
        let view = HeadersView::new(&buf, &out);
        assert_eq!(HeaderBlob::from_view(&view), Err(HeaderError::OutOfRange));

        let mut b = HeaderBlob::new();
        b.append(b"keep", b"1").unwrap();
        let before = b.clone();
        assert_eq!(b.extend_from_view(&view), Err(HeaderError::OutOfRange));
        assert_eq!(b, before);
        b.extend_from_view(&HeadersView::new(&buf, &entries[..1]))
            .unwrap();
        check_invariant(&b);
        assert_eq!(b.as_bytes(), b"keep1hosta");
    }

    #[test]
    fn size_limit() {
        assert_eq!(grown(0, Span::MAX), Ok(Span::MAX));
        assert_eq!(grown(1, Span::MAX), Err(HeaderError::TooLarge));
        assert_eq!(grown(Span::MAX, 1), Err(HeaderError::TooLarge));
        assert_eq!(grown(usize::MAX, 1), Err(HeaderError::TooLarge));
        assert_eq!(grown(10, 20), Ok(30));
    }

    /// The size check counts a field as its name's bytes plus its value's:
    /// a 64 KiB name with a 64 KiB value is 128 KiB, far from the 4 GiB
    /// limit (their product would pass it), and a value longer than its
    /// name is fine.
    #[test]
    fn size_check_adds_name_and_value_lengths() {
        let name = vec![b'n'; 1 << 16];
        let value = vec![b'v'; (1 << 16) + 1];
        let mut b = HeaderBlob::new();
        assert_eq!(b.append(&name, &value), Ok(()));
        assert_eq!(b.insert(&name, &value), Ok(1));
        assert_eq!(b.insert(b"x", b"a longer value"), Ok(0));
        assert_eq!(b.len(), 2);
        assert_eq!(b.byte_len(), name.len() + value.len() + 15);
        check_invariant(&b);
    }

    #[test]
    fn errors_display() {
        for (e, s) in [
            (HeaderError::InvalidName, "invalid header field name"),
            (HeaderError::InvalidValue, "invalid header field value"),
            (
                HeaderError::TooLarge,
                "header fields exceed the 4 GiB span limit",
            ),
            (
                HeaderError::OutOfRange,
                "header field span outside its buffer",
            ),
        ] {
            assert_eq!(e.to_string(), s);
        }
    }
}
