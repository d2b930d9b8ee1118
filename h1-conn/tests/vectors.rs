//! Every vector of `testdata/conformance/vectors.jsonl` through the server
//! role: the verdict, the number of requests dispatched and the first body
//! must match, in one read and with the bytes split (one byte at a time,
//! and at random points), and every split must give the same events and
//! the same output as one read.
//!
//! The driver plays the server policy the vectors assume (see
//! `common::answer`): 501 for an unimplemented method, upgrades only to
//! websocket, CONNECT answered 200; the connection answers an unknown
//! expectation 417 itself (`Config::refuse_unknown_expect`).

mod common;

use common::{run, split_at, Ev, Policy, Rng, Run};
use h1_conn::{Closing, Config, Error};
use serde_json::Value;

/// The repository's copy of the shared vectors (this test is left out of the
/// crate's package).
const VECTORS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../testdata/conformance/vectors.jsonl"
);

struct Vector {
    id: String,
    raw: Vec<u8>,
    accept: bool,
    status: Option<u16>,
    alt: Vec<u16>,
    requests: usize,
    body: Option<Vec<u8>>,
}

fn vectors() -> Vec<Vector> {
    let text = std::fs::read_to_string(VECTORS).unwrap_or_else(|e| panic!("{VECTORS}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("JSON line");
            let latin1 = |s: &str| -> Vec<u8> {
                s.chars()
                    .map(|c| u8::try_from(u32::from(c)).expect("ISO-8859-1"))
                    .collect()
            };
            Vector {
                id: v["id"].as_str().unwrap().to_string(),
                raw: latin1(v["raw"].as_str().unwrap()),
                accept: v["expect"] == "accept",
                status: v["status"].as_u64().map(|s| s as u16),
                alt: v["alt_status"]
                    .as_array()
                    .map(|a| a.iter().map(|s| s.as_u64().unwrap() as u16).collect())
                    .unwrap_or_default(),
                requests: v["requests"].as_u64().unwrap() as usize,
                body: v["body"].as_str().map(latin1),
            }
        })
        .collect()
}

/// Why `r` does not match `v`, if it does not.
fn judge(v: &Vector, r: &Run) -> Option<String> {
    // Requests the policy refused count as the rejection, not as dispatched.
    let refused = r.answered.iter().filter(|&&s| s >= 400).count();
    let dispatched = r.complete() - refused;
    let policy_status = r.answered.iter().copied().find(|&s| s >= 400);
    if v.accept {
        if dispatched != v.requests {
            return Some(format!("dispatched {dispatched}, want {}", v.requests));
        }
        if let Some(s) = policy_status {
            return Some(format!("policy answered {s}"));
        }
        // An accepted stream may end in an incomplete message (EOF) but in
        // no other error.
        if let Some(e) = r.error().filter(|e| *e != Error::UnexpectedEof) {
            return Some(format!("error {e:?}"));
        }
        if let Some(body) = &v.body {
            if r.first_body() != *body {
                return Some(format!(
                    "body {:?}, want {:?}",
                    String::from_utf8_lossy(&r.first_body()),
                    String::from_utf8_lossy(body)
                ));
            }
        }
        return None;
    }
    if dispatched != v.requests {
        return Some(format!(
            "dispatched {dispatched} before the error, want {}",
            v.requests
        ));
    }
    let got = match (r.error(), policy_status) {
        (Some(e), _) => e.status(),
        (None, Some(s)) => Some(s),
        (None, None) => return Some("accepted".into()),
    };
    match (v.status, got) {
        (None, None) => {}
        (None, Some(s)) => return Some(format!("answered {s}, want no answer (incomplete)")),
        (Some(want), Some(s)) if s == want || v.alt.contains(&s) => {}
        (Some(want), s) => return Some(format!("status {s:?}, want {want} or {:?}", v.alt)),
    }
    if r.closing == Closing::Open {
        return Some("connection left open after a rejection".into());
    }
    None
}

#[test]
fn every_vector_through_the_server_role() {
    let vs = vectors();
    assert!(vs.len() >= 265, "the file holds 265 vectors");
    let config = Config::default();
    let policy = Policy::default();
    let mut failures = Vec::new();
    let mut rng = Rng::new(9112);
    let mut runs = 0;
    for v in &vs {
        let whole = run(&config, &[&v.raw], policy);
        if let Some(why) = judge(v, &whole) {
            failures.push(format!("{}: {why}", v.id));
            continue;
        }
        // One byte at a time (the 8 KB vectors: every 7th byte), and random
        // splits.
        let step = if v.raw.len() > 2048 { 7 } else { 1 };
        let cuts: Vec<usize> = (step..v.raw.len()).step_by(step).collect();
        let mut splits = vec![cuts];
        for _ in 0..4 {
            let mut c: Vec<usize> = (0..1 + rng.below(6))
                .map(|_| rng.below(v.raw.len() + 1))
                .collect();
            c.sort_unstable();
            splits.push(c);
        }
        for cuts in splits {
            let pieces = split_at(&v.raw, &cuts);
            let r = run(&config, &pieces, policy);
            runs += 1;
            if r != whole {
                failures.push(format!(
                    "{}: split {:?} differs from one read:\n  one:   {:?}\n  split: {:?}",
                    v.id,
                    &cuts[..cuts.len().min(8)],
                    whole.events,
                    r.events
                ));
                break;
            }
        }
    }
    println!("{} vectors, {runs} split runs", vs.len());
    assert!(
        failures.is_empty(),
        "{} of {} vectors fail:\n{}",
        failures.len(),
        vs.len(),
        failures.join("\n")
    );
}

#[test]
fn the_judge_can_fail() {
    // A vector that wants a rejection, judged against a run that accepted.
    let v = Vector {
        id: "x".into(),
        raw: b"GET / HTTP/1.1\r\nHost: a\r\n\r\n".to_vec(),
        accept: false,
        status: Some(400),
        alt: vec![],
        requests: 0,
        body: None,
    };
    let r = run(&Config::default(), &[&v.raw], Policy::default());
    assert!(judge(&v, &r).is_some());
    assert!(matches!(r.events[0], Ev::Request { .. }));
}

#[test]
fn a_lenient_server_fails_vectors() {
    // The judge must notice a server that accepts what the vectors refuse.
    let mut config = Config::default();
    config.parse.allow_bare_lf = true;
    config.parse.allow_obs_fold = true;
    let failing: Vec<String> = vectors()
        .iter()
        .filter(|v| judge(v, &run(&config, &[&v.raw], Policy::default())).is_some())
        .map(|v| v.id.clone())
        .collect();
    assert!(failing.len() >= 5, "{failing:?}");
}
