//! Spans: where a name or a value sits inside a buffer.

use core::ops::Range;

/// A byte range inside a buffer: an offset and a length, eight bytes in all.
///
/// Both halves are `u32`, so a span can only point into the first 4 GiB of a
/// buffer and can only cover 4 GiB. HTTP heads are limited to kilobytes long
/// before that (h1-parse's default head limit is 64 KiB), so the limit never
/// binds for parsed heads; [`Span::new`] checks it for everything else.
///
/// ```
/// use h1_headers::Span;
/// let buf = b"Host: example.com";
/// let value = Span::new(6, 11).unwrap();
/// assert_eq!(value.slice(buf), b"example.com");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    off: u32,
    len: u32,
}

impl Span {
    /// The largest offset or length a span can hold.
    pub const MAX: usize = u32::MAX as usize;

    /// An empty span at offset 0.
    pub const EMPTY: Span = Span { off: 0, len: 0 };

    /// A span of `len` bytes starting at `off`; `None` when either, or their
    /// sum, exceeds [`Span::MAX`].
    #[inline]
    pub const fn new(off: usize, len: usize) -> Option<Span> {
        if off > Self::MAX || len > Self::MAX - off {
            return None;
        }
        Some(Span {
            off: off as u32,
            len: len as u32,
        })
    }

    /// A span from 32-bit parts, which always fit.
    #[inline]
    pub const fn from_parts(off: u32, len: u32) -> Span {
        Span { off, len }
    }

    /// The span covering `start..end`; `None` when `end < start` or the range
    /// does not fit (see [`Span::new`]).
    #[inline]
    pub const fn from_range(start: usize, end: usize) -> Option<Span> {
        if end < start {
            return None;
        }
        Span::new(start, end - start)
    }

    /// The offset of the first byte.
    #[inline]
    pub const fn offset(self) -> usize {
        self.off as usize
    }

    /// The number of bytes covered.
    #[inline]
    pub const fn len(self) -> usize {
        self.len as usize
    }

    /// Whether the span covers no bytes.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.len == 0
    }

    /// The offset one past the last byte.
    #[inline]
    pub const fn end(self) -> usize {
        self.off as usize + self.len as usize
    }

    /// The span as a range of offsets.
    #[inline]
    pub const fn range(self) -> Range<usize> {
        self.offset()..self.end()
    }

    /// The bytes the span covers in `buf`.
    ///
    /// # Panics
    ///
    /// When the span reaches past the end of `buf`: a span must be used with
    /// the buffer it was made for. [`Span::get`] is the checked form.
    #[inline]
    pub fn slice(self, buf: &[u8]) -> &[u8] {
        &buf[self.range()]
    }

    /// The bytes the span covers in `buf`, or `None` if it reaches past the end.
    #[inline]
    pub fn get(self, buf: &[u8]) -> Option<&[u8]> {
        buf.get(self.range())
    }

    /// The same span moved `delta` bytes towards the start of the buffer, for
    /// when the bytes before it are split off.  `None` if it would start
    /// before 0.
    #[inline]
    pub const fn shift_down(self, delta: usize) -> Option<Span> {
        if delta > self.off as usize {
            return None;
        }
        Some(Span {
            off: self.off - delta as u32,
            len: self.len,
        })
    }

    /// The same span moved `delta` bytes towards the end; `None` on overflow.
    #[inline]
    pub const fn shift_up(self, delta: usize) -> Option<Span> {
        match (self.off as usize).checked_add(delta) {
            Some(off) => Span::new(off, self.len as usize),
            None => None,
        }
    }
}

/// One field line: the span of its name and the span of its value.
///
/// Values exclude the leading and trailing whitespace (OWS) of the field line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Entry {
    /// Where the field name is.
    pub name: Span,
    /// Where the field value is.
    pub value: Span,
}

impl Entry {
    /// An entry with both spans empty, for initialising storage:
    /// `[Entry::EMPTY; 64]`.
    pub const EMPTY: Entry = Entry {
        name: Span::EMPTY,
        value: Span::EMPTY,
    };

    /// A new entry.
    #[inline]
    pub const fn new(name: Span, value: Span) -> Entry {
        Entry { name, value }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_checks_the_u32_limit() {
        assert!(Span::new(Span::MAX, 0).is_some());
        assert!(Span::new(Span::MAX, 1).is_none());
        assert!(Span::new(Span::MAX + 1, 0).is_none());
        assert!(Span::new(0, Span::MAX + 1).is_none());
        assert_eq!(Span::from_range(5, 3), None);
        assert_eq!(Span::from_range(3, 5), Span::new(3, 2));
    }

    #[test]
    fn an_empty_range_is_an_empty_span() {
        assert_eq!(Span::from_range(3, 3), Span::new(3, 0));
        let empty = Span::from_range(3, 3).unwrap();
        assert!(empty.is_empty());
        assert_eq!(empty.slice(b"abcdef"), b"");
        assert!(Span::EMPTY.is_empty());
        assert!(!Span::new(0, 1).unwrap().is_empty());
        assert!(!Span::from_range(3, 5).unwrap().is_empty());
    }

    #[test]
    fn slicing_and_shifting() {
        let buf = b"abcdef";
        let s = Span::new(2, 3).unwrap();
        assert_eq!(s.slice(buf), b"cde");
        assert_eq!(s.end(), 5);
        assert_eq!(s.get(b"abc"), None);
        assert_eq!(s.shift_down(2).unwrap().slice(buf), b"abc");
        assert_eq!(s.shift_down(3), None);
        assert_eq!(s.shift_up(1).unwrap().slice(buf), b"def");
        assert_eq!(s.shift_up(usize::MAX), None);
        assert_eq!(s.shift_up(Span::MAX), None);
        assert_eq!(core::mem::size_of::<Span>(), 8);
        assert_eq!(core::mem::size_of::<Entry>(), 16);
    }
}
