//! Head parsing: `h1-parse` against `httparse` and picohttpparser on the
//! shared reference inputs (`testdata/inputs/*.http`, read at run time).
//!
//! One criterion group per input, three functions in each: `h1`,
//! `httparse`, `picohttpparser`. Every function parses the complete buffer:
//! all heads in it (the pipelined input holds 16, parsed in a loop that
//! advances by each head's length), with every field returned as a name/value
//! pair (spans for `h1`, slices for `httparse`, pointer/length pairs for
//! picohttpparser). The input and each head's results go through
//! `black_box`. Field storage (64 entries each) and the `h1` configuration
//! (`h1_parse::Config::default()`, the strict one) are made once, outside the timed
//! loop. Throughput is the buffer's size in bytes.
//!
//! Before anything is timed, the three parsers must agree on every head of
//! every input (length, start line, number of fields and their bytes) and
//! consume the whole buffer, so a bench cannot quietly measure a parse that
//! fails early (`h1_benches::check_agreement`; `tests/agree.rs` runs the
//! same check under `cargo test`).
//!
//! # Fairness: how picohttpparser is compiled
//!
//! The figures in `testdata/inputs/README.md` were taken with picohttpparser
//! built with SSE4.2 at `-O3 -march=native`. `picohttpparser-sys` compiles
//! the C file with the `cc` crate, which passes `-O3` for the bench profile
//! (it follows cargo's `opt-level`) and, through the crate's default `sse4`
//! feature, `-msse4` (SSE4.1 + SSE4.2, so `__SSE4_2__` is defined and the
//! `_mm_cmpestri` range scan in `findchar_fast` is compiled in). The
//! workspace's `.cargo/config.toml` adds `-march=native` through the
//! `CFLAGS_x86_64_unknown_linux_gnu` variable, which `cc` appends to its own
//! flags, so the C code is built the way the README measured it. Check with
//! `objdump -d target/release/build/picohttpparser-sys-*/out/*picohttpparser.o
//! | grep pcmpestri`. The Rust parsers are built for the default x86-64
//! target and pick SSE4.2/AVX2 at run time (`h1-parse` and `httparse` both
//! detect CPU features with `std`).
//!
//! Run: `cargo bench -p h1-benches` (all), `cargo bench -p h1-benches -- h1`
//! (a filter), `cargo bench -p h1-benches -- --test` (each function once, as
//! CI does). The machine is shared and noisy: compare the three parsers
//! within one run, as ratios.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use h1_benches::{check_agreement, load_inputs, pico::Pico, Httparse, Input, Parser, H1};

/// Times `parser` over the whole of `input`.
fn bench_parser<'b, P: Parser<'b>>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    mut parser: P,
    input: &'b Input,
) {
    let buf: &'b [u8] = &input.bytes;
    let kind = input.kind;
    group.bench_function(P::NAME, |b| {
        b.iter(|| {
            let sum = parser.parse(black_box(buf), kind);
            black_box(sum)
        })
    });
}

fn parse(c: &mut Criterion) {
    let inputs = match load_inputs() {
        Ok(inputs) => inputs,
        Err(e) => panic!("{e}"),
    };
    for input in &inputs {
        if let Err(e) = check_agreement(input) {
            panic!("the parsers disagree, refusing to benchmark:\n{e}");
        }
    }
    for input in &inputs {
        let mut group = c.benchmark_group(input.name.as_str());
        group.throughput(Throughput::Bytes(input.bytes.len() as u64));
        bench_parser(&mut group, H1::new(), input);
        bench_parser(&mut group, Httparse::new(), input);
        bench_parser(&mut group, Pico::new(), input);
        group.finish();
    }
}

criterion_group!(benches, parse);
criterion_main!(benches);
