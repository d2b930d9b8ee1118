//! The measure of record for head parsing: h1, httparse and picohttpparser
//! timed back to back on the same input in every round, so that a burst of
//! the machine's other load lands on all three rather than on one.
//!
//! ```text
//! taskset -c 1 cargo run --release -p h1-benches --bin interleaved -- [--rounds N] [--sample-us U] [input...]
//! ```
//!
//! Inputs are file stems from `testdata/inputs/` (default: all five) and
//! `2_chrome12x16`, sixteen pipelined copies of `2_chrome12` built in memory.
//! Each parser is the crate's driver ([`H1`], [`Httparse`], [`Pico`]): h1
//! as the README calls it (the head and fields parsed into storage the
//! caller reuses and read there, `Config::default()`), httparse at its
//! fastest (`parse_with_uninit_headers` for requests). A fourth sample,
//! [`H1Copied`], copies each head once, as a caller that stores the head
//! elsewhere at once does. The parsers must agree on the input before
//! anything is timed.
//!
//! A round times one sample of each: as many whole-buffer parses as fill
//! about `--sample-us` microseconds (calibrated once per parser), in the
//! order h1, httparse, pico, h1-copied on even rounds and reversed on odd
//! ones. The report per input: the median over rounds of the per-round
//! ratios h1 / httparse, h1 / pico and h1 / the faster of the two in that
//! round, and the fastest round's time of each (ns per buffer). Pin the
//! process to one core (`taskset`) so all share its caches and frequency.
use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use h1_benches::{
    check_agreement, load_input, pico::Pico, H1Copied, Httparse, Input, Parser, CHROME_X16, H1,
    INPUT_NAMES,
};

const USAGE: &str = "usage: interleaved [--rounds N (default 41)] [--sample-us U (default 2000)] \
                     [input... (default: the five reference inputs and 2_chrome12x16)]";

/// Nanoseconds per whole-buffer parse over `iterations` parses.
#[inline(never)]
fn sample<'b, P: Parser<'b>>(parser: &mut P, input: &'b Input, iterations: u64) -> f64 {
    let buf: &'b [u8] = &input.bytes;
    let start = Instant::now();
    for _ in 0..iterations {
        // Checked by `check_agreement` before timing; an error here would be
        // a parser that is not deterministic.
        let sum = parser.parse(black_box(buf), input.kind);
        black_box(sum.is_ok());
    }
    start.elapsed().as_nanos() as f64 / iterations as f64
}

/// Iterations that take about `sample_ns`.
fn calibrate<'b, P: Parser<'b>>(parser: &mut P, input: &'b Input, sample_ns: f64) -> u64 {
    let mut n = 16;
    loop {
        let per = sample(parser, input, n);
        if per * n as f64 >= sample_ns / 4.0 || n >= 1 << 30 {
            return ((sample_ns / per.max(0.1)) as u64).max(1);
        }
        n *= 4;
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

/// One input's rounds: (h1, httparse, pico, h1-copied) ns per buffer, per
/// round.
fn rounds(input: &Input, rounds: usize, sample_ns: f64) -> Vec<[f64; 4]> {
    let (mut h1, mut hp, mut pico, mut copied) =
        (H1::new(), Httparse::new(), Pico::new(), H1Copied::new());
    let n = [
        calibrate(&mut h1, input, sample_ns),
        calibrate(&mut hp, input, sample_ns),
        calibrate(&mut pico, input, sample_ns),
        calibrate(&mut copied, input, sample_ns),
    ];
    let mut out = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let mut t = [0.0; 4];
        let order: [usize; 4] = if round % 2 == 0 {
            [0, 1, 2, 3]
        } else {
            [3, 2, 1, 0]
        };
        for i in order {
            t[i] = match i {
                0 => sample(&mut h1, input, n[0]),
                1 => sample(&mut hp, input, n[1]),
                2 => sample(&mut pico, input, n[2]),
                _ => sample(&mut copied, input, n[3]),
            };
        }
        out.push(t);
    }
    out
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut n_rounds, mut sample_us) = (41usize, 2000.0f64);
    let mut names = Vec::new();
    while let Some(a) = args.next() {
        let value =
            |args: &mut dyn Iterator<Item = String>| args.next().and_then(|v| v.parse().ok());
        match a.as_str() {
            "--rounds" => match value(&mut args) {
                Some(v) if v > 0 => n_rounds = v,
                _ => return usage(),
            },
            "--sample-us" => match value(&mut args) {
                Some(v) if v > 0 => sample_us = v as f64,
                _ => return usage(),
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ if a.starts_with('-') => return usage(),
            _ => names.push(a),
        }
    }
    if names.is_empty() {
        names = INPUT_NAMES.iter().map(|s| s.to_string()).collect();
        names.push(CHROME_X16.to_owned());
    }
    println!(
        "interleaved: {n_rounds} rounds, samples of about {sample_us} us, order reversed every other round"
    );
    println!();
    println!(
        "| input | h1 / httparse | h1 / pico | h1 / faster | h1 ns | httparse ns | pico ns | h1-copied ns |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for name in &names {
        let input = match load_input(name) {
            Ok(i) => i,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::FAILURE;
            }
        };
        if let Err(e) = check_agreement(&input) {
            eprintln!("the parsers disagree, nothing timed:\n{e}");
            return ExitCode::FAILURE;
        }
        let r = rounds(&input, n_rounds, sample_us * 1000.0);
        let ratio = |f: &dyn Fn(&[f64; 4]) -> f64| median(r.iter().map(f).collect());
        let fastest = |i: usize| min(&r.iter().map(|t| t[i]).collect::<Vec<_>>());
        println!(
            "| {} ({} B) | {:.2} | {:.2} | {:.2} | {:.1} | {:.1} | {:.1} | {:.1} |",
            input.name,
            input.bytes.len(),
            ratio(&|t| t[0] / t[1]),
            ratio(&|t| t[0] / t[2]),
            ratio(&|t| t[0] / t[1].min(t[2])),
            fastest(0),
            fastest(1),
            fastest(2),
            fastest(3),
        );
    }
    println!();
    println!("ratios: median of per-round ratios; ns: the fastest round's ns per buffer");
    ExitCode::SUCCESS
}

fn usage() -> ExitCode {
    eprintln!("{USAGE}");
    ExitCode::from(2)
}
