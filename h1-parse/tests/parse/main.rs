//! The parsers through the public API, self-contained (part of the crate's
//! package). One test binary for all of them: each binary links the crate's
//! code again, so fewer binaries build much faster (the mutation runs build
//! every mutant).

#![forbid(unsafe_code)]

mod common;

mod arrival;
mod cost;
mod fields;
mod framing;
mod requests;
mod responses;
