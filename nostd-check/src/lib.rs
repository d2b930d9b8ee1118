//! Proof that `h1-headers`, `h1-parse`, `h1-encode` and `h1-conn`, without
//! default features, build
//! for a `no_std` target: this crate defines its own `#[panic_handler]` and
//! `#[global_allocator]`, so if any crate in the graph links `std` the build
//! fails with
//!
//! ```text
//! error[E0152]: found duplicate lang item `panic_impl`
//! ```
//!
//! `.ci/run` builds it with `cargo build --manifest-path nostd-check/Cargo.toml`
//! and then, to show the check can fail, builds it again with
//! `--features h1-parse/std` and requires that build to fail with E0152.
//!
//! How this check was checked (by hand, in a scratch copy of this crate):
//! each of (a) enabling `h1-parse`'s `std` feature, (b) dropping
//! `default-features = false` from the `h1-parse` dependency, and (c) adding
//! `extern crate std;` to this file made `cargo build` fail with E0152 naming
//! `std`; the crate as it is builds. The exported function below calls into
//! both crates so their code is compiled into the library, not only their
//! metadata read.
#![no_std]
#![no_main]
#![deny(unsafe_code)]

extern crate alloc;

use core::alloc::{GlobalAlloc, Layout};
use core::panic::PanicInfo;
use h1_headers::{Entry, Span};
use h1_parse::{Config, Status};

/// Parses a request head and returns the bytes it and its body take (0 if
/// it is incomplete or invalid), with `h1-parse`'s scanners, parser and
/// framing checks and `h1-headers`' spans and lookups all linked in.
#[no_mangle]
#[allow(unsafe_code)] // `no_mangle` counts as unsafe code; it only exports the symbol.
pub extern "C" fn h1_nostd_parse() -> usize {
    parse(b"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi")
}

/// Encodes a small response and returns its length (0 on error), so
/// `h1-encode`'s writer and framing are linked in too.
#[no_mangle]
#[allow(unsafe_code)] // `no_mangle` counts as unsafe code; it only exports the symbol.
pub extern "C" fn h1_nostd_encode() -> usize {
    use h1_encode::{Exchange, Framing, ResponseWriter, Version};
    let mut out = alloc::vec::Vec::new();
    let ex = Exchange::new(Version::Http11);
    let Ok(w) = ResponseWriter::start(&mut out, 200, &ex, Framing::Length(2)) else {
        return 0;
    };
    match w.finish() {
        Ok(_) => out.len(),
        Err(_) => 0,
    }
}

/// Serves one request through `h1-conn`'s server role and returns the
/// length of the response (0 on error), so the connection state machine is
/// linked in too.
#[no_mangle]
#[allow(unsafe_code)] // `no_mangle` counts as unsafe code; it only exports the symbol.
pub extern "C" fn h1_nostd_serve() -> usize {
    use h1_conn::{ServerConn, ServerEvent};
    let mut conn = ServerConn::default();
    conn.feed(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n");
    loop {
        match conn.next_event() {
            ServerEvent::Request(_) => {}
            ServerEvent::End => {
                if conn.respond_with(200, [("a", "b")], b"hi").is_err() {
                    return 0;
                }
            }
            _ => return conn.out().len(),
        }
    }
}

fn parse(buf: &[u8]) -> usize {
    let mut head = h1_parse::RequestHead::EMPTY;
    let mut fields = [Entry::EMPTY; 16];
    match h1_parse::parse_request(buf, &mut head, &mut fields, &Config::DEFAULT) {
        Ok(Status::Complete(_)) => {
            let view = head.fields(buf, &fields);
            let cl = h1_headers::content_length(view.get_all(b"content-length"));
            let host = head.facts.host.unwrap_or(Span::EMPTY);
            match cl {
                Ok(Some(n)) => head.len + n as usize + host.len(),
                _ => head.len,
            }
        }
        _ => 0,
    }
}

/// Without `std` there is no unwinding and no output: stop.
#[panic_handler]
fn panic(_: &PanicInfo<'_>) -> ! {
    loop {
        core::hint::spin_loop();
    }
}

/// An allocator that has no memory: every request fails. `h1-headers` uses
/// `alloc` (for its owned header blob), so a final artifact needs one; the
/// parser itself never allocates, which this makes visible.
struct NoMemory;

// SAFETY: `alloc` returns null, which `GlobalAlloc` allows as "allocation
// failed"; `dealloc` is never handed a pointer this allocator produced,
// because it produces none.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for NoMemory {
    unsafe fn alloc(&self, _: Layout) -> *mut u8 {
        core::ptr::null_mut()
    }
    unsafe fn dealloc(&self, _: *mut u8, _: Layout) {}
}

#[global_allocator]
static ALLOCATOR: NoMemory = NoMemory;
