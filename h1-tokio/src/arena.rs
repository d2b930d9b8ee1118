//! Where request heads go for the `http` types: blocks a connection
//! copies its heads into, handed out as `Bytes` that the target and the
//! field values slice.
//!
//! A head could leave the receive buffer without a copy
//! ([`ServerConn::freeze`](h1_conn::ServerConn::freeze)), but the buffer
//! lends only zeroed memory, and regaining the room a frozen head took
//! means zeroing it again: a byte written for each byte received, where
//! the copy here writes each byte of the head once, into memory that
//! needs no zeroing. The block is reused in place once every head cut
//! from it is dropped (the usual case: a request is dropped when it is
//! answered), so a head costs no allocation.

use bytes::{Bytes, BytesMut};

/// A new block's size: a few heads at the least.
const BLOCK: usize = 8 * 1024;

/// The block heads are copied into, per connection.
#[derive(Debug, Default)]
pub(crate) struct HeadArena {
    block: BytesMut,
}

impl HeadArena {
    /// `head` in `Bytes` of its own, cut from the block.
    pub(crate) fn copy(&mut self, head: &[u8]) -> Bytes {
        if self.block.capacity() < head.len() && !self.block.try_reclaim(head.len()) {
            // Heads cut from this block are still held (by requests being
            // served): it goes with the last of them.
            self.block = BytesMut::with_capacity(head.len().max(BLOCK));
        }
        self.block.extend_from_slice(head);
        self.block.split().freeze()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_dropped_in_time_reuse_the_block() {
        let mut arena = HeadArena::default();
        let first = arena.copy(b"GET / HTTP/1.1");
        let base = first.as_ptr() as usize;
        drop(first);
        for i in 0..2_000 {
            let head = arena.copy(format!("GET /{i} HTTP/1.1").as_bytes());
            assert_eq!(&head[..5], b"GET /");
            let at = head.as_ptr() as usize;
            assert!((base..base + BLOCK).contains(&at), "a new block at {i}");
        }
    }

    #[test]
    fn heads_still_held_keep_their_bytes_when_a_new_block_is_taken() {
        let mut arena = HeadArena::default();
        let held: Vec<Bytes> = (0..3_000)
            .map(|i| arena.copy(format!("head {i:05}").as_bytes()))
            .collect();
        for (i, head) in held.iter().enumerate() {
            assert_eq!(head, format!("head {i:05}").as_bytes());
        }
        let big = arena.copy(&[b'x'; 3 * BLOCK]);
        assert_eq!(big.len(), 3 * BLOCK);
    }
}
