//! The counter counts what the measured closure allocates, on its thread
//! only.

use std::hint::black_box;

use counting_alloc::{allocations, Counting};

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn counts_allocations_and_reallocations() {
    let ((), n) = allocations(|| {
        black_box(vec![1u8; 100]);
    });
    assert_eq!(n, 1);
    let ((), n) = allocations(|| {
        let mut v: Vec<u8> = Vec::with_capacity(1);
        for i in 0..64 {
            v.push(black_box(i));
        }
        black_box(v);
    });
    assert!(n >= 2, "{n}");
    let (_, n) = allocations(|| black_box(1 + 1));
    assert_eq!(n, 0);
}

#[test]
fn other_threads_are_not_counted() {
    let ((), n) = allocations(|| {
        std::thread::scope(|s| {
            s.spawn(|| {
                for _ in 0..100 {
                    black_box(vec![0u8; 10]);
                }
            });
        });
    });
    // Spawning allocates on this thread a little; the 100 vectors of the
    // other thread are not counted.
    assert!(n < 50, "{n}");
}
