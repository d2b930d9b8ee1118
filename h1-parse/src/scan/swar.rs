//! The portable path: eight bytes per `u64` ("SIMD within a register"), used
//! wherever no vector path is available. Each class is a union of byte ranges
//! tested exactly per byte, so no carry crosses from one byte to the next.

use super::{Block, Classify};

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// High bit of each byte set where that byte (of `x7`, all bytes < 0x80) is
/// `>= a`; `a` is at most 0x80. Each byte sums to at most 0x7f + 0x80, so no
/// byte carries into the next.
#[inline(always)]
const fn ge(x7: u64, a: u8) -> u64 {
    x7.wrapping_add((0x80 - a as u64) * LO) & HI
}

/// High bit set where the byte is in `a..=b` (`b < 0x80`).
#[inline(always)]
const fn within(x7: u64, a: u8, b: u8) -> u64 {
    ge(x7, a) & !ge(x7, b + 1)
}

/// Packs the high bit of each byte into eight bits, byte 0 in bit 0.
#[inline(always)]
const fn pack(m: u64) -> u64 {
    ((m >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

#[inline(always)]
fn each_word(b: &Block, f: impl Fn(u64, u64) -> u64) -> u64 {
    let mut out = 0u64;
    let mut i = 0;
    while i < 8 {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[i * 8..i * 8 + 8]);
        let x = u64::from_le_bytes(w);
        let high = x & HI;
        out |= pack(f(x & !HI, high) & HI) << (i * 8);
        i += 1;
    }
    out
}

/// The SWAR classifier.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Swar;

impl Classify for Swar {
    #[inline(always)]
    fn non_token(self, b: &Block) -> u64 {
        // Not a tchar: outside 0x21..=0x7e, or one of the delimiters
        // "(),/:;<=>?@[\]{} (RFC 9110 §5.6.2).
        each_word(b, |x7, high| {
            high | !ge(x7, 0x21)
                | ge(x7, 0x7f)
                | within(x7, b'"', b'"')
                | within(x7, b'(', b')')
                | within(x7, b',', b',')
                | within(x7, b'/', b'/')
                | within(x7, b':', b'@')
                | within(x7, b'[', b']')
                | within(x7, b'{', b'{')
                | within(x7, b'}', b'}')
        })
    }

    #[inline(always)]
    fn non_value(self, b: &Block) -> u64 {
        // Controls other than HTAB, and DEL; obs-text (high bit) is fine.
        each_word(b, |x7, high| {
            ((!ge(x7, 0x20) & !within(x7, b'\t', b'\t')) | within(x7, 0x7f, 0x7f)) & !high
        })
    }

    #[inline(always)]
    fn non_target(self, b: &Block) -> u64 {
        each_word(b, |x7, high| {
            high | !ge(x7, 0x21) | within(x7, 0x7f, 0x7f) | within(x7, b'#', b'#')
        })
    }

    #[inline(always)]
    fn non_host_name(self, b: &Block) -> u64 {
        each_word(b, |x7, high| {
            !(within(x7, b'-', b'.')
                | within(x7, b'0', b'9')
                | within(x7, b'A', b'Z')
                | within(x7, b'a', b'z'))
                | high
        })
    }

    #[inline(always)]
    fn lf(self, b: &Block) -> u64 {
        each_word(b, |x7, high| within(x7, b'\n', b'\n') & !high)
    }
}
