//! The receive buffer a connection manages and lends out for reading.

/// With `bytes`, the storage is a `BytesMut`, so consumed bytes can be split
/// off and frozen without a copy ([`RecvBuf::freeze`]).
#[cfg(feature = "bytes")]
type Storage = bytes::BytesMut;
#[cfg(not(feature = "bytes"))]
type Storage = alloc::vec::Vec<u8>;

#[cfg(feature = "bytes")]
fn zeroed(n: usize) -> Storage {
    bytes::BytesMut::zeroed(n)
}
#[cfg(not(feature = "bytes"))]
fn zeroed(n: usize) -> Storage {
    alloc::vec![0; n]
}

/// Received bytes: `[0, pos)` consumed (still readable until the next
/// read), `[pos, filled)` not yet consumed, `[filled, len)` free. The
/// buffer is zero-filled when it grows, so lending the free part needs no
/// `unsafe`; it never grows past `limit`.
///
/// Its length is `size` once room is made: the initial length, doubled
/// (up to the limit) whenever a read fills all the room it was lent, so a
/// client that sends faster than reads take (a large body, a pipelined
/// flood) is read in larger pieces, as many bytes a read as it has sent.
#[derive(Debug)]
pub(crate) struct RecvBuf {
    buf: Storage,
    pos: usize,
    filled: usize,
    limit: usize,
    /// The length it is given when it is short of room (after a
    /// [`freeze`](Self::freeze) took part of it, or once a read has filled
    /// it).
    size: usize,
    /// `size` grew since room was last made.
    grown: bool,
    /// Whether bytes were moved since the last call to `moved`.
    moved: bool,
}

impl RecvBuf {
    pub(crate) fn new(initial: usize, limit: usize) -> RecvBuf {
        // A huge initial size ("as large as it takes") starts at 1 MiB and
        // grows as needed.
        let initial = initial.clamp(1, limit.clamp(1, 1 << 20));
        RecvBuf {
            buf: zeroed(initial),
            pos: 0,
            filled: 0,
            limit: limit.max(initial),
            size: initial,
            grown: false,
            moved: false,
        }
    }

    /// Every byte still in the buffer: the base of all spans.
    #[inline]
    pub(crate) fn all(&self) -> &[u8] {
        &self.buf[..self.filled]
    }

    /// Where the unconsumed bytes start.
    #[inline]
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    #[inline]
    pub(crate) fn unconsumed(&self) -> &[u8] {
        &self.buf[self.pos..self.filled]
    }

    #[inline]
    pub(crate) fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.filled);
    }

    /// The free part, after moving the unconsumed bytes to the front and,
    /// when no room is left, growing (up to the limit). Empty when the
    /// buffer is full at its limit.
    pub(crate) fn spare(&mut self) -> &mut [u8] {
        self.make_room();
        &mut self.buf[self.filled..]
    }

    /// Compacts and grows as [`spare`](Self::spare) does.
    pub(crate) fn make_room(&mut self) {
        if self.pos > 0 {
            // Usually nothing is left after the last request: no copy.
            if self.pos < self.filled {
                self.buf.copy_within(self.pos..self.filled, 0);
            }
            self.filled -= self.pos;
            self.pos = 0;
            self.moved = true;
        }
        if self.filled == self.buf.len()
            && self.buf.len() >= self.size
            && self.buf.len() < self.limit
        {
            // Full at its size with bytes not yet taken (a head longer than
            // it): it grows.
            let grown = self.buf.len().saturating_mul(2).min(self.limit);
            self.size = grown;
            self.buf.resize(grown, 0);
        } else if self.buf.len() < self.size
            && (self.grown || self.buf.len() - self.filled < self.size / 4)
        {
            self.regain();
        }
        self.grown = false;
    }

    /// Gives the buffer its `size`: after a read that filled it, or after
    /// `freeze` has shortened it. With `bytes`, the unconsumed bytes move
    /// to the front of its allocation when the bytes frozen out of it are
    /// all gone (no allocation: the usual case, once a request has been
    /// answered) and it has the room, else to a new one.
    fn regain(&mut self) {
        #[cfg(feature = "bytes")]
        self.buf.truncate(self.filled);
        self.buf.resize(self.size.max(self.filled), 0);
        self.moved = true;
    }

    /// The free part, as it is.
    pub(crate) fn free(&mut self) -> &mut [u8] {
        &mut self.buf[self.filled..]
    }

    /// Marks `n` bytes of the free part as received.
    pub(crate) fn fill(&mut self, n: usize) {
        let lent = self.buf.len() - self.filled;
        self.filled = self.filled.saturating_add(n).min(self.buf.len());
        if n >= lent && lent > 0 && self.size < self.limit {
            // The client sends faster than the reads take: lend more.
            self.size = self.buf.len().saturating_mul(2).min(self.limit);
            self.grown = true;
        }
    }

    /// Copies as much of `data` as fits; returns how much.
    pub(crate) fn feed(&mut self, data: &[u8]) -> usize {
        let mut done = 0;
        while done < data.len() {
            let spare = self.spare();
            let n = spare.len().min(data.len() - done);
            if n == 0 {
                break;
            }
            spare[..n].copy_from_slice(&data[done..done + n]);
            self.fill(n);
            done += n;
        }
        done
    }

    /// Splits off every consumed byte as `Bytes`, without a copy: spans
    /// handed out so far index the result. The unconsumed bytes move to
    /// offset 0. The buffer is what is left of its allocation: reads lend
    /// less until [`make_room`](Self::make_room) gives its length back,
    /// which needs no allocation once the frozen bytes are dropped, so a
    /// head or a body chunk frozen for each request costs none.
    #[cfg(feature = "bytes")]
    pub(crate) fn freeze(&mut self) -> bytes::Bytes {
        let taken = self.buf.split_to(self.pos).freeze();
        self.filled -= self.pos;
        self.pos = 0;
        self.moved = true;
        taken
    }

    /// Whether bytes moved (invalidating spans) since the last call.
    pub(crate) fn take_moved(&mut self) -> bool {
        core::mem::take(&mut self.moved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compacts_grows_and_stops_at_the_limit() {
        let mut b = RecvBuf::new(4, 10);
        assert_eq!(b.feed(b"abcdef"), 6);
        assert_eq!(b.unconsumed(), b"abcdef");
        b.consume(4);
        assert_eq!(b.feed(b"ghijklmnop"), 8, "10 at most: ef + 8");
        assert_eq!(b.unconsumed(), b"efghijklmn");
        assert!(b.take_moved());
        assert!(b.spare().is_empty());
        b.consume(100);
        assert!(b.unconsumed().is_empty());
        assert_eq!(b.spare().len(), 10);
    }
}
