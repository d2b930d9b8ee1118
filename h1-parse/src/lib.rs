//! Strict, SIMD-accelerated HTTP/1.1 head parser.
//!
//! `h1-parse` turns bytes into request and response heads without copying or
//! allocating: the method, target, reason and every field become
//! [`Span`]s into the caller's buffer, and the head and its fields are
//! written into storage the caller provides (reused from one head to the
//! next). While it walks the head it records what later layers need of the
//! fields it interprets ([`FieldFacts`]: `Content-Length`, the
//! `Transfer-Encoding` verdict, `Connection` tokens, `Host`, `Expect`,
//! `Upgrade`) so nothing rescans the head; [`RequestHead::framing`] and
//! [`ResponseHead::framing`] say how the body is delimited.
//!
//! ```
//! use h1_parse::{parse_request, Config, Entry, Method, RequestHead, Status};
//!
//! let buf = b"GET /hello HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n";
//! let mut head = RequestHead::EMPTY;
//! let mut fields = [Entry::EMPTY; 16];
//! let len = match parse_request(buf, &mut head, &mut fields, &Config::default()).unwrap() {
//!     Status::Complete(len) => len,
//!     Status::Partial => unreachable!("the head is complete"),
//! };
//! assert_eq!(head.method_kind, Method::Get);
//! assert_eq!(head.target.slice(buf), b"/hello");
//! assert_eq!(head.fields(buf, &fields).get(b"accept"), Some(&b"*/*"[..]));
//! assert_eq!(len, buf.len());
//! ```
//!
//! The defaults are strict: every ambiguity that has been
//! used for request smuggling is refused with an [`Error`] that names the
//! [`ErrorKind`], the byte offset and the status to answer. Leniencies are
//! named fields of [`Config`], off by default.
//!
//! For heads that arrive in pieces, [`HeadParser`] is the same pass,
//! resumable: it parses as far as the complete lines go and goes on from
//! the first unfinished line when more bytes arrive, so each line is parsed
//! once and a head fed one byte at a time costs O(n) in total.
//!
//! The [h1-headers](h1_headers) types the API takes and returns ([`Entry`],
//! [`Span`], [`HeadersView`], [`Version`], [`Framing`]) are re-exported here, and the whole crate as
//! [`headers`], so one import is enough.
//!
//! # Features
//!
//! - `std` (default): the SIMD path is picked at run time (AVX-512, AVX2,
//!   SSE4.2), and [`Error`] implements `std::error::Error`. Without it, the
//!   widest path the compile-time target features allow is used.
#![cfg_attr(not(feature = "std"), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
// `unsafe` lives only in the SIMD module (`scan::x86`), which allows it.
#![deny(unsafe_code)]

mod chunk;
mod config;
mod error;
mod head;
mod incremental;
mod parse;
pub mod scan;

pub use chunk::{parse_chunk_size, ChunkSize};
pub use config::Config;
pub use error::{Error, ErrorKind};
pub use head::{
    ConnectionTokens, Expect, FieldFacts, Method, RequestHead, ResponseHead, Status, TargetForm,
    TransferEncoding,
};
pub use incremental::HeadParser;

pub use h1_headers as headers;
pub use h1_headers::{Entry, Framing, HeadersView, Span, Version};
pub use parse::{
    parse_request, parse_request_with_path, parse_response, parse_trailers, unfold_in_place,
    Trailers,
};

// The crate's README (its page on crates.io) is tested as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
