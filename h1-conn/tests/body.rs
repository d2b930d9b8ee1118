//! `BodyDecoder` on its own: limits and splits.

use h1_conn::{BodyDecoder, Config, Decoded, Error, Framing};
use h1_headers::Entry;

/// Decodes `pieces` one after another; returns the data and how it ended.
fn decode(kind: Framing, config: &Config, pieces: &[&[u8]]) -> (Vec<u8>, Result<(), Error>) {
    let mut dec = BodyDecoder::new(kind);
    let mut trailers = [Entry::EMPTY; 8];
    let mut buf = Vec::new();
    let mut data = Vec::new();
    for (i, p) in pieces.iter().enumerate() {
        buf.extend_from_slice(p);
        let eof = i + 1 == pieces.len();
        loop {
            match dec.decode(&buf, eof, &mut trailers, config) {
                Err(e) => return (data, Err(e)),
                Ok((used, Decoded::Data(s))) => {
                    data.extend_from_slice(s.slice(&buf));
                    buf.drain(..used);
                }
                Ok((_, Decoded::End)) => return (data, Ok(())),
                Ok((used, Decoded::NeedMore)) => {
                    buf.drain(..used);
                    break;
                }
                Ok((used, _)) => {
                    buf.drain(..used);
                }
            }
        }
    }
    (data, Ok(()))
}

#[test]
fn data_within_the_limit_comes_first_whatever_the_split() {
    let mut config = Config::default();
    config.max_body_len = 4;
    for kind in [Framing::Length(8), Framing::UntilClose] {
        for pieces in [
            &[&b"abcdefgh"[..]][..],
            &[b"abc", b"defgh"],
            &[b"a", b"bcdefgh"],
        ] {
            assert_eq!(
                decode(kind, &config, pieces),
                (b"abcd".to_vec(), Err(Error::BodyTooLarge)),
                "{kind:?} {pieces:?}"
            );
        }
    }
}

#[test]
fn chunked_bodies_decode_the_same_in_any_pieces() {
    let config = Config::default();
    let body = b"5;a=b\r\nhello\r\n6\r\n world\r\n0\r\nT: v\r\n\r\n";
    for cut in 0..body.len() {
        let (data, end) = decode(Framing::Chunked, &config, &[&body[..cut], &body[cut..]]);
        assert_eq!(
            (data.as_slice(), end),
            (&b"hello world"[..], Ok(())),
            "cut {cut}"
        );
    }
}
