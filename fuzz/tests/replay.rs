//! Replays every fuzz target body over its committed corpus on stable:
//! `cargo test --manifest-path fuzz/Cargo.toml`.
//!
//! Inputs: every file in `fuzz/corpus/<target>/` (the seeds `fuzz/seeds.py`
//! writes; it must not be empty) and in `fuzz/regressions/<target>/`
//! (reproducers of fixed crashes, if any), plus mutations of each: for the
//! parse, connection, body and differential targets prefixes of every seed (all of them for seeds up to
//! `ALL_PREFIXES_MAX` bytes), and for every target a few single-byte
//! substitutions with the bytes parsers trip over; and, as they are, the
//! inputs of the minimized campaign corpus `fuzz/campaign/<target>/`
//! (`fuzz/minimize.sh`), when there is one. A panic in a body fails the
//! test, which lists every failing input as an escaped byte string.

use std::cell::Cell;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Once;

/// Seeds up to this length are replayed cut at every length.
const ALL_PREFIXES_MAX: usize = 1024;
/// Longer seeds are replayed cut at this many lengths, evenly spread.
const SAMPLED_PREFIXES: usize = 96;
/// Single-byte substitutions per seed.
const SUBSTITUTIONS: usize = 48;
/// The bytes substituted: line ends, separators, NUL, DEL, obs-text, digits.
const NASTY: [u8; 12] = [
    b'\r', b'\n', b' ', b'\t', 0, b':', b';', b',', 0x7f, 0x80, b'0', b'F',
];

fn dir(kind: &str, target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(kind)
        .join(target)
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Vec<u8>)> = entries
        .map(|e| e.expect("readable corpus entry").path())
        .filter(|p| p.is_file())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let data = std::fs::read(&p).expect("readable corpus file");
            (name, data)
        })
        .collect();
    out.sort();
    out
}

/// The inputs derived from one seed, each with a label.
fn mutations(data: &[u8], prefixes: bool) -> Vec<(String, Vec<u8>)> {
    let mut out = vec![(String::from("as is"), data.to_vec())];
    if prefixes {
        let n = data.len();
        let cuts: Vec<usize> = if n <= ALL_PREFIXES_MAX {
            (0..n).collect()
        } else {
            (0..SAMPLED_PREFIXES)
                .map(|i| i * n / SAMPLED_PREFIXES)
                .collect()
        };
        out.extend(
            cuts.into_iter()
                .map(|k| (format!("prefix {k}"), data[..k].to_vec())),
        );
    }
    // Deterministic positions: spread over the seed, offset by its length.
    if !data.is_empty() {
        for i in 0..SUBSTITUTIONS {
            let pos = (i * 7919 + data.len()) % data.len();
            let byte = NASTY[(i + data.len()) % NASTY.len()];
            let mut m = data.to_vec();
            m[pos] = byte;
            out.push((format!("byte {pos} = {byte:#04x}"), m));
        }
    }
    out
}

fn escape(data: &[u8]) -> String {
    let mut s = String::with_capacity(data.len() + 2);
    s.push_str("b\"");
    for &b in data.iter().take(600) {
        for c in std::ascii::escape_default(b) {
            s.push(c as char);
        }
    }
    if data.len() > 600 {
        s.push_str("...");
    }
    s.push('"');
    s
}

thread_local! {
    /// Set while a body runs under `catch_unwind`: its panic message is
    /// collected into the failure list instead of printed.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `body` on `data`; the panic message if it panicked.
fn run_one(body: fn(&[u8]), data: &[u8]) -> Option<String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                default(info);
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let r = catch_unwind(AssertUnwindSafe(|| body(data)));
    QUIET.with(|q| q.set(false));
    let payload = r.err()?;
    let msg = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| String::from("(non-string panic)"));
    Some(msg)
}

fn replay(target: &str, body: fn(&[u8]), prefixes: bool) {
    let seeds = files(&dir("corpus", target));
    assert!(
        !seeds.is_empty(),
        "no seeds in fuzz/corpus/{target}: run `python3 fuzz/seeds.py`"
    );
    let mut inputs = seeds;
    inputs.extend(
        files(&dir("regressions", target))
            .into_iter()
            .map(|(n, d)| (format!("regressions/{n}"), d)),
    );
    let campaign: Vec<(String, Vec<u8>)> = files(&dir("campaign", target))
        .into_iter()
        .map(|(n, d)| (format!("campaign/{n}"), d))
        .collect();
    let (mut runs, mut failures) = (0usize, Vec::new());
    let mut run = |name: &str, label: &str, data: &[u8]| {
        runs += 1;
        if let Some(msg) = run_one(body, data) {
            let msg = msg.replace('\n', "\n      ");
            failures.push(format!("{name} ({label}): {}\n      {msg}", escape(data)));
        }
    };
    for (name, seed) in &inputs {
        for (label, data) in mutations(seed, prefixes) {
            run(name, &label, &data);
        }
    }
    for (name, data) in &campaign {
        run(name, "as is", data);
    }
    println!(
        "{target}: {} files and {} of the campaign, {runs} runs",
        inputs.len(),
        campaign.len()
    );
    if !failures.is_empty() {
        let mut msg = format!("{target}: {} of {runs} runs panicked:\n", failures.len());
        for f in failures.iter().take(20) {
            let _ = writeln!(msg, "  {f}");
        }
        panic!("{msg}");
    }
    assert!(runs > 0, "{target}: nothing ran");
}

#[test]
fn parse_request() {
    replay("parse_request", h1_fuzz::parse_request, true);
}

#[test]
fn parse_response() {
    replay("parse_response", h1_fuzz::parse_response, true);
}

#[test]
fn parse_chunk_size() {
    replay("parse_chunk_size", h1_fuzz::parse_chunk_size, true);
}

#[test]
fn parse_trailers() {
    replay("parse_trailers", h1_fuzz::parse_trailers, true);
}

#[test]
fn scan_token() {
    replay("scan_token", h1_fuzz::scan_token, false);
}

#[test]
fn scan_target() {
    replay("scan_target", h1_fuzz::scan_target, false);
}

#[test]
fn scan_value() {
    replay("scan_value", h1_fuzz::scan_value, false);
}

#[test]
fn scan_head_end() {
    replay("scan_head_end", h1_fuzz::scan_head_end, true);
}

#[test]
fn server_splits() {
    replay("server_splits", h1_fuzz::server_splits, true);
}

#[test]
fn body_decoder() {
    replay("body_decoder", h1_fuzz::body_decoder, true);
}

#[test]
fn roundtrip() {
    replay("roundtrip", h1_fuzz::roundtrip, true);
}

#[test]
fn diff_request() {
    replay("diff_request", h1_fuzz::diff_request, true);
}

#[test]
fn diff_pico_request() {
    replay("diff_pico_request", h1_fuzz::diff_pico_request, true);
}

#[test]
fn diff_response() {
    replay("diff_response", h1_fuzz::diff_response, true);
}

#[test]
fn diff_chunked() {
    replay("diff_chunked", h1_fuzz::diff_chunked, true);
}

#[test]
fn header_blob() {
    replay("header_blob", h1_fuzz::header_blob, false);
}

/// A target's body.
type Body = fn(&[u8]);

/// The differential targets accept a disagreement only when it is one of
/// the listed classes; the seeds (with their mutations) reach every one of
/// them, so a classification that stopped working (a class never taken)
/// fails here, as does a class taken that is not listed. Set
/// `H1_FUZZ_CLASSES_FROM` to a directory of inputs (an absolute path, or
/// one relative to `fuzz/`, such as `corpus-work/diff_request`) to list
/// what those reach instead, each through all three targets; an input any
/// target panics on then fails the test.
#[test]
fn differential_classes() {
    let targets: [(&str, Body); 3] = [
        ("diff_request", h1_fuzz::diff_request),
        ("diff_pico_request", h1_fuzz::diff_pico_request),
        ("diff_response", h1_fuzz::diff_response),
    ];
    let extra = std::env::var_os("H1_FUZZ_CLASSES_FROM").map(PathBuf::from);
    let mut seen = std::collections::BTreeSet::new();
    let mut panics = Vec::new();
    for (target, body) in targets {
        let inputs = match &extra {
            Some(d) => {
                let inputs = files(d);
                assert!(!inputs.is_empty(), "no inputs in {}", d.display());
                inputs
            }
            None => files(&dir("corpus", target)),
        };
        for (name, seed) in &inputs {
            for (label, data) in mutations(seed, extra.is_none()) {
                match run_one(body, &data) {
                    None => seen.extend(
                        h1_fuzz::differential::take_classes_seen()
                            .into_iter()
                            .map(|(class, parser)| (target, class, parser)),
                    ),
                    // A seed's panic is the replay test's to report.
                    Some(msg) if extra.is_some() => panics.push(format!(
                        "{target} on {name} ({label}), {}: {msg}",
                        escape(&data)
                    )),
                    Some(_) => {}
                }
                let _ = h1_fuzz::differential::take_classes_seen();
            }
        }
    }
    for (target, class, parser) in &seen {
        println!("{target}: {class} ({parser})");
    }
    assert!(
        panics.is_empty(),
        "{} inputs fail:\n{}",
        panics.len(),
        panics.join("\n")
    );
    let classes: std::collections::BTreeSet<&str> = seen.iter().map(|s| s.1).collect();
    for class in &classes {
        assert!(h1_fuzz::differential::CLASSES.contains(class));
    }
    if extra.is_none() {
        let unreached: Vec<&str> = h1_fuzz::differential::CLASSES
            .iter()
            .filter(|c| !classes.contains(*c))
            .copied()
            .collect();
        assert!(
            unreached.is_empty(),
            "the seeds no longer reach {unreached:?}"
        );
    }
}

/// The replay must be able to fail: a body that panics on some input is
/// reported, not swallowed.
#[test]
fn replay_reports_panics() {
    fn boom(data: &[u8]) {
        let wrk = std::fs::read(dir("corpus", "parse_request").join("input-1_wrk_min"));
        assert!(wrk.ok().as_deref() != Some(data), "boom");
    }
    let r = catch_unwind(|| replay("parse_request", boom, false));
    assert!(r.is_err(), "a panicking body passed the replay");
}
