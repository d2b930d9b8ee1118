//! Byte scanners: the end of a head, tokens, request-targets, field values.
//!
//! Every scanner classifies 64-byte blocks into bitmasks (one bit per byte)
//! and finds the first interesting byte with `trailing_zeros`. A block is
//! classified by one of four paths, all computing the *same* predicate:
//!
//! | [`Path`] | where | width |
//! |---|---|---|
//! | [`Path::Avx512`] | x86_64 with AVX-512F and AVX-512BW | 1 x 64 bytes |
//! | [`Path::Avx2`] | x86_64 with AVX2 | 2 x 32 bytes |
//! | [`Path::Sse42`] | x86_64 with SSE4.2 and SSSE3 | 4 x 16 bytes |
//! | [`Path::Swar`] | everywhere | 8 x 8 bytes in `u64`s |
//! | [`Path::Scalar`] | everywhere, the oracle | 64 x 1 byte |
//!
//! The predicates are those of `h1_headers::chars` (tokens, field values)
//! and [`scalar::is_target_byte`]; the functions in [`scalar`] are the
//! twins every path is tested and fuzzed against. With the `std` feature the
//! widest path the CPU runs is detected once at run time
//! ([`Path::detected`]); without it the compile-time target features decide.
//!
//! ```
//! use h1_parse::scan;
//! assert_eq!(scan::token_len(b"Content-Length: 5"), 14);
//! assert_eq!(scan::value_len(b"text/html\r\n"), 9);
//! assert_eq!(scan::target_len(b"/a?b#frag HTTP/1.1"), 4);
//! assert_eq!(scan::find_head_end(b"GET / HTTP/1.1\r\n\r\nbody"), Some(18));
//! ```

pub mod scalar;
mod swar;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86;

use scalar::Scalar;
use swar::Swar;
#[cfg(all(target_arch = "x86_64", h1_avx512))]
use x86::Avx512;
#[cfg(target_arch = "x86_64")]
use x86::{Avx2, Sse42};

/// 64 bytes: the unit every path classifies.
pub(crate) type Block = [u8; 64];

/// A byte classifier: for each of the 64 bytes of a block, bit `i` of the
/// result says whether byte `i` is in the class.
pub(crate) trait Classify: Copy {
    /// Bytes that are not tchars.
    fn non_token(self, b: &Block) -> u64;
    /// Bytes that may not appear in a field value (controls but HTAB, DEL).
    fn non_value(self, b: &Block) -> u64;
    /// Bytes that may not appear in a request-target.
    fn non_target(self, b: &Block) -> u64;
    /// Bytes outside the usual host name alphabet
    /// ([`scalar::is_host_name_byte`]).
    fn non_host_name(self, b: &Block) -> u64;
    /// LF bytes.
    fn lf(self, b: &Block) -> u64;

    /// For `buf` shorter than a block: the [`non_token`](Classify::non_token),
    /// [`non_value`](Classify::non_value) and
    /// [`non_target`](Classify::non_target) masks of `buf` padded with zero
    /// bytes to 64 (a path that can load the short buffer directly need not
    /// copy it).
    #[inline(always)]
    fn short_masks(self, buf: &[u8]) -> [u64; 3] {
        let mut tmp = [0u8; 64];
        let b = block_at(buf, 0, &mut tmp);
        [self.non_token(b), self.non_value(b), self.non_target(b)]
    }

    /// For `buf` shorter than a block: the `stop` mask of `buf` padded with
    /// zero bytes to 64 (as [`short_masks`](Classify::short_masks), one
    /// class).
    #[inline(always)]
    fn short_mask(self, buf: &[u8], stop: Stop) -> u64 {
        let mut tmp = [0u8; 64];
        stop.mask(self, block_at(buf, 0, &mut tmp))
    }

    /// The masks of a head that ends within the first 64 bytes of `buf`,
    /// for the small-head parser; `None` when it does not end there, or
    /// when this path leaves small heads to the general walk (the portable
    /// paths do: their classifying costs more than it saves).
    #[inline(always)]
    fn small(self, _buf: &[u8]) -> Option<Small> {
        None
    }

    /// The `stop` mask of the `len <= 64` bytes `buf[at..at + len]`, in bits
    /// `0..len` (the others clear), read without leaving `buf`: from the
    /// block at `at`, or the buffer's last block shifted, or a short buffer
    /// padded. A path that can load just those bytes more cheaply does. A
    /// window reaching past the end of `buf` is cut there (the bits of the
    /// bytes past it are clear), so no path reads past it whatever it is
    /// asked.
    #[inline(always)]
    fn mask_in(self, buf: &[u8], at: usize, len: usize, stop: Stop) -> u64 {
        let len = len.min(buf.len().saturating_sub(at));
        let m = match buf.get(at..at + 64) {
            Some(b) => stop.mask(self, b.try_into().unwrap_or(&[0; 64])),
            None if buf.len() >= 64 => {
                let from = buf.len() - 64;
                let b: &Block = buf[from..].try_into().unwrap_or(&[0; 64]);
                stop.mask(self, b)
                    .checked_shr((at - from) as u32)
                    .unwrap_or(0)
            }
            None => self.short_mask(buf.get(at..).unwrap_or_default(), stop),
        };
        m & low_bits(len)
    }
}

/// The masks of a head that ends within the first 64 bytes of its buffer
/// (its empty line included), from one classification of those bytes: bit
/// `i` of each mask is byte `i`. Bits from `end` on describe bytes after the
/// head (or zero padding past the buffer) and are not to be trusted.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Small {
    /// Where the head ends: after the first CR LF CR LF.
    pub(crate) end: usize,
    pub(crate) cr: u64,
    pub(crate) lf: u64,
    /// SP.
    pub(crate) sp: u64,
    /// SP and HTAB.
    pub(crate) ows: u64,
    pub(crate) colon: u64,
    /// Not a tchar ([`Classify::non_token`]).
    pub(crate) nt: u64,
    /// Not a field value byte ([`Classify::non_value`]).
    pub(crate) nv: u64,
    /// Not a request-target byte ([`Classify::non_target`]).
    pub(crate) ntg: u64,
    /// Not a usual host name byte ([`Classify::non_host_name`]).
    pub(crate) nhn: u64,
    /// Not an ASCII digit.
    pub(crate) nd: u64,
}

impl Small {
    /// The [`Small`] of the masks of a head's first 64 bytes, when the head
    /// ends within them.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn new(
        cr: u64,
        lf: u64,
        sp: u64,
        ows: u64,
        colon: u64,
        nt: u64,
        nv: u64,
        ntg: u64,
        nhn: u64,
        nd: u64,
    ) -> Option<Small> {
        let crlf = cr & lf >> 1;
        let ends = crlf & crlf >> 2;
        if ends == 0 {
            return None;
        }
        Some(Small {
            end: ends.trailing_zeros() as usize + 4,
            cr,
            lf,
            sp,
            ows,
            colon,
            nt,
            nv,
            ntg,
            nhn,
            nd,
        })
    }
}

/// A computation generic over the classifier, run on one path by
/// [`Path::run`]: its body is compiled once per path, with that path's CPU
/// features enabled, so the classifier calls inline.
pub(crate) trait Kernel {
    /// What the computation returns.
    type Output;
    /// The computation. Implementations should be `#[inline(always)]`.
    fn run<C: Classify>(self, c: C) -> Self::Output;
}

/// The scanner implementations. See the [module docs](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Path {
    /// One byte at a time: the oracle.
    Scalar,
    /// Eight bytes per `u64`, portable.
    Swar,
    /// SSE4.2 + SSSE3, 16 bytes per vector (x86_64).
    Sse42,
    /// AVX2, 32 bytes per vector (x86_64).
    Avx2,
    /// AVX-512F + AVX-512BW, 64 bytes per vector (x86_64; compiled in only
    /// with Rust 1.89 or newer, never available otherwise).
    Avx512,
}

#[cfg(feature = "std")]
static DETECTED: core::sync::atomic::AtomicU8 = core::sync::atomic::AtomicU8::new(0);

impl Path {
    /// Every path, available or not.
    pub const ALL: [Path; 5] = [
        Path::Scalar,
        Path::Swar,
        Path::Sse42,
        Path::Avx2,
        Path::Avx512,
    ];

    /// Whether this CPU (or, without `std`, the compile-time target) runs it.
    pub fn is_available(self) -> bool {
        match self {
            Path::Scalar | Path::Swar => true,
            #[cfg(target_arch = "x86_64")]
            Path::Sse42 => Sse42::detect().is_some(),
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => Avx2::detect().is_some(),
            #[cfg(all(target_arch = "x86_64", h1_avx512))]
            Path::Avx512 => Avx512::detect().is_some(),
            #[cfg(not(all(target_arch = "x86_64", h1_avx512)))]
            Path::Avx512 => false,
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The path the parser uses: the widest one available. With `std` it is
    /// detected on first use and cached.
    #[inline]
    pub fn detected() -> Path {
        #[cfg(feature = "std")]
        {
            use core::sync::atomic::Ordering::Relaxed;
            match DETECTED.load(Relaxed) {
                1 => Path::Swar,
                2 => Path::Sse42,
                3 => Path::Avx2,
                4 => Path::Avx512,
                _ => {
                    let p = Path::widest();
                    DETECTED.store(
                        match p {
                            Path::Avx512 => 4,
                            Path::Avx2 => 3,
                            Path::Sse42 => 2,
                            _ => 1,
                        },
                        Relaxed,
                    );
                    p
                }
            }
        }
        #[cfg(not(feature = "std"))]
        {
            Path::widest()
        }
    }

    fn widest() -> Path {
        [Path::Avx512, Path::Avx2, Path::Sse42]
            .into_iter()
            .find(|p| p.is_available())
            .unwrap_or(Path::Swar)
    }

    /// Runs `k` on the [detected](Path::detected) path: once AVX-512 has
    /// been found, with a single check.
    #[inline(always)]
    pub(crate) fn run_detected<K: Kernel>(k: K) -> K::Output {
        #[cfg(all(feature = "std", target_arch = "x86_64", h1_avx512))]
        if let Some(avx512) = Avx512::found() {
            return avx512.run(k);
        }
        Path::detected().run(k)
    }

    /// Runs `k` on this path.
    ///
    /// # Panics
    ///
    /// When the path is not available on this CPU.
    #[inline(always)]
    pub(crate) fn run<K: Kernel>(self, k: K) -> K::Output {
        match self {
            Path::Scalar => run_portable(Scalar, k),
            Path::Swar => run_portable(Swar, k),
            #[cfg(target_arch = "x86_64")]
            Path::Sse42 => match Sse42::detect() {
                Some(sse) => sse.run(k),
                None => unavailable(self),
            },
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => match Avx2::detect() {
                Some(avx2) => avx2.run(k),
                None => unavailable(self),
            },
            #[cfg(all(target_arch = "x86_64", h1_avx512))]
            Path::Avx512 => match Avx512::detect() {
                Some(avx512) => avx512.run(k),
                None => unavailable(self),
            },
            #[cfg(not(all(target_arch = "x86_64", h1_avx512)))]
            Path::Avx512 => unavailable(self),
            #[cfg(not(target_arch = "x86_64"))]
            _ => unavailable(self),
        }
    }

    /// [`token_len`] on this path. Panics when the path is not available.
    pub fn token_len(self, buf: &[u8]) -> usize {
        self.run(Count(buf, Stop::Token))
    }

    /// [`target_len`] on this path. Panics when the path is not available.
    pub fn target_len(self, buf: &[u8]) -> usize {
        self.run(Count(buf, Stop::Target))
    }

    /// [`value_len`] on this path. Panics when the path is not available.
    pub fn value_len(self, buf: &[u8]) -> usize {
        self.run(Count(buf, Stop::Value))
    }

    /// [`find_head_end`] on this path. Panics when the path is not available.
    pub fn find_head_end(self, buf: &[u8]) -> Option<usize> {
        self.run(HeadEndKernel(buf))
    }
}

/// Runs `k` on a portable path, out of line: [`Path::run`] inlines into
/// every entry point, and only its vector arms should.
#[inline(never)]
fn run_portable<C: Classify, K: Kernel>(c: C, k: K) -> K::Output {
    k.run(c)
}

#[cold]
#[inline(never)]
fn unavailable(p: Path) -> ! {
    panic!("scan path {p:?} is not available on this CPU")
}

/// How many leading bytes of `buf` are tchars (RFC 9110 §5.6.2): the length
/// of a method or field name.
#[inline]
pub fn token_len(buf: &[u8]) -> usize {
    Path::detected().token_len(buf)
}

/// How many leading bytes of `buf` may appear in a request-target (VCHAR but
/// `#`).
#[inline]
pub fn target_len(buf: &[u8]) -> usize {
    Path::detected().target_len(buf)
}

/// How many leading bytes of `buf` may appear in a field value: the scan
/// stops at the first CR, LF, NUL, other control byte but HTAB, or DEL.
#[inline]
pub fn value_len(buf: &[u8]) -> usize {
    Path::detected().value_len(buf)
}

/// The index just after the first empty line in `buf`: after the first
/// `\n\r\n` or `\n\n`. Bare-LF line endings are found too so that a strict
/// parser can reject them instead of waiting for more bytes.
#[inline]
pub fn find_head_end(buf: &[u8]) -> Option<usize> {
    Path::detected().find_head_end(buf)
}

/// Which bytes stop a scan: those outside a token, a field value, a
/// request-target or the usual host name alphabet.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Stop {
    Token = 0,
    Value = 1,
    Target = 2,
    HostName = 3,
}

impl Stop {
    /// The mask of this class's stop bytes in `b`.
    #[inline(always)]
    pub(crate) fn mask<C: Classify>(self, c: C, b: &Block) -> u64 {
        match self {
            Stop::Token => c.non_token(b),
            Stop::Value => c.non_value(b),
            Stop::Target => c.non_target(b),
            Stop::HostName => c.non_host_name(b),
        }
    }
}

/// Bits `0..n` set, for `n <= 64`.
#[inline(always)]
pub(crate) const fn low_bits(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// The 64 bytes at `at`, padded with zeros past the end of `buf`.
#[inline(always)]
pub(crate) fn block_at<'a>(buf: &'a [u8], at: usize, tmp: &'a mut Block) -> &'a Block {
    match buf.get(at..at + 64) {
        Some(b) => b.try_into().unwrap_or(&[0; 64]),
        None => {
            let rest = buf.get(at..).unwrap_or(&[]);
            *tmp = [0; 64];
            tmp[..rest.len()].copy_from_slice(rest);
            tmp
        }
    }
}

struct Count<'a>(&'a [u8], Stop);

impl Kernel for Count<'_> {
    type Output = usize;

    #[inline(always)]
    fn run<C: Classify>(self, c: C) -> usize {
        let Count(buf, class) = self;
        let mut tmp = [0u8; 64];
        let mut at = 0;
        while at < buf.len() {
            let valid = low_bits(buf.len() - at);
            let m = class.mask(c, block_at(buf, at, &mut tmp)) & valid;
            if m != 0 {
                return at + m.trailing_zeros() as usize;
            }
            at += 64;
        }
        buf.len()
    }
}

struct HeadEndKernel<'a>(&'a [u8]);

impl Kernel for HeadEndKernel<'_> {
    type Output = Option<usize>;

    #[inline(always)]
    fn run<C: Classify>(self, c: C) -> Option<usize> {
        let buf = self.0;
        let mut tmp = [0u8; 64];
        let mut at = 0;
        while at < buf.len() {
            let mut m = c.lf(block_at(buf, at, &mut tmp)) & low_bits(buf.len() - at);
            while m != 0 {
                let i = at + m.trailing_zeros() as usize;
                match buf.get(i + 1) {
                    Some(b'\n') => return Some(i + 2),
                    Some(b'\r') if buf.get(i + 2) == Some(&b'\n') => return Some(i + 3),
                    _ => {}
                }
                m &= m - 1;
            }
            at += 64;
        }
        None
    }
}

/// Finds the end of a head that arrives in pieces, searching only the bytes
/// that arrived since the last call (plus the two before them, where a
/// `\n\r\n` may have been cut). Feeding a head one byte at a time therefore
/// costs O(n) in total.
///
/// ```
/// use h1_parse::scan::HeadEnd;
/// let msg = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n";
/// let mut end = HeadEnd::new();
/// for n in 1..msg.len() {
///     assert_eq!(end.find(&msg[..n]), None);
/// }
/// assert_eq!(end.find(msg), Some(msg.len()));
/// assert!(end.examined() < 3 * msg.len());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeadEnd {
    scanned: usize,
    examined: usize,
}

impl HeadEnd {
    /// A finder for a new head.
    pub const fn new() -> HeadEnd {
        HeadEnd {
            scanned: 0,
            examined: 0,
        }
    }

    /// The index just after the empty line that ends the head, once it has
    /// arrived. `buf` must be the same buffer as before with more bytes
    /// appended (call [`HeadEnd::reset`] for a new head).
    pub fn find(&mut self, buf: &[u8]) -> Option<usize> {
        let from = self.scanned.saturating_sub(2).min(buf.len());
        self.examined += buf.len() - from;
        match find_head_end(&buf[from..]) {
            Some(end) => {
                self.scanned = from + end;
                Some(from + end)
            }
            None => {
                self.scanned = buf.len();
                None
            }
        }
    }

    /// How many bytes of the buffer have been searched so far.
    pub const fn scanned(&self) -> usize {
        self.scanned
    }

    /// How many bytes all calls together have looked at: the cost measure the
    /// O(n) guarantee is about.
    pub const fn examined(&self) -> usize {
        self.examined
    }

    /// Starts over for a new head.
    pub fn reset(&mut self) {
        *self = HeadEnd::new();
    }
}

/// Every scanner path this machine runs, for the unit tests that run a
/// check on each.
#[cfg(test)]
pub(crate) fn available_paths() -> impl Iterator<Item = Path> {
    Path::ALL.into_iter().filter(|p| p.is_available())
}

#[cfg(test)]
mod tests;
