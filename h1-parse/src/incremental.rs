//! Heads that arrive in pieces.

use h1_headers::Entry;

use crate::error::{Error, ErrorKind};
use crate::head::{RequestHead, ResponseHead, Status};
use crate::parse::{parse_request, parse_response, parse_trailers, skip_empty_lines};
use crate::scan::HeadEnd;
use crate::Config;

/// An incremental head parser: it remembers how far it has searched for the
/// end of the head and how far it has validated, so each call looks only at
/// the bytes that arrived since the last one. Feeding a head one byte at a
/// time costs O(n) in total, not O(n²), and a head is refused as soon as a
/// complete line in it is invalid, not only once it ends.
///
/// Call [`HeadParser::parse_request`] (or `parse_response`) with the whole
/// buffer received so far each time more bytes arrive; after a head is
/// complete or an error is returned, call [`HeadParser::reset`] before the
/// next message (the bytes after `head.len` belong to it).
///
/// ```
/// use h1_parse::{HeadParser, Config, Status};
/// use h1_headers::Entry;
///
/// let msg = b"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n";
/// let mut parser = HeadParser::new(Config::default());
/// let mut fields = [Entry::EMPTY; 8];
/// for n in 1..msg.len() {
///     assert_eq!(parser.parse_request(&msg[..n], &mut fields), Ok(Status::Partial));
/// }
/// let head = parser.parse_request(msg, &mut fields).unwrap().complete().unwrap();
/// assert_eq!(head.len, msg.len());
/// ```
#[derive(Clone, Debug)]
pub struct HeadParser {
    config: Config,
    end: HeadEnd,
    /// Where the head starts once leading empty lines are skipped.
    start: Option<usize>,
    /// Complete lines before this offset have been validated; `None` until
    /// the start line has been.
    checked: Option<usize>,
}

impl HeadParser {
    /// A parser with `config`.
    pub fn new(config: Config) -> HeadParser {
        HeadParser {
            config,
            end: HeadEnd::new(),
            start: None,
            checked: None,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Forgets the current head, for the next message.
    pub fn reset(&mut self) {
        self.end.reset();
        self.start = None;
        self.checked = None;
    }

    /// How many bytes the end-of-head search has looked at since the last
    /// reset (the cost the O(n) guarantee bounds).
    pub fn examined(&self) -> usize {
        self.end.examined()
    }

    /// Parses a request head from `buf`, the bytes received so far.
    pub fn parse_request(
        &mut self,
        buf: &[u8],
        fields: &mut [Entry],
    ) -> Result<Status<RequestHead>, Error> {
        let start = match self.start {
            Some(s) => s,
            None => match skip_empty_lines(buf, &self.config)? {
                Some(s) => *self.start.insert(s),
                None => return Ok(Status::Partial),
            },
        };
        match self.head_end(buf, start)? {
            Some(end) => complete(parse_request(&buf[..end], fields, &self.config)?, end),
            None => {
                self.check_lines(buf, start, fields, |b, f, c| {
                    parse_request(b, f, c).map(|s| s.is_complete())
                })?;
                Ok(Status::Partial)
            }
        }
    }

    /// Parses a response head from `buf`, the bytes received so far.
    pub fn parse_response(
        &mut self,
        buf: &[u8],
        fields: &mut [Entry],
    ) -> Result<Status<ResponseHead>, Error> {
        let start = *self.start.get_or_insert(0);
        match self.head_end(buf, start)? {
            Some(end) => complete(parse_response(&buf[..end], fields, &self.config)?, end),
            None => {
                self.check_lines(buf, start, fields, |b, f, c| {
                    parse_response(b, f, c).map(|s| s.is_complete())
                })?;
                Ok(Status::Partial)
            }
        }
    }

    /// The end of the head once it is in `buf`; an error when the head
    /// outgrows the limit first.
    fn head_end(&mut self, buf: &[u8], start: usize) -> Result<Option<usize>, Error> {
        let from = &buf[start..];
        if let Some(end) = self.end.find(from) {
            return Ok(Some(start + end));
        }
        if from.len() > self.config.max_head_len {
            return Err(Error::new(
                ErrorKind::HeadTooLarge,
                start + self.config.max_head_len,
            ));
        }
        Ok(None)
    }

    /// Validates the lines completed since the last call, so an invalid line
    /// is refused when it arrives. The start line (with any field lines that
    /// arrived with it) goes through the one-shot parser once; later lines
    /// through the field-line parser, each line once, so the total stays
    /// O(n). Other defects inside a line that has not ended yet surface when
    /// it ends (or at the head limit). Skipped with obs-fold allowed, where a
    /// line's meaning depends on the next one.
    fn check_lines(
        &mut self,
        buf: &[u8],
        start: usize,
        fields: &mut [Entry],
        start_line: impl FnOnce(&[u8], &mut [Entry], &Config) -> Result<bool, Error>,
    ) -> Result<(), Error> {
        if self.config.allow_obs_fold {
            return Ok(());
        }
        let from = self.checked.unwrap_or(start);
        // A line that starts with CR must be the empty line: refuse a bare CR
        // there at once, as the one-shot parser does (it would otherwise wait
        // for an LF that may never come).
        if let (Some(b'\r'), Some(&b)) = (buf.get(from), buf.get(from + 1)) {
            if b != b'\n' && self.checked.is_some() {
                return Err(Error::new(ErrorKind::BareCr, from));
            }
        }
        let Some(last_lf) = memchr::memrchr(b'\n', &buf[from..]) else {
            return Ok(());
        };
        let upto = from + last_lf + 1;
        match self.checked {
            None => {
                // No head end was found, so this cannot be complete.
                start_line(&buf[..upto], fields, &self.config)?;
            }
            Some(from) => {
                parse_trailers(&buf[from..upto], fields, &self.config)
                    .map_err(|e| Error::new(e.kind(), from + e.offset()))?;
            }
        }
        self.checked = Some(upto);
        match (buf.get(upto), buf.get(upto + 1)) {
            (Some(b'\r'), Some(&b)) if b != b'\n' => Err(Error::new(ErrorKind::BareCr, upto)),
            _ => Ok(()),
        }
    }
}

/// A head parsed from a buffer cut at the end the search found.
fn complete<T>(status: Status<T>, end: usize) -> Result<Status<T>, Error> {
    match status {
        Status::Complete(head) => Ok(Status::Complete(head)),
        // The search found `\n\r\n` or `\n\n`; the parser refuses the bare LF
        // before it could report the head incomplete, so this is not reached.
        Status::Partial => Err(Error::new(ErrorKind::BareLf, end)),
    }
}
