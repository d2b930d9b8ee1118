//! The receiving half both roles share: the buffer, the head parser, the
//! body decoder, and the spans of the last head and trailer section.

use alloc::vec;
use alloc::vec::Vec;

use h1_headers::{Entry, HeadersView, Span};
use h1_parse::{HeadParser, RequestHead, ResponseHead, Status};

use crate::body::{BodyDecoder, Decoded};
use crate::config::Config;
use crate::error::Error;
use crate::recv_buf::RecvBuf;

/// A head either role parses: how to parse it, and how to move its spans.
pub(crate) trait Parsed: Copy {
    /// Storage for a head before it is parsed.
    const EMPTY: Self;
    /// The head parser's verdict so far; `eof`: no more bytes will come.
    fn parse(
        p: &mut HeadParser,
        buf: &[u8],
        eof: bool,
        head: &mut Self,
        fields: &mut [Entry],
    ) -> ParseResult;
    fn len(&self) -> usize;
    fn field_count(&self) -> usize;
    /// The head's own spans (not the fields'), `base` bytes further on.
    fn shift(&mut self, base: u32);
}

/// The head's length once it is complete.
type ParseResult = Result<Status<usize>, h1_parse::Error>;

/// `span`, `base` bytes further on. Spans index the receive buffer, which
/// never holds more than `Span::MAX` bytes, so the sum fits.
#[inline(always)]
fn shifted_in_buffer(span: Span, base: u32) -> Span {
    Span::from_parts((span.offset() as u32).wrapping_add(base), span.len() as u32)
}

impl Parsed for RequestHead {
    const EMPTY: Self = RequestHead::EMPTY;
    #[inline(always)]
    fn parse(
        p: &mut HeadParser,
        buf: &[u8],
        eof: bool,
        head: &mut Self,
        fields: &mut [Entry],
    ) -> ParseResult {
        if eof {
            p.parse_request_at_eof(buf, head, fields)
        } else {
            p.parse_request(buf, head, fields)
        }
    }
    fn len(&self) -> usize {
        self.len
    }
    fn field_count(&self) -> usize {
        self.field_count
    }
    #[inline(always)]
    fn shift(&mut self, base: u32) {
        self.method = shifted_in_buffer(self.method, base);
        self.target = shifted_in_buffer(self.target, base);
        if let Some(h) = self.facts.host {
            self.facts.host = Some(shifted_in_buffer(h, base));
        }
    }
}

impl Parsed for ResponseHead {
    const EMPTY: Self = ResponseHead::EMPTY;
    #[inline(always)]
    fn parse(
        p: &mut HeadParser,
        buf: &[u8],
        eof: bool,
        head: &mut Self,
        fields: &mut [Entry],
    ) -> ParseResult {
        if eof {
            p.parse_response_at_eof(buf, head, fields)
        } else {
            p.parse_response(buf, head, fields)
        }
    }
    fn len(&self) -> usize {
        self.len
    }
    fn field_count(&self) -> usize {
        self.field_count
    }
    #[inline(always)]
    fn shift(&mut self, base: u32) {
        self.reason = shifted_in_buffer(self.reason, base);
    }
}

/// What reading a head gave.
pub(crate) enum HeadStep<T> {
    Head(T),
    NeedMore,
    Fail(Error),
}

#[derive(Debug)]
pub(crate) struct Reader {
    pub(crate) config: Config,
    pub(crate) buf: RecvBuf,
    pub(crate) eof: bool,
    parser: HeadParser,
    fields: Vec<Entry>,
    field_count: usize,
    trailers: Vec<Entry>,
    trailer_count: usize,
    /// The spans of the last head still point at their bytes.
    fields_valid: bool,
    /// The spans of the last trailer section still point at their bytes
    /// (false again once a new head arrives).
    trailers_valid: bool,
}

/// The receive buffer's limit: a head at its largest plus room to read,
/// and never more than spans can index.
fn buf_limit(config: &Config) -> usize {
    let head = config
        .parse
        .max_head_len
        .max(config.parse.max_chunk_line_len)
        .saturating_add(4);
    head.saturating_add(config.read_buf_len.max(1))
        .min(Span::MAX)
}

impl Reader {
    pub(crate) fn new(config: Config) -> Reader {
        let storage = config.parse.max_fields.clamp(1, 4096);
        Reader {
            buf: RecvBuf::new(config.read_buf_len, buf_limit(&config)),
            eof: false,
            parser: HeadParser::new(config.parse.clone()),
            fields: vec![Entry::EMPTY; storage],
            field_count: 0,
            trailers: vec![Entry::EMPTY; storage],
            trailer_count: 0,
            fields_valid: false,
            trailers_valid: false,
            config,
        }
    }

    pub(crate) fn read_buf(&mut self) -> &mut [u8] {
        self.buf.make_room();
        if self.buf.take_moved() {
            self.invalidate_spans();
        }
        self.buf.free()
    }

    pub(crate) fn feed(&mut self, data: &[u8]) -> usize {
        let n = self.buf.feed(data);
        if self.buf.take_moved() {
            self.invalidate_spans();
        }
        n
    }

    #[cfg(feature = "bytes")]
    pub(crate) fn freeze(&mut self) -> bytes::Bytes {
        self.invalidate_spans();
        let b = self.buf.freeze();
        let _ = self.buf.take_moved();
        b
    }

    pub(crate) fn invalidate_spans(&mut self) {
        self.fields_valid = false;
        self.trailers_valid = false;
    }

    pub(crate) fn fields(&self) -> Option<HeadersView<'_>> {
        self.fields_valid
            .then(|| HeadersView::new(self.buf.all(), &self.fields[..self.field_count]))
    }

    pub(crate) fn field_entries(&self) -> &[Entry] {
        &self.fields[..self.field_count]
    }

    pub(crate) fn trailers(&self) -> Option<HeadersView<'_>> {
        self.trailers_valid
            .then(|| HeadersView::new(self.buf.all(), &self.trailers[..self.trailer_count]))
    }

    /// Reads a head from the unconsumed bytes; on success they are
    /// consumed and the spans point into the whole buffer. The head parser
    /// keeps how far it got, so each call parses only what it has not.
    #[inline]
    pub(crate) fn head<T: Parsed>(&mut self) -> HeadStep<T> {
        let buf = self.buf.unconsumed();
        let mut head = T::EMPTY;
        match T::parse(&mut self.parser, buf, self.eof, &mut head, &mut self.fields) {
            Ok(Status::Complete(_)) => self.accept(head),
            Ok(Status::Partial) if self.eof => HeadStep::Fail(Error::UnexpectedEof),
            Ok(Status::Partial) => HeadStep::NeedMore,
            Err(e) => HeadStep::Fail(Error::Parse(e)),
        }
    }

    /// Takes a complete head: its bytes are consumed, its spans made
    /// relative to the whole buffer.
    #[inline]
    fn accept<T: Parsed>(&mut self, mut head: T) -> HeadStep<T> {
        // The buffer never holds more than `Span::MAX` bytes.
        let base = self.buf.pos() as u32;
        if base != 0 {
            for e in &mut self.fields[..head.field_count()] {
                *e = Entry::new(
                    shifted_in_buffer(e.name, base),
                    shifted_in_buffer(e.value, base),
                );
            }
            head.shift(base);
        }
        self.buf.consume(head.len());
        self.field_count = head.field_count();
        self.fields_valid = true;
        self.trailer_count = 0;
        self.trailers_valid = false;
        HeadStep::Head(head)
    }

    /// Decodes body bytes with `decoder`; spans point into the whole
    /// buffer.
    #[inline]
    pub(crate) fn body(&mut self, decoder: &mut BodyDecoder) -> Result<Decoded, Error> {
        let base = self.buf.pos();
        let buf = self.buf.unconsumed();
        let (used, what) = decoder.decode(buf, self.eof, &mut self.trailers, &self.config)?;
        self.buf.consume(used);
        let too_far = || Error::BodyTooLarge;
        Ok(match what {
            Decoded::Data(span) => Decoded::Data(span.shift_up(base).ok_or_else(too_far)?),
            Decoded::Trailers(n) => {
                for e in &mut self.trailers[..n] {
                    e.name = e.name.shift_up(base).ok_or_else(too_far)?;
                    e.value = e.value.shift_up(base).ok_or_else(too_far)?;
                }
                self.trailer_count = n;
                self.trailers_valid = true;
                Decoded::Trailers(n)
            }
            other => other,
        })
    }

    /// The unconsumed bytes as a span of the whole buffer.
    pub(crate) fn rest(&self) -> Span {
        Span::new(self.buf.pos(), self.buf.unconsumed().len()).unwrap_or(Span::EMPTY)
    }
}
