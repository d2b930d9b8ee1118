//! The client role: every client case against h1's user agent in process
//! (whole and split), and the judge's ability to fail.

use h1_conformance::case::Level;
use h1_conformance::client::agent;
use h1_conformance::client::case::{self, ClientCase};
use h1_conformance::client::inprocess;
use h1_conformance::client::judge::judge;
use h1_conformance::client::observe::{ClientObservation, Received, Record};
use h1_conformance::judge::Verdict;

fn cases() -> Vec<ClientCase> {
    case::all().expect("the client case files load")
}

fn get(id: &str) -> ClientCase {
    cases()
        .into_iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no client case {id}"))
}

#[test]
fn every_client_case_passes_against_h1_in_process() {
    let cases = cases();
    assert!(
        cases.len() >= 60,
        "{} client cases; the suite promises at least 60",
        cases.len()
    );
    for level in Level::ALL {
        assert!(
            cases.iter().any(|c| c.level == level),
            "no client case at {level}"
        );
    }
    let config = agent::config();
    let mut failures = Vec::new();
    for c in &cases {
        match judge(c, &inprocess::run(c, &config)) {
            Verdict::Pass if c.deviation.is_some() => failures.push(format!(
                "{}: declares a deviation but passes (remove the declaration)",
                c.id
            )),
            Verdict::Pass | Verdict::Deviation(_) => {}
            v => failures.push(format!("{} [{}]: {v:?}", c.id, c.level)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} client cases fail against h1's user agent:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A user agent reads the same responses however their bytes are cut
/// into reads.
#[test]
fn split_answers_give_the_same_observation() {
    let config = agent::config();
    for c in &cases() {
        let whole = inprocess::run(c, &config);
        for piece in [1, 7] {
            let split = inprocess::run_split(c, &config, piece);
            assert_eq!(split, whole, "{}: pieces of {piece} bytes", c.id);
        }
    }
}

/// RFC 9112 §5.2 gives a user agent no choice about obs-fold: h1's strict
/// default (a proxy's choice) fails those cases, at MUST, and nothing else.
#[test]
fn a_client_that_refuses_obs_fold_fails_the_user_agent_cases() {
    let strict = h1_conn::Config::default();
    let failing: Vec<String> = cases()
        .iter()
        .filter(|c| {
            matches!(
                judge(c, &inprocess::run(c, &strict)),
                Verdict::Fail(Level::Must, _)
            )
        })
        .map(|c| c.id.clone())
        .collect();
    assert_eq!(failing, ["cli-msg-019", "cli-msg-020"]);
}

/// A record of a response.
fn response(status: u16, body: &[u8]) -> Record {
    Record {
        status: Some(status),
        body: Some(body.to_vec()),
        ..Record::default()
    }
}

/// The request of exchange `i` of `case`, received on connection `conn`.
fn received(case: &ClientCase, i: usize, conn: usize) -> Received {
    let x = &case.exchanges[i];
    Received {
        conn,
        method: x.ask.method.clone(),
        target: case.target(i).into_bytes(),
        fields: vec![(b"Host".to_vec(), b"localhost".to_vec())],
        body: x.ask.body.clone().unwrap_or_default(),
    }
}

fn observed(records: Vec<Record>, received: Vec<Received>) -> ClientObservation {
    ClientObservation {
        records,
        received,
        ..ClientObservation::default()
    }
}

fn fails(case: &ClientCase, obs: &ClientObservation) -> bool {
    matches!(judge(case, obs), Verdict::Fail(..))
}

#[test]
fn the_client_judge_notices_each_kind_of_mismatch() {
    // One response wanted: 200 "body".
    let c = get("cli-len-002");
    let got = |r: Record| observed(vec![r], vec![received(&c, 0, 0)]);
    assert_eq!(judge(&c, &got(response(200, b"body"))), Verdict::Pass);
    for bad in [
        response(200, b"bodyEXTRA"),
        response(201, b"body"),
        Record::error("refused"),
        Record {
            error: Some("incomplete".into()),
            ..response(200, b"body")
        },
        Record::default(),
    ] {
        assert!(fails(&c, &got(bad.clone())), "{bad:?}");
    }
    // Nothing reported at all, a response to a request never received,
    // and a client that could not be judged.
    assert!(fails(&c, &observed(vec![], vec![received(&c, 0, 0)])));
    assert!(fails(&c, &observed(vec![response(200, b"body")], vec![])));
    let mut broken = got(response(200, b"body"));
    broken.problem = Some("killed".into());
    assert!(fails(&c, &broken));

    // An error wanted: a response fails, an error passes.
    let c = get("cli-len-009");
    let got = |r: Record| observed(vec![r], vec![received(&c, 0, 0)]);
    assert_eq!(judge(&c, &got(Record::error("bad length"))), Verdict::Pass);
    assert!(fails(&c, &got(response(200, b"body"))));

    // Either: an error passes, and so does the right response only.
    let c = get("cli-len-021");
    let got = |r: Record| observed(vec![r], vec![received(&c, 0, 0)]);
    assert_eq!(judge(&c, &got(Record::error("TE and CL"))), Verdict::Pass);
    assert_eq!(judge(&c, &got(response(200, b"body"))), Verdict::Pass);
    assert!(fails(&c, &got(response(200, b"4\r\n"))));

    // Fields: wanted (any spaces), absent, forbidden.
    let c = get("cli-msg-019");
    let folded = |v: &[u8]| {
        let mut r = response(200, b"body");
        r.fields = vec![(b"X-Folded".to_vec(), v.to_vec())];
        observed(vec![r], vec![received(&c, 0, 0)])
    };
    assert_eq!(judge(&c, &folded(b"first   second \tthird")), Verdict::Pass);
    assert!(fails(&c, &folded(b"first\r\n  second\r\n\tthird")));
    assert!(fails(&c, &folded(b"first")));
    let c = get("cli-chunk-010");
    let mut merged = response(200, b"body");
    merged.fields = vec![(b"X-Trailer".to_vec(), b"t".to_vec())];
    assert!(fails(
        &c,
        &observed(vec![merged.clone()], vec![received(&c, 0, 0)])
    ));
    merged.trailers = std::mem::take(&mut merged.fields);
    assert_eq!(
        judge(&c, &observed(vec![merged], vec![received(&c, 0, 0)])),
        Verdict::Pass
    );
    let c = get("cli-msg-017");
    let mut nul = response(200, b"ok");
    nul.fields = vec![(b"x-nul".to_vec(), b"a\0b".to_vec())];
    assert!(fails(
        &c,
        &observed(vec![nul.clone()], vec![received(&c, 0, 0)])
    ));
    nul.fields[0].1 = b"a b".to_vec();
    assert_eq!(
        judge(&c, &observed(vec![nul], vec![received(&c, 0, 0)])),
        Verdict::Pass
    );
}

#[test]
fn the_client_judge_checks_connections_retries_and_requests() {
    // The second request must come on a new connection.
    let c = get("cli-conn-002");
    let two = vec![response(200, b"ok"), response(200, b"REAL")];
    let on =
        |a: usize, b: usize| observed(two.clone(), vec![received(&c, 0, a), received(&c, 1, b)]);
    assert_eq!(judge(&c, &on(0, 1)), Verdict::Pass);
    assert!(fails(&c, &on(0, 0)));
    // ... and, persistence being a SHOULD, on the same one here.
    let c = get("cli-conn-001");
    let on =
        |a: usize, b: usize| observed(two.clone(), vec![received(&c, 0, a), received(&c, 1, b)]);
    assert_eq!(judge(&c, &on(0, 0)), Verdict::Pass);
    assert!(matches!(
        judge(&c, &on(0, 1)),
        Verdict::Fail(Level::Should, _)
    ));

    // A POST sent twice is an automatic retry.
    let c = get("cli-conn-011");
    let records = vec![response(200, b"ok"), Record::error("closed")];
    let once = vec![received(&c, 0, 0), received(&c, 1, 0)];
    assert_eq!(
        judge(&c, &observed(records.clone(), once.clone())),
        Verdict::Pass
    );
    let mut twice = once;
    twice.push(received(&c, 1, 1));
    assert!(fails(&c, &observed(records, twice)));

    // The content the server received must be the content asked for.
    let c = get("cli-conn-014");
    let mut r = received(&c, 0, 0);
    assert_eq!(
        judge(&c, &observed(vec![response(201, b"ok")], vec![r.clone()])),
        Verdict::Pass
    );
    r.body.truncate(3);
    assert!(fails(&c, &observed(vec![response(201, b"ok")], vec![r])));
    // And a Host field must come with it.
    let c = get("cli-conn-013");
    let mut r = received(&c, 0, 0);
    r.fields.clear();
    assert!(fails(&c, &observed(vec![response(200, b"ok")], vec![r])));

    // A client that cannot make the request a case needs is not judged.
    let c = get("cli-empty-001");
    let mut get_instead = received(&c, 0, 0);
    get_instead.method = b"GET".to_vec();
    assert!(matches!(
        judge(&c, &observed(vec![response(200, b"")], vec![get_instead])),
        Verdict::NotApplicable(_)
    ));
}
