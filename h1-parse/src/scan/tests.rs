//! Every path against the scalar twin.

extern crate std;

use super::*;
use std::vec::Vec;

use super::available_paths as paths;

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn check_all(buf: &[u8]) {
    // The entry points, on the detected path.
    assert_eq!(token_len(buf), scalar::token_len(buf), "token {buf:?}");
    assert_eq!(target_len(buf), scalar::target_len(buf), "target {buf:?}");
    assert_eq!(value_len(buf), scalar::value_len(buf), "value {buf:?}");
    assert_eq!(
        find_head_end(buf),
        scalar::find_head_end(buf),
        "head end {buf:?}"
    );
    for p in paths() {
        assert_eq!(
            p.token_len(buf),
            scalar::token_len(buf),
            "{p:?} token {buf:?}"
        );
        assert_eq!(
            p.target_len(buf),
            scalar::target_len(buf),
            "{p:?} target {buf:?}"
        );
        assert_eq!(
            p.value_len(buf),
            scalar::value_len(buf),
            "{p:?} value {buf:?}"
        );
        assert_eq!(
            p.find_head_end(buf),
            scalar::find_head_end(buf),
            "{p:?} head end {buf:?}"
        );
    }
}

#[test]
fn this_machine_has_the_vector_paths() {
    // Not a skip: on x86_64 machines of this project's kind both vector paths
    // must be exercised, or the sweeps below test only the portable ones.
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    {
        assert!(Path::Avx2.is_available() && Path::Sse42.is_available());
        let widest = if Path::Avx512.is_available() {
            Path::Avx512
        } else {
            Path::Avx2
        };
        assert_eq!(Path::detected(), widest);
    }
    assert!(Path::Scalar.is_available() && Path::Swar.is_available());
}

#[test]
fn every_byte_value_is_classified_like_the_twin() {
    // Each of the 256 byte values at every position of a 64-byte block.
    for b in 0..=255u8 {
        for pos in 0..64 {
            let mut buf = [b'a'; 64];
            buf[pos] = b;
            for p in paths() {
                for (class, twin) in [
                    (Stop::Token, !h1_headers::chars::is_tchar(b)),
                    (Stop::Value, !h1_headers::chars::is_field_value_byte(b)),
                    (Stop::Target, !scalar::is_target_byte(b)),
                    (Stop::HostName, !scalar::is_host_name_byte(b)),
                ] {
                    let m = p.run(MaskOf(&buf, class));
                    assert_eq!(m, u64::from(twin) << pos, "{p:?} byte {b:#04x} at {pos}");
                }
                let lf = p.run(LfOf(&buf));
                assert_eq!(
                    lf,
                    u64::from(b == b'\n') << pos,
                    "{p:?} lf {b:#04x} at {pos}"
                );
            }
        }
    }
}

#[test]
fn short_masks_are_the_padded_block_masks() {
    // Every length under a block, random bytes, against the scalar twin's
    // masks of the zero-padded copy; and a buffer of a block or more.
    let mut rng = Rng(0x005e_ed0f_5b0b);
    for len in 0..=64 {
        for _ in 0..64 {
            let buf: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            let mut padded = [0u8; 64];
            padded[..len.min(64)].copy_from_slice(&buf[..len.min(64)]);
            let want = [
                Stop::Token.mask(Scalar, &padded),
                Stop::Value.mask(Scalar, &padded),
                Stop::Target.mask(Scalar, &padded),
            ];
            for p in paths() {
                assert_eq!(p.run(ShortMasks(&buf)), want, "{p:?} {buf:?}");
                if len < 64 {
                    for stop in [Stop::Token, Stop::Value, Stop::Target, Stop::HostName] {
                        assert_eq!(
                            p.run(ShortMask(&buf, stop)),
                            stop.mask(Scalar, &padded),
                            "{p:?} {stop:?} {buf:?}"
                        );
                    }
                }
            }
        }
    }
}

struct ShortMasks<'a>(&'a [u8]);
impl Kernel for ShortMasks<'_> {
    type Output = [u64; 3];
    fn run<C: Classify>(self, c: C) -> [u64; 3] {
        c.short_masks(self.0)
    }
}

#[test]
fn mask_in_is_the_mask_of_just_those_bytes() {
    // Every window of up to 64 bytes in buffers shorter and longer than a
    // block, each class, every path, against the scalar twin byte by byte.
    let mut rng = Rng(0x0b1e_55ed);
    let interesting = b"\r\n\t :#-.\x00\x7f\x80\xffaZ9_%";
    for buf_len in [0usize, 1, 7, 31, 32, 33, 40, 63, 64, 65, 100, 130] {
        for _ in 0..8 {
            let buf: Vec<u8> = (0..buf_len)
                .map(|_| interesting[rng.below(interesting.len())])
                .collect();
            for at in 0..=buf_len {
                for len in 0..=(buf_len - at).min(64) {
                    for stop in [Stop::Token, Stop::Value, Stop::Target, Stop::HostName] {
                        let mut want = 0u64;
                        for (i, &b) in buf[at..at + len].iter().enumerate() {
                            let mut one = [b'a'; 64];
                            one[0] = b;
                            want |= (stop.mask(Scalar, &one) & 1) << i;
                        }
                        for p in paths() {
                            assert_eq!(
                                p.run(MaskIn(&buf, at, len, stop)),
                                want,
                                "{p:?} {stop:?} at {at} len {len} {buf:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn mask_in_reads_nothing_past_the_buffer() {
    // A window that reaches past the end of the buffer (or starts past it)
    // is the window of the bytes that are there: their bits, the others
    // clear, on every path. The vector paths load the window with one
    // (masked) load; the bounds of that load must come from `buf`, not
    // from a promise of the caller's that only a debug assertion checked.
    let mut rng = Rng(0x5eed_0fb0_c5a1);
    let interesting = b"\r\n\t :#-.\x00\x7f\x80\xffaZ9_%";
    for buf_len in [0usize, 1, 7, 31, 32, 33, 40, 63, 64, 65, 100, 130] {
        let buf: Vec<u8> = (0..buf_len)
            .map(|_| interesting[rng.below(interesting.len())])
            .collect();
        for at in 0..=buf_len + 2 {
            for len in 0..=64 {
                if at + len <= buf_len {
                    continue;
                }
                for stop in [Stop::Token, Stop::Value, Stop::Target, Stop::HostName] {
                    let mut want = 0u64;
                    for (i, &b) in buf
                        .get(at..)
                        .unwrap_or_default()
                        .iter()
                        .take(len)
                        .enumerate()
                    {
                        let mut one = [b'a'; 64];
                        one[0] = b;
                        want |= (stop.mask(Scalar, &one) & 1) << i;
                    }
                    for p in paths() {
                        assert_eq!(
                            p.run(MaskIn(&buf, at, len, stop)),
                            want,
                            "{p:?} {stop:?} at {at} len {len} of {buf_len}"
                        );
                    }
                }
            }
        }
    }
}

struct MaskIn<'a>(&'a [u8], usize, usize, Stop);
impl Kernel for MaskIn<'_> {
    type Output = u64;
    fn run<C: Classify>(self, c: C) -> u64 {
        c.mask_in(self.0, self.1, self.2, self.3)
    }
}

struct ShortMask<'a>(&'a [u8], Stop);
impl Kernel for ShortMask<'_> {
    type Output = u64;
    fn run<C: Classify>(self, c: C) -> u64 {
        c.short_mask(self.0, self.1)
    }
}

struct MaskOf<'a>(&'a Block, Stop);
impl Kernel for MaskOf<'_> {
    type Output = u64;
    fn run<C: Classify>(self, c: C) -> u64 {
        self.1.mask(c, self.0)
    }
}
struct LfOf<'a>(&'a Block);
impl Kernel for LfOf<'_> {
    type Output = u64;
    fn run<C: Classify>(self, c: C) -> u64 {
        c.lf(self.0)
    }
}

#[test]
fn sweep_lengths_and_stop_positions() {
    // Lengths 0..=140 cross every hand-off: 8-byte words, 16/32-byte vectors,
    // the 64-byte block and the zero-padded tail.
    let stops: [u8; 8] = [b'\r', b'\n', 0, b' ', b':', b'#', 0x7f, 0x80];
    for len in 0..=140usize {
        let clean: Vec<u8> = (0..len).map(|i| b"abcXYZ019-._~"[i % 13]).collect();
        check_all(&clean);
        for p in paths() {
            assert_eq!(p.token_len(&clean), len, "{p:?}");
            assert_eq!(p.value_len(&clean), len, "{p:?}");
            assert_eq!(p.target_len(&clean), len, "{p:?}");
        }
        for pos in 0..len {
            for &s in &stops {
                let mut buf = clean.clone();
                buf[pos] = s;
                check_all(&buf);
            }
        }
    }
}

#[test]
fn head_end_across_block_edges() {
    for len in 0..=140usize {
        for term in [&b"\r\n\r\n"[..], b"\n\n", b"\r\n\n", b"\n\r\n"] {
            if term.len() > len {
                continue;
            }
            let mut buf = std::vec![b'x'; len];
            let at = len - term.len();
            buf[at..].copy_from_slice(term);
            check_all(&buf);
            for p in paths() {
                assert_eq!(p.find_head_end(&buf), Some(len), "{p:?} {buf:?}");
                // Cut anywhere inside the terminator: not found yet.
                assert_eq!(p.find_head_end(&buf[..len - 1]), None, "{p:?}");
            }
        }
    }
}

#[test]
fn random_bytes_agree_with_the_twin() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // Alphabets weighted towards the bytes the predicates care about.
    let interesting = b"\r\n\t :#\x00\x7f\x80\xffaZ9-\"(),/;<=>?@[\\]{}";
    for _ in 0..20_000 {
        let len = rng.below(200);
        let buf: Vec<u8> = (0..len)
            .map(|_| match rng.below(4) {
                0 => rng.next() as u8,
                1 => interesting[rng.below(interesting.len())],
                _ => b'a' + rng.below(26) as u8,
            })
            .collect();
        check_all(&buf);
        // And at every alignment of the first bytes.
        for skip in 0..buf.len().min(9) {
            check_all(&buf[skip..]);
        }
    }
}

/// A head of about 4 KB with 40 field lines, as large as the largest
/// reference input.
fn large_head() -> Vec<u8> {
    let mut head = b"GET /search?q=a&page=2 HTTP/1.1\r\nHost: example.com\r\n".to_vec();
    for i in 0..40 {
        head.extend_from_slice(std::format!("X-Field-{i:02}: {}\r\n", "v".repeat(84)).as_bytes());
    }
    head.extend_from_slice(b"\r\n");
    head
}

#[test]
fn head_end_is_linear_when_fed_byte_by_byte() {
    let head = large_head();
    assert!(head.len() > 3_900, "{}", head.len());
    let mut end = HeadEnd::new();
    let mut found = None;
    for n in 1..=head.len() {
        found = end.find(&head[..n]);
        if found.is_some() {
            assert_eq!(n, head.len());
        }
    }
    assert_eq!(found, Some(head.len()));
    // Each call looks at the new byte and at most two before it.
    assert!(
        end.examined() <= 3 * head.len(),
        "examined {}",
        end.examined()
    );
    // A quadratic rescan would have examined about n^2 / 2 bytes.
    assert!(head.len() * head.len() / 2 > 100 * end.examined());
}

/// Each call searches the bytes that arrived since the last one and the two
/// before them, and says how far it got: `scanned` is the buffer's length
/// until the head ends, then the head's end; `examined` adds up what every
/// call looked at; `reset` starts over for the next head.
#[test]
fn head_end_counts_what_it_searched_and_starts_over_when_reset() {
    let head = b"GET / HTTP/1.1\r\nHost: a\r\n\r\nnext";
    let len = head.len() - 4;
    let mut end = HeadEnd::new();
    let mut examined = 0;
    for n in 1..len {
        assert_eq!(end.find(&head[..n]), None, "{n}");
        assert_eq!(end.scanned(), n);
        examined += n - n.saturating_sub(3);
        assert_eq!(end.examined(), examined, "{n}");
    }
    // Found with the bytes after the head already there.
    assert_eq!(end.find(head), Some(len));
    assert_eq!(end.scanned(), len);
    assert_eq!(end.examined(), examined + head.len() - (len - 3));
    end.reset();
    assert_eq!((end.scanned(), end.examined()), (0, 0));
    assert_eq!(end, HeadEnd::new());
    // A new, shorter head is searched from its start.
    assert_eq!(end.find(b"GET / HTTP/1.0\r\n\r\n"), Some(18));
    assert_eq!((end.scanned(), end.examined()), (18, 18));
}

/// Each vector path is available exactly when the CPU reports the features
/// it needs (detected at run time with `std`), AVX-512 only when compiled
/// in.
#[test]
#[cfg(all(target_arch = "x86_64", feature = "std"))]
fn vector_paths_are_available_exactly_when_the_cpu_has_their_features() {
    use std::is_x86_feature_detected as has;
    assert_eq!(Path::Sse42.is_available(), has!("sse4.2") && has!("ssse3"));
    assert_eq!(Path::Avx2.is_available(), has!("avx2"));
    assert_eq!(
        Path::Avx512.is_available(),
        cfg!(h1_avx512) && has!("avx512f") && has!("avx512bw")
    );
}
