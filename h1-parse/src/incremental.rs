//! Heads that arrive in pieces.

use h1_headers::chars::is_tchar;
use h1_headers::Entry;

use crate::error::{Error, ErrorKind};
use crate::head::{RequestHead, ResponseHead, Status};
use crate::parse::{parse_request, parse_response, skip_empty_lines, LineCheck, Skip};
use crate::scan::HeadEnd;
use crate::Config;

/// An incremental head parser: it remembers how far it has searched for the
/// end of the head and how far it has validated, so each call looks only at
/// the bytes that arrived since the last one. Feeding a head one byte at a
/// time costs O(n) in total, not O(n²), and a head is refused as soon as a
/// complete line in it is invalid, not only once it ends: each complete line
/// is checked once, with the one-shot rules in their order, so both parsers
/// name the same first error. A defect inside a line that has not ended yet
/// is reported when the line ends or passes its limit (the one-shot parser,
/// looking at every byte again, may see it sooner), except a request line
/// that starts with a byte no method holds (binary junk, a TLS handshake on
/// a plain-text port): that is refused at once.
///
/// A buffer shorter than the one of the previous call is taken as a new
/// message (as if [`HeadParser::reset`] had been called).
///
/// Call [`HeadParser::parse_request`] (or `parse_response`) with the whole
/// buffer received so far each time more bytes arrive; after a head is
/// complete or an error is returned, call [`HeadParser::reset`] before the
/// next message (the bytes after the head's length belong to it). As with
/// [`parse_request`](crate::parse_request), the head is written into the
/// caller's `head` once it is complete.
///
/// ```
/// use h1_parse::{Config, Entry, HeadParser, RequestHead, Status};
///
/// let msg = b"GET / HTTP/1.1\r\nHost: example.com\r\n\r\n";
/// let mut parser = HeadParser::new(Config::default());
/// let mut head = RequestHead::EMPTY;
/// let mut fields = [Entry::EMPTY; 8];
/// for n in 1..msg.len() {
///     let partial = parser.parse_request(&msg[..n], &mut head, &mut fields);
///     assert_eq!(partial, Ok(Status::Partial));
/// }
/// let len = parser.parse_request(msg, &mut head, &mut fields);
/// assert_eq!(len, Ok(Status::Complete(msg.len())));
/// assert_eq!(head.target.slice(msg), b"/");
/// ```
#[derive(Clone, Debug)]
pub struct HeadParser {
    config: Config,
    end: HeadEnd,
    /// How far leading empty lines have been skipped.
    skipped: usize,
    /// Where the head starts once leading empty lines are skipped.
    start: Option<usize>,
    /// Complete lines before this offset have been checked.
    checked: usize,
    /// The state of that check.
    lines: LineCheck,
    /// The buffer length at the last call: only bytes past it are new.
    seen: usize,
    /// Whether the unfinished last line was already checked for its limit.
    long_line_checked: bool,
    /// Whether the unfinished request line was already checked for a byte
    /// no method holds.
    method_checked: bool,
}

impl HeadParser {
    /// A parser with `config`.
    pub fn new(config: Config) -> HeadParser {
        HeadParser {
            config,
            end: HeadEnd::new(),
            skipped: 0,
            start: None,
            checked: 0,
            lines: LineCheck::default(),
            seen: 0,
            long_line_checked: false,
            method_checked: false,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Forgets the current head, for the next message.
    pub fn reset(&mut self) {
        *self = HeadParser {
            config: core::mem::take(&mut self.config),
            ..HeadParser::new(Config::DEFAULT)
        };
    }

    /// How many bytes the end-of-head search has looked at since the last
    /// reset (the cost the O(n) guarantee bounds).
    pub fn examined(&self) -> usize {
        self.end.examined()
    }

    /// Parses a request head from `buf`, the bytes received so far, into
    /// `head` and `fields`; the head's length once it is complete.
    pub fn parse_request(
        &mut self,
        buf: &[u8],
        head: &mut RequestHead,
        fields: &mut [Entry],
    ) -> Result<Status<usize>, Error> {
        self.renew(buf);
        let start = match self.start {
            Some(s) => s,
            // Empty lines count against the head limit, and the one-shot
            // parser looks at no byte past it: neither does this search, so
            // both name the same first error.
            None => {
                let limit = buf.len().min(self.config.max_head_len);
                match skip_empty_lines(&buf[..limit], self.skipped.min(limit), &self.config)? {
                    Skip::Start(s) => *self.start.insert(s),
                    Skip::More(_) if buf.len() > self.config.max_head_len => {
                        return Err(Error::new(
                            ErrorKind::HeadTooLarge,
                            self.config.max_head_len,
                        ))
                    }
                    Skip::More(at) => {
                        self.skipped = at;
                        return Ok(Status::Partial);
                    }
                }
            }
        };
        self.parse(true, buf, start, head, fields, parse_request)
    }

    /// Parses a response head from `buf`, the bytes received so far, into
    /// `head` and `fields`; the head's length once it is complete.
    pub fn parse_response(
        &mut self,
        buf: &[u8],
        head: &mut ResponseHead,
        fields: &mut [Entry],
    ) -> Result<Status<usize>, Error> {
        self.renew(buf);
        let start = *self.start.get_or_insert(0);
        self.parse(false, buf, start, head, fields, parse_response)
    }

    /// A buffer shorter than the last one cannot be the same message with
    /// more bytes: the caller started a new one without [`reset`](Self::reset).
    fn renew(&mut self, buf: &[u8]) {
        if buf.len() < self.seen {
            self.reset();
        }
    }

    fn parse<H>(
        &mut self,
        request: bool,
        buf: &[u8],
        start: usize,
        head: &mut H,
        fields: &mut [Entry],
        one_shot: OneShot<H>,
    ) -> Result<Status<usize>, Error> {
        let seen = core::mem::replace(&mut self.seen, buf.len());
        if let Some(end) = self.end.find(&buf[start..]) {
            return match one_shot(&buf[..start + end], head, fields, &self.config)? {
                Status::Complete(len) => Ok(Status::Complete(len)),
                // The search found `\n\r\n` or `\n\n`; the parser refuses the
                // bare LF before it could call the head incomplete.
                Status::Partial => Err(Error::new(ErrorKind::BareLf, start + end)),
            };
        }
        if buf.len() > self.config.max_head_len {
            // The one-shot parser names the first error (a 414 target, say),
            // or reports the head too large.
            return canonical(
                one_shot(buf, head, fields, &self.config),
                self.config.max_head_len,
            );
        }
        self.check_lines(request, buf, start, seen, head, fields, one_shot)?;
        Ok(Status::Partial)
    }

    /// Checks the lines completed since the last call, so an invalid line is
    /// refused when it arrives rather than when the head ends: each complete
    /// line once, with the one-shot parser's rules in its order (so both
    /// report the same first error), for O(n) in all. Rules across the whole
    /// head (a missing `Host`, `Content-Length` with `Transfer-Encoding`) wait
    /// for its end, as in the one-shot parser. With obs-fold allowed, the
    /// last complete line is checked again once the next one shows whether
    /// it continues.
    #[allow(clippy::too_many_arguments)]
    fn check_lines<H>(
        &mut self,
        request: bool,
        buf: &[u8],
        start: usize,
        seen: usize,
        head: &mut H,
        fields: &mut [Entry],
        one_shot: OneShot<H>,
    ) -> Result<(), Error> {
        let from = self.checked.max(start);
        // Only new bytes can hold a new LF.
        let new = seen.max(from).min(buf.len());
        let upto = match memchr::memrchr(b'\n', &buf[new..]) {
            Some(i) => new + i + 1,
            None => from,
        };
        if upto > from {
            self.lines
                .check(request, &buf[..upto], start, fields, &self.config)?;
            self.checked = upto;
            self.long_line_checked = false;
        }
        // The unfinished line: a CR that starts it must be the empty line's,
        // and a line already over its limit is refused now, not at the head
        // limit (checked once per line, so still O(n)).
        let tail = &buf[upto..];
        let bare_cr = tail.len() >= 2 && tail[0] == b'\r' && tail[1] != b'\n';
        let long = tail.len() > self.config.max_field_line_len && !self.long_line_checked;
        let start_line = upto == start;
        let at_limit = bare_cr || long || self.target_too_long(request, tail, start_line);
        let bad_method = !self.method_checked && not_a_method(request, tail, start_line);
        if at_limit || bad_method {
            self.long_line_checked |= at_limit;
            self.method_checked |= bad_method;
            // `buf` holds no end of head here, so `head` is not written.
            let _partial = one_shot(buf, head, fields, &self.config)?;
        }
        Ok(())
    }
}

impl HeadParser {
    /// Whether the unfinished request line already holds a target over the
    /// limit: the method is a short token, so the target starts after the
    /// first SP in the line's first bytes.
    fn target_too_long(&self, request: bool, line: &[u8], start_line: bool) -> bool {
        let max = self.config.max_target_len;
        if !request || !start_line || line.len() <= max {
            return false;
        }
        match memchr::memchr(b' ', &line[..line.len().min(64)]) {
            Some(sp) => line.len() - (sp + 1) > max,
            None => false,
        }
    }
}

/// Whether the unfinished request line already starts with a byte that no
/// method holds, before its first SP (binary junk, or a TLS handshake sent
/// to a plain-text port): refused now rather than when a line end or the
/// line limit arrives, which may be never. CR is left to the line end (it
/// may start the CRLF of an empty line). Looks at no more than the first 32
/// bytes, and the parser asks it until it is true once (the one-shot
/// parser it triggers then fails on the method), so the search stays O(n).
fn not_a_method(request: bool, line: &[u8], start_line: bool) -> bool {
    request
        && start_line
        && line
            .iter()
            .take(32)
            .take_while(|&&b| b != b' ')
            .any(|&b| b != b'\r' && !is_tchar(b))
}

/// `parse_request` or `parse_response`, for a head of type `H`.
type OneShot<H> = fn(&[u8], &mut H, &mut [Entry], &Config) -> Result<Status<usize>, Error>;

/// The one-shot parser's verdict on a buffer over the head limit: its first
/// error, which is the head limit itself unless something came before.
fn canonical<T>(one_shot: Result<Status<T>, Error>, at: usize) -> Result<Status<T>, Error> {
    match one_shot {
        Err(e) => Err(e),
        Ok(_) => Err(Error::new(ErrorKind::HeadTooLarge, at)),
    }
}
