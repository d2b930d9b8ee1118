//! The parsers against the repository's data (`testdata/`: the reference
//! inputs and the conformance vectors), so left out of the crate's package.
//! One binary, as for `tests/parse/`.

#![forbid(unsafe_code)]

#[path = "../parse/common/mod.rs"]
mod common;

mod reference;
mod splits;
mod vectors;
