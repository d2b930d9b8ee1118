//! Integer formatting without `core::fmt`: decimal for `Content-Length`,
//! hexadecimal for chunk sizes.
//!
//! Hand-written rather than the `itoa` crate: the two formatters are a dozen
//! lines each, need no dependency, and write straight into the stack buffer
//! the whole field line is assembled in.

/// Two ASCII digits for every value 0..100.
const PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// The longest decimal `u64` (`18446744073709551615`).
pub(crate) const MAX_DEC: usize = 20;
/// The longest hexadecimal `u64`.
pub(crate) const MAX_HEX: usize = 16;

/// Writes `n` in decimal at the end of `out`, returning where it starts.
#[inline]
pub(crate) fn dec(mut n: u64, out: &mut [u8; MAX_DEC]) -> usize {
    let mut i = MAX_DEC;
    while n >= 100 {
        let pair = (n % 100) as usize * 2;
        n /= 100;
        i -= 2;
        out[i] = PAIRS[pair];
        out[i + 1] = PAIRS[pair + 1];
    }
    if n >= 10 {
        let pair = n as usize * 2;
        i -= 2;
        out[i] = PAIRS[pair];
        out[i + 1] = PAIRS[pair + 1];
    } else {
        i -= 1;
        out[i] = b'0' + n as u8;
    }
    i
}

/// Writes `n` in lowercase hexadecimal (no leading zeros, `0` for zero) at
/// the end of `out`, returning where it starts.
#[inline]
pub(crate) fn hex(mut n: u64, out: &mut [u8; MAX_HEX]) -> usize {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut i = MAX_HEX;
    loop {
        i -= 1;
        out[i] = DIGITS[(n & 0xf) as usize];
        n >>= 4;
        if n == 0 {
            return i;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    fn check(n: u64) {
        let mut d = [0u8; MAX_DEC];
        let s = dec(n, &mut d);
        assert_eq!(&d[s..], format!("{n}").as_bytes());
        let mut h = [0u8; MAX_HEX];
        let s = hex(n, &mut h);
        assert_eq!(&h[s..], format!("{n:x}").as_bytes());
    }

    #[test]
    fn formats_like_core_fmt() {
        for n in 0..=100_000u64 {
            check(n);
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            check(x);
            check(x >> (x % 64));
        }
        for p in 0..64 {
            check(1 << p);
            check((1 << p) - 1);
        }
        check(u64::MAX);
    }
}
