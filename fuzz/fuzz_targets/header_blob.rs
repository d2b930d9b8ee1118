#![no_main]
//! Fuzz target: see `h1_fuzz::header_blob`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| h1_fuzz::header_blob(data));
