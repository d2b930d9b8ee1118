//! Parses one reference input N times with one parser, for instruction
//! counting under `valgrind --tool=callgrind` (see `benches/callgrind.sh`).
//!
//! ```text
//! callgrind_parse <h1|httparse|picohttpparser> <iterations> [input]
//! ```
//!
//! `input` is a file stem from `testdata/inputs/` (or `2_chrome12x16`,
//! sixteen pipelined copies of `2_chrome12`) and defaults to `2_chrome12`. The parse is checked once before the loop (and the three
//! parsers must agree on the input), so a count can't come from a parse that
//! fails early. Running it twice with different iteration counts and
//! dividing the difference in instructions by the difference in iterations
//! cancels the fixed start-up cost.

use std::hint::black_box;
use std::process::ExitCode;

use h1_benches::{check_agreement, load_input, pico::Pico, Httparse, Input, Parser, H1};

const USAGE: &str =
    "usage: callgrind_parse <h1|httparse|picohttpparser> <iterations> [input, default 2_chrome12]";

fn run<'b, P: Parser<'b>>(
    mut parser: P,
    input: &'b Input,
    iterations: u64,
) -> Result<usize, String> {
    let buf: &'b [u8] = &input.bytes;
    let mut fields = 0;
    for _ in 0..iterations {
        let sum = parser
            .parse(black_box(buf), input.kind)
            .map_err(|e| format!("{}: {}: {e}", input.name, P::NAME))?;
        fields += black_box(sum).fields;
    }
    Ok(fields)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (parser, iterations, name) = match args.as_slice() {
        [p, n] => (p.as_str(), n, "2_chrome12"),
        [p, n, input] => (p.as_str(), n, input.as_str()),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let Ok(iterations) = iterations.parse::<u64>() else {
        eprintln!("iterations must be a number\n{USAGE}");
        return ExitCode::from(2);
    };
    let input = match load_input(name) {
        Ok(input) => input,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = check_agreement(&input) {
        eprintln!("the parsers disagree:\n{e}");
        return ExitCode::FAILURE;
    }
    let result = match parser {
        "h1" => run(H1::new(), &input, iterations),
        "httparse" => run(Httparse::new(), &input, iterations),
        "picohttpparser" | "pico" => run(Pico::new(), &input, iterations),
        other => {
            eprintln!("unknown parser {other:?}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(fields) => {
            println!("{parser}: {iterations} parses of {name}, {fields} fields");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
