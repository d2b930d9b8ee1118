//! [`HeadersView`]: a borrowed view over a buffer and the entries of its fields.

use core::fmt;
use core::iter::FusedIterator;
use core::slice;

use crate::span::Entry;

/// A borrowed view over the fields of a head: the buffer they arrived in and
/// the [`Entry`] spans that locate each name and value in it.
///
/// Lookups compare names ASCII case-insensitively against the probe, checking
/// the length first, and walk the entries in arrival order; nothing here
/// allocates. Over the 5–20 fields of a typical head this linear scan beats
/// hashing and keeps the order in which fields arrived.
///
/// ```
/// use h1_headers::{Entry, HeadersView, Span};
///
/// let buf = b"Host: example.com\r\nAccept: */*\r\naccept: text/html\r\n";
/// let entries = [
///     Entry::new(Span::new(0, 4).unwrap(), Span::new(6, 11).unwrap()),
///     Entry::new(Span::new(19, 6).unwrap(), Span::new(27, 3).unwrap()),
///     Entry::new(Span::new(32, 6).unwrap(), Span::new(40, 9).unwrap()),
/// ];
/// let fields = HeadersView::new(buf, &entries);
///
/// assert_eq!(fields.get(b"HOST"), Some(&b"example.com"[..]));
/// assert!(fields.contains(b"accept"));
/// assert_eq!(fields.get(b"Content-Length"), None);
///
/// let accept: Vec<&[u8]> = fields.get_all(b"Accept").collect();
/// assert_eq!(accept, [&b"*/*"[..], b"text/html"]);
///
/// for (name, value) in fields {
///     println!("{}: {}", name.escape_ascii(), value.escape_ascii());
/// }
/// ```
///
/// # Spans outside the buffer
///
/// The parser only produces spans inside the buffer it parsed, but a view can
/// be built from any buffer and any entries. No method panics on a span that
/// reaches past the end of the buffer: an entry whose name *or* value span is
/// out of range is treated as absent. [`get`](Self::get), [`get_all`](Self::get_all),
/// [`contains`](Self::contains) and [`iter`](Self::iter) skip it (so a lookup
/// finds the next valid entry with that name, if any), while
/// [`len`](Self::len) and [`entries`](Self::entries) still count and return it.
/// [`HeadersView::try_new`] refuses such entries up front.
#[derive(Clone, Copy, Default)]
pub struct HeadersView<'a> {
    buf: &'a [u8],
    entries: &'a [Entry],
}

impl<'a> HeadersView<'a> {
    /// A view of the fields `entries` locates in `buf`.
    ///
    /// This does not check the spans; see the type's documentation for what
    /// happens to entries outside `buf`.
    #[inline]
    pub const fn new(buf: &'a [u8], entries: &'a [Entry]) -> Self {
        HeadersView { buf, entries }
    }

    /// Like [`new`](Self::new), but `None` unless every name and value span
    /// lies inside `buf`, so that [`len`](Self::len) equals the number of
    /// pairs [`iter`](Self::iter) yields.
    pub fn try_new(buf: &'a [u8], entries: &'a [Entry]) -> Option<Self> {
        let in_range = entries
            .iter()
            .all(|e| e.name.end() <= buf.len() && e.value.end() <= buf.len());
        in_range.then_some(HeadersView { buf, entries })
    }

    /// The value of the first field named `name` (ASCII case-insensitive), or
    /// `None` if there is none.
    #[inline]
    pub fn get(&self, name: &[u8]) -> Option<&'a [u8]> {
        self.get_all(name).next()
    }

    /// The values of every field named `name` (ASCII case-insensitive), in
    /// arrival order.
    #[inline]
    pub fn get_all<'n>(&self, name: &'n [u8]) -> GetAll<'a, 'n> {
        GetAll {
            buf: self.buf,
            entries: self.entries.iter(),
            name,
        }
    }

    /// Whether a field named `name` (ASCII case-insensitive) is present.
    #[inline]
    pub fn contains(&self, name: &[u8]) -> bool {
        self.get(name).is_some()
    }

    /// Every field as a `(name, value)` pair, in arrival order. Names are as
    /// they arrived (not case-folded).
    #[inline]
    pub fn iter(&self) -> Iter<'a> {
        Iter {
            buf: self.buf,
            entries: self.entries.iter(),
        }
    }

    /// The number of entries, including any whose spans are out of range.
    #[inline]
    pub const fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries, as given to [`new`](Self::new).
    #[inline]
    pub const fn entries(&self) -> &'a [Entry] {
        self.entries
    }

    /// The buffer, as given to [`new`](Self::new).
    #[inline]
    pub const fn buf(&self) -> &'a [u8] {
        self.buf
    }
}

/// The name and value of `e`, or `None` if either span is outside `buf`.
#[inline]
fn pair<'a>(buf: &'a [u8], e: &Entry) -> Option<(&'a [u8], &'a [u8])> {
    Some((e.name.get(buf)?, e.value.get(buf)?))
}

/// The value of `e` if its name is `name` (ASCII case-insensitive, length
/// first) and both spans are inside `buf`.
#[inline]
fn value_if_named<'a>(buf: &'a [u8], e: &Entry, name: &[u8]) -> Option<&'a [u8]> {
    if e.name.len() != name.len() {
        return None;
    }
    let (n, v) = pair(buf, e)?;
    n.eq_ignore_ascii_case(name).then_some(v)
}

impl<'a> IntoIterator for HeadersView<'a> {
    type Item = (&'a [u8], &'a [u8]);
    type IntoIter = Iter<'a>;

    #[inline]
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &HeadersView<'a> {
    type Item = (&'a [u8], &'a [u8]);
    type IntoIter = Iter<'a>;

    #[inline]
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// Shows the fields as a map from name to value, with bytes outside
/// printable ASCII escaped.
impl fmt::Debug for HeadersView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.iter().map(|(n, v)| (Escaped(n), Escaped(v))))
            .finish()
    }
}

/// Debug-formats bytes as a quoted string with `escape_ascii`.
pub(crate) struct Escaped<'a>(pub(crate) &'a [u8]);

impl fmt::Debug for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", self.0.escape_ascii())
    }
}

/// Iterator over `(name, value)` pairs, from [`HeadersView::iter`].
///
/// Entries with a span outside the buffer are skipped.
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    buf: &'a [u8],
    entries: slice::Iter<'a, Entry>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a [u8], &'a [u8]);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let buf = self.buf;
        self.entries.by_ref().find_map(|e| pair(buf, e))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.entries.len()))
    }
}

impl DoubleEndedIterator for Iter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        let buf = self.buf;
        self.entries.by_ref().rev().find_map(|e| pair(buf, e))
    }
}

impl FusedIterator for Iter<'_> {}

/// Iterator over the values of every field with one name, from
/// [`HeadersView::get_all`].
///
/// `'a` is the lifetime of the view's buffer, `'n` that of the probe name.
#[derive(Clone, Debug)]
pub struct GetAll<'a, 'n> {
    buf: &'a [u8],
    entries: slice::Iter<'a, Entry>,
    name: &'n [u8],
}

impl<'a> Iterator for GetAll<'a, '_> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let (buf, name) = (self.buf, self.name);
        self.entries
            .by_ref()
            .find_map(|e| value_if_named(buf, e, name))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.entries.len()))
    }
}

impl DoubleEndedIterator for GetAll<'_, '_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        let (buf, name) = (self.buf, self.name);
        self.entries
            .by_ref()
            .rev()
            .find_map(|e| value_if_named(buf, e, name))
    }
}

impl FusedIterator for GetAll<'_, '_> {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Span;
    use std::format;
    use std::vec::Vec;

    /// Lays `fields` out as field lines (`name: value\r\n`), the way they
    /// arrive, and returns the buffer and the entries.
    fn head(fields: &[(&[u8], &[u8])]) -> (Vec<u8>, Vec<Entry>) {
        let mut buf = Vec::new();
        let mut entries = Vec::new();
        for (n, v) in fields {
            let name = Span::new(buf.len(), n.len()).unwrap();
            buf.extend_from_slice(n);
            buf.extend_from_slice(b": ");
            let value = Span::new(buf.len(), v.len()).unwrap();
            buf.extend_from_slice(v);
            buf.extend_from_slice(b"\r\n");
            entries.push(Entry::new(name, value));
        }
        (buf, entries)
    }

    const FIELDS: &[(&[u8], &[u8])] = &[
        (b"Host", b"example.com"),
        (b"Accept", b"*/*"),
        (b"X-Forwarded-For", b"10.0.0.1"),
        (b"ACCEPT", b"text/html"),
        (b"Cookie", b""),
        (b"accept", b"image/png"),
    ];

    #[test]
    fn lookups_ignore_ascii_case() {
        let (buf, entries) = head(FIELDS);
        let v = HeadersView::new(&buf, &entries);
        for probe in [&b"host"[..], b"HOST", b"Host", b"hOsT"] {
            assert_eq!(v.get(probe), Some(&b"example.com"[..]));
            assert!(v.contains(probe));
        }
        assert_eq!(v.get(b"x-forwarded-for"), Some(&b"10.0.0.1"[..]));
        assert_eq!(v.get(b"accept"), Some(&b"*/*"[..]));
        assert_eq!(v.get(b"cookie"), Some(&b""[..]), "empty value is present");
        assert!(v.contains(b"COOKIE"));
        // Prefixes, extensions and near misses do not match.
        for probe in [
            &b"hos"[..],
            b"hostx",
            b"",
            b"h0st",
            b"accepts",
            b"x-forwarded_for",
        ] {
            assert_eq!(v.get(probe), None, "{}", probe.escape_ascii());
            assert!(!v.contains(probe));
            assert_eq!(v.get_all(probe).count(), 0);
        }
    }

    #[test]
    fn case_folding_is_ascii_only() {
        // 0xC9 and 0xE9 are É/é in Latin-1: not folded.
        let (buf, entries) = head(&[(b"caf\xc9", b"1"), (b"x", b"2")]);
        let v = HeadersView::new(&buf, &entries);
        assert_eq!(v.get(b"caf\xe9"), None);
        assert_eq!(v.get(b"CAF\xc9"), Some(&b"1"[..]));
    }

    #[test]
    fn iteration_keeps_arrival_order() {
        let (buf, entries) = head(FIELDS);
        let v = HeadersView::new(&buf, &entries);
        let got: Vec<_> = v.iter().collect();
        assert_eq!(got, FIELDS);
        let via_into: Vec<_> = v.into_iter().collect();
        assert_eq!(via_into, FIELDS);
        let mut via_ref = Vec::new();
        for pair in &v {
            via_ref.push(pair);
        }
        assert_eq!(via_ref, FIELDS);
        let mut back: Vec<_> = v.iter().rev().collect();
        back.reverse();
        assert_eq!(back, FIELDS);
        assert_eq!(v.len(), FIELDS.len());
        assert!(!v.is_empty());
        assert_eq!(v.entries(), &entries[..]);
        assert_eq!(v.buf(), &buf[..]);
    }

    #[test]
    fn get_all_returns_duplicates_in_order() {
        let (buf, entries) = head(FIELDS);
        let v = HeadersView::new(&buf, &entries);
        let all: Vec<&[u8]> = v.get_all(b"Accept").collect();
        assert_eq!(all, [&b"*/*"[..], b"text/html", b"image/png"]);
        let rev: Vec<&[u8]> = v.get_all(b"accept").rev().collect();
        assert_eq!(rev, [&b"image/png"[..], b"text/html", b"*/*"]);
        let mut it = v.get_all(b"ACCEPT");
        assert_eq!(it.next(), Some(&b"*/*"[..]));
        assert_eq!(it.next_back(), Some(&b"image/png"[..]));
        assert_eq!(it.next(), Some(&b"text/html"[..]));
        assert_eq!(it.next_back(), None);
        assert_eq!(it.next(), None);
        assert_eq!(v.get_all(b"host").count(), 1);
    }

    /// The iterators' size hints: no lower bound (any entry may be skipped),
    /// and the entries not yet walked as the upper bound.
    #[test]
    fn size_hints_bound_by_the_entries_left() {
        let (buf, entries) = head(FIELDS);
        let v = HeadersView::new(&buf, &entries);
        let mut it = v.iter();
        assert_eq!(it.size_hint(), (0, Some(6)));
        it.next();
        assert_eq!(it.size_hint(), (0, Some(5)));
        let mut accept = v.get_all(b"accept");
        assert_eq!(accept.size_hint(), (0, Some(6)));
        assert_eq!(accept.next(), Some(&b"*/*"[..]));
        assert_eq!(accept.size_hint(), (0, Some(4)));
        assert_eq!(accept.next_back(), Some(&b"image/png"[..]));
        assert_eq!(accept.size_hint(), (0, Some(3)));
        let missing = v.get_all(b"missing");
        assert_eq!(missing.size_hint(), (0, Some(6)));
        assert_eq!(missing.count(), 0);
    }

    #[test]
    fn empty_view() {
        let v = HeadersView::default();
        assert!(v.is_empty());
        assert_eq!(v.len(), 0);
        assert_eq!(v.get(b"host"), None);
        assert_eq!(v.iter().next(), None);
        assert_eq!(v.iter().size_hint(), (0, Some(0)));
        let v = HeadersView::new(b"Host: x\r\n", &[]);
        assert!(v.is_empty());
        assert_eq!(v.get(b"host"), None);
    }

    #[test]
    fn out_of_range_spans_are_absent_and_never_panic() {
        let buf = b"Host: a\r\nHost: b\r\n";
        let good_name = Span::new(9, 4).unwrap();
        let good_value = Span::new(15, 1).unwrap();
        let past = Span::new(16, 4).unwrap(); // ends at 20 > 18
        let far = Span::new(Span::MAX - 4, 4).unwrap();
        let huge = Span::new(0, Span::MAX).unwrap();
        let entries = [
            Entry::new(Span::new(0, 4).unwrap(), past), // name fine, value out
            Entry::new(far, Span::new(6, 1).unwrap()),  // name out
            Entry::new(huge, huge),
            Entry::new(Span::new(18, 0).unwrap(), Span::new(18, 0).unwrap()), // empty at the end: in range
            Entry::new(good_name, good_value),
            Entry::new(Span::new(17, 4).unwrap(), good_value), // 4-byte name, out
        ];
        let v = HeadersView::new(buf, &entries);
        assert_eq!(v.len(), 6);
        // The first Host entry's value is out of range: the lookup moves on.
        assert_eq!(v.get(b"host"), Some(&b"b"[..]));
        assert_eq!(v.get_all(b"host").collect::<Vec<_>>(), [&b"b"[..]]);
        assert_eq!(v.get_all(b"host").rev().collect::<Vec<_>>(), [&b"b"[..]]);
        assert_eq!(v.get(b""), Some(&b""[..]));
        let pairs: Vec<_> = v.iter().collect();
        assert_eq!(pairs, [(&b""[..], &b""[..]), (&b"Host"[..], &b"b"[..])]);
        assert_eq!(v.iter().rev().count(), 2);
        assert!(HeadersView::try_new(buf, &entries).is_none());
        assert!(HeadersView::try_new(buf, &entries[3..5]).is_some());
        // One span out of range is enough, the name's or the value's.
        assert!(HeadersView::try_new(buf, &entries[0..1]).is_none());
        assert!(HeadersView::try_new(buf, &entries[1..2]).is_none());
        // Every span against an empty buffer: none fits.
        let v = HeadersView::new(b"", &entries);
        assert_eq!(v.iter().count(), 0);
        assert_eq!(v.get(b"host"), None);
        assert_eq!(v.get(b""), None);
        assert_eq!(format!("{v:?}"), "{}");
        // Except empty spans at offset 0.
        let empty = [Entry::EMPTY, Entry::new(Span::EMPTY, past)];
        let v = HeadersView::new(b"", &empty);
        assert_eq!(v.iter().collect::<Vec<_>>(), [(&b""[..], &b""[..])]);
        assert_eq!(v.get(b""), Some(&b""[..]));
    }

    #[test]
    fn debug_shows_pairs() {
        let (buf, entries) = head(&[(b"Host", b"a\xff"), (b"X", b"\"q\"")]);
        let v = HeadersView::new(&buf, &entries);
        assert_eq!(format!("{v:?}"), r#"{"Host": "a\xff", "X": "\"q\""}"#);
    }
}
