//! The three parsers must agree on every reference input before their
//! timings mean anything: same heads, same lengths, same start lines, same
//! fields byte for byte, and the whole buffer consumed. The bench runs the
//! same check before it times anything; this runs it under `cargo test`.

use h1_benches::{
    check_agreement, load_input, load_inputs, pico::Pico, H1Copied, Httparse, Parser, CHROME_X16,
    H1, INPUT_NAMES,
};

/// Heads and fields per input, counted from the files by hand.
const EXPECTED: [(&str, usize, usize); 5] = [
    ("1_wrk_min", 1, 1),
    ("2_chrome12", 1, 12),
    ("3_tfb_pipelined16", 16, 48),
    ("4_response", 1, 4),
    ("5_large40", 1, 40),
];

#[test]
fn all_parsers_agree_on_every_input() {
    let inputs = load_inputs().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(inputs.len(), INPUT_NAMES.len());
    for input in &inputs {
        let sum = check_agreement(input).unwrap_or_else(|e| panic!("{e}"));
        let (_, heads, fields) = EXPECTED
            .iter()
            .copied()
            .find(|(name, _, _)| *name == input.name)
            .unwrap_or_else(|| panic!("no expectation for {}", input.name));
        assert_eq!(sum.heads, heads, "{}: heads", input.name);
        assert_eq!(sum.fields, fields, "{}: fields", input.name);
        assert_eq!(sum.consumed, input.bytes.len(), "{}: bytes", input.name);
    }
}

/// The check must be able to fail: a head cut short is partial for every
/// parser, and a corrupted field line is rejected, so `check_agreement`
/// reports an error instead of a summary.
#[test]
fn the_check_catches_a_failing_parse() {
    let mut input = load_input("2_chrome12").unwrap_or_else(|e| panic!("{e}"));
    let full = input.bytes.clone();

    input.bytes.truncate(full.len() - 2);
    let err = check_agreement(&input).expect_err("a truncated head must not pass");
    assert!(err.contains("partial"), "{err}");

    input.bytes = full.clone();
    let colon = input
        .bytes
        .iter()
        .position(|&b| b == b':')
        .unwrap_or_else(|| panic!("no colon"));
    input.bytes[colon - 1] = b' '; // "Host :" — whitespace before the colon
    assert!(
        check_agreement(&input).is_err(),
        "a malformed field line must not pass"
    );
}

/// Each timed driver reports failures instead of counting a bad head.
#[test]
fn timed_drivers_report_failures() {
    let kind = h1_benches::Kind::Request;
    let bad: &[u8] = b"GET / HTTP/1.1\r\nHo st: x\r\n\r\n";
    assert!(H1::new().parse(bad, kind).is_err());
    assert!(Httparse::new().parse(bad, kind).is_err());
    assert!(Pico::new().parse(bad, kind).is_err());
    let partial: &[u8] = b"GET / HTTP/1.1\r\nHost: x\r\n";
    assert!(H1::new().parse(partial, kind).is_err());
    assert!(Httparse::new().parse(partial, kind).is_err());
    assert!(Pico::new().parse(partial, kind).is_err());
}

/// The made input is sixteen `2_chrome12` heads: 16 heads, 192 fields, and
/// the parsers agree on it too; the copying driver agrees with the plain one.
#[test]
fn the_pipelined_chrome_input_is_sixteen_heads() {
    let input = load_input(CHROME_X16).unwrap_or_else(|e| panic!("{e}"));
    let one = load_input("2_chrome12").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(input.bytes.len(), 16 * one.bytes.len());
    let sum = check_agreement(&input).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((sum.heads, sum.fields), (16, 16 * 12));
    let copied = H1Copied::new()
        .parse(&input.bytes, input.kind)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(copied, sum);
}
