#![no_main]
//! Fuzz target: see `h1_fuzz::parse_chunk_size`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| h1_fuzz::parse_chunk_size(data));
