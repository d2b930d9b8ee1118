//! Observations made by hand, and the cases and servers the judge tests
//! name.
#![allow(dead_code)]

use h1_conformance::case::{self, Case};
use h1_conformance::judge::Server;
use h1_conformance::observe::{Answer, Echo, Ending, Observation};

/// A server that speaks the echo contract and is not h1.
pub(crate) const ECHO: Server = Server {
    echo: true,
    h1: false,
};
/// A server without the echo contract.
pub(crate) const PLAIN: Server = Server::OTHER;

/// The case named `id`.
pub(crate) fn get(id: &str) -> Case {
    case::all()
        .expect("the case files load")
        .into_iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no case {id}"))
}

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
