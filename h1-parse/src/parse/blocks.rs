//! The block cursor: masks of bytes that end a token and bytes that end a
//! value, for one 64-byte block at a time, streaming forward through a head
//! so each block is classified once.

use crate::scan::{low_bits, Block, Classify, Stop};

/// Masks of the 64 bytes at `base`: bit `i` of `nt` is set when byte
/// `base + i` is not a tchar, of `nv` when it may not be in a field value.
/// Past the end of the buffer every byte counts as both, so a scan stops at
/// `buf.len()` when nothing else stops it.
///
/// With `SHORT` the buffer is known to be shorter than a block: its one
/// block is classified once and the cursor never moves, so the walk carries
/// no code (and no vector constants) for moving it.
pub(super) struct Blocks<C, const SHORT: bool> {
    pub(super) c: C,
    pub(super) base: usize,
    pub(super) nt: u64,
    pub(super) nv: u64,
    /// The mask of the bytes that may not be in a request-target, over the
    /// 64 bytes at the cursor's first position, for the request line (the
    /// target usually lies in its first block): for a buffer shorter than a block always, with its
    /// past-the-end bits set; for a longer one only from
    /// [`Blocks::with_target`], else 0 (0 also when the block has no target
    /// stop: either way [`Blocks::target_end`] then scans on its own).
    non_target: u64,
}

impl<C: Classify, const SHORT: bool> Blocks<C, SHORT> {
    /// The cursor at the block starting at `at`.
    #[inline(always)]
    pub(super) fn new(c: C, buf: &[u8], at: usize) -> Self {
        Self::new_with(c, buf, at, false)
    }

    /// [`Blocks::new`], also classifying the first block's target bytes,
    /// from the same load.
    #[inline(always)]
    pub(super) fn with_target(c: C, buf: &[u8], at: usize) -> Self {
        Self::new_with(c, buf, at, true)
    }

    #[inline(always)]
    fn new_with(c: C, buf: &[u8], at: usize, target: bool) -> Self {
        debug_assert!(!SHORT || buf.len() < 64);
        if SHORT || buf.len() < 64 {
            // The only block this buffer has: `at <= buf.len() < 64`, and the
            // walk never moves the cursor past it.
            let [t, v, g] = c.short_masks(buf);
            let past_end = !low_bits(buf.len());
            let from_at = |m: u64| {
                if at > 0 {
                    // Bits shifted in from past the buffer are stops.
                    m >> at | !(u64::MAX >> at)
                } else {
                    m
                }
            };
            return Blocks {
                c,
                base: at,
                nt: from_at(t | past_end),
                nv: from_at(v | past_end),
                non_target: from_at(g | past_end),
            };
        }
        let mut b = Blocks {
            c,
            base: at,
            nt: 0,
            nv: 0,
            non_target: 0,
        };
        match buf.get(at..at + 64) {
            Some(blk) => {
                let blk: &Block = blk.try_into().unwrap_or(&[0; 64]);
                b.nt = c.non_token(blk);
                b.nv = c.non_value(blk);
                if target {
                    b.non_target = c.non_target(blk);
                }
            }
            None => {
                b.load(buf);
                if target {
                    b.non_target = tail_mask(c, buf, at, Stop::Target);
                }
            }
        }
        b
    }

    #[inline(always)]
    fn load(&mut self, buf: &[u8]) {
        if SHORT {
            // Never reached: a short buffer's cursor stays on its block.
            (self.nt, self.nv) = (u64::MAX, u64::MAX);
            return;
        }
        match buf.get(self.base..self.base + 64) {
            Some(b) => {
                let b: &Block = b.try_into().unwrap_or(&[0; 64]);
                self.nt = self.c.non_token(b);
                self.nv = self.c.non_value(b);
            }
            // The last block of a buffer of at least 64 bytes: its last 64
            // bytes classified and shifted. A shorter buffer never gets
            // here (its one block is classified by `new_with` and the
            // cursor never moves); were it to, every byte would be a stop,
            // which sends the walk to `slow_line`, right on any buffer. So
            // the walk's loop holds no copy of a short block (a `memcpy`
            // call, which would cost it registers).
            None if buf.len() >= 64 => {
                let (at, from) = (self.base, buf.len() - 64);
                let b: &Block = buf[from..].try_into().unwrap_or(&[0; 64]);
                let past_end = !low_bits(buf.len().saturating_sub(at));
                let shift = |m: u64| m.checked_shr((at - from) as u32).unwrap_or(0) | past_end;
                self.nt = shift(self.c.non_token(b));
                self.nv = shift(self.c.non_value(b));
            }
            None => (self.nt, self.nv) = (u64::MAX, u64::MAX),
        }
    }

    /// The first byte at or after `from` that may not be in a request-target
    /// (`buf.len()` when there is none). `from` is at or after the cursor's
    /// first position, and the cursor has not moved yet.
    #[inline(always)]
    pub(super) fn target_end(&self, buf: &[u8], from: usize) -> usize {
        let rel = from - self.base;
        if rel < 64 {
            let m = self.non_target >> rel;
            if m != 0 {
                return (from + m.trailing_zeros() as usize).min(buf.len());
            }
        }
        find(self.c, buf, from, Stop::Target)
    }

    /// Moves forward to the block holding `pos` (`pos >= base`), keeping the
    /// 64-byte stride so no block is classified twice.
    #[inline(always)]
    pub(super) fn seek(&mut self, buf: &[u8], pos: usize) {
        if SHORT {
            return;
        }
        let d = (pos - self.base) & !63;
        if d != 0 {
            self.base += d;
            self.load(buf);
        }
    }

    /// The next block.
    #[inline(always)]
    pub(super) fn advance(&mut self, buf: &[u8]) {
        if SHORT {
            // Never reached (see `load`): past the end, every byte stops.
            (self.nt, self.nv) = (u64::MAX, u64::MAX);
            return;
        }
        self.base += 64;
        self.load(buf);
    }
}

/// The `stop` mask of the 64 bytes at `at` when fewer than 64 remain: the
/// last 64 bytes of the buffer classified and shifted (no copy), or for a
/// buffer shorter than a block a zero-padded copy; every byte past the end is
/// a stop.
#[inline(always)]
fn tail_mask<C: Classify>(c: C, buf: &[u8], at: usize, stop: Stop) -> u64 {
    if at >= buf.len() {
        return u64::MAX;
    }
    let past_end = !low_bits(buf.len() - at);
    if buf.len() >= 64 {
        let from = buf.len() - 64;
        let b: &Block = buf[from..].try_into().unwrap_or(&[0; 64]);
        return stop.mask(c, b) >> (at - from) | past_end;
    }
    c.short_mask(&buf[at..], stop) | past_end
}

/// The `stop` mask of the 64 bytes at `at`.
#[inline(always)]
pub(super) fn mask_at<C: Classify>(c: C, buf: &[u8], at: usize, stop: Stop) -> u64 {
    match buf.get(at..at + 64) {
        Some(b) => stop.mask(c, b.try_into().unwrap_or(&[0; 64])),
        None => tail_mask(c, buf, at, stop),
    }
}

/// The first `stop` byte at or after `from`, or `buf.len()` when there is
/// none.
#[inline(always)]
pub(super) fn find<C: Classify>(c: C, buf: &[u8], mut from: usize, stop: Stop) -> usize {
    loop {
        let m = mask_at(c, buf, from, stop);
        if m != 0 {
            return (from + m.trailing_zeros() as usize).min(buf.len());
        }
        from += 64;
    }
}
