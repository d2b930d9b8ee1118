//! [`Sink`]: the caller's output buffer.

use alloc::vec::Vec;

/// A growable byte buffer the encoder appends to.
///
/// The encoder only ever appends, and truncates back to a length it saw
/// earlier when it refuses a head half-way (so a refused head leaves the
/// buffer as it was). Implemented for `Vec<u8>` and, with the `bytes`
/// feature, `bytes::BytesMut`; a server that keeps one such buffer per
/// connection and clears it after each write allocates nothing in steady
/// state.
pub trait Sink {
    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]);
    /// The number of bytes in the buffer.
    fn len(&self) -> usize;
    /// Whether the buffer holds no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Shortens the buffer to `len` bytes (no-op when it is not longer).
    fn truncate(&mut self, len: usize);
    /// Makes room for at least `additional` more bytes.
    fn reserve(&mut self, additional: usize);
    /// The bytes from `start` to the end (empty when `start` is past it).
    fn tail(&self, start: usize) -> &[u8];
}

impl Sink for Vec<u8> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
    #[inline]
    fn len(&self) -> usize {
        Vec::len(self)
    }
    #[inline]
    fn truncate(&mut self, len: usize) {
        Vec::truncate(self, len);
    }
    #[inline]
    fn reserve(&mut self, additional: usize) {
        Vec::reserve(self, additional);
    }
    #[inline]
    fn tail(&self, start: usize) -> &[u8] {
        self.get(start..).unwrap_or(&[])
    }
}

#[cfg(feature = "bytes")]
#[cfg_attr(docsrs, doc(cfg(feature = "bytes")))]
impl Sink for bytes::BytesMut {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
    #[inline]
    fn len(&self) -> usize {
        bytes::BytesMut::len(self)
    }
    #[inline]
    fn truncate(&mut self, len: usize) {
        bytes::BytesMut::truncate(self, len);
    }
    #[inline]
    fn reserve(&mut self, additional: usize) {
        bytes::BytesMut::reserve(self, additional);
    }
    #[inline]
    fn tail(&self, start: usize) -> &[u8] {
        self.get(start..).unwrap_or(&[])
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        (**self).put(bytes);
    }
    #[inline]
    fn len(&self) -> usize {
        (**self).len()
    }
    #[inline]
    fn truncate(&mut self, len: usize) {
        (**self).truncate(len);
    }
    #[inline]
    fn reserve(&mut self, additional: usize) {
        (**self).reserve(additional);
    }
    #[inline]
    fn tail(&self, start: usize) -> &[u8] {
        (**self).tail(start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Exchange, Framing, ResponseWriter, Version};

    fn encode<S: Sink>(out: &mut S) {
        let ex = Exchange::new(Version::Http11).clock(false);
        let mut w = ResponseWriter::start(out, 200, &ex, Framing::Chunked).unwrap();
        w.field(b"A", b"1").unwrap();
        let mut head = w.finish().unwrap();
        head.body.write(out, b"xyz").unwrap();
        head.body.finish(out).unwrap();
        // A refused head leaves the buffer as it was.
        let before = out.len();
        let w = ResponseWriter::start(out, 200, &Exchange::new(Version::Http11), Framing::Empty);
        assert_eq!(w.unwrap().finish().err(), Some(crate::Error::MissingDate));
        assert_eq!(out.len(), before);
    }

    const EXPECTED: &[u8] =
        b"HTTP/1.1 200 OK\r\nA: 1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nxyz\r\n0\r\n\r\n";

    #[test]
    fn vec_sink() {
        let mut v = Vec::new();
        encode(&mut v);
        assert_eq!(v, EXPECTED);
        assert_eq!(Sink::tail(&v, 17), &EXPECTED[17..]);
        assert_eq!(Sink::tail(&v, 1000), b"");
    }

    /// The trait's own methods, on each buffer and through `&mut`.
    fn contract<S: Sink>(s: &mut S) {
        assert!(s.is_empty());
        s.reserve(100);
        s.put(b"abc");
        assert!(!s.is_empty());
        assert_eq!(s.len(), 3);
        assert_eq!(s.tail(1), b"bc");
        assert_eq!(s.tail(4), b"");
        s.truncate(5);
        assert_eq!(s.len(), 3);
        s.truncate(1);
        assert_eq!(s.tail(0), b"a");
        s.truncate(0);
        assert!(s.is_empty());
    }

    #[test]
    fn sink_methods() {
        let mut v = Vec::new();
        contract(&mut v);
        assert!(v.capacity() >= 100, "reserve makes room");
        let mut v = Vec::new();
        contract(&mut &mut v);
        assert!(v.capacity() >= 100, "reserve through &mut");
        // The encoder writes through `&mut` as well.
        let mut v = Vec::new();
        encode(&mut &mut v);
        assert_eq!(v, EXPECTED);
        let mut r = &mut v;
        assert_eq!(Sink::tail(&r, 17), &EXPECTED[17..]);
        Sink::reserve(&mut r, 1000);
        assert!(v.capacity() >= EXPECTED.len() + 1000);
    }

    #[cfg(feature = "bytes")]
    #[test]
    fn bytes_mut_sink_methods() {
        let mut b = bytes::BytesMut::new();
        contract(&mut b);
        assert!(b.capacity() >= 100, "reserve makes room");
    }

    #[cfg(feature = "bytes")]
    #[test]
    fn bytes_mut_sink() {
        let mut b = bytes::BytesMut::new();
        encode(&mut b);
        assert_eq!(&b[..], EXPECTED);
        assert_eq!(Sink::tail(&b, 17), &EXPECTED[17..]);
        let frozen = b.split().freeze();
        assert_eq!(&frozen[..], EXPECTED);
    }
}
