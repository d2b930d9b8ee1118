//! The x86_64 vector paths: AVX-512F/BW (64 lanes, masks straight from the
//! compares), AVX2 (32 lanes) and SSE4.2 with SSSE3 (16 lanes). This is the
//! only module of the workspace with `unsafe`: intrinsics need the CPU
//! feature they were compiled for, and the types here can only be made once
//! that feature was detected.
//!
//! Every class uses the same predicate as the scalar twin; the token class
//! comes from a nibble lookup generated from `h1_headers::chars::TOKEN`.

use core::arch::x86_64::*;

use super::{Block, Classify, Kernel, Small, Stop};
use h1_headers::chars::TOKEN;

/// Row bit for each high nibble that can hold a class member (0x2_ to
/// 0x7_): both classes looked up by nibble live in those six rows.
const fn hi_bit(hi: usize) -> u8 {
    if hi >= 2 && hi <= 7 {
        1 << (hi - 2)
    } else {
        0
    }
}

/// The two nibble tables of a byte class that lies within rows 0x2_ to
/// 0x7_: `hi[h] & lo[l] != 0` exactly when `h << 4 | l` is in the class.
const fn nibble_tables(class: &[bool; 256]) -> ([u8; 16], [u8; 16]) {
    let mut lo = [0u8; 16];
    let mut hi = [0u8; 16];
    let mut h = 0;
    while h < 16 {
        hi[h] = hi_bit(h);
        let mut l = 0;
        while l < 16 {
            if class[h << 4 | l] {
                lo[l] |= hi_bit(h);
            }
            l += 1;
        }
        h += 1;
    }
    (lo, hi)
}

/// `scalar::is_host_name_byte` as a table.
const HOST_NAME: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = super::scalar::is_host_name_byte(b as u8);
        b += 1;
    }
    t
};

const TOKEN_TABLES: ([u8; 16], [u8; 16]) = nibble_tables(&TOKEN);
const TOKEN_LO: [u8; 16] = TOKEN_TABLES.0;
const TOKEN_HI: [u8; 16] = TOKEN_TABLES.1;
const HOST_TABLES: ([u8; 16], [u8; 16]) = nibble_tables(&HOST_NAME);
const HOST_LO: [u8; 16] = HOST_TABLES.0;
const HOST_HI: [u8; 16] = HOST_TABLES.1;

// No tchar and no host name byte lives outside rows 2..=7, so the tables
// are exact; the tests below check all 256 bytes of both.

/// Proof that AVX2 is available.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(());

impl Avx2 {
    /// `Some` when the CPU runs AVX2.
    #[inline]
    pub(crate) fn detect() -> Option<Avx2> {
        #[cfg(feature = "std")]
        {
            if std::is_x86_feature_detected!("avx2") {
                return Some(Avx2(()));
            }
            None
        }
        #[cfg(not(feature = "std"))]
        {
            if cfg!(target_feature = "avx2") {
                Some(Avx2(()))
            } else {
                None
            }
        }
    }
}

/// Proof that SSE4.2 and SSSE3 are available.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sse42(());

impl Sse42 {
    /// `Some` when the CPU runs SSE4.2 and SSSE3.
    #[inline]
    pub(crate) fn detect() -> Option<Sse42> {
        #[cfg(feature = "std")]
        {
            if std::is_x86_feature_detected!("sse4.2") && std::is_x86_feature_detected!("ssse3") {
                return Some(Sse42(()));
            }
            None
        }
        #[cfg(not(feature = "std"))]
        {
            if cfg!(all(target_feature = "sse4.2", target_feature = "ssse3")) {
                Some(Sse42(()))
            } else {
                None
            }
        }
    }
}

macro_rules! table32 {
    ($t:expr) => {
        _mm256_setr_epi8(
            $t[0] as i8,
            $t[1] as i8,
            $t[2] as i8,
            $t[3] as i8,
            $t[4] as i8,
            $t[5] as i8,
            $t[6] as i8,
            $t[7] as i8,
            $t[8] as i8,
            $t[9] as i8,
            $t[10] as i8,
            $t[11] as i8,
            $t[12] as i8,
            $t[13] as i8,
            $t[14] as i8,
            $t[15] as i8,
            $t[0] as i8,
            $t[1] as i8,
            $t[2] as i8,
            $t[3] as i8,
            $t[4] as i8,
            $t[5] as i8,
            $t[6] as i8,
            $t[7] as i8,
            $t[8] as i8,
            $t[9] as i8,
            $t[10] as i8,
            $t[11] as i8,
            $t[12] as i8,
            $t[13] as i8,
            $t[14] as i8,
            $t[15] as i8,
        )
    };
}

macro_rules! table16 {
    ($t:expr) => {
        _mm_setr_epi8(
            $t[0] as i8,
            $t[1] as i8,
            $t[2] as i8,
            $t[3] as i8,
            $t[4] as i8,
            $t[5] as i8,
            $t[6] as i8,
            $t[7] as i8,
            $t[8] as i8,
            $t[9] as i8,
            $t[10] as i8,
            $t[11] as i8,
            $t[12] as i8,
            $t[13] as i8,
            $t[14] as i8,
            $t[15] as i8,
        )
    };
}

// Register intrinsics sit in `unsafe` blocks for compilers before 1.87,
// to which they are unsafe calls even here; later ones call the blocks unused.
#[allow(unused_unsafe)]
mod avx2 {
    use super::*;

    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn halves(b: &Block) -> (__m256i, __m256i) {
        // SAFETY: `b` is 64 readable bytes; unaligned loads of 32 at 0 and 32.
        unsafe {
            (
                _mm256_loadu_si256(b.as_ptr().cast()),
                _mm256_loadu_si256(b.as_ptr().add(32).cast()),
            )
        }
    }

    /// `buf` (shorter than a block) padded with zero bytes to 64, as two
    /// halves, without copying it: masked loads of its whole 4-byte words
    /// (masked-off lanes are not read and cannot fault), the last 0 to 3
    /// bytes put into their lane from a scalar. A copy through a stack buffer
    /// would cost a store-forwarding stall when the halves are loaded.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn short_halves(buf: &[u8]) -> (__m256i, __m256i) {
        debug_assert!(buf.len() < 64);
        let words = buf.len() / 4;
        let mut tail = 0u32;
        for (i, &b) in buf[words * 4..].iter().enumerate() {
            tail |= u32::from(b) << (8 * i);
        }
        let p = buf.as_ptr().cast::<i32>();
        // SAFETY: lane `i` is loaded only when `i < words`, i.e. when bytes
        // `4 * i..4 * i + 4` are in `buf`; the second pointer is made with
        // `wrapping_add` and only dereferenced through such lanes. The rest
        // are register intrinsics of AVX2, which this function enables.
        unsafe {
            let n = _mm256_set1_epi32(words as i32);
            let idx_lo = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            let idx_hi = _mm256_setr_epi32(8, 9, 10, 11, 12, 13, 14, 15);
            let t = _mm256_set1_epi32(tail as i32);
            let lo = _mm256_maskload_epi32(p, _mm256_cmpgt_epi32(n, idx_lo));
            let hi = _mm256_maskload_epi32(p.wrapping_add(8), _mm256_cmpgt_epi32(n, idx_hi));
            (
                _mm256_or_si256(lo, _mm256_and_si256(t, _mm256_cmpeq_epi32(n, idx_lo))),
                _mm256_or_si256(hi, _mm256_and_si256(t, _mm256_cmpeq_epi32(n, idx_hi))),
            )
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn short_masks(buf: &[u8]) -> [u64; 3] {
        // SAFETY: AVX2 is enabled for this function; see `short_halves`.
        unsafe {
            let (x, y) = short_halves(buf);
            [
                join(non_token32(x), non_token32(y)),
                join(non_value32(x), non_value32(y)),
                join(non_target32(x), non_target32(y)),
            ]
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn join(lo: __m256i, hi: __m256i) -> u64 {
        // SAFETY: register intrinsics only, of the features this function
        // enables (they are safe calls here from Rust 1.87 on).
        unsafe {
            let lo = _mm256_movemask_epi8(lo) as u32 as u64;
            let hi = _mm256_movemask_epi8(hi) as u32 as u64;
            lo | hi << 32
        }
    }

    /// Bytes outside the class of the nibble tables `lo_t`, `hi_t`.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn not_in32(v: __m256i, lo_t: [u8; 16], hi_t: [u8; 16]) -> __m256i {
        // SAFETY: register intrinsics only, of the features this function
        // enables (they are safe calls here from Rust 1.87 on).
        unsafe {
            let nib = _mm256_set1_epi8(0x0f);
            let lo = _mm256_and_si256(v, nib);
            let hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), nib);
            let t = _mm256_and_si256(
                _mm256_shuffle_epi8(table32!(lo_t), lo),
                _mm256_shuffle_epi8(table32!(hi_t), hi),
            );
            _mm256_cmpeq_epi8(t, _mm256_setzero_si256())
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn non_token32(v: __m256i) -> __m256i {
        // SAFETY: AVX2 is enabled for this function.
        unsafe { not_in32(v, TOKEN_LO, TOKEN_HI) }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn non_host_name32(v: __m256i) -> __m256i {
        // SAFETY: AVX2 is enabled for this function.
        unsafe { not_in32(v, HOST_LO, HOST_HI) }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn non_value32(v: __m256i) -> __m256i {
        // SAFETY: register intrinsics only, of the features this function
        // enables (they are safe calls here from Rust 1.87 on).
        unsafe {
            let le_1f = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1f)), v);
            let tab = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\t' as i8));
            let del = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0x7f));
            _mm256_or_si256(_mm256_andnot_si256(tab, le_1f), del)
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn non_target32(v: __m256i) -> __m256i {
        // SAFETY: register intrinsics only, of the features this function
        // enables (they are safe calls here from Rust 1.87 on).
        unsafe {
            // Signed compare: bytes >= 0x80 are negative, so "< 0x21" catches them too.
            let low = _mm256_cmpgt_epi8(_mm256_set1_epi8(0x21), v);
            let del = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0x7f));
            let hash = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'#' as i8));
            _mm256_or_si256(low, _mm256_or_si256(del, hash))
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn non_token(b: &Block) -> u64 {
        // SAFETY: AVX2 is enabled for this function; see `halves`.
        unsafe {
            let (x, y) = halves(b);
            join(non_token32(x), non_token32(y))
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn non_value(b: &Block) -> u64 {
        // SAFETY: as in `non_token`.
        unsafe {
            let (x, y) = halves(b);
            join(non_value32(x), non_value32(y))
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn non_target(b: &Block) -> u64 {
        // SAFETY: as in `non_token`.
        unsafe {
            let (x, y) = halves(b);
            join(non_target32(x), non_target32(y))
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn non_host_name(b: &Block) -> u64 {
        // SAFETY: as in `non_token`.
        unsafe {
            let (x, y) = halves(b);
            join(non_host_name32(x), non_host_name32(y))
        }
    }

    /// The 32 bytes at `from` (`from + 32 <= buf.len()`).
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn load32(buf: &[u8], from: usize) -> __m256i {
        debug_assert!(from + 32 <= buf.len());
        // SAFETY: the caller keeps the 32 bytes inside `buf`.
        unsafe { _mm256_loadu_si256(buf.as_ptr().add(from).cast()) }
    }

    /// Where 32 bytes holding `buf[at..at + len]` (`len <= 32`) can be
    /// loaded without leaving `buf`: ending at `at + len`, or starting at
    /// `at`; `None` when `buf` is too short for either, or does not hold
    /// those bytes.
    #[inline(always)]
    pub(super) fn window32(buf: &[u8], at: usize, len: usize) -> Option<usize> {
        let end = at.checked_add(len)?;
        if len > 32 || end > buf.len() {
            None
        } else if end >= 32 {
            Some(end - 32)
        } else if at + 32 <= buf.len() {
            Some(at)
        } else {
            None
        }
    }

    /// `Classify::mask_in` for the host name class over the window
    /// `from..from + 32` of [`window32`]: one load, no copy.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn host_name_in32(buf: &[u8], from: usize, at: usize, len: usize) -> u64 {
        // SAFETY: `from` comes from `window32`, which checked that
        // `from + 32 <= buf.len()`; the rest are AVX2 register intrinsics.
        let m = unsafe { _mm256_movemask_epi8(non_host_name32(load32(buf, from))) as u32 };
        (u64::from(m) >> (at - from)) & super::super::low_bits(len)
    }

    /// `Classify::small`: the first 64 bytes as two 32-byte loads (for a
    /// buffer of 32 to 63 bytes the second ends at its end and its mask is
    /// shifted into place); the head's end from the CR and LF masks first.
    /// A buffer under 32 bytes is left to the general walk.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn small(buf: &[u8]) -> Option<Small> {
        let len = buf.len();
        if len < 32 {
            return None;
        }
        let second = if len >= 64 { 32 } else { len - 32 };
        // SAFETY: both loads lie inside `buf` (`second + 32 <= len`); the
        // rest are AVX2 register intrinsics.
        unsafe {
            let (x, y) = (load32(buf, 0), load32(buf, second));
            // The second half's mask, placed at bits 32..64 (bytes past
            // the end of a short buffer clear).
            let join2 = |a: __m256i, b: __m256i| {
                let lo = u64::from(_mm256_movemask_epi8(a) as u32);
                let hi = u64::from(_mm256_movemask_epi8(b) as u32);
                let hi = if len >= 64 { hi } else { hi >> (64 - len) };
                lo | hi << 32
            };
            let eq = |b: u8| {
                let k = _mm256_set1_epi8(b as i8);
                join2(_mm256_cmpeq_epi8(x, k), _mm256_cmpeq_epi8(y, k))
            };
            let (cr, lf) = (eq(b'\r'), eq(b'\n'));
            let crlf = cr & lf >> 1;
            if crlf & crlf >> 2 == 0 {
                return None;
            }
            let sp = eq(b' ');
            let digit = |v: __m256i| {
                let d = _mm256_sub_epi8(v, _mm256_set1_epi8(b'0' as i8));
                // Not a digit: the byte minus '0' is 10 or more, unsigned.
                _mm256_cmpeq_epi8(_mm256_max_epu8(d, _mm256_set1_epi8(10)), d)
            };
            Small::new(
                cr,
                lf,
                sp,
                sp | eq(b'\t'),
                eq(b':'),
                join2(non_token32(x), non_token32(y)),
                join2(non_value32(x), non_value32(y)),
                join2(non_target32(x), non_target32(y)),
                join2(non_host_name32(x), non_host_name32(y)),
                join2(digit(x), digit(y)),
            )
        }
    }

    /// The `stop` mask of `buf` (shorter than a block) padded with zeros.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn short_mask(buf: &[u8], stop: Stop) -> u64 {
        // SAFETY: AVX2 is enabled for this function; see `short_halves`.
        unsafe {
            let (x, y) = short_halves(buf);
            let class = |v| match stop {
                Stop::Token => non_token32(v),
                Stop::Value => non_value32(v),
                Stop::Target => non_target32(v),
                Stop::HostName => non_host_name32(v),
            };
            join(class(x), class(y))
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn lf(b: &Block) -> u64 {
        // SAFETY: as in `non_token`.
        unsafe {
            let (x, y) = halves(b);
            let nl = _mm256_set1_epi8(b'\n' as i8);
            join(_mm256_cmpeq_epi8(x, nl), _mm256_cmpeq_epi8(y, nl))
        }
    }
}

// Register intrinsics sit in `unsafe` blocks for compilers before 1.87,
// to which they are unsafe calls even here; later ones call the blocks unused.
#[allow(unused_unsafe)]
mod sse {
    use super::*;

    #[inline]
    #[target_feature(enable = "sse4.2,ssse3")]
    unsafe fn quarters(b: &Block) -> [__m128i; 4] {
        // SAFETY: `b` is 64 readable bytes; unaligned loads of 16 at 0, 16, 32, 48.
        unsafe {
            let p = b.as_ptr();
            [
                _mm_loadu_si128(p.cast()),
                _mm_loadu_si128(p.add(16).cast()),
                _mm_loadu_si128(p.add(32).cast()),
                _mm_loadu_si128(p.add(48).cast()),
            ]
        }
    }

    #[inline]
    #[target_feature(enable = "sse4.2,ssse3")]
    unsafe fn join(m: [__m128i; 4]) -> u64 {
        // SAFETY: register intrinsics only, of the features this function
        // enables (they are safe calls here from Rust 1.87 on).
        unsafe {
            let mut out = 0u64;
            let mut i = 0;
            while i < 4 {
                out |= (_mm_movemask_epi8(m[i]) as u16 as u64) << (16 * i);
                i += 1;
            }
            out
        }
    }

    /// Bytes outside the class of the nibble tables `lo_t`, `hi_t`.
    #[inline]
    #[target_feature(enable = "sse4.2,ssse3")]
    unsafe fn not_in16(v: __m128i, lo_t: [u8; 16], hi_t: [u8; 16]) -> __m128i {
        // SAFETY: register intrinsics only, of the features this function
        // enables (they are safe calls here from Rust 1.87 on).
        unsafe {
            let nib = _mm_set1_epi8(0x0f);
            let lo = _mm_and_si128(v, nib);
            let hi = _mm_and_si128(_mm_srli_epi16(v, 4), nib);
            let t = _mm_and_si128(
                _mm_shuffle_epi8(table16!(lo_t), lo),
                _mm_shuffle_epi8(table16!(hi_t), hi),
            );
            _mm_cmpeq_epi8(t, _mm_setzero_si128())
        }
    }

    #[inline]
    #[target_feature(enable = "sse4.2,ssse3")]
    unsafe fn non_token16(v: __m128i) -> __m128i {
        // SAFETY: SSE4.2 and SSSE3 are enabled for this function.
        unsafe { not_in16(v, TOKEN_LO, TOKEN_HI) }
    }

    #[inline]
    #[target_feature(enable = "sse4.2,ssse3")]
    unsafe fn non_value16(v: __m128i) -> __m128i {
        // SAFETY: register intrinsics only, of the features this function
        // enables (they are safe calls here from Rust 1.87 on).
        unsafe {
            let le_1f = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
            let tab = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\t' as i8));
            let del = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f));
            _mm_or_si128(_mm_andnot_si128(tab, le_1f), del)
        }
    }

    #[inline]
    #[target_feature(enable = "sse4.2,ssse3")]
    unsafe fn non_target16(v: __m128i) -> __m128i {
        // SAFETY: register intrinsics only, of the features this function
        // enables (they are safe calls here from Rust 1.87 on).
        unsafe {
            let low = _mm_cmpgt_epi8(_mm_set1_epi8(0x21), v);
            let del = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f));
            let hash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'#' as i8));
            _mm_or_si128(low, _mm_or_si128(del, hash))
        }
    }

    #[inline]
    #[target_feature(enable = "sse4.2,ssse3")]
    pub(super) unsafe fn non_token(b: &Block) -> u64 {
        // SAFETY: SSE4.2 and SSSE3 are enabled for this function; see `quarters`.
        unsafe {
            let [a, b, c, d] = quarters(b);
            join([
                non_token16(a),
                non_token16(b),
                non_token16(c),
                non_token16(d),
            ])
        }
    }

    #[inline]
    #[target_feature(enable = "sse4.2,ssse3")]
    pub(super) unsafe fn non_value(b: &Block) -> u64 {
        // SAFETY: as in `non_token`.
        unsafe {
            let [a, b, c, d] = quarters(b);
            join([
                non_value16(a),
                non_value16(b),
                non_value16(c),
                non_value16(d),
            ])
        }
    }

    #[inline]
    #[target_feature(enable = "sse4.2,ssse3")]
    pub(super) unsafe fn non_target(b: &Block) -> u64 {
        // SAFETY: as in `non_token`.
        unsafe {
            let [a, b, c, d] = quarters(b);
            join([
                non_target16(a),
                non_target16(b),
                non_target16(c),
                non_target16(d),
            ])
        }
    }

    #[inline]
    #[target_feature(enable = "sse4.2,ssse3")]
    pub(super) unsafe fn non_host_name(b: &Block) -> u64 {
        // SAFETY: as in `non_token`.
        unsafe {
            let [a, b, c, d] = quarters(b);
            join([
                not_in16(a, HOST_LO, HOST_HI),
                not_in16(b, HOST_LO, HOST_HI),
                not_in16(c, HOST_LO, HOST_HI),
                not_in16(d, HOST_LO, HOST_HI),
            ])
        }
    }

    #[inline]
    #[target_feature(enable = "sse4.2,ssse3")]
    pub(super) unsafe fn lf(b: &Block) -> u64 {
        // SAFETY: as in `non_token`.
        unsafe {
            let nl = _mm_set1_epi8(b'\n' as i8);
            let [a, b, c, d] = quarters(b);
            join([
                _mm_cmpeq_epi8(a, nl),
                _mm_cmpeq_epi8(b, nl),
                _mm_cmpeq_epi8(c, nl),
                _mm_cmpeq_epi8(d, nl),
            ])
        }
    }
}

impl Classify for Avx2 {
    #[inline(always)]
    fn non_token(self, b: &Block) -> u64 {
        // SAFETY: an `Avx2` exists only once AVX2 was detected (see `detect`).
        unsafe { avx2::non_token(b) }
    }
    #[inline(always)]
    fn non_value(self, b: &Block) -> u64 {
        // SAFETY: as above.
        unsafe { avx2::non_value(b) }
    }
    #[inline(always)]
    fn non_target(self, b: &Block) -> u64 {
        // SAFETY: as above.
        unsafe { avx2::non_target(b) }
    }
    #[inline(always)]
    fn non_host_name(self, b: &Block) -> u64 {
        // SAFETY: as above.
        unsafe { avx2::non_host_name(b) }
    }
    #[inline(always)]
    fn lf(self, b: &Block) -> u64 {
        // SAFETY: as above.
        unsafe { avx2::lf(b) }
    }
    #[inline(always)]
    fn short_mask(self, buf: &[u8], stop: Stop) -> u64 {
        if buf.len() >= 64 {
            let mut tmp = [0u8; 64];
            return stop.mask(self, super::block_at(buf, 0, &mut tmp));
        }
        // SAFETY: as above; `buf` is shorter than a block.
        unsafe { avx2::short_mask(buf, stop) }
    }
    #[inline(always)]
    fn small(self, buf: &[u8]) -> Option<Small> {
        // SAFETY: as above.
        unsafe { avx2::small(buf) }
    }
    #[inline(always)]
    fn mask_in(self, buf: &[u8], at: usize, len: usize, stop: Stop) -> u64 {
        let len = len.min(buf.len().saturating_sub(at));
        if let (Stop::HostName, Some(from)) = (stop, avx2::window32(buf, at, len)) {
            // SAFETY: as above; `from` is a window inside `buf`.
            return unsafe { avx2::host_name_in32(buf, from, at, len) };
        }
        let mut tmp = [0u8; 64];
        let b = super::block_at(buf, at, &mut tmp);
        stop.mask(self, b) & super::low_bits(len)
    }
    #[inline(always)]
    fn short_masks(self, buf: &[u8]) -> [u64; 3] {
        if buf.len() >= 64 {
            // Not a short buffer: the general (copying) definition.
            let mut tmp = [0u8; 64];
            let b = super::block_at(buf, 0, &mut tmp);
            return [self.non_token(b), self.non_value(b), self.non_target(b)];
        }
        // SAFETY: as above; `buf` is shorter than a block.
        unsafe { avx2::short_masks(buf) }
    }
}

impl Classify for Sse42 {
    #[inline(always)]
    fn non_token(self, b: &Block) -> u64 {
        // SAFETY: an `Sse42` exists only once SSE4.2 and SSSE3 were detected.
        unsafe { sse::non_token(b) }
    }
    #[inline(always)]
    fn non_value(self, b: &Block) -> u64 {
        // SAFETY: as above.
        unsafe { sse::non_value(b) }
    }
    #[inline(always)]
    fn non_target(self, b: &Block) -> u64 {
        // SAFETY: as above.
        unsafe { sse::non_target(b) }
    }
    #[inline(always)]
    fn non_host_name(self, b: &Block) -> u64 {
        // SAFETY: as above.
        unsafe { sse::non_host_name(b) }
    }
    #[inline(always)]
    fn lf(self, b: &Block) -> u64 {
        // SAFETY: as above.
        unsafe { sse::lf(b) }
    }
}

/// The AVX-512BW path. Its intrinsics and target features are stable since
/// Rust 1.89, later than the crate's MSRV, so the build script compiles it
/// only with a compiler that has them (`cfg(h1_avx512)`); without it
/// [`Path::Avx512`](super::Path::Avx512) is simply never available.
#[cfg(h1_avx512)]
#[allow(clippy::incompatible_msrv)]
mod avx512 {
    use super::*;

    /// Proof that AVX-512F and AVX-512BW are available.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Avx512(());

    /// Whether [`Avx512::detect`] has found AVX-512F/BW in this process.
    #[cfg(feature = "std")]
    static FOUND: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

    impl Avx512 {
        /// `Some` when the CPU runs AVX-512F and AVX-512BW.
        #[inline]
        pub(crate) fn detect() -> Option<Avx512> {
            #[cfg(feature = "std")]
            {
                if std::is_x86_feature_detected!("avx512f")
                    && std::is_x86_feature_detected!("avx512bw")
                {
                    FOUND.store(true, core::sync::atomic::Ordering::Relaxed);
                    return Some(Avx512(()));
                }
                None
            }
            #[cfg(not(feature = "std"))]
            {
                if cfg!(all(target_feature = "avx512f", target_feature = "avx512bw")) {
                    Some(Avx512(()))
                } else {
                    None
                }
            }
        }
    }

    impl Avx512 {
        /// `Some` once [`Avx512::detect`] has said so in this process: one
        /// load, for the per-call dispatch of the parsers.
        #[cfg(feature = "std")]
        #[inline]
        pub(crate) fn found() -> Option<Avx512> {
            FOUND
                .load(core::sync::atomic::Ordering::Relaxed)
                .then_some(Avx512(()))
        }
    }

    mod ops {
        use super::*;

        /// The 16-entry table `t` in each 128-bit lane.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw")]
        fn table64(t: [u8; 16]) -> __m512i {
            _mm512_broadcast_i32x4(table16!(t))
        }

        #[inline]
        #[target_feature(enable = "avx512f,avx512bw")]
        unsafe fn load(b: &Block) -> __m512i {
            // SAFETY: `b` is 64 readable bytes; one unaligned 64-byte load.
            unsafe { _mm512_loadu_si512(b.as_ptr().cast()) }
        }

        /// `buf` (shorter than a block) padded with zero bytes to 64: a
        /// masked load reads only the bytes in the buffer.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw")]
        unsafe fn load_short(buf: &[u8]) -> __m512i {
            debug_assert!(buf.len() < 64);
            let keep = (1u64 << (buf.len() & 63)) - 1;
            // SAFETY: the mask selects exactly the `buf.len()` bytes of `buf`;
            // masked-off bytes are neither read nor able to fault.
            unsafe { _mm512_maskz_loadu_epi8(keep, buf.as_ptr().cast()) }
        }

        #[inline]
        #[target_feature(enable = "avx512f,avx512bw")]
        pub(super) unsafe fn short_masks(buf: &[u8]) -> [u64; 3] {
            // SAFETY: AVX-512F/BW are enabled for this function; see `load_short`.
            let v = unsafe { load_short(buf) };
            [token(v), value(v), target(v)]
        }

        #[inline]
        #[target_feature(enable = "avx512f,avx512bw")]
        pub(super) unsafe fn non_token(b: &Block) -> u64 {
            // SAFETY: AVX-512F/BW are enabled for this function; see `load`.
            token(unsafe { load(b) })
        }

        /// Bytes outside the class of the nibble tables `lo_t`, `hi_t`.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw")]
        fn not_in(v: __m512i, lo_t: [u8; 16], hi_t: [u8; 16]) -> u64 {
            let nib = _mm512_set1_epi8(0x0f);
            let lo = _mm512_and_si512(v, nib);
            let hi = _mm512_and_si512(_mm512_srli_epi16::<4>(v), nib);
            _mm512_testn_epi8_mask(
                _mm512_shuffle_epi8(table64(lo_t), lo),
                _mm512_shuffle_epi8(table64(hi_t), hi),
            )
        }

        #[inline]
        #[target_feature(enable = "avx512f,avx512bw")]
        fn token(v: __m512i) -> u64 {
            not_in(v, TOKEN_LO, TOKEN_HI)
        }

        #[inline]
        #[target_feature(enable = "avx512f,avx512bw")]
        pub(super) unsafe fn non_host_name(b: &Block) -> u64 {
            // SAFETY: as in `non_token`.
            not_in(unsafe { load(b) }, HOST_LO, HOST_HI)
        }

        /// `Classify::small`: the first 64 bytes (or the whole shorter
        /// buffer) in one load; the head's end from the CR and LF masks
        /// first, the other classes only when it lies within them.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw")]
        pub(super) unsafe fn small(buf: &[u8]) -> Option<Small> {
            let v = match buf.get(..64) {
                // SAFETY: AVX-512F/BW are enabled for this function; `load`
                // reads the 64 bytes of the block.
                Some(b) => unsafe { load(b.try_into().ok()?) },
                // SAFETY: as above; see `load_short`.
                None => unsafe { load_short(buf) },
            };
            let eq = |b: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b as i8));
            let (cr, lf) = (eq(b'\r'), eq(b'\n'));
            let crlf = cr & lf >> 1;
            if crlf & crlf >> 2 == 0 {
                return None;
            }
            let sp = eq(b' ');
            Small::new(
                cr,
                lf,
                sp,
                sp | eq(b'\t'),
                eq(b':'),
                token(v),
                value(v),
                target(v),
                not_in(v, HOST_LO, HOST_HI),
                !_mm512_cmplt_epu8_mask(
                    _mm512_sub_epi8(v, _mm512_set1_epi8(b'0' as i8)),
                    _mm512_set1_epi8(10),
                ),
            )
        }

        /// `Classify::mask_in`: a masked load of just those bytes.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw")]
        pub(super) unsafe fn mask_in(buf: &[u8], at: usize, len: usize, stop: Stop) -> u64 {
            // The window cut to the bytes `buf` has (none when `at` is past
            // its end).
            let len = len.min(buf.len().saturating_sub(at));
            let keep = super::super::super::low_bits(len);
            // SAFETY: the mask selects bytes `at..at + min(len, 64)`, all in
            // `buf` (`at + len <= buf.len()` once `len` is cut, and no byte
            // is selected when `at` is past the end); masked-off bytes are
            // neither read nor able to fault.
            let v = unsafe { _mm512_maskz_loadu_epi8(keep, buf.as_ptr().wrapping_add(at).cast()) };
            keep & match stop {
                Stop::Token => token(v),
                Stop::Value => value(v),
                Stop::Target => target(v),
                Stop::HostName => not_in(v, HOST_LO, HOST_HI),
            }
        }

        #[inline]
        #[target_feature(enable = "avx512f,avx512bw")]
        pub(super) unsafe fn short_mask(buf: &[u8], stop: Stop) -> u64 {
            // SAFETY: AVX-512F/BW are enabled for this function; see `load_short`.
            let v = unsafe { load_short(buf) };
            match stop {
                Stop::Token => token(v),
                Stop::Value => value(v),
                Stop::Target => target(v),
                Stop::HostName => not_in(v, HOST_LO, HOST_HI),
            }
        }

        #[inline]
        #[target_feature(enable = "avx512f,avx512bw")]
        pub(super) unsafe fn non_value(b: &Block) -> u64 {
            // SAFETY: as in `non_token`.
            value(unsafe { load(b) })
        }

        #[inline]
        #[target_feature(enable = "avx512f,avx512bw")]
        fn value(v: __m512i) -> u64 {
            let le_1f = _mm512_cmple_epu8_mask(v, _mm512_set1_epi8(0x1f));
            let ctl = _mm512_mask_cmpneq_epi8_mask(le_1f, v, _mm512_set1_epi8(b'\t' as i8));
            ctl | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(0x7f))
        }

        #[inline]
        #[target_feature(enable = "avx512f,avx512bw")]
        pub(super) unsafe fn non_target(b: &Block) -> u64 {
            // SAFETY: as in `non_token`.
            target(unsafe { load(b) })
        }

        #[inline]
        #[target_feature(enable = "avx512f,avx512bw")]
        fn target(v: __m512i) -> u64 {
            // Signed compare: bytes >= 0x80 are negative, so "< 0x21" catches them too.
            _mm512_cmplt_epi8_mask(v, _mm512_set1_epi8(0x21))
                | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(0x7f))
                | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'#' as i8))
        }

        #[inline]
        #[target_feature(enable = "avx512f,avx512bw")]
        pub(super) unsafe fn lf(b: &Block) -> u64 {
            // SAFETY: as in `non_token`.
            let v = unsafe { load(b) };
            _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\n' as i8))
        }
    }

    impl Classify for Avx512 {
        #[inline(always)]
        fn non_token(self, b: &Block) -> u64 {
            // SAFETY: an `Avx512` exists only once AVX-512F/BW were detected.
            unsafe { ops::non_token(b) }
        }
        #[inline(always)]
        fn non_value(self, b: &Block) -> u64 {
            // SAFETY: as above.
            unsafe { ops::non_value(b) }
        }
        #[inline(always)]
        fn non_target(self, b: &Block) -> u64 {
            // SAFETY: as above.
            unsafe { ops::non_target(b) }
        }
        #[inline(always)]
        fn non_host_name(self, b: &Block) -> u64 {
            // SAFETY: as above.
            unsafe { ops::non_host_name(b) }
        }
        #[inline(always)]
        fn lf(self, b: &Block) -> u64 {
            // SAFETY: as above.
            unsafe { ops::lf(b) }
        }
        #[inline(always)]
        fn short_mask(self, buf: &[u8], stop: Stop) -> u64 {
            if buf.len() >= 64 {
                let mut tmp = [0u8; 64];
                return stop.mask(self, super::super::block_at(buf, 0, &mut tmp));
            }
            // SAFETY: as above; `buf` is shorter than a block.
            unsafe { ops::short_mask(buf, stop) }
        }
        #[inline(always)]
        fn mask_in(self, buf: &[u8], at: usize, len: usize, stop: Stop) -> u64 {
            // SAFETY: as above.
            unsafe { ops::mask_in(buf, at, len, stop) }
        }
        #[inline(always)]
        fn small(self, buf: &[u8]) -> Option<Small> {
            // SAFETY: as above.
            unsafe { ops::small(buf) }
        }
        #[inline(always)]
        fn short_masks(self, buf: &[u8]) -> [u64; 3] {
            if buf.len() >= 64 {
                // Not a short buffer: the general (copying) definition.
                let mut tmp = [0u8; 64];
                let b = super::super::block_at(buf, 0, &mut tmp);
                return [self.non_token(b), self.non_value(b), self.non_target(b)];
            }
            // SAFETY: as above; `buf` is shorter than a block.
            unsafe { ops::short_masks(buf) }
        }
    }

    /// Runs `k` compiled with AVX-512F/BW (and so AVX2) enabled.
    #[target_feature(enable = "avx2,avx512f,avx512bw")]
    unsafe fn run_avx512<K: Kernel>(avx512: Avx512, k: K) -> K::Output {
        k.run(avx512)
    }

    impl Avx512 {
        /// Runs `k` on the AVX-512 path.
        #[inline]
        pub(crate) fn run<K: Kernel>(self, k: K) -> K::Output {
            // SAFETY: `self` proves AVX-512F/BW are available; they imply AVX2.
            unsafe { run_avx512(self, k) }
        }
    }
}

#[cfg(h1_avx512)]
pub(crate) use avx512::Avx512;

/// Runs `k` compiled with AVX2 enabled, so the classifier calls it makes
/// inline into one body.
#[target_feature(enable = "avx2")]
unsafe fn run_avx2<K: Kernel>(avx2: Avx2, k: K) -> K::Output {
    k.run(avx2)
}

/// Runs `k` compiled with SSE4.2 and SSSE3 enabled.
#[target_feature(enable = "sse4.2,ssse3")]
unsafe fn run_sse42<K: Kernel>(sse: Sse42, k: K) -> K::Output {
    k.run(sse)
}

impl Avx2 {
    /// Runs `k` on the AVX2 path.
    #[inline]
    pub(crate) fn run<K: Kernel>(self, k: K) -> K::Output {
        // SAFETY: `self` proves AVX2 is available.
        unsafe { run_avx2(self, k) }
    }
}

impl Sse42 {
    /// Runs `k` on the SSE4.2 path.
    #[inline]
    pub(crate) fn run<K: Kernel>(self, k: K) -> K::Output {
        // SAFETY: `self` proves SSE4.2 and SSSE3 are available.
        unsafe { run_sse42(self, k) }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    #[test]
    fn token_tables_are_exact() {
        for b in 0..=255usize {
            let t = TOKEN_LO[b & 15] & TOKEN_HI[b >> 4] != 0;
            assert_eq!(t, TOKEN[b], "byte {b:#04x}");
        }
    }

    #[test]
    fn host_name_tables_are_exact() {
        for b in 0..=255usize {
            let t = HOST_LO[b & 15] & HOST_HI[b >> 4] != 0;
            assert_eq!(
                t,
                super::super::scalar::is_host_name_byte(b as u8),
                "byte {b:#04x}"
            );
        }
    }

    /// A window of 32 bytes holding `buf[at..at + len]` lies inside `buf`,
    /// ending where those bytes end or else starting where they start, and
    /// is `None` only when neither fits: every buffer length around 32 and
    /// 64, every position and every length up to 33.
    #[test]
    fn window32_holds_the_bytes_inside_the_buffer() {
        let zeros = [0u8; 70];
        for buf_len in 0..=70 {
            let buf = &zeros[..buf_len];
            for at in 0..=buf_len + 1 {
                for len in 0..=33 {
                    let end = at + len;
                    let shown = std::format!("buf {buf_len} at {at} len {len}");
                    match avx2::window32(buf, at, len) {
                        Some(from) => {
                            assert!(
                                from + 32 <= buf_len && from <= at && end <= from + 32,
                                "{shown}"
                            );
                            assert!(from + 32 == end || (from == at && end < 32), "{shown}");
                        }
                        None => assert!(
                            len > 32 || end > buf_len || (end < 32 && at + 32 > buf_len),
                            "{shown}"
                        ),
                    }
                }
            }
        }
        assert_eq!(avx2::window32(&zeros, usize::MAX, 2), None);
    }

    /// Once detected, AVX-512 is found by the parsers' one-load check.
    #[test]
    #[cfg(all(h1_avx512, feature = "std"))]
    fn avx512_is_found_once_detected() {
        let detected = avx512::Avx512::detect().is_some();
        assert_eq!(avx512::Avx512::found().is_some(), detected);
    }
}
