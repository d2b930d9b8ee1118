//! Message bodies as they arrive: `Content-Length`, chunked (with chunk
//! extensions bounded and trailers surfaced), and, for responses, until the
//! connection closes (RFC 9112 §6, §7).

use h1_headers::{Entry, Framing, Span};
use h1_parse::scan::HeadEnd;
use h1_parse::{parse_chunk_size, parse_trailers, ErrorKind, Status};

use crate::config::Config;
use crate::error::Error;

/// What [`BodyDecoder::decode`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decoded {
    /// Body bytes: this span of the buffer handed in.
    Data(Span),
    /// The trailer section: `count` fields were written to the storage,
    /// their spans relative to the buffer handed in. [`Decoded::End`]
    /// follows on the next call.
    Trailers(usize),
    /// The body is complete.
    End,
    /// The bytes so far are a valid prefix: call again with more.
    NeedMore,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Length(u64),
    UntilClose,
    /// At a chunk-size line.
    ChunkSize,
    /// Inside chunk data: this many bytes left.
    ChunkData(u64),
    /// After chunk data: the CRLF.
    ChunkDataEnd,
    /// After the last chunk: the trailer section, its end searched
    /// incrementally.
    Trailers(HeadEnd),
    /// The trailers were reported; `End` comes next.
    EndNext,
    Done,
}

/// An incremental body decoder. Feed it the unconsumed bytes each time; it
/// says how many it consumed and what they were. The bytes of an element it
/// has not finished (a chunk-size line, the CRLF after chunk data, the
/// trailer section) are not consumed, so the caller hands them in again with
/// the bytes that follow.
///
/// Strict: chunk sizes and extensions as [`parse_chunk_size`] checks them,
/// CRLF after every chunk's data, trailer fields as the head's fields (bare
/// LF and obs-fold refused even when the head parser allows them: the
/// chunked framing has no leniencies), at most
/// [`Config::max_body_len`] decoded bytes and
/// [`Config::max_chunk_ext_len`] extension bytes.
///
/// ```
/// use h1_conn::{BodyDecoder, Framing, Config, Decoded, Entry};
///
/// let config = Config::default();
/// let mut trailers = [Entry::EMPTY; 4];
/// let mut dec = BodyDecoder::new(Framing::Chunked);
/// let buf = b"5\r\nhello\r\n0\r\nDigest: x\r\n\r\nNEXT";
/// let (used, what) = dec.decode(buf, false, &mut trailers, &config)?;
/// let Decoded::Data(span) = what else { panic!() };
/// assert_eq!(span.slice(buf), b"hello");
/// let (used2, what) = dec.decode(&buf[used..], false, &mut trailers, &config)?;
/// assert_eq!(what, Decoded::Trailers(1));
/// assert_eq!(trailers[0].name.slice(&buf[used..]), b"Digest");
/// let (used3, what) = dec.decode(&buf[used + used2..], false, &mut trailers, &config)?;
/// assert_eq!((used3, what), (0, Decoded::End));
/// assert_eq!(&buf[used + used2..], b"NEXT");
/// # Ok::<(), h1_conn::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BodyDecoder {
    state: State,
    /// Decoded bytes so far.
    total: u64,
    /// Chunk-extension bytes so far.
    ext: usize,
}

impl BodyDecoder {
    /// A decoder for a body of `kind`.
    pub const fn new(kind: Framing) -> BodyDecoder {
        BodyDecoder {
            state: match kind {
                Framing::Empty | Framing::Length(0) => State::Done,
                Framing::Length(n) => State::Length(n),
                Framing::Chunked => State::ChunkSize,
                Framing::UntilClose => State::UntilClose,
            },
            total: 0,
            ext: 0,
        }
    }

    /// Whether the body is complete ([`Decoded::End`] was or will be the
    /// next result).
    pub const fn is_done(&self) -> bool {
        matches!(self.state, State::Done)
    }

    /// Decoded body bytes so far.
    pub const fn received(&self) -> u64 {
        self.total
    }

    /// Decodes from `buf`, the unconsumed bytes; `eof` says the peer has
    /// closed, so no more bytes will come. Returns how many bytes of `buf`
    /// were consumed and what they held. Trailer fields are written to
    /// `trailers` (a section with more fields than it holds is refused as
    /// [`ErrorKind::TooManyFields`]).
    ///
    /// After an error the decoder must not be used again.
    pub fn decode(
        &mut self,
        buf: &[u8],
        eof: bool,
        trailers: &mut [Entry],
        config: &Config,
    ) -> Result<(usize, Decoded), Error> {
        let mut at = 0;
        loop {
            let rest = &buf[at..];
            match self.state {
                State::Done => return Ok((at, Decoded::End)),
                State::EndNext => {
                    self.state = State::Done;
                    return Ok((at, Decoded::End));
                }
                State::Length(left) | State::ChunkData(left) => {
                    if rest.is_empty() {
                        return more(at, eof);
                    }
                    let n = left.min(rest.len() as u64).min(self.allowance(config)?);
                    let left = left - n;
                    self.state = match self.state {
                        State::Length(_) if left == 0 => State::Done,
                        State::Length(_) => State::Length(left),
                        _ if left == 0 => State::ChunkDataEnd,
                        _ => State::ChunkData(left),
                    };
                    // `n <= rest.len()`, so it fits a usize.
                    return Ok((at + n as usize, self.data(at, n as usize, config)?));
                }
                State::UntilClose => {
                    if rest.is_empty() {
                        if eof {
                            self.state = State::Done;
                            return Ok((at, Decoded::End));
                        }
                        return Ok((at, Decoded::NeedMore));
                    }
                    // `allowance` fits: it is at most `rest.len()` here.
                    let n = (rest.len() as u64).min(self.allowance(config)?) as usize;
                    return Ok((at + n, self.data(at, n, config)?));
                }
                State::ChunkSize => match parse_chunk_size(rest, &config.parse)? {
                    Status::Partial => return more(at, eof),
                    Status::Complete(line) => {
                        self.ext = self.ext.saturating_add(line.extensions.len());
                        if self.ext > config.max_chunk_ext_len {
                            return Err(Error::ChunkExtensionsTooLong);
                        }
                        if line.size > config.max_body_len.saturating_sub(self.total) {
                            return Err(Error::BodyTooLarge);
                        }
                        at += line.len;
                        self.state = if line.size == 0 {
                            State::Trailers(HeadEnd::new())
                        } else {
                            State::ChunkData(line.size)
                        };
                    }
                },
                State::ChunkDataEnd => match rest {
                    [] | [b'\r'] => return more(at, eof),
                    [b'\r', b'\n', ..] => {
                        at += 2;
                        self.state = State::ChunkSize;
                    }
                    [b'\r', ..] => return Err(chunk_end(1)),
                    _ => return Err(chunk_end(0)),
                },
                State::Trailers(mut end) => {
                    let mut strict = config.parse.clone();
                    strict.allow_bare_lf = false;
                    strict.allow_obs_fold = false;
                    // An empty section is the CRLF right away (or an error
                    // the parser names); otherwise wait for the empty line
                    // that ends it, searching only new bytes.
                    let section = match rest.first() {
                        None => return more(at, eof),
                        Some(b'\r' | b'\n') => rest,
                        Some(_) => match end.find(rest) {
                            Some(n) => &rest[..n],
                            None if rest.len() > strict.max_head_len => rest,
                            None => {
                                self.state = State::Trailers(end);
                                return more(at, eof);
                            }
                        },
                    };
                    match parse_trailers(section, trailers, &strict)? {
                        Status::Complete(t) => {
                            at += t.len;
                            if t.field_count == 0 {
                                self.state = State::Done;
                                return Ok((at, Decoded::End));
                            }
                            self.state = State::EndNext;
                            // Spans are relative to the section; make them
                            // relative to `buf`.
                            let shift = at - t.len;
                            for e in &mut trailers[..t.field_count] {
                                e.name = shifted(e.name, shift)?;
                                e.value = shifted(e.value, shift)?;
                            }
                            return Ok((at, Decoded::Trailers(t.field_count)));
                        }
                        // `\r` alone: wait for its LF.
                        Status::Partial if section.len() < 2 => return more(at, eof),
                        // The search stopped at `\n\n` (or the section is
                        // over the limit): the parser refuses what it saw.
                        Status::Partial => {
                            let kind = if section.len() > strict.max_head_len {
                                ErrorKind::HeadTooLarge
                            } else {
                                ErrorKind::BareLf
                            };
                            return Err(h1_parse::Error::new(kind, section.len()).into());
                        }
                    }
                }
            }
        }
    }

    /// How many more body bytes the limit allows; an error when none and
    /// more are coming. Data up to the limit is delivered first, so the
    /// events do not depend on how the bytes were split.
    fn allowance(&self, config: &Config) -> Result<u64, Error> {
        match config.max_body_len.saturating_sub(self.total) {
            0 => Err(Error::BodyTooLarge),
            n => Ok(n),
        }
    }

    /// A `Data` result for `len` bytes at `at` (within the allowance).
    fn data(&mut self, at: usize, len: usize, config: &Config) -> Result<Decoded, Error> {
        self.total = self.total.saturating_add(len as u64);
        if self.total > config.max_body_len {
            return Err(Error::BodyTooLarge);
        }
        let span = Span::new(at, len).ok_or(Error::BodyTooLarge)?;
        Ok(Decoded::Data(span))
    }
}

/// Waiting for more bytes, or, when none will come, an incomplete message.
fn more(at: usize, eof: bool) -> Result<(usize, Decoded), Error> {
    if eof {
        Err(Error::UnexpectedEof)
    } else {
        Ok((at, Decoded::NeedMore))
    }
}

fn chunk_end(offset: usize) -> Error {
    h1_parse::Error::new(ErrorKind::InvalidChunkDataEnd, offset).into()
}

fn shifted(span: Span, by: usize) -> Result<Span, Error> {
    span.shift_up(by).ok_or(Error::Parse(h1_parse::Error::new(
        ErrorKind::HeadTooLarge,
        by,
    )))
}
