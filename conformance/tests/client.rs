//! The client role: every client case against h1's user agent in process
//! (whole and split), the judge's ability to fail, and the live runner
//! against h1's client example and against curl over loopback.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use h1_conformance::case::Level;
use h1_conformance::client::agent;
use h1_conformance::client::case::{self, ClientCase};
use h1_conformance::client::inprocess;
use h1_conformance::client::judge::judge;
use h1_conformance::client::live::{Client, ClientLive};
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

// --- live -------------------------------------------------------------------

/// Builds this crate's `client` example with the cargo running this test.
fn client_example() -> PathBuf {
    let out = Command::new(env!("CARGO"))
        .args([
            "build",
            "-q",
            "-p",
            "h1-conformance",
            "--example",
            "client",
            "--message-format=json",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .expect("run cargo");
    assert!(out.status.success(), "cargo build --example client failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|m| m["target"]["name"] == "client" && m["executable"].is_string())
        .map(|m| PathBuf::from(m["executable"].as_str().unwrap()))
        .expect("cargo named the client example")
}

/// Every case run live, four at a time; observations in case order.
fn run_live(live: &ClientLive, cases: &[ClientCase]) -> Vec<ClientObservation> {
    let chunks: Vec<&[ClientCase]> = cases.chunks(cases.len().div_ceil(4)).collect();
    thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| s.spawn(|| chunk.iter().map(|c| live.run(c)).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    })
}

#[test]
fn live_h1_client_gives_the_in_process_verdicts() {
    let example = client_example();
    let live = ClientLive::new(Client::Command(format!(
        "{} {{requests}}",
        example.display()
    )));
    let cases = cases();
    let config = agent::config();
    let started = Instant::now();
    let lives = run_live(&live, &cases);
    let mut differ = Vec::new();
    for (c, got) in cases.iter().zip(lives) {
        let want = inprocess::run(c, &config);
        let (vw, vg) = (judge(c, &want), judge(c, &got));
        assert!(got.h1, "{}: the example names itself h1", c.id);
        if vw != vg || want.records != got.records {
            differ.push(format!(
                "{}: in process {vw:?} {:?}\n    live {vg:?} {:?} {:?}",
                c.id, want.records, got.records, got.problem
            ));
        }
    }
    println!(
        "{} client cases live in {:?}",
        cases.len(),
        started.elapsed()
    );
    assert!(
        differ.is_empty(),
        "{} cases differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
}

/// The cases curl 7.88.1 fails, each for a reason of curl's own (see
/// conformance/README.md). A curl that fails other cases, or passes one
/// of these, changes the list: look at the report and update it.
const CURL_FAILS: [&str; 17] = [
    "cli-msg-021",   // SHOULD: refuses HTTP/1.7 ("Unsupported HTTP version")
    "cli-len-008",   // differing Content-Length fields: takes the last
    "cli-len-009",   // "4, 5": takes the first
    "cli-len-012",   // "+4" read as 4
    "cli-len-013",   // "4 4" read as 4
    "cli-len-014",   // "0x4" read as 0
    "cli-len-015",   // "4.0" read as 4
    "cli-len-019",   // 2^64 + 4: the overflowing length is ignored, read to the close
    "cli-len-020",   // 2^63 + 4: likewise
    "cli-len-023",   // HTTP/1.0 with Transfer-Encoding: the connection is reused
    "cli-chunk-017", // a head cut off by the close is taken as complete
    "cli-chunk-018", // a status line alone is taken as a complete response
    "cli-chunk-023", // SHOULD: bare LF after a chunk size accepted
    "cli-chunk-024", // SHOULD: bare LF after chunk data accepted
    "cli-empty-020", // an unsolicited 101 switches; the rest becomes "content"
    "cli-conn-008",  // data after a response, with no request outstanding, answers the next request
    "cli-conn-011",  // SHOULD: a POST retried after the server closed without an answer
];

#[test]
fn live_curl_passes_and_fails_the_expected_cases() {
    let version = Command::new("curl").arg("--version").output().unwrap_or_else(|e| {
        panic!(
            "curl cannot run ({e}): this test needs curl on the PATH (Debian: apt-get install curl; .ci/run installs it)"
        )
    });
    let version = String::from_utf8_lossy(&version.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    let live = ClientLive::new(Client::Curl("curl".into()));
    let cases = cases();
    let lives = run_live(&live, &cases);
    let mut unexpected = Vec::new();
    for (c, got) in cases.iter().zip(&lives) {
        let v = judge(c, got);
        let expected_fail = CURL_FAILS.contains(&c.id.as_str());
        match (&v, expected_fail) {
            (Verdict::Pass, false) | (Verdict::Fail(..), true) => {}
            _ => unexpected.push(format!("{} [{}]: {v:?}", c.id, c.level)),
        }
        assert!(got.problem.is_none(), "{}: {:?}", c.id, got.problem);
    }
    assert!(
        unexpected.is_empty(),
        "with {version}, verdicts other than expected:\n{}",
        unexpected.join("\n")
    );
}

#[test]
fn a_client_that_hangs_is_killed_and_fails() {
    let c = get("cli-len-002");
    let mut live = ClientLive::new(Client::Command("sleep 30 # {url}".into()));
    live.timeout = Duration::from_millis(500);
    let started = Instant::now();
    let obs = live.run(&c);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        obs.problem.as_deref().is_some_and(|p| p.contains("killed")),
        "{obs:?}"
    );
    assert!(fails(&c, &obs));
}

#[test]
fn a_report_that_breaks_the_contract_fails() {
    let c = get("cli-len-002");
    // A client that prints a response it never asked for, and one whose
    // report is not the contract's.
    for (cmd, why) in [
        (
            "printf 'request 1\\nstatus 200\\nbody 4\\nbody\\n' # {url}",
            "never received",
        ),
        ("curl -s {url}", "breaks the contract"),
    ] {
        let obs = ClientLive::new(Client::Command(cmd.into())).run(&c);
        match judge(&c, &obs) {
            Verdict::Fail(_, w) => assert!(w.contains(why), "{cmd}: {w}"),
            v => panic!("{cmd}: {v:?} {obs:?}"),
        }
    }
}
