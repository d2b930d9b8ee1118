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

#[test]
fn received_counts_the_decoded_bytes() {
    let config = Config::default();
    let mut trailers = [Entry::EMPTY; 4];
    let mut dec = BodyDecoder::new(Framing::Chunked);
    assert_eq!(dec.received(), 0);
    let buf = b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
    let mut at = 0;
    while !dec.is_done() {
        let (used, _) = dec
            .decode(&buf[at..], true, &mut trailers, &config)
            .unwrap();
        at += used;
    }
    assert_eq!(dec.received(), 5);
    let mut dec = BodyDecoder::new(Framing::Length(10));
    dec.decode(b"abcd", false, &mut trailers, &config).unwrap();
    assert_eq!(dec.received(), 4);
}

/// A chunk extension of exactly `max_chunk_ext_len` bytes, and a chunked
/// body of exactly `max_body_len`, are within the limits.
#[test]
fn chunked_limits_include_their_bound() {
    let mut config = Config::default();
    config.max_chunk_ext_len = 4;
    config.max_body_len = 5;
    // ";a=b" is four bytes of extensions.
    let (data, end) = decode(Framing::Chunked, &config, &[b"5;a=b\r\nhello\r\n0\r\n\r\n"]);
    assert_eq!((data.as_slice(), end), (&b"hello"[..], Ok(())));
    let (_, end) = decode(
        Framing::Chunked,
        &config,
        &[b"5;a=bc\r\nhello\r\n0\r\n\r\n"],
    );
    assert_eq!(end, Err(Error::ChunkExtensionsTooLong));
    let (_, end) = decode(Framing::Chunked, &config, &[b"6\r\nhello!\r\n0\r\n\r\n"]);
    assert_eq!(end, Err(Error::BodyTooLarge));
}

/// What follows a chunk's data must be CRLF; the error points at the byte
/// that is wrong.
#[test]
fn chunk_data_end_errors_point_at_the_wrong_byte() {
    let config = Config::default();
    for (body, offset) in [(&b"1\r\naX"[..], 0), (b"1\r\na\rX", 1)] {
        let (_, end) = decode(Framing::Chunked, &config, &[body]);
        match end {
            Err(Error::Parse(e)) => {
                assert_eq!(e.kind(), h1_conn::parse::ErrorKind::InvalidChunkDataEnd);
                assert_eq!(e.offset(), offset, "{body:?}");
            }
            other => panic!("{body:?}: {other:?}"),
        }
    }
}

/// A trailer section that has not ended waits for more bytes up to the
/// head limit, and is refused past it.
#[test]
fn an_unended_trailer_section_is_bounded_by_the_head_limit() {
    let mut config = Config::default();
    config.parse.max_head_len = 16;
    let mut trailers = [Entry::EMPTY; 4];
    let at_limit = b"0\r\nT: 0123456789abc"; // 16 bytes after the size line
    let mut dec = BodyDecoder::new(Framing::Chunked);
    assert_eq!(
        dec.decode(at_limit, false, &mut trailers, &config),
        Ok((3, Decoded::NeedMore))
    );
    let over = b"0\r\nT: 0123456789abcd";
    let mut dec = BodyDecoder::new(Framing::Chunked);
    match dec.decode(over, false, &mut trailers, &config) {
        Err(Error::Parse(e)) => {
            assert_eq!(e.kind(), h1_conn::parse::ErrorKind::HeadTooLarge);
        }
        other => panic!("{other:?}"),
    }
}
