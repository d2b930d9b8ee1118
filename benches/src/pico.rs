//! picohttpparser (C, through `picohttpparser-sys`): the one place with
//! `unsafe` code in this crate, the FFI calls and the slices rebuilt from the
//! pointers the C code returns.
#![allow(unsafe_code)]

use std::ffi::{c_char, c_int};
use std::hint::black_box;
use std::ptr;

use picohttpparser_sys::{phr_header, phr_parse_request, phr_parse_response};

use crate::{advance, Failure, Head, Kind, Parser, Summary, MAX_FIELDS};

/// What one call of `phr_parse_request` / `phr_parse_response` returned
/// besides the fields.
#[derive(Clone, Copy)]
struct Line {
    /// Method pointer (request) or message pointer (response).
    a: *const c_char,
    a_len: usize,
    /// Path pointer (request); unused for a response.
    b: *const c_char,
    b_len: usize,
    minor_version: c_int,
    status: c_int,
}

impl Line {
    const EMPTY: Line = Line {
        a: ptr::null(),
        a_len: 0,
        b: ptr::null(),
        b_len: 0,
        minor_version: -1,
        status: 0,
    };
}

/// picohttpparser as built by `picohttpparser-sys`.
pub struct Pico {
    headers: [phr_header; MAX_FIELDS],
}

impl Pico {
    /// Storage for [`MAX_FIELDS`] fields.
    pub fn new() -> Self {
        Pico {
            headers: [phr_header::default(); MAX_FIELDS],
        }
    }

    /// One head from the start of `buf`: bytes consumed (or `-1` invalid,
    /// `-2` partial, as the C code says), the start line and the field count.
    #[inline(always)]
    fn call(&mut self, buf: &[u8], kind: Kind) -> (c_int, Line, usize) {
        let mut line = Line::EMPTY;
        let mut num_headers: usize = MAX_FIELDS;
        let ret = match kind {
            // SAFETY: `buf` is valid for `buf.len()` bytes of reads for the
            // whole call; every out-pointer points at a live local or at
            // `self.headers`, which has room for `num_headers` entries (the
            // C code writes at most that many); `last_len` 0 means "parse
            // from the start", so no earlier state is assumed.
            Kind::Request => unsafe {
                phr_parse_request(
                    buf.as_ptr().cast::<c_char>(),
                    buf.len(),
                    &mut line.a,
                    &mut line.a_len,
                    &mut line.b,
                    &mut line.b_len,
                    &mut line.minor_version,
                    self.headers.as_mut_ptr(),
                    &mut num_headers,
                    0,
                )
            },
            // SAFETY: as for the request above.
            Kind::Response => unsafe {
                phr_parse_response(
                    buf.as_ptr().cast::<c_char>(),
                    buf.len(),
                    &mut line.minor_version,
                    &mut line.status,
                    &mut line.a,
                    &mut line.a_len,
                    self.headers.as_mut_ptr(),
                    &mut num_headers,
                    0,
                )
            },
        };
        (ret, line, num_headers.min(MAX_FIELDS))
    }
}

impl Default for Pico {
    fn default() -> Self {
        Self::new()
    }
}

fn pico_failure(at: usize, ret: c_int) -> Failure {
    match ret {
        -2 => Failure::Partial { at },
        _ => Failure::Rejected {
            at,
            detail: format!("picohttpparser returned {ret}"),
        },
    }
}

/// The bytes at `p..p + len`, checked to lie inside `buf`, copied out.
fn bytes_in(buf: &[u8], at: usize, p: *const c_char, len: usize) -> Result<Vec<u8>, Failure> {
    if len == 0 {
        return Ok(Vec::new());
    }
    let start = (p as usize).wrapping_sub(buf.as_ptr() as usize);
    start
        .checked_add(len)
        .and_then(|end| buf.get(start..end))
        .map(<[u8]>::to_vec)
        .ok_or(Failure::Rejected {
            at,
            detail: format!(
                "picohttpparser returned a pointer outside the buffer (offset {start}, len {len})"
            ),
        })
}

impl<'b> Parser<'b> for Pico {
    const NAME: &'static str = "picohttpparser";

    #[inline]
    fn parse(&mut self, buf: &'b [u8], kind: Kind) -> Result<Summary, Failure> {
        let mut sum = Summary::default();
        let mut at = 0;
        while at < buf.len() {
            let rest = &buf[at..];
            let (ret, line, count) = self.call(rest, kind);
            let Ok(len) = usize::try_from(ret) else {
                return Err(pico_failure(at, ret));
            };
            black_box(&line.a);
            black_box(&line.b);
            black_box(&self.headers[..count]);
            advance(&mut at, len, rest.len())?;
            sum.heads += 1;
            sum.fields += count;
        }
        sum.consumed = at;
        Ok(sum)
    }

    fn collect(&mut self, buf: &'b [u8], kind: Kind) -> Result<Vec<Head>, Failure> {
        let mut heads = Vec::new();
        let mut at = 0;
        while at < buf.len() {
            let rest = &buf[at..];
            let (ret, line, count) = self.call(rest, kind);
            let Ok(len) = usize::try_from(ret) else {
                return Err(pico_failure(at, ret));
            };
            let (first, second) = match kind {
                Kind::Request => (
                    bytes_in(rest, at, line.a, line.a_len)?,
                    bytes_in(rest, at, line.b, line.b_len)?,
                ),
                Kind::Response => (
                    line.status.to_string().into_bytes(),
                    bytes_in(rest, at, line.a, line.a_len)?,
                ),
            };
            let mut fields = Vec::with_capacity(count);
            for h in &self.headers[..count] {
                if h.name.is_null() {
                    return Err(Failure::Rejected {
                        at,
                        detail: "picohttpparser reported a continuation line".to_owned(),
                    });
                }
                fields.push((
                    bytes_in(rest, at, h.name, h.name_len)?,
                    bytes_in(rest, at, h.value, h.value_len)?,
                ));
            }
            heads.push(Head {
                len,
                minor_version: u8::try_from(line.minor_version).unwrap_or(u8::MAX),
                first,
                second,
                fields,
            });
            advance(&mut at, len, rest.len())?;
        }
        Ok(heads)
    }
}
