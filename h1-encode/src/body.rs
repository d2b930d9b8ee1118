//! Body framing: chunks, the last chunk and trailers, length accounting.

use h1_headers::Framing;

use crate::fields::{put_fields, Role, Seen};
use crate::num;
use crate::sink::Sink;
use crate::Error;

/// Where a body writer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum State {
    /// The message has no body.
    Empty,
    /// `Content-Length`: this many bytes still to come.
    Length(u64),
    Chunked,
    UntilClose,
    /// The body has been finished.
    Done,
}

/// Writes the body that follows a head, in the framing the head declared.
///
/// It comes with the [`Head`](crate::Head) the encoder returns. Call
/// [`write`](Self::write) (or [`frame`](Self::frame) for vectored writes)
/// for each piece of the body, then [`finish`](Self::finish) or
/// [`finish_with_trailers`](Self::finish_with_trailers) once.
///
/// - `Content-Length` bodies are counted: a piece that would go past the
///   declared length is refused ([`Error::BodyTooLong`], nothing written),
///   and finishing early is [`Error::BodyTooShort`].
/// - Chunked bodies: each non-empty piece becomes one chunk (size line,
///   data, CRLF); an empty piece writes nothing (a zero-size chunk would end
///   the body); finishing writes the last chunk and the trailer section.
/// - Messages without a body refuse any byte ([`Error::BodyNotAllowed`]).
///
/// ```
/// use h1_encode::{Exchange, Framing, ResponseWriter, Version};
/// let mut buf = Vec::new();
/// let ex = Exchange::new(Version::Http11).clock(false);
/// let mut head = ResponseWriter::start(&mut buf, 200, &ex, Framing::Chunked)?.finish()?;
/// head.body.write(&mut buf, b"Hello")?;
/// head.body.finish_with_trailers(&mut buf, [("Checksum", "abc")])?;
/// assert!(buf.ends_with(b"\r\n\r\n5\r\nHello\r\n0\r\nChecksum: abc\r\n\r\n"));
/// # Ok::<(), h1_encode::Error>(())
/// ```
///
/// A writer cannot be copied: a copy would keep its own count and could
/// write past the declared length or after the last chunk.
///
/// ```compile_fail
/// fn copies(b: h1_encode::BodyWriter) -> (h1_encode::BodyWriter, h1_encode::BodyWriter) {
///     (b, b)
/// }
/// ```
#[derive(Debug, PartialEq, Eq, Hash)]
#[must_use = "a body that is never finished leaves the message open"]
pub struct BodyWriter {
    state: State,
}

impl BodyWriter {
    /// The writer handed to the caller once the head is done. Deliberately
    /// not `Clone`/`Copy` in public: a copy would carry its own byte count
    /// and finished flag, and could write past the declared length or after
    /// the last chunk.
    pub(crate) fn handed_out(&self) -> BodyWriter {
        BodyWriter { state: self.state }
    }

    pub(crate) const fn empty() -> BodyWriter {
        BodyWriter {
            state: State::Empty,
        }
    }

    #[inline]
    pub(crate) const fn length(n: u64) -> BodyWriter {
        BodyWriter {
            state: State::Length(n),
        }
    }

    pub(crate) const fn chunked() -> BodyWriter {
        BodyWriter {
            state: State::Chunked,
        }
    }

    pub(crate) const fn until_close() -> BodyWriter {
        BodyWriter {
            state: State::UntilClose,
        }
    }

    /// The framing of a writer not yet written to.
    pub(crate) const fn framing(&self) -> Framing {
        match self.state {
            State::Length(n) => Framing::Length(n),
            State::Chunked => Framing::Chunked,
            State::UntilClose => Framing::UntilClose,
            State::Empty | State::Done => Framing::Empty,
        }
    }

    pub(crate) const fn is_until_close(&self) -> bool {
        matches!(self.state, State::UntilClose)
    }

    /// The bytes still owed of a `Content-Length` body; `None` for other
    /// bodies and once finished.
    ///
    /// ```
    /// use h1_encode::{Exchange, Framing, ResponseWriter, Version};
    /// let mut buf = Vec::new();
    /// let ex = Exchange::new(Version::Http11).clock(false);
    /// let mut head = ResponseWriter::start(&mut buf, 200, &ex, Framing::Length(5))?.finish()?;
    /// head.body.write(&mut buf, b"abc")?;
    /// assert_eq!(head.body.remaining(), Some(2));
    /// # Ok::<(), h1_encode::Error>(())
    /// ```
    pub const fn remaining(&self) -> Option<u64> {
        match self.state {
            State::Length(n) => Some(n),
            _ => None,
        }
    }

    /// Whether body bytes may still be written: false for a message
    /// without a body, a `Content-Length` body complete, and once finished.
    pub const fn wants_data(&self) -> bool {
        !matches!(self.state, State::Empty | State::Length(0) | State::Done)
    }

    /// Whether [`finish`](Self::finish) was called (or a whole body given).
    pub const fn is_finished(&self) -> bool {
        matches!(self.state, State::Done)
    }

    /// Counts `len` body bytes without writing them; the error cases of
    /// [`write`](Self::write).
    fn account(&mut self, len: usize) -> Result<(), Error> {
        match &mut self.state {
            State::Done => Err(Error::BodyFinished),
            _ if len == 0 => Ok(()),
            State::Empty => Err(Error::BodyNotAllowed),
            State::Length(remaining) => {
                let len = len as u64;
                if len > *remaining {
                    return Err(Error::BodyTooLong);
                }
                *remaining -= len;
                Ok(())
            }
            State::Chunked | State::UntilClose => Ok(()),
        }
    }

    /// Appends `data` to the body, framed (as a chunk, or as is).
    #[inline(always)]
    pub fn write<S: Sink + ?Sized>(&mut self, out: &mut S, data: &[u8]) -> Result<(), Error> {
        match &mut self.state {
            // The common case first, without building a frame.
            State::Length(remaining) => {
                if data.len() as u64 > *remaining {
                    return Err(Error::BodyTooLong);
                }
                *remaining -= data.len() as u64;
                out.put(data);
                Ok(())
            }
            _ => {
                let frame = self.frame(data)?;
                out.reserve(frame.len());
                out.put(frame.prefix());
                out.put(frame.data());
                out.put(frame.suffix());
                Ok(())
            }
        }
    }

    /// Accounts for `data` and returns its framing as up to three slices
    /// (chunk-size line, the data itself, CRLF), for a vectored write that
    /// does not copy the data.
    pub fn frame<'d>(&mut self, data: &'d [u8]) -> Result<Frame<'d>, Error> {
        self.account(data.len())?;
        let mut frame = Frame {
            prefix: [0; PREFIX],
            prefix_start: PREFIX as u8,
            data,
            suffix: b"",
        };
        if self.state == State::Chunked && !data.is_empty() {
            let mut digits = [0u8; num::MAX_HEX];
            let start = num::hex(data.len() as u64, &mut digits);
            let n = num::MAX_HEX - start;
            frame.prefix[PREFIX - 2..].copy_from_slice(b"\r\n");
            frame.prefix[PREFIX - 2 - n..PREFIX - 2].copy_from_slice(&digits[start..]);
            frame.prefix_start = (PREFIX - 2 - n) as u8;
            frame.suffix = b"\r\n";
        }
        Ok(frame)
    }

    /// Ends the body: the last chunk and an empty trailer section for
    /// chunked bodies; for `Content-Length` bodies, an error when bytes are
    /// still owed.
    pub fn finish<S: Sink + ?Sized>(&mut self, out: &mut S) -> Result<(), Error> {
        self.finish_with_trailers(out, core::iter::empty::<(&[u8], &[u8])>())
    }

    /// Ends a chunked body with a trailer section holding `trailers`
    /// (validated like header fields; framing and routing fields, and
    /// `Trailer` itself, are refused with [`Error::ForbiddenTrailer`]).
    /// Any trailer on a body that is not chunked is
    /// [`Error::TrailersNotAllowed`]. On an error nothing is written and
    /// the body is not finished.
    pub fn finish_with_trailers<S, I, N, V>(
        &mut self,
        out: &mut S,
        trailers: I,
    ) -> Result<(), Error>
    where
        S: Sink + ?Sized,
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        let mut trailers = trailers.into_iter().peekable();
        match self.state {
            State::Done => return Err(Error::BodyFinished),
            State::Length(n) if n > 0 => return Err(Error::BodyTooShort),
            State::Chunked => {
                let start = out.len();
                out.put(b"0\r\n");
                if let Err(e) = put_fields(out, trailers, Role::Trailer, &mut Seen::default()) {
                    out.truncate(start);
                    return Err(e);
                }
                out.put(b"\r\n");
            }
            _ if trailers.peek().is_some() => return Err(Error::TrailersNotAllowed),
            _ => {}
        }
        self.state = State::Done;
        Ok(())
    }

    /// Accounts for a whole body given at once (for a vectored write of
    /// head and body): for a `Content-Length` body it must be exactly the
    /// declared length, and the body is finished. Chunked bodies need
    /// framing: use [`frame`](Self::frame) and [`finish`](Self::finish).
    pub fn whole(&mut self, data: &[u8]) -> Result<(), Error> {
        match self.state {
            State::Chunked => Err(Error::BodyNotAllowed),
            State::Length(n) if (data.len() as u64) < n => Err(Error::BodyTooShort),
            State::UntilClose => self.account(data.len()),
            _ => {
                self.account(data.len())?;
                self.state = State::Done;
                Ok(())
            }
        }
    }
}

/// The chunk-size line is at most 16 hex digits and CRLF.
const PREFIX: usize = num::MAX_HEX + 2;

/// One framed piece of a body: `prefix`, `data`, `suffix`, to be written in
/// this order (see [`BodyWriter::frame`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame<'d> {
    prefix: [u8; PREFIX],
    prefix_start: u8,
    data: &'d [u8],
    suffix: &'static [u8],
}

impl<'d> Frame<'d> {
    /// The chunk-size line (empty for bodies that are not chunked).
    pub fn prefix(&self) -> &[u8] {
        &self.prefix[usize::from(self.prefix_start)..]
    }

    /// The body bytes.
    pub fn data(&self) -> &'d [u8] {
        self.data
    }

    /// The CRLF after a chunk's data (empty for bodies that are not
    /// chunked).
    pub fn suffix(&self) -> &'static [u8] {
        self.suffix
    }

    /// The total number of bytes.
    pub fn len(&self) -> usize {
        self.prefix().len() + self.data.len() + self.suffix.len()
    }

    /// Whether the frame writes nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The three parts as `IoSlice`s for `write_vectored`.
    #[cfg(feature = "std")]
    #[cfg_attr(docsrs, doc(cfg(feature = "std")))]
    pub fn io_slices(&self) -> [std::io::IoSlice<'_>; 3] {
        [
            std::io::IoSlice::new(self.prefix()),
            std::io::IoSlice::new(self.data),
            std::io::IoSlice::new(self.suffix),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn chunks() {
        let mut out = Vec::new();
        let mut w = BodyWriter::chunked();
        w.write(&mut out, b"").unwrap();
        assert!(out.is_empty());
        w.write(&mut out, &[b'x'; 300]).unwrap();
        assert!(out.starts_with(b"12c\r\nxxx"));
        assert!(out.ends_with(b"x\r\n"));
        assert_eq!(out.len(), 5 + 300 + 2);
        out.clear();
        assert_eq!(
            w.finish_with_trailers(&mut out, [("Content-Length", "1")]),
            Err(Error::ForbiddenTrailer)
        );
        assert!(out.is_empty());
        w.finish_with_trailers(&mut out, [("a", "1"), ("b", "2")])
            .unwrap();
        assert_eq!(out, b"0\r\na: 1\r\nb: 2\r\n\r\n");
        assert_eq!(w.write(&mut out, b"x"), Err(Error::BodyFinished));
        assert_eq!(w.finish(&mut out), Err(Error::BodyFinished));
    }

    #[test]
    fn lengths() {
        let mut out = Vec::new();
        let mut w = BodyWriter::length(5);
        w.write(&mut out, b"abc").unwrap();
        assert_eq!(w.write(&mut out, b"def"), Err(Error::BodyTooLong));
        assert_eq!(out, b"abc");
        assert_eq!(w.remaining(), Some(2));
        assert_eq!(w.finish(&mut out), Err(Error::BodyTooShort));
        w.write(&mut out, b"de").unwrap();
        assert!(!w.is_finished(), "complete, but not finished");
        assert_eq!(
            w.finish_with_trailers(&mut out, [("a", "b")]),
            Err(Error::TrailersNotAllowed)
        );
        w.finish(&mut out).unwrap();
        assert_eq!(out, b"abcde");
        assert!(w.is_finished());

        let mut w = BodyWriter::length(3);
        assert_eq!(w.whole(b"ab"), Err(Error::BodyTooShort));
        assert_eq!(w.whole(b"abcd"), Err(Error::BodyTooLong));
        w.whole(b"abc").unwrap();
        assert!(w.is_finished());
        assert_eq!(w.whole(b""), Err(Error::BodyFinished));
    }

    /// `whole` finishes a counted body but not one the close delimits (more
    /// may follow), and refuses a chunked one, which needs framing.
    #[test]
    fn a_whole_body_by_framing() {
        let mut w = BodyWriter::until_close();
        w.whole(b"abc").unwrap();
        assert!(!w.is_finished() && w.wants_data());
        let mut out = Vec::new();
        w.write(&mut out, b"def").unwrap();
        assert_eq!(out, b"def");
        w.finish(&mut out).unwrap();
        assert!(w.is_finished());

        let mut w = BodyWriter::chunked();
        assert_eq!(w.whole(b"abc"), Err(Error::BodyNotAllowed));
        assert_eq!(w.whole(b""), Err(Error::BodyNotAllowed));
        assert!(!w.is_finished() && w.wants_data());

        let mut w = BodyWriter::empty();
        w.whole(b"").unwrap();
        assert!(w.is_finished());
    }

    #[test]
    fn empty_refuses_bytes() {
        let mut out = Vec::new();
        let mut w = BodyWriter::empty();
        assert_eq!(w.write(&mut out, b"x"), Err(Error::BodyNotAllowed));
        w.write(&mut out, b"").unwrap();
        w.finish(&mut out).unwrap();
        assert!(out.is_empty());
    }

    #[test]
    fn frames() {
        let mut w = BodyWriter::chunked();
        let f = w.frame(b"0123456789abcdef").unwrap();
        assert_eq!(
            (f.prefix(), f.data(), f.suffix()),
            (&b"10\r\n"[..], &b"0123456789abcdef"[..], &b"\r\n"[..])
        );
        assert_eq!(f.len(), 22);
        assert!(!f.is_empty());
        let f = w.frame(b"").unwrap();
        assert!(f.is_empty());
        let mut w = BodyWriter::until_close();
        let f = w.frame(b"abc").unwrap();
        assert_eq!((f.prefix(), f.suffix()), (&b""[..], &b""[..]));
        assert!(!f.is_empty());
        w.finish(&mut Vec::new()).unwrap();
    }
}
