//! Observations made by hand, for the judge tests.

use h1_conformance::observe::{Answer, Echo, Ending, Observation};

/// An answer carrying the echo fields of `method target HTTP/1.1` and
/// `body`, its first byte after step `step`.
pub(crate) fn echo_answer(
    status: u16,
    method: &[u8],
    target: &[u8],
    body: &[u8],
    step: usize,
) -> Answer {
    Answer {
        interim: Vec::new(),
        status,
        echo: Some(Echo {
            method: method.to_vec(),
            target: target.to_vec(),
            version: b"HTTP/1.1".to_vec(),
        }),
        body: body.to_vec(),
        step,
        closes: false,
        upgrade: None,
        server: None,
    }
}

/// These answers, then `ending`; no probe, nothing seen server-side.
pub(crate) fn obs(answers: Vec<Answer>, ending: Ending) -> Observation {
    Observation {
        answers,
        ending,
        probe: None,
        seen: None,
    }
}
