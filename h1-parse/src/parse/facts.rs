//! Framing facts: what the fields say about the message's framing,
//! recorded while they go by, and the value syntax they need (`Host`,
//! transfer codings).

use h1_headers::chars::is_field_value_byte;
use h1_headers::{list_elements, parse_content_length, Span};

use super::fields::{FieldSink, Line};
use super::{err, Result};
use crate::error::ErrorKind as K;
use crate::head::{ConnectionTokens, Expect, FieldFacts, TransferEncoding};
use crate::scan::{low_bits, Classify, Stop};
use h1_headers::Version;

/// Whether the token `name` (or a field value that is not folded, so holds
/// no CR) equals `lower`, an all-lowercase name of 4 to 24 letters and `-`. For tchars, OR-ing 0x20 maps exactly the two cases of a
/// letter onto the lowercase one and leaves `-` alone (its only other
/// preimage, CR, is not a tchar), so whole words compare at once.
#[inline(always)]
pub(super) fn name_is<const N: usize>(name: &[u8], lower: &[u8; N]) -> bool {
    if name.len() != N {
        return false;
    }
    if N < 8 {
        let w = |s: &[u8], at: usize| u32::from_le_bytes([s[at], s[at + 1], s[at + 2], s[at + 3]]);
        return w(name, 0) | 0x2020_2020 == w(lower, 0)
            && w(name, N - 4) | 0x2020_2020 == w(lower, N - 4);
    }
    let w = |s: &[u8], at: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&s[at..at + 8]);
        u64::from_le_bytes(b) | 0x2020_2020_2020_2020
    };
    let mid = if N > 16 {
        w(name, 8) == w(lower, 8)
    } else {
        true
    };
    w(name, 0) == w(lower, 0) && w(name, N - 8) == w(lower, N - 8) && mid
}

/// The usual `Connection` value, a lone `keep-alive` or `close`, as its bit,
/// compared a word at a time (`name_is` is exact on an unfolded value).
#[inline(always)]
pub(super) fn lone_connection_token(value: &[u8]) -> Option<u8> {
    if name_is(value, b"keep-alive") {
        Some(ConnectionTokens::KEEP_ALIVE)
    } else if name_is(value, b"close") {
        Some(ConnectionTokens::CLOSE)
    } else {
        None
    }
}

/// The field names [`Facts`] acts on.
const FRAMING_NAMES: [&[u8]; 6] = [
    b"host",
    b"expect",
    b"upgrade",
    b"connection",
    b"content-length",
    b"transfer-encoding",
];

/// For each first letter of a name (its low five bits, so either case),
/// the lengths of the framing names starting with it, as bits.
static FRAMING_BY_LETTER: [u32; 32] = {
    let mut t = [0u32; 32];
    let mut i = 0;
    while i < FRAMING_NAMES.len() {
        let n = FRAMING_NAMES[i];
        t[(n[0] & 31) as usize] |= 1 << n.len();
        i += 1;
    }
    t
};

impl FieldSink for Facts {
    /// Takes every line except `Expect`, `Content-Length`,
    /// `Transfer-Encoding`, a `Connection` that is not a lone `keep-alive`
    /// or `close`, and a repeated or unusual `Host`; those go to
    /// [`Facts::field`]. A field [`Facts::field`] acts on must be declined here or
    /// handled the same way (`field_inline_agrees_with_field` checks it for
    /// every framing name: add a new one there too).
    #[inline(always)]
    fn field_inline<C: Classify>(&mut self, c: C, buf: &[u8], l: Line) -> bool {
        let len = l.name_end.wrapping_sub(l.name_start);
        let first = buf.get(l.name_start).copied().unwrap_or(0);
        if len >= 32 || FRAMING_BY_LETTER[usize::from(first & 31)] >> len & 1 == 0 {
            return true;
        }
        let name = || buf.get(l.name_start..l.name_end).unwrap_or_default();
        let value = || buf.get(l.value_start..l.value_end).unwrap_or_default();
        match len {
            4 if self.is(REQUEST) && name_is(name(), b"host") => self.usual_first_host(c, buf, l),
            6 if self.is(REQUEST) && name_is(name(), b"expect") => false,
            7 if name_is(name(), b"upgrade") => {
                self.flags |= UPGRADE;
                true
            }
            10 if name_is(name(), b"connection") => match lone_connection_token(value()) {
                Some(bit) => {
                    self.connection |= bit;
                    true
                }
                None => false,
            },
            14 if name_is(name(), b"content-length") => false,
            17 if name_is(name(), b"transfer-encoding") => false,
            _ => true,
        }
    }

    /// Names are told apart by length first, then compared a word at a time;
    /// only a framing field leaves this inlined match.
    #[inline(always)]
    fn field<C: Classify>(&mut self, c: C, buf: &[u8], l: Line) -> Result<()> {
        // The name is sliced only for a length a framing field has.
        let name = || buf.get(l.name_start..l.name_end).unwrap_or_default();
        if l.folded {
            return folded(name(), l.value_start);
        }
        match l.name_end.wrapping_sub(l.name_start) {
            4 if self.is(REQUEST) && name_is(name(), b"host") => {
                // The first Host with a usual value is decided inline; the
                // rest (a repeat, an IP literal, an error) out of line.
                if self.usual_first_host(c, buf, l) {
                    return Ok(());
                }
                self.host(buf, l.name_start, l.value_start, l.value_end)
            }
            6 if self.is(REQUEST) && name_is(name(), b"expect") => {
                self.expect(&buf[l.value_start..l.value_end]);
                Ok(())
            }
            7 if name_is(name(), b"upgrade") => {
                self.flags |= UPGRADE;
                Ok(())
            }
            10 if name_is(name(), b"connection") => {
                self.connection(&buf[l.value_start..l.value_end]);
                Ok(())
            }
            14 if name_is(name(), b"content-length") => {
                self.content_length(buf, l.name_start, l.value_start, l.value_end)
            }
            17 if name_is(name(), b"transfer-encoding") => {
                self.transfer_encoding(buf, l.name_start, l.value_start, l.value_end)
            }
            _ => Ok(()),
        }
    }
}

/// A folded value (obs-fold leniency) holds CR LF until the caller unfolds
/// it, so a framing field must not be folded: its list or number would be
/// read differently by a peer that unfolds first (RFC 9112 §5.2 lets a
/// server refuse obs-fold outright).
#[cold]
#[inline(never)]
fn folded(name: &[u8], value_start: usize) -> Result<()> {
    if FRAMING_NAMES.iter().any(|f| name.eq_ignore_ascii_case(f)) {
        return err(K::ObsFold, value_start);
    }
    Ok(())
}

/// The largest `Content-Length` accepted: 18 significant digits.
pub(super) const MAX_CONTENT_LENGTH: u64 = 999_999_999_999_999_999;

/// [`Facts`]'s `content_length` when no `Content-Length` was seen: above
/// [`MAX_CONTENT_LENGTH`], so no accepted value.
const NO_LENGTH: u64 = u64::MAX;

// [`Facts::flags`]: one word for the yes/no facts, so starting and finishing
// a head's facts is a store and a test each.
/// A request (`Host` and `Expect` apply).
const REQUEST: u16 = 1;
/// The message is HTTP/1.0.
const HTTP10: u16 = 1 << 1;
/// The request-target is in absolute-form (its authority governs, not
/// `Host`).
const ABSOLUTE: u16 = 1 << 2;
/// An HTTP/1.1 request whose `Host` has not been seen yet.
const HOST_MISSING: u16 = 1 << 3;
/// A `Host` was recorded.
const HOST_SEEN: u16 = 1 << 4;
/// An `Upgrade` field is present.
const UPGRADE: u16 = 1 << 5;
/// A `Transfer-Encoding` field was seen ...
const TE_SEEN: u16 = 1 << 6;
/// ... listing `chunked` (last so far) ...
const TE_CHUNKED: u16 = 1 << 7;
/// ... and other codings.
const TE_OTHER: u16 = 1 << 8;

/// Accumulates the framing facts while the fields go by.
#[derive(Clone, Debug)]
pub(super) struct Facts {
    flags: u16,
    connection: u8,
    expect: Expect,
    // The agreed `Content-Length`, or [`NO_LENGTH`]: one word, read back
    // at the width it was written.
    content_length: u64,
    // `Host`'s value, valid with [`HOST_SEEN`]: offset (low half) and
    // length packed in one word, written and read whole. An `Option<Span>`
    // here was written as a tag and two halves and read back with one
    // load across them, which waits for all three stores to land.
    host: u64,
    content_length_at: usize,
    te_at: usize,
}

impl Facts {
    /// Facts for a request (`Host`, `Expect` apply) or a response of
    /// `version`, whose target is in absolute-form (`absolute`, requests
    /// only).
    #[inline(always)]
    pub(super) fn new(request: bool, version: Version, absolute: bool) -> Facts {
        let http10 = version == Version::Http10;
        let mut flags = if request { REQUEST } else { 0 };
        if http10 {
            flags |= HTTP10;
        } else if request {
            flags |= HOST_MISSING;
        }
        if absolute {
            flags |= ABSOLUTE;
        }
        Facts {
            flags,
            connection: 0,
            expect: Expect::None,
            content_length: NO_LENGTH,
            host: 0,
            content_length_at: 0,
            te_at: 0,
        }
    }

    #[inline(always)]
    fn is(&self, flag: u16) -> bool {
        self.flags & flag != 0
    }

    /// `Expect` is a list (`#expectation`, RFC 9110 §10.1.1) whose empty
    /// elements a recipient ignores (RFC 9110 §5.6.1.2): `100-continue,`
    /// asks for 100 (Continue) as `100-continue` does, and a value with
    /// no element asks for nothing. Any other element makes the request's
    /// expectation one the server cannot meet, whatever else it lists.
    #[inline(never)]
    fn expect(&mut self, value: &[u8]) {
        for element in list_elements(value) {
            self.expect =
                if element.eq_ignore_ascii_case(b"100-continue") && self.expect != Expect::Other {
                    Expect::Continue
                } else {
                    Expect::Other
                };
        }
    }

    #[inline(always)]
    fn connection(&mut self, value: &[u8]) {
        match lone_connection_token(value) {
            Some(bit) => self.connection |= bit,
            None => self.connection_list(value),
        }
    }

    /// The first `Host` of a request with a usual value (see
    /// [`host_usual`]): recorded, and `true`. Anything else is left to
    /// [`Facts::host`].
    #[inline(always)]
    fn usual_first_host<C: Classify>(&mut self, c: C, buf: &[u8], l: Line) -> bool {
        if !self.is(HOST_SEEN) && host_usual(c, buf, l.value_start, l.value_end) {
            self.set_host(l.value_start, l.value_end);
            return true;
        }
        false
    }

    /// Records `Host`'s value. The casts are exact for the reason
    /// [`super::span`]'s are: the parser never sees more than `u32::MAX` bytes.
    #[inline(always)]
    fn set_host(&mut self, start: usize, end: usize) {
        debug_assert!(start <= end && end <= Span::MAX);
        self.flags = self.flags & !HOST_MISSING | HOST_SEEN;
        self.host = (start as u64) | ((end - start) as u64) << 32;
    }

    /// `Connection` as a list of tokens.
    #[inline(never)]
    fn connection_list(&mut self, value: &[u8]) {
        for token in list_elements(value) {
            self.connection |= if token.eq_ignore_ascii_case(b"close") {
                ConnectionTokens::CLOSE
            } else if token.eq_ignore_ascii_case(b"keep-alive") {
                ConnectionTokens::KEEP_ALIVE
            } else if token.eq_ignore_ascii_case(b"upgrade") {
                ConnectionTokens::UPGRADE
            } else {
                ConnectionTokens::OTHER
            };
        }
    }

    /// The line's positions come as plain arguments (in registers), not as a
    /// [`Line`] in memory: the field walk would store one for every line.
    #[inline(never)]
    fn content_length(
        &mut self,
        buf: &[u8],
        name_start: usize,
        value_start: usize,
        value_end: usize,
    ) -> Result<()> {
        let value = &buf[value_start..value_end];
        let n = match plain_digits(value) {
            Some(n) => n,
            None => parse_content_length(value)
                .or_else(|_| err(K::InvalidContentLength, value_start))?,
        };
        // 18 digits: a bound every peer can hold (the shared profile's).
        if n > MAX_CONTENT_LENGTH {
            return err(K::InvalidContentLength, value_start);
        }
        if self.content_length != NO_LENGTH && self.content_length != n {
            return err(K::InvalidContentLength, value_start);
        }
        self.content_length = n;
        self.content_length_at = name_start;
        Ok(())
    }

    /// Host is in every request.
    #[inline(never)]
    fn host(
        &mut self,
        buf: &[u8],
        name_start: usize,
        value_start: usize,
        value_end: usize,
    ) -> Result<()> {
        if self.is(HOST_SEEN) {
            return err(K::DuplicateHost, name_start);
        }
        let value = &buf[value_start..value_end];
        // An empty value is valid `Host` grammar. h1 refuses it unless
        // the target's authority governs (absolute-form: RFC 9112 §3.2.2,
        // the origin server MUST ignore Host then, and a client whose
        // target has no authority sends it empty) or the request is
        // HTTP/1.0; otherwise §3.3 lets a server reject it, and a default
        // host chosen here could differ from a front proxy's.
        let empty_ok = self.is(HTTP10 | ABSOLUTE);
        if !(valid_host(value, false) || value.is_empty() && empty_ok) {
            return err(K::InvalidHost, value_start);
        }
        self.set_host(value_start, value_end);
        Ok(())
    }

    /// One `Transfer-Encoding` field: a list of codings, of which `chunked`
    /// may appear once, last, without parameters.
    #[inline(never)]
    fn transfer_encoding(
        &mut self,
        buf: &[u8],
        name_start: usize,
        value_start: usize,
        value_end: usize,
    ) -> Result<()> {
        let value = &buf[value_start..value_end];
        if !self.is(TE_SEEN) {
            self.te_at = name_start;
        }
        self.flags |= TE_SEEN;
        let mut any = false;
        for elem in list_elements(value) {
            any = true;
            let (coding, params) = match elem.iter().position(|&b| b == b';') {
                Some(i) => (
                    h1_headers::chars::trim_ows(&elem[..i]),
                    Some(&elem[i + 1..]),
                ),
                None => (elem, None),
            };
            if !h1_headers::chars::is_token(coding) {
                return err(K::InvalidTransferEncoding, value_start);
            }
            if self.is(TE_CHUNKED) {
                // Something after `chunked`: chunked is not the final coding.
                return err(K::InvalidTransferEncoding, value_start);
            }
            if coding.eq_ignore_ascii_case(b"chunked") {
                if params.is_some() {
                    return err(K::InvalidTransferEncoding, value_start);
                }
                self.flags |= TE_CHUNKED;
            } else {
                if let Some(p) = params {
                    if !valid_params(p) {
                        return err(K::InvalidTransferEncoding, value_start);
                    }
                }
                self.flags |= TE_OTHER;
            }
        }
        if !any {
            return err(K::InvalidTransferEncoding, value_start);
        }
        Ok(())
    }

    /// The cross-field rules, once every field has been seen: the
    /// `Transfer-Encoding` verdict, or the first rule broken. A head with
    /// neither `Transfer-Encoding` nor a missing `Host` is decided with one
    /// test.
    ///
    /// Only the one-byte verdict comes back through the `Result`; the
    /// caller then builds the [`FieldFacts`] with [`Facts::field_facts`] right
    /// into the head it returns. A `Result<FieldFacts>` would be written to
    /// memory field by field and copied out with wider loads, which wait
    /// for those stores to land.
    #[inline(always)]
    pub(super) fn verdict(&self, end: usize) -> Result<TransferEncoding> {
        if self.flags & (TE_SEEN | HOST_MISSING) == 0 {
            return Ok(TransferEncoding::Absent);
        }
        self.verdict_rules(end)
    }

    /// [`Facts::verdict`] for a head with `Transfer-Encoding` or without a
    /// `Host` it needs.
    #[inline(never)]
    fn verdict_rules(&self, end: usize) -> Result<TransferEncoding> {
        let request = self.is(REQUEST);
        let mut transfer_encoding = TransferEncoding::Absent;
        if self.is(TE_SEEN) {
            if self.content_length != NO_LENGTH {
                return err(
                    K::ContentLengthWithTransferEncoding,
                    self.te_at.max(self.content_length_at),
                );
            }
            if self.is(HTTP10) {
                return err(K::TransferEncodingInHttp10, self.te_at);
            }
            transfer_encoding = if self.is(TE_CHUNKED) {
                if self.is(TE_OTHER) && request {
                    return err(K::UnsupportedTransferCoding, self.te_at);
                }
                TransferEncoding::Chunked
            } else if request {
                return err(K::InvalidTransferEncoding, self.te_at);
            } else {
                TransferEncoding::NotChunked
            };
        }
        if self.is(HOST_MISSING) {
            return err(K::MissingHost, end);
        }
        Ok(transfer_encoding)
    }

    /// The facts as the head's [`FieldFacts`], with the verdict of
    /// [`Facts::verdict`].
    #[inline(always)]
    pub(super) fn field_facts(&self, transfer_encoding: TransferEncoding) -> FieldFacts {
        FieldFacts {
            content_length: (self.content_length != NO_LENGTH).then_some(self.content_length),
            transfer_encoding,
            connection: ConnectionTokens {
                bits: self.connection,
            },
            host: self
                .is(HOST_SEEN)
                .then_some(Span::from_parts(self.host as u32, (self.host >> 32) as u32)),
            expect: self.expect,
            upgrade: self.is(UPGRADE),
        }
    }
}

/// The value of 1 to 18 ASCII digits, the usual `Content-Length`; `None`
/// for anything else (a list, an empty or longer value, another byte),
/// which `parse_content_length` then decides.
#[inline(always)]
pub(super) fn plain_digits(value: &[u8]) -> Option<u64> {
    if value.is_empty() || value.len() > 18 {
        return None;
    }
    value.iter().try_fold(0u64, |n, &b| {
        let d = b.wrapping_sub(b'0');
        (d <= 9).then(|| n * 10 + u64::from(d))
    })
}

/// Transfer-coding parameters, `token BWS "=" BWS ( token / quoted-string )`
/// split at `;` (RFC 9110 §10.1.4; BWS removed, §5.6.3). A quoted-string with
/// `,` or `;` is refused: a reader splitting without quotes sees other codings.
fn valid_params(p: &[u8]) -> bool {
    use h1_headers::chars::{is_token, trim_ows};
    p.split(|&b| b == b';')
        .all(|param| match param.iter().position(|&b| b == b'=') {
            Some(i) => {
                let (name, val) = (trim_ows(&param[..i]), trim_ows(&param[i + 1..]));
                is_token(name) && (is_token(val) || is_quoted_string(val))
            }
            None => false,
        })
}

/// `DQUOTE *( qdtext / quoted-pair ) DQUOTE` (RFC 9110 §5.6.4).
pub(crate) fn is_quoted_string(s: &[u8]) -> bool {
    if s.len() < 2 || s[0] != b'"' || s[s.len() - 1] != b'"' {
        return false;
    }
    let inner = &s[1..s.len() - 1];
    let mut i = 0;
    while i < inner.len() {
        match inner[i] {
            // quoted-pair: a backslash and any field-value byte.
            b'\\' => {
                match inner.get(i + 1) {
                    Some(&b) if is_field_value_byte(b) => {}
                    _ => return false,
                }
                i += 2;
            }
            b'"' => return false,
            // qdtext: the other field-value bytes.
            b if is_field_value_byte(b) => i += 1,
            _ => return false,
        }
    }
    true
}

/// `uri-host [ ":" port ]` (RFC 9110 §7.2, RFC 3986 §3.2.2). With
/// `port_required`, the port must be present and non-empty (authority-form
/// for CONNECT).
#[inline(always)]
pub(super) fn valid_host(v: &[u8], port_required: bool) -> bool {
    // The common shape first: a reg-name or IPv4 address without `%`, then
    // an optional port.
    let name_len = reg_name_len(v);
    match v.get(name_len) {
        None => name_len > 0 && !port_required,
        Some(b':') if name_len > 0 => valid_port(&v[name_len + 1..], port_required),
        _ => valid_host_other(v, port_required),
    }
}

/// [`valid_host`] for the other shapes: IP literals, percent-encoding.
#[inline(never)]
fn valid_host_other(v: &[u8], port_required: bool) -> bool {
    let (host_ok, rest) = if v.first() == Some(&b'[') {
        match v.iter().position(|&b| b == b']') {
            Some(i) => (valid_ip_literal(&v[1..i]), &v[i + 1..]),
            None => return false,
        }
    } else {
        let i = v.iter().position(|&b| b == b':').unwrap_or(v.len());
        (!v[..i].is_empty() && valid_reg_name(&v[..i]), &v[i..])
    };
    if !host_ok {
        return false;
    }
    match rest.split_first() {
        None => !port_required,
        Some((b':', port)) => valid_port(port, port_required),
        Some(_) => false,
    }
}

/// `port = *DIGIT` (RFC 3986 §3.2.3). A port CONNECT must reach
/// (`required`) is a TCP port: present, 1 to 65535 (RFC 9110 §9.3.6: a
/// server MUST reject an empty or invalid port number).
#[inline(always)]
fn valid_port(port: &[u8], required: bool) -> bool {
    if !port.iter().all(u8::is_ascii_digit) {
        return false;
    }
    if !required {
        return true;
    }
    // Leading zeros do not change the number; past them, at most 5 digits.
    let digits = &port[port.iter().take_while(|&&d| d == b'0').count()..];
    let n = digits
        .iter()
        .take(6)
        .fold(0u32, |n, &d| n * 10 + u32::from(d - b'0'));
    digits.len() <= 5 && (1..=65535).contains(&n)
}

/// The 8 bytes of `buf` at `at` as a little-endian word, when there are 8.
#[inline(always)]
fn word_at(buf: &[u8], at: usize) -> Option<u64> {
    let b: &[u8; 8] = buf.get(at..at + 8)?.try_into().ok()?;
    Some(u64::from_le_bytes(*b))
}

/// The high bit of each byte of `w` that is not an ASCII digit.
#[inline(always)]
fn not_digits(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let low = w & !HIGH;
    let ge_0 = low + u64::from(0x80 - b'0') * ONES;
    let gt_9 = low + u64::from(0x7f - b'9') * ONES;
    !(ge_0 & !gt_9 & !w) & HIGH
}

/// Whether `buf[s..e]` is a `Host` value of the usual shape: letters,
/// digits, `-` and `.`, then optionally `:` and a port of up to 8 digits.
/// `true` only when [`valid_host`]`(&buf[s..e], false)` is; `false` decides
/// nothing (the caller then asks [`valid_host`]). The value's bytes are
/// classified as one block by the scanner path (a value of more than 64
/// bytes is left to [`valid_host`]), the port as one word.
#[inline(always)]
fn host_usual<C: Classify>(c: C, buf: &[u8], s: usize, e: usize) -> bool {
    let len = e.wrapping_sub(s);
    if len.wrapping_sub(1) >= 64 {
        return false;
    }
    let bad = c.mask_in(buf, s, len, Stop::HostName);
    if bad == 0 {
        return true;
    }
    // `name:port`: the first byte outside the name alphabet is the colon,
    // and every byte after it is a digit.
    let colon = bad.trailing_zeros() as usize;
    let port = len - colon - 1;
    if colon == 0 || buf[s + colon] != b':' || port > 8 {
        return false;
    }
    if port == 0 {
        return true;
    }
    // The port's digits are the last `port` bytes of the word ending at `e`.
    let Some(w) = e.checked_sub(8).and_then(|at| word_at(buf, at)) else {
        return false;
    };
    not_digits(w) & !low_bits(8 * (8 - port)) == 0
}

/// How many leading bytes of `v` are in [`REG_NAME`]. Eight bytes at a time
/// are first tested for the usual host name bytes (letters, digits, `-`,
/// `.`: a subset of [`REG_NAME`]); from the first byte outside that subset
/// the table decides, byte by byte.
#[inline(always)]
fn reg_name_len(v: &[u8]) -> usize {
    let mut i = 0;
    if v.len() >= 8 {
        loop {
            // The last word overlaps the one before; its bytes before `i`
            // are known to be in the subset, so its first miss is at `i` or later.
            let at = i.min(v.len() - 8);
            let mut w = [0u8; 8];
            w.copy_from_slice(&v[at..at + 8]);
            let miss = not_host_name_bytes(u64::from_le_bytes(w));
            if miss != 0 {
                i = at + (miss.trailing_zeros() / 8) as usize;
                break;
            }
            if at + 8 == v.len() {
                return v.len();
            }
            i = at + 8;
        }
    }
    while let Some(&b) = v.get(i) {
        if !REG_NAME[b as usize] {
            break;
        }
        i += 1;
    }
    i
}

/// The high bit of each byte of `w` that is not an ASCII letter, digit,
/// `-` or `.` (SWAR: each range test adds a constant to the low seven bits
/// of every byte, which cannot carry into the next byte). Letters are
/// tested as one range after setting bit 5 (its only preimages in
/// `a..=z` are the two cases of a letter); digits, `-` and `.` as the
/// range `-..=9` without `/`. The three tests have different shapes on
/// purpose: four alike were packed by the compiler into one vector and
/// reduced across lanes, a longer chain than these word operations.
#[inline(always)]
fn not_host_name_bytes(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let low = w & !HIGH;
    let folded = low | (0x20 * ONES);
    let letter =
        (folded + u64::from(0x80 - b'a') * ONES) & !(folded + u64::from(0x7f - b'z') * ONES);
    let dash_to_nine =
        (low + u64::from(0x80 - b'-') * ONES) & !(low + u64::from(0x7f - b'9') * ONES);
    // High bit set where the byte is not `/` (a non-zero byte of 7 bits
    // plus 0x7f reaches 0x80, a zero byte does not).
    let not_slash = (low ^ (u64::from(b'/') * ONES)) + 0x7f * ONES;
    let ok = letter | dash_to_nine & not_slash;
    !(ok & !w) & HIGH
}

/// Bytes of a reg-name other than `%`: unreserved and sub-delims.
static REG_NAME: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
            );
        b += 1;
    }
    t
};

/// `*( unreserved / pct-encoded / sub-delims )`.
#[inline]
fn valid_reg_name(s: &[u8]) -> bool {
    if s.iter().all(|&b| REG_NAME[b as usize]) {
        return true;
    }
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        if b == b'%' {
            if !(s.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && s.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
            {
                return false;
            }
            i += 3;
            continue;
        }
        if !REG_NAME[b as usize] {
            return false;
        }
        i += 1;
    }
    true
}

/// `IPv6address / IPvFuture` inside brackets, checked for its alphabet and
/// shape: hex digits, `:` and `.` with at least two colons, or
/// `v HEXDIG+ "." ( unreserved / sub-delims / ":" )+`.
fn valid_ip_literal(s: &[u8]) -> bool {
    if let Some(rest) = s.strip_prefix(b"v").or_else(|| s.strip_prefix(b"V")) {
        let dot = match rest.iter().position(|&b| b == b'.') {
            Some(d) => d,
            None => return false,
        };
        return dot > 0
            && rest[..dot].iter().all(u8::is_ascii_hexdigit)
            && rest.len() > dot + 1
            && rest[dot + 1..]
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:".contains(&b));
    }
    valid_ipv6(s)
}

/// `IPv6address` (RFC 3986 §3.2.2): eight groups of one to four hex digits,
/// or fewer around one `::`, the last two groups possibly an IPv4 address.
fn valid_ipv6(s: &[u8]) -> bool {
    let (head, tail) = match s.windows(2).position(|w| w == b"::") {
        Some(i) => (&s[..i], Some(&s[i + 2..])),
        None => (s, None),
    };
    let groups = |part: &[u8], v4_last: bool| -> Option<usize> {
        if part.is_empty() {
            return Some(0);
        }
        let mut n = 0;
        let mut pieces = part.split(|&b| b == b':').peekable();
        while let Some(g) = pieces.next() {
            let last = pieces.peek().is_none();
            if last && v4_last && g.contains(&b'.') {
                return valid_ipv4(g).then_some(n + 2);
            }
            if g.is_empty() || g.len() > 4 || !g.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            n += 1;
        }
        Some(n)
    };
    match tail {
        None => groups(head, true) == Some(8),
        Some(tail) => match (groups(head, false), groups(tail, true)) {
            (Some(h), Some(t)) => h + t <= 7,
            _ => false,
        },
    }
}

/// `IPv4address`: four decimal octets 0 to 255 without leading zeros.
fn valid_ipv4(s: &[u8]) -> bool {
    let mut n = 0;
    for octet in s.split(|&b| b == b'.') {
        n += 1;
        let ok = !octet.is_empty()
            && octet.len() <= 3
            && octet.iter().all(u8::is_ascii_digit)
            && !(octet.len() > 1 && octet[0] == b'0')
            && octet
                .iter()
                .fold(0u32, |v, &d| v * 10 + u32::from(d - b'0'))
                <= 255;
        if !ok {
            return false;
        }
    }
    n == 4
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::format;
    use std::string::{String, ToString};
    use std::{vec, vec::Vec};

    use crate::scan::{available_paths as paths, Kernel, Path};

    struct Agree;
    impl Kernel for Agree {
        type Output = ();
        fn run<C: Classify>(self, c: C) {
            field_inline_agrees_with_field_on(c);
        }
    }

    #[test]
    fn field_inline_agrees_with_field() {
        for p in paths() {
            p.run(Agree);
        }
    }

    fn field_inline_agrees_with_field_on<C: Classify>(c: C) {
        // What the walk does with a line (`field_inline`, then `field` when
        // it declines) must be what `field` alone does, line after line:
        // every framing name in several spellings, names that only look
        // like them, and values of every kind, each line seen twice (a
        // repeated Host is an error).
        let names = [
            "Host",
            "host",
            "HOST",
            "Hosu",
            "Href",
            "Expect",
            "Expecx",
            "Engine",
            "Upgrade",
            "upgrade",
            "Upgradx",
            "Unicorn",
            "Connection",
            "cONNECTION",
            "Connectiom",
            "Content-Id",
            "Content-Length",
            "Content-Lengtx",
            "Content-Digest",
            "Transfer-Encoding",
            "Transfer-Encodinx",
            "Tracking-Consents",
            "Accept",
            "Cookie",
            "User-Agent",
            "Sec-Fetch-Site",
            "Keep-Alive",
            "TE",
            "X",
        ];
        let long = "y".repeat(70);
        let values = [
            "",
            "a",
            "localhost:8080",
            "tfb-server",
            "api.internal.example.com",
            "[::1]:80",
            "a_b",
            "a b",
            "keep-alive",
            "Keep-Alive",
            "close",
            "CLOSE",
            "upgrade",
            "keep-alive, upgrade",
            "100-continue",
            "5",
            "05",
            "chunked",
            "gzip, chunked",
            long.as_str(),
        ];
        for request in [true, false] {
            for version in [Version::Http10, Version::Http11] {
                for name in names {
                    for value in values {
                        let text: String = format!("{name}: {value}\r\n\r\n");
                        let buf = text.as_bytes();
                        let line = Line {
                            name_start: 0,
                            name_end: name.len(),
                            value_start: name.len() + 2,
                            value_end: name.len() + 2 + value.len(),
                            folded: false,
                        };
                        let mut walk = Facts::new(request, version, false);
                        let mut each = walk.clone();
                        for _ in 0..2 {
                            let w = if walk.field_inline(c, buf, line) {
                                Ok(())
                            } else {
                                walk.field(c, buf, line)
                            };
                            let e = each.field(c, buf, line);
                            assert_eq!(w, e, "{text:?}");
                            assert_eq!(format!("{walk:?}"), format!("{each:?}"), "{text:?}");
                            if e.is_err() {
                                break;
                            }
                        }
                    }
                }
            }
        }
    }

    /// `name_is::<N>` against `eq_ignore_ascii_case` for a lowercase name
    /// of `N` letters and `-` (the first `N` bytes of `spelling`): the name
    /// itself in both cases, every byte replaced by every value but CR (the
    /// one byte a name or an unfolded value never holds, and the only one
    /// OR-ing 0x20 would confuse with `-`), and the name one byte shorter
    /// or longer.
    fn name_is_exact_for<const N: usize>(spelling: &[u8]) {
        let lower: [u8; N] = core::array::from_fn(|i| spelling[i]);
        let name = &lower[..];
        assert!(name_is(name, &lower));
        assert!(name_is(&name.to_ascii_uppercase(), &lower));
        for at in 0..N {
            for b in (0..=255u8).filter(|&b| b != b'\r') {
                let mut other = lower;
                other[at] = b;
                assert_eq!(
                    name_is(&other, &lower),
                    other.eq_ignore_ascii_case(&lower),
                    "{:?} as {:?}",
                    other.escape_ascii().to_string(),
                    lower.escape_ascii().to_string()
                );
            }
        }
        assert!(!name_is(&name[..N - 1], &lower));
        let mut longer = name.to_vec();
        longer.push(b'a');
        assert!(!name_is(&longer, &lower));
    }

    #[test]
    fn name_is_is_exact() {
        // Each length `name_is` promises (4 to 24), its word comparisons
        // overlapping differently at each; then the names it is used for.
        let s = b"transfer-encoding-chunked";
        macro_rules! each_length {
            ($($n:literal)*) => { $(name_is_exact_for::<$n>(s);)* };
        }
        each_length!(4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24);
        name_is_exact_for::<4>(b"host");
        name_is_exact_for::<5>(b"close");
        name_is_exact_for::<6>(b"expect");
        name_is_exact_for::<7>(b"upgrade");
        name_is_exact_for::<10>(b"connection");
        name_is_exact_for::<10>(b"keep-alive");
        name_is_exact_for::<14>(b"content-length");
        name_is_exact_for::<17>(b"transfer-encoding");
    }

    /// The byte-at-a-time definition `reg_name_len` must agree with.
    fn reg_name_len_naive(v: &[u8]) -> usize {
        v.iter()
            .position(|&b| !REG_NAME[b as usize])
            .unwrap_or(v.len())
    }

    #[test]
    fn reg_name_len_agrees_with_the_table() {
        // Every byte value at every position of hosts of 0 to 24 bytes, over
        // a background of usual host bytes and of other reg-name bytes.
        for background in [b'a', b'Z', b'7', b'-', b'.', b'_', b'~', b'%'] {
            for len in 0..=24 {
                for at in 0..len {
                    for b in 0..=255u8 {
                        let mut v = vec![background; len];
                        v[at] = b;
                        assert_eq!(
                            reg_name_len(&v),
                            reg_name_len_naive(&v),
                            "{:?}",
                            v.escape_ascii().to_string()
                        );
                    }
                }
            }
        }
    }

    struct HostUsual<'a>(&'a [u8], usize, usize);
    impl Kernel for HostUsual<'_> {
        type Output = bool;
        fn run<C: Classify>(self, c: C) -> bool {
            host_usual(c, self.0, self.1, self.2)
        }
    }

    #[test]
    fn host_usual_implies_valid_host() {
        // Values of 0 to 70 bytes over an alphabet of name bytes, separators
        // and bytes of other classes, at every offset of buffers shorter and
        // longer than a block whose bytes around the value vary too:
        // `host_usual` may say `true` only when `valid_host` does, on every
        // path, and all paths agree.
        let alphabet = b"a7-.:Z_%[]@ \t\x80\x00/9";
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for i in 0..100_000 {
            let len = (next() % if i % 4 == 0 { 72 } else { 24 }) as usize;
            let lead = (next() % 20) as usize;
            let tail = (next() % 80) as usize;
            let mut buf = Vec::new();
            for _ in 0..lead + len + tail {
                let pick = next() as usize;
                // Mostly name bytes, so usual shapes come up often.
                let b = if pick % 3 == 0 {
                    alphabet[(pick >> 8) % alphabet.len()]
                } else {
                    b"abc019-."[(pick >> 8) % 8]
                };
                buf.push(b);
            }
            let (s, e) = (lead, lead + len);
            let want = Path::Scalar.run(HostUsual(&buf, s, e));
            for p in paths() {
                assert_eq!(
                    p.run(HostUsual(&buf, s, e)),
                    want,
                    "{p:?} {:?}",
                    buf[s..e].escape_ascii().to_string()
                );
            }
            if want {
                assert!(
                    valid_host(&buf[s..e], false),
                    "{:?}",
                    buf[s..e].escape_ascii().to_string()
                );
            }
        }
        for host in [
            &b"a"[..],
            b"localhost",
            b"localhost:8080",
            b"tfb-server",
            b"www.example.com",
            b"example.com:443",
            b"10.0.0.1:80",
            b"a:",
            b"abcdefghijklmnop",
            b"abcdefgh:1234567",
            b"api.internal.example.com",
            b"api.internal.example.com:8443",
            b"a:12345678",
        ] {
            for tail in [&b"\r\n\r\n"[..], &[b'x'; 70][..]] {
                let mut buf = host.to_vec();
                buf.extend_from_slice(tail);
                for p in paths() {
                    assert!(
                        p.run(HostUsual(&buf, 0, host.len())),
                        "{p:?} {:?}",
                        host.escape_ascii().to_string()
                    );
                }
            }
        }
        for host in [
            &b":80"[..],
            b"a b",
            b"a:8x",
            b"abcdefgh:123456789",
            b"a_b",
            b"[::1]",
            b"a:1:2",
            b"",
        ] {
            let mut buf = host.to_vec();
            buf.extend_from_slice(b"\r\n\r\n\r\n\r\n");
            for p in paths() {
                assert!(
                    !p.run(HostUsual(&buf, 0, host.len())),
                    "{p:?} {:?}",
                    host.escape_ascii().to_string()
                );
            }
        }
    }

    #[test]
    fn not_digits_is_exact() {
        for b in 0..=255u8 {
            let w = u64::from_le_bytes([b; 8]);
            assert_eq!(not_digits(w) == 0, b.is_ascii_digit(), "{b:#04x}");
        }
    }

    #[test]
    fn host_name_subset_is_exact() {
        for b in 0..=255u8 {
            let usual = b.is_ascii_alphanumeric() || b == b'-' || b == b'.';
            let w = u64::from_le_bytes([b; 8]);
            assert_eq!(not_host_name_bytes(w) == 0, usual, "{b:#04x}");
            assert!(!usual || REG_NAME[b as usize]);
        }
    }

    /// Each byte's verdict is its own: no byte's value carries into or
    /// borrows from its neighbours' (every pair of bytes, side by side in
    /// both orders).
    #[test]
    fn host_name_subset_is_exact_per_byte() {
        let usual = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'.';
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let w = u64::from_le_bytes([a, b, a, b, b, a, b, a]);
                let m = not_host_name_bytes(w);
                for (i, &x) in w.to_le_bytes().iter().enumerate() {
                    let flagged = m >> (8 * i) & 0xff;
                    let want = if usual(x) { 0 } else { 0x80 };
                    assert_eq!(flagged, want, "{a:#04x} {b:#04x} at {i}");
                }
            }
        }
    }
}
