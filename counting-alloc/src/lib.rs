//! Test support for the zero-allocation tests of the h1 crates: `System`,
//! counting the allocations (and reallocations) of the threads that turned
//! counting on, so tests running in parallel do not disturb each other.
//!
//! A test binary installs it with
//!
//! ```ignore
//! #[global_allocator]
//! static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;
//! ```
//!
//! and measures with [`allocations`], or the bytes allocated and not yet
//! freed by the whole process with [`live_bytes`]. This crate needs `unsafe`:
//! implementing `GlobalAlloc` is an unsafe trait; each method forwards to
//! `System` unchanged.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The counting allocator.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

/// Bytes allocated and not freed, all threads together.
static LIVE: AtomicUsize = AtomicUsize::new(0);

fn note() {
    // `try_with`: the thread-locals may be gone while a thread exits.
    let on = COUNTING.try_with(Cell::get).unwrap_or(false);
    if on {
        let _ = COUNT.try_with(|c| c.set(c.get() + 1));
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments, so
// `System`'s guarantees are ours; the bookkeeping touches only `const`
// thread-locals of `Copy` types, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: forwarded unchanged; the caller upholds `alloc`'s contract.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: forwarded unchanged; the caller upholds the contract.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: forwarded unchanged; `ptr` came from this allocator, which
        // is `System`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_add(new_size, Relaxed);
            LIVE.fetch_sub(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: forwarded unchanged; `ptr` came from `System`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Runs `f` and returns what it returned with the number of allocations
/// (including reallocations) it made on this thread. Counts only when
/// [`Counting`] is the global allocator.
pub fn allocations<R>(f: impl FnOnce() -> R) -> (R, usize) {
    COUNT.with(|c| c.set(0));
    COUNTING.with(|c| c.set(true));
    let r = f();
    COUNTING.with(|c| c.set(false));
    (r, COUNT.with(Cell::get))
}

/// The bytes the process has allocated and not freed (all threads), as
/// far as [`Counting`] saw them: zero until it is the global allocator.
pub fn live_bytes() -> usize {
    LIVE.load(Relaxed)
}
