//! Heads that arrive in pieces.

use h1_headers::chars::is_tchar;
use h1_headers::Entry;

use crate::error::Error;
use crate::head::{RequestHead, ResponseHead, Status};
use crate::parse::{continue_request, continue_response, Progress};
use crate::Config;

/// The head parser for bytes as they arrive: the one-shot parser's walk,
/// resumable. A head that arrived whole is parsed in one call, exactly as
/// [`parse_request`](crate::parse_request) parses it; a head that has not
/// ended is parsed as far as its complete lines go, and the next call goes
/// on from the first unfinished line. So each line is parsed once, by one
/// validator, whatever the reads were, and a head fed one byte at a time
/// costs O(n) in all, not O(n²): between line ends a call only looks for a
/// line end among the bytes that arrived since the last one.
///
/// A head is refused as soon as a complete line in it is invalid, not only
/// once it ends, with the first error the one-shot parser names. A defect
/// inside a line that has not ended yet is reported when the line ends or
/// passes its limit (the one-shot parser, looking at every byte, may see it
/// sooner), except a request line that starts with a byte no method holds
/// (binary junk, a TLS handshake on a plain-text port): that is refused at
/// once. When no more bytes will come, [`parse_request_at_eof`] judges the
/// unfinished line too, so the verdict on an incomplete head is the
/// one-shot parser's.
///
/// Call [`parse_request`] (or [`parse_response`]) with the whole buffer
/// received so far each time more bytes arrive, with the same field
/// storage: the fields of lines parsed by an earlier call are already in
/// it. After a complete head or an error the parser starts over on the
/// next call (the bytes after the head's length belong to the next
/// message); [`reset`](Self::reset) starts over at any time, and a buffer
/// shorter than the one of the previous call is taken as a new message. As
/// with [`parse_request`](crate::parse_request), the head is written into
/// the caller's `head` once it is complete.
///
/// [`parse_request`]: Self::parse_request
/// [`parse_response`]: Self::parse_response
/// [`parse_request_at_eof`]: Self::parse_request_at_eof
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
    request: Progress<RequestHead>,
    response: Progress<ResponseHead>,
    /// The buffer length at the last call: only bytes past it are new.
    seen: usize,
    /// Bytes looked at since the last reset.
    examined: usize,
    /// Where the unfinished line that was last found at a limit starts: a
    /// parse was run for it, so it is not run again for the same line
    /// (which keeps the calls O(n)), but a line that starts anywhere else
    /// is looked at afresh.
    limit_checked_at: Option<usize>,
    /// How far the unfinished request line's target has been looked at.
    target: TargetWatch,
}

/// How far the search for the end of an unfinished request line's target
/// has gone, so that each byte of it is looked at once however many calls
/// the line takes. Positions are in the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TargetWatch {
    /// Not looked at yet.
    Idle,
    /// The bytes from the line's start to `seen` are its method.
    Method { seen: usize },
    /// The bytes before `at` are the method and the SP or HTAB after it.
    Before { at: usize },
    /// The target starts at `start`; the bytes before `seen` are in it.
    In { start: usize, seen: usize },
    /// The target ended within its limit: nothing more to check.
    Ended,
}

/// What a call does with the bytes it got.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Run {
    /// Parse on from the first unfinished line.
    Parse,
    /// Nothing can have changed: still `Partial`.
    Wait,
}

impl HeadParser {
    /// A parser with `config`.
    pub fn new(config: Config) -> HeadParser {
        HeadParser {
            config,
            request: Progress::NONE,
            response: Progress::NONE,
            seen: 0,
            examined: 0,
            limit_checked_at: None,
            target: TargetWatch::Idle,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Forgets the current head, for the next message.
    pub fn reset(&mut self) {
        self.start_over();
        self.examined = 0;
    }

    /// How many bytes the calls since the last reset have looked at: the
    /// new bytes searched for a line end, the bytes the walk went over
    /// (each byte at most twice: once while its line was unfinished, once
    /// complete), and, in a request line longer than the target limit
    /// before its end arrived, the bytes searched for the target's end
    /// (each once). The cost the O(n) guarantee bounds.
    pub fn examined(&self) -> usize {
        self.examined
    }

    /// Parses a request head from `buf`, the bytes received so far, into
    /// `head` and `fields`; the head's length once it is complete.
    pub fn parse_request(
        &mut self,
        buf: &[u8],
        head: &mut RequestHead,
        fields: &mut [Entry],
    ) -> Result<Status<usize>, Error> {
        if self.seen == 0 {
            // A new head: the one-shot walk, which leaves the progress as
            // it found it unless the head is unfinished.
            self.seen = buf.len();
            self.examined += buf.len();
            let r =
                crate::parse::request_tracked(buf, head, fields, &self.config, &mut self.request);
            if !matches!(r, Ok(Status::Partial)) {
                self.seen = 0;
            }
            return r;
        }
        let from = self.request.position();
        let start_line = self.request.in_start_line();
        if self.next_run(true, buf, from, start_line) == Run::Wait {
            return Ok(Status::Partial);
        }
        let r = continue_request(buf, &mut self.request, head, fields, &self.config);
        self.ran(r)
    }

    /// [`parse_request`](Self::parse_request) for the last call, when no
    /// more bytes will come (the peer closed): every byte is judged, the
    /// unfinished line too, so an incomplete head gets the one-shot
    /// parser's verdict: its first error, or `Partial` when it is a valid
    /// prefix that merely ended.
    pub fn parse_request_at_eof(
        &mut self,
        buf: &[u8],
        head: &mut RequestHead,
        fields: &mut [Entry],
    ) -> Result<Status<usize>, Error> {
        let from = self.request.position();
        self.note(buf, from);
        let r = continue_request(buf, &mut self.request, head, fields, &self.config);
        self.ran(r)
    }

    /// Parses a response head from `buf`, the bytes received so far, into
    /// `head` and `fields`; the head's length once it is complete.
    pub fn parse_response(
        &mut self,
        buf: &[u8],
        head: &mut ResponseHead,
        fields: &mut [Entry],
    ) -> Result<Status<usize>, Error> {
        if self.seen == 0 {
            // A new head: as in `parse_request`.
            self.seen = buf.len();
            self.examined += buf.len();
            let r =
                crate::parse::response_tracked(buf, head, fields, &self.config, &mut self.response);
            if !matches!(r, Ok(Status::Partial)) {
                self.seen = 0;
            }
            return r;
        }
        let from = self.response.position();
        let start_line = self.response.in_start_line();
        if self.next_run(false, buf, from, start_line) == Run::Wait {
            return Ok(Status::Partial);
        }
        let r = continue_response(buf, &mut self.response, head, fields, &self.config);
        self.ran(r)
    }

    /// [`parse_response`](Self::parse_response) for the last call, as
    /// [`parse_request_at_eof`](Self::parse_request_at_eof).
    pub fn parse_response_at_eof(
        &mut self,
        buf: &[u8],
        head: &mut ResponseHead,
        fields: &mut [Entry],
    ) -> Result<Status<usize>, Error> {
        let from = self.response.position();
        self.note(buf, from);
        let r = continue_response(buf, &mut self.response, head, fields, &self.config);
        self.ran(r)
    }

    fn start_over(&mut self) {
        self.request = Progress::NONE;
        self.response = Progress::NONE;
        self.seen = 0;
        self.limit_checked_at = None;
        self.target = TargetWatch::Idle;
    }

    /// Whether this call parses: always on the first call for a head (the
    /// usual head arrives whole), later only when a line may have ended
    /// among the new bytes, or the unfinished line already breaks a limit.
    /// The walk starts at `from`, the first unfinished line.
    fn next_run(&mut self, request: bool, buf: &[u8], from: usize, start_line: bool) -> Run {
        if buf.len() < self.seen {
            // Not the same message with more bytes.
            self.start_over();
        }
        let seen = core::mem::replace(&mut self.seen, buf.len());
        if seen == 0 {
            self.examined += buf.len();
            return Run::Parse;
        }
        // Only new bytes can hold a new LF.
        let new = seen.max(from).min(buf.len());
        self.examined += buf.len() - new;
        if self.line_may_have_ended(buf, new) {
            // The unfinished line may now start elsewhere (after an empty
            // line before the request line): its watch starts again.
            self.target = TargetWatch::Idle;
            self.examined += buf.len() - from.min(buf.len());
            return Run::Parse;
        }
        if self.at_limit(request, buf, from, start_line) {
            self.examined += buf.len() - from.min(buf.len());
            return Run::Parse;
        }
        Run::Wait
    }

    /// Whether the bytes from `new` on may end a line, and so let the walk
    /// go further. With obs-fold allowed, a field line ends only where the
    /// next line does not start with SP or HTAB: waiting for that byte
    /// keeps a field of many folded lines from being walked again at each
    /// of them (which would make the work quadratic in the folds).
    fn line_may_have_ended(&self, buf: &[u8], new: usize) -> bool {
        if !self.config.allow_obs_fold {
            return memchr::memchr(b'\n', &buf[new..]).is_some();
        }
        // An LF just before the new bytes learns its follower now. The LF
        // of the empty line ends the head whatever follows.
        let from = new.saturating_sub(1);
        memchr::memchr_iter(b'\n', &buf[from..]).any(|i| {
            let at = from + i;
            let empty_line = buf[..at].ends_with(b"\n") || buf[..at].ends_with(b"\n\r");
            empty_line || matches!(buf.get(at + 1), Some(b) if !matches!(b, b' ' | b'\t'))
        })
    }

    /// A call that parses whatever arrived.
    fn note(&mut self, buf: &[u8], from: usize) {
        self.seen = buf.len();
        self.examined += buf.len() - from.min(buf.len());
    }

    /// After a parse: a finished head or an error ends this head.
    fn ran(&mut self, r: Result<Status<usize>, Error>) -> Result<Status<usize>, Error> {
        if !matches!(r, Ok(Status::Partial)) {
            self.start_over();
        }
        r
    }

    /// Whether the unfinished line at `from` already decides the head: a CR
    /// that starts it not followed by LF (it can only be the empty line's),
    /// a line over its limit, a request line whose target or first bytes
    /// cannot be valid, or a buffer over the head limit. A line over its
    /// limit is parsed once, a target is searched once, and the other
    /// checks look at a few bytes, so the calls stay O(n).
    fn at_limit(&mut self, request: bool, buf: &[u8], from: usize, start_line: bool) -> bool {
        let tail = buf.get(from..).unwrap_or_default();
        let bare_cr = tail.len() >= 2 && tail[0] == b'\r' && tail[1] != b'\n';
        // A final CR, CRLF or LF may end the line (or, with obs-fold, wait
        // for the next byte to tell): not counted, as the one-shot parser
        // does not, so a line exactly at the limit is not taken for a
        // longer one (and then not looked at again when a fold makes it
        // one).
        let line = tail
            .strip_suffix(b"\r\n")
            .or_else(|| tail.strip_suffix(b"\r"))
            .or_else(|| tail.strip_suffix(b"\n"))
            .unwrap_or(tail);
        let checked = self.limit_checked_at == Some(from);
        let long = line.len() > self.config.max_field_line_len && !checked;
        let over = buf.len() > self.config.max_head_len;
        let request_line = request && start_line;
        let at_limit = bare_cr || long || over || (request_line && self.target_too_long(buf, from));
        if at_limit {
            self.limit_checked_at = Some(from);
        }
        // At most 32 bytes a call; once it holds, the parse it asks for
        // fails on the method and ends the head.
        at_limit || (request_line && self.not_a_method(tail))
    }

    /// Whether the unfinished request line at `from` already holds a target
    /// over the limit. The target starts after the method's end (SP, or
    /// leniently HTAB) and any more SP or HTAB (only leniently valid), and
    /// it ends at the first SP, HTAB, CR or LF. The search goes on where
    /// the last call left it, so each byte is looked at once.
    fn target_too_long(&mut self, buf: &[u8], from: usize) -> bool {
        let max = self.config.max_target_len;
        if buf.len().saturating_sub(from) <= max {
            return false;
        }
        let is_ws = |b: &u8| matches!(b, b' ' | b'\t');
        loop {
            self.target = match self.target {
                TargetWatch::Ended => return false,
                TargetWatch::Idle => TargetWatch::Method { seen: from },
                TargetWatch::Method { seen } => {
                    let rest = buf.get(seen..).unwrap_or_default();
                    let end = rest.iter().position(|&b| self.ends_method(b));
                    self.examined += end.map_or(rest.len(), |n| n + 1);
                    let Some(n) = end else {
                        self.target = TargetWatch::Method { seen: buf.len() };
                        return false;
                    };
                    TargetWatch::Before { at: seen + n + 1 }
                }
                TargetWatch::Before { at } => {
                    let rest = buf.get(at..).unwrap_or_default();
                    let n = rest.iter().take_while(|b| is_ws(b)).count();
                    self.examined += n;
                    if at + n >= buf.len() {
                        self.target = TargetWatch::Before { at: at + n };
                        return false;
                    }
                    TargetWatch::In {
                        start: at + n,
                        seen: at + n,
                    }
                }
                TargetWatch::In { start, seen } => {
                    // One byte past the limit is enough to tell.
                    let end = buf.len().min(start + max + 1);
                    let more = buf.get(seen..end).unwrap_or_default();
                    self.examined += more.len();
                    if more
                        .iter()
                        .any(|&b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
                    {
                        self.target = TargetWatch::Ended;
                        return false;
                    }
                    self.target = TargetWatch::In { start, seen: end };
                    return end - start > max;
                }
            }
        }
    }

    /// Whether `b` ends a method: SP, or leniently HTAB.
    fn ends_method(&self, b: u8) -> bool {
        b == b' ' || (b == b'\t' && self.config.allow_multiple_spaces_in_request_line)
    }

    /// Whether the unfinished request line already starts with a byte that
    /// no method holds, before the method's end (binary junk, or a TLS
    /// handshake sent to a plain-text port): refused now rather than when a
    /// line end or the line limit arrives, which may be never. CR is left to
    /// the line end (it may start the CRLF of an empty line). Looks at no
    /// more than the first 32 bytes.
    fn not_a_method(&self, line: &[u8]) -> bool {
        line.iter()
            .take(32)
            .take_while(|&&b| !self.ends_method(b))
            .any(|&b| b != b'\r' && !is_tchar(b))
    }
}
