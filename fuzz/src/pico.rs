//! picohttpparser (C, through `picohttpparser-sys`) for the differential
//! targets: the one module of this crate with `unsafe` code.
//!
//! Calling a C function is `unsafe` whatever it does, so the crate denies
//! `unsafe_code` (rather than forbidding it, which no module could lift)
//! and this module alone allows it. Everything the C code returns is turned
//! into offsets into the buffer here, checked to lie inside it, so the rest
//! of the crate handles only safe ranges.
#![allow(unsafe_code)]

use std::ffi::{c_char, c_int};
use std::ops::Range;
use std::ptr;

use picohttpparser_sys::{phr_header, phr_parse_request, phr_parse_response};

/// Room for the field lines the C parser may report: one per two bytes of
/// input (the shortest line, a continuation, is SP LF), so it never runs
/// out (it refuses a head with more lines than its storage, and counts each
/// continuation line as one, where h1 counts a folded field once).
fn header_room(buf: &[u8]) -> usize {
    buf.len() / 2 + 1
}

/// One field line as picohttpparser reports it.
#[derive(Clone, Debug)]
pub(crate) struct PicoField {
    /// The name, or `None` for a continuation line (obs-fold), which
    /// picohttpparser reports as a line of its own.
    pub(crate) name: Option<Range<usize>>,
    /// The value: after the colon and the whitespace that follows it (for a
    /// continuation line, the whole line), up to the line end.
    pub(crate) value: Range<usize>,
}

/// A complete head as picohttpparser reports it, as offsets into the buffer.
#[derive(Clone, Debug)]
pub(crate) struct PicoHead {
    /// Bytes the head took.
    pub(crate) len: usize,
    /// The number after `HTTP/1.` (any number of digits).
    pub(crate) minor_version: c_int,
    /// Requests: the method. Responses: empty.
    pub(crate) method: Range<usize>,
    /// Requests: the path. Responses: the message (reason phrase).
    pub(crate) text: Range<usize>,
    /// Responses: the status code as the C code read it (any number of
    /// digits).
    pub(crate) status: c_int,
    /// The field lines, in order.
    pub(crate) fields: Vec<PicoField>,
}

/// What one call of `phr_parse_request` or `phr_parse_response` returned.
#[derive(Clone, Debug)]
pub(crate) enum PicoResult {
    /// A complete head.
    Complete(PicoHead),
    /// `-2`: the bytes so far are a valid prefix.
    Partial,
    /// `-1` (or any other negative value): refused.
    Rejected(c_int),
}

/// `p..p + len` as offsets into `buf`. A pointer outside the buffer is a
/// bug in the C code (or in this binding), reported as a panic.
fn range_in(buf: &[u8], p: *const c_char, len: usize, what: &str) -> Range<usize> {
    assert!(!p.is_null(), "picohttpparser: null {what} pointer");
    let start = (p as usize).wrapping_sub(buf.as_ptr() as usize);
    let end = start.checked_add(len);
    assert!(
        end.is_some_and(|end| start <= buf.len() && end <= buf.len()),
        "picohttpparser: {what} at offset {start} (+{len}) outside the {}-byte buffer",
        buf.len()
    );
    start..start + len
}

/// Parses one head from the start of `buf` with `phr_parse_request`
/// (`request`) or `phr_parse_response`, from scratch (`last_len` 0).
pub(crate) fn parse(buf: &[u8], request: bool) -> PicoResult {
    let room = header_room(buf);
    let mut headers = vec![phr_header::default(); room];
    let mut num_headers: usize = room;
    let (mut a, mut a_len): (*const c_char, usize) = (ptr::null(), 0);
    let (mut b, mut b_len): (*const c_char, usize) = (ptr::null(), 0);
    let mut minor_version: c_int = -1;
    let mut status: c_int = 0;
    let ret = if request {
        // SAFETY: `buf` is valid for reads of `buf.len()` bytes for the
        // whole call (the C code reads only inside `[buf, buf + len)`; its
        // 16-byte SSE loads are taken only while 16 bytes remain); every
        // out-pointer points at a live local, and `headers` has room for
        // `num_headers` entries, the most the C code writes. `last_len` 0
        // means no state from an earlier call is assumed.
        unsafe {
            phr_parse_request(
                buf.as_ptr().cast::<c_char>(),
                buf.len(),
                &mut a,
                &mut a_len,
                &mut b,
                &mut b_len,
                &mut minor_version,
                headers.as_mut_ptr(),
                &mut num_headers,
                0,
            )
        }
    } else {
        // SAFETY: as for the request above.
        unsafe {
            phr_parse_response(
                buf.as_ptr().cast::<c_char>(),
                buf.len(),
                &mut minor_version,
                &mut status,
                &mut b,
                &mut b_len,
                headers.as_mut_ptr(),
                &mut num_headers,
                0,
            )
        }
    };
    let len = match usize::try_from(ret) {
        Ok(len) => len,
        Err(_) if ret == -2 => return PicoResult::Partial,
        Err(_) => return PicoResult::Rejected(ret),
    };
    assert!(
        len <= buf.len() && num_headers <= room,
        "picohttpparser: {len} bytes of {}, {num_headers} headers",
        buf.len()
    );
    let fields = headers[..num_headers]
        .iter()
        .map(|h| PicoField {
            name: (!h.name.is_null()).then(|| range_in(buf, h.name, h.name_len, "name")),
            value: range_in(buf, h.value, h.value_len, "value"),
        })
        .collect();
    PicoResult::Complete(PicoHead {
        len,
        minor_version,
        method: if request {
            range_in(buf, a, a_len, "method")
        } else {
            0..0
        },
        text: range_in(buf, b, b_len, if request { "path" } else { "message" }),
        status,
        fields,
    })
}
