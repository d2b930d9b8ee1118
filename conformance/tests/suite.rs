//! The suite against h1 in process (every case, whole and split), the
//! judge's ability to fail, and the live runner against h1's `echo`
//! example, which must reach the same verdicts as the in-process run.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use h1_conformance::case::{self, Case, CloseRule, Level, Origin, Outcome};
use h1_conformance::echo;
use h1_conformance::inprocess;
use h1_conformance::judge::{judge, Server, Verdict};
use h1_conformance::live::Live;
use h1_conformance::observe::{Answer, Ending, Observation};
use test_child::{start_listening, Kid};

mod common;

use common::{echo_answer, obs};

const ECHO: Server = Server::H1;

fn cases() -> Vec<Case> {
    case::all().expect("the case files load")
}

/// The heads each case declares (`cases/heads.jsonl`, what the judge and
/// the reader work from) are the heads h1 reads from its bytes. A case
/// added or changed without its declaration fails here, as does a change
/// in what h1 reads: either way, regenerate the file with `--write-heads`
/// and review the difference against the RFC before committing it. A case
/// that declares a deviation is the exception: its heads are a conforming
/// server's, and h1 may read others (that is its deviation, which
/// `every_case_passes_against_h1_in_process` holds h1 to).
#[test]
fn h1_reads_the_heads_every_case_declares() {
    let mut differ = Vec::new();
    for c in &cases() {
        let read = echo::heads_read(c);
        if read != c.heads && c.deviation.is_none() {
            differ.push(format!(
                "{}:\n  declared: {}\n  h1 reads: {}",
                c.id,
                h1_conformance::heads::line(&c.id, &c.heads),
                h1_conformance::heads::line(&c.id, &read)
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "{} cases where h1 reads other heads than declared:\n{}",
        differ.len(),
        differ.join("\n")
    );
}

/// The judges decide from the case data and the observation alone: the
/// modules they are made of name no h1 crate, so no parser of h1's can make
/// them lenient where that parser is wrong. (The reader, which reads a
/// server's answers with h1-conn's client role, the echo server, and on the
/// client side the test server and h1's user agent, are apart.)
#[test]
fn the_judge_uses_no_part_of_h1() {
    let modules = [
        ("judge.rs", include_str!("../src/judge.rs")),
        ("case.rs", include_str!("../src/case.rs")),
        ("heads.rs", include_str!("../src/heads.rs")),
        ("observe.rs", include_str!("../src/observe.rs")),
        ("escape.rs", include_str!("../src/escape.rs")),
        ("vectors.rs", include_str!("../src/vectors.rs")),
        ("client/judge.rs", include_str!("../src/client/judge.rs")),
        ("client/case.rs", include_str!("../src/client/case.rs")),
        (
            "client/observe.rs",
            include_str!("../src/client/observe.rs"),
        ),
        (
            "client/contract.rs",
            include_str!("../src/client/contract.rs"),
        ),
    ];
    for (name, text) in modules {
        // Code only: the docs may point at the modules that read answers.
        let text: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        for crate_name in ["h1_conn", "h1_parse", "h1_headers", "h1_encode"] {
            assert!(
                !text.contains(crate_name),
                "src/{name} names {crate_name}: the judge must not depend on h1"
            );
        }
        // Nor on the modules that do.
        for module in [
            "crate::echo",
            "crate::reader",
            "crate::inprocess",
            "crate::live",
            "crate::client::script",
            "crate::client::agent",
            "crate::client::inprocess",
            "crate::client::live",
            "crate::client::curl",
        ] {
            assert!(
                !text.contains(module),
                "src/{name} uses {module}: the judge must not depend on h1"
            );
        }
    }
}

#[test]
fn every_case_passes_against_h1_in_process() {
    let cases = cases();
    let own = cases.iter().filter(|c| c.origin == Origin::Suite).count();
    let vectors = cases.iter().filter(|c| c.origin == Origin::Vector).count();
    assert!(
        own >= 250,
        "{own} own cases; the suite promises at least 250"
    );
    assert_eq!(vectors, 265, "every shared vector is imported");
    let config = echo::config();
    let mut failures = Vec::new();
    for c in &cases {
        let obs = inprocess::run(c, &config);
        match judge(c, &obs, ECHO) {
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
        "{} cases fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_level_and_area_is_covered() {
    let cases = cases();
    for level in Level::ALL {
        let n = cases
            .iter()
            .filter(|c| c.origin == Origin::Suite && c.level == level)
            .count();
        assert!(n > 0, "no own {level} case");
    }
    let mut areas: Vec<&str> = cases
        .iter()
        .filter(|c| c.origin == Origin::Suite)
        .map(|c| c.area.as_str())
        .collect();
    areas.dedup();
    assert!(areas.len() >= 10, "{areas:?}");
    // Every outcome kind and multi-step sequences occur.
    assert!(cases.iter().any(|c| c.steps.len() > 1));
    assert!(cases.iter().any(|c| matches!(
        c.outcome,
        Outcome::Accept {
            close: Some(false),
            ..
        }
    )));
    assert!(cases
        .iter()
        .any(|c| matches!(c.outcome, Outcome::Incomplete { .. }) && c.origin == Origin::Suite));
}

/// The observation does not depend on how the bytes arrive, but for one
/// thing the RFC leaves to the server: h1 writes `100 Continue` when it
/// waits for content none of which has arrived, and omits it when some
/// came with the head (RFC 9110 §10.1.1: it MAY). In pieces, the head can
/// arrive before the content that came with it whole; then (only then) the
/// split run has a 100 the whole run has not, and its answer began earlier.
#[test]
fn split_input_gives_the_same_observation() {
    let config = echo::config();
    for c in &cases() {
        let whole = inprocess::run(c, &config);
        let len = c.steps.iter().map(Vec::len).max().unwrap_or(1);
        let continues = c
            .steps
            .concat()
            .to_ascii_lowercase()
            .windows(12)
            .any(|w| w == b"100-continue");
        // One byte at a time (large limit cases: about 2,000 pieces), and
        // an odd size that cuts lines anywhere.
        for piece in [len.div_ceil(2000), 7] {
            let mut split = inprocess::run_split(c, &config, piece);
            for (s, w) in split.answers.iter_mut().zip(&whole.answers) {
                if continues && s.interim == [100] && w.interim.is_empty() {
                    assert!(s.step <= w.step, "{}: a 100 after the answer", c.id);
                    s.interim.clear();
                    s.step = w.step;
                }
            }
            assert_eq!(split, whole, "{}: pieces of {piece} bytes", c.id);
        }
    }
}

#[test]
fn a_lenient_h1_fails_cases() {
    // The suite must notice a server that accepts what the RFC refuses.
    let mut config = echo::config();
    config.parse.allow_bare_lf = true;
    config.parse.allow_obs_fold = true;
    let failing: Vec<String> = cases()
        .iter()
        .filter(|c| !matches!(judge(c, &inprocess::run(c, &config), ECHO), Verdict::Pass))
        .map(|c| c.id.clone())
        .collect();
    assert!(
        failing.iter().any(|id| id.starts_with("le-")),
        "{failing:?}"
    );
    assert!(failing.len() >= 10, "{failing:?}");
    // And one that reads too little of a body.
    let mut config = echo::config();
    config.max_body_len = 3;
    let c = cases().into_iter().find(|c| c.id == "basic-003").unwrap();
    assert!(matches!(
        judge(&c, &inprocess::run(&c, &config), ECHO),
        Verdict::Fail(..)
    ));
}

/// An echoed answer to `POST /`.
fn answer(status: u16, body: &[u8]) -> Answer {
    echo_answer(status, b"POST", b"/", body, 0)
}

#[test]
fn the_judge_notices_each_kind_of_mismatch() {
    let cases = cases();
    let get = |id: &str| cases.iter().find(|c| c.id == id).unwrap().clone();
    // basic-003: POST with a 5-byte body, accepted.
    let post = get("basic-003");
    let good = obs(vec![answer(200, b"hello")], Ending::Open);
    assert_eq!(judge(&post, &good, ECHO), Verdict::Pass);
    let bad = [
        obs(vec![answer(400, b"")], Ending::Closed),
        obs(vec![answer(200, b"hell")], Ending::Open),
        obs(vec![answer(200, b"hello"), answer(200, b"")], Ending::Open),
        obs(vec![], Ending::Closed),
        obs(vec![answer(200, b"hello")], Ending::Broken("x".into())),
        obs(
            vec![Answer {
                echo: None,
                ..answer(200, b"hello")
            }],
            Ending::Open,
        ),
    ];
    for o in &bad {
        assert!(matches!(judge(&post, o, ECHO), Verdict::Fail(..)), "{o:?}");
    }
    // Without the echo contract the body cannot be checked.
    assert_eq!(judge(&post, &bad[1], Server::OTHER), Verdict::Pass);

    // A rejection: the status, the close, nothing after it.
    let reject = cases
        .iter()
        .find(|c| {
            matches!(&c.outcome, Outcome::Reject { status, before: 0, close: CloseRule::Must }
                if status.allows(400) && !status.allows(200))
        })
        .unwrap();
    assert_eq!(
        judge(reject, &obs(vec![answer(400, b"")], Ending::Closed), ECHO),
        Verdict::Pass
    );
    for o in [
        obs(vec![answer(400, b"")], Ending::Open),
        obs(vec![answer(200, b"")], Ending::Closed),
        obs(vec![answer(400, b""), answer(200, b"")], Ending::Closed),
        obs(vec![], Ending::Closed),
    ] {
        assert!(
            matches!(judge(reject, &o, ECHO), Verdict::Fail(..)),
            "{o:?}"
        );
    }

    // Keep-alive: the probe must be answered.
    let keep = cases
        .iter()
        .find(|c| matches!(&c.outcome, Outcome::Accept { requests, close: Some(false) } if requests.len() == 1 && requests[0].body.is_none()))
        .unwrap();
    let mut o = obs(vec![answer(200, b"")], Ending::Open);
    o.answers[0].echo = None;
    o.probe = Some(Some(answer(200, b"")));
    assert_eq!(judge(keep, &o, Server::OTHER), Verdict::Pass);
    // With the echo contract the probe's answer must echo the probe.
    assert!(matches!(judge(keep, &o, ECHO), Verdict::Fail(..)));
    o.probe = Some(None);
    assert!(matches!(judge(keep, &o, Server::OTHER), Verdict::Fail(..)));

    // 100-continue: an answer that came only after the body was sent.
    let cont = cases
        .iter()
        .find(|c| matches!(&c.outcome, Outcome::Accept { requests, .. } if requests.iter().any(|r| r.continue_first)))
        .expect("a case with continue = true");
    let mut o = inprocess::run(cont, &echo::config());
    assert_eq!(judge(cont, &o, ECHO), Verdict::Pass);
    for a in &mut o.answers {
        a.step = cont.steps.len() - 1;
    }
    assert!(matches!(judge(cont, &o, ECHO), Verdict::Fail(..)));

    // An incomplete message: no answer but 400/408, then close.
    let inc = cases
        .iter()
        .find(|c| matches!(c.outcome, Outcome::Incomplete { before: 0 }))
        .unwrap();
    assert_eq!(
        judge(inc, &obs(vec![], Ending::Closed), ECHO),
        Verdict::Pass
    );
    assert_eq!(
        judge(inc, &obs(vec![answer(408, b"")], Ending::Closed), ECHO),
        Verdict::Pass
    );
    for o in [
        obs(vec![answer(200, b"")], Ending::Closed),
        obs(vec![], Ending::Open),
    ] {
        assert!(matches!(judge(inc, &o, ECHO), Verdict::Fail(..)), "{o:?}");
    }
}

/// RFC 9110 §5.3: nothing is answered before its head is complete. In
/// msg-041 the empty line that ends the head comes in a write of its own; a
/// server that answers after the first write and then skips the CRLF as an
/// empty line before a request-line (9112 §2.2) gives the right number of
/// answers, and only the step its answer came after shows it.
#[test]
fn an_answer_before_its_head_is_complete_fails() {
    let cases = cases();
    let get = |id: &str| cases.iter().find(|c| c.id == id).unwrap().clone();
    let c = get("msg-041");
    assert_eq!(c.heads[0].step, 1, "{:?}", c.heads);
    let mut o = inprocess::run(&c, &echo::config());
    assert_eq!(judge(&c, &o, ECHO), Verdict::Pass);
    assert_eq!(o.answers[0].step, 1);
    o.answers[0].step = 0;
    assert!(
        matches!(judge(&c, &o, ECHO), Verdict::Fail(Level::Must, _)),
        "{:?}",
        judge(&c, &o, ECHO)
    );
    // The second of two requests, its head completed by the second write.
    let c = get("msg-046");
    let mut o = inprocess::run(&c, &echo::config());
    assert_eq!(judge(&c, &o, ECHO), Verdict::Pass);
    o.answers[1].step = 0;
    assert!(matches!(judge(&c, &o, Server::OTHER), Verdict::Fail(..)));
}

// --- live ---

/// Builds h1-conn's `echo` example with the cargo running this test.
fn echo_binary() -> PathBuf {
    let out = Command::new(env!("CARGO"))
        .args([
            "build",
            "-q",
            "-p",
            "h1-conn",
            "--example",
            "echo",
            "--message-format=json",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .expect("run cargo");
    assert!(out.status.success(), "cargo build --example echo failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|m| m["target"]["name"] == "echo" && m["executable"].is_string())
        .map(|m| PathBuf::from(m["executable"].as_str().unwrap()))
        .expect("cargo named the echo binary")
}

fn start_echo() -> (Kid, SocketAddr) {
    let mut cmd = Command::new(echo_binary());
    cmd.args(["--addr", "127.0.0.1:0"]);
    start_listening(cmd, "echo")
}

/// Every case run live, four connections at a time (as the binary runs
/// servers that serve connections concurrently); observations in case
/// order.
fn run_live(live: &Live, cases: &[Case]) -> Vec<Observation> {
    let chunks: Vec<&[Case]> = cases.chunks(cases.len().div_ceil(4)).collect();
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
fn live_echo_gives_the_in_process_verdicts() {
    let (_echo, addr) = start_echo();
    let live = Live::new(addr).unwrap();
    let cases = cases();
    let config = echo::config();
    let started = Instant::now();
    let lives = run_live(&live, &cases);
    let mut differ = Vec::new();
    for (c, got) in cases.iter().zip(lives) {
        let want = inprocess::run(c, &config);
        let (vw, vg) = (judge(c, &want, ECHO), judge(c, &got, ECHO));
        let statuses = |o: &Observation| {
            o.answers
                .iter()
                .map(|a| (a.interim.clone(), a.status))
                .collect::<Vec<_>>()
        };
        if vw != vg || statuses(&want) != statuses(&got) {
            differ.push(format!(
                "{}: in process {vw:?} {:?}, live {vg:?} {:?}",
                c.id,
                statuses(&want),
                statuses(&got)
            ));
        }
    }
    println!("{} cases live in {:?}", cases.len(), started.elapsed());
    assert!(
        differ.is_empty(),
        "{} cases differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
}

/// A server that answers 200 to every head it sees, whatever it holds: the
/// live runner must call it out.
fn start_yes_server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            thread::spawn(move || {
                let mut stream = stream;
                let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                while let Ok(n) = stream.read(&mut chunk) {
                    if n == 0 {
                        break;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        buf.drain(..end + 4);
                        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
                    }
                }
            });
        }
    });
    addr
}

#[test]
fn the_binary_reports_and_exits_by_verdict() {
    let bin = env!("CARGO_BIN_EXE_h1-conformance");
    let run = |args: &[&str]| {
        let out = Command::new(bin)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("run h1-conformance");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // In process, a filter, JSON.
    let (code, out, _) = run(&["--filter", "chunk-", "--format", "json"]);
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let ids: Vec<&str> = v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.len() > 20 && ids.iter().all(|i| i.starts_with("chunk-")),
        "{ids:?}"
    );
    assert_eq!(v["must_failed"], 0);
    // A section filter, text.
    let (code, out, _) = run(&["--filter", "9112 §7.1"]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("Chunked Transfer Coding") && !out.contains("Request Line"),
        "{out}"
    );
    // Both roles by default: --list holds the client cases after the
    // server cases, and --role picks one side.
    let (code, out, _) = run(&["--list"]);
    assert_eq!(code, Some(0));
    let ids: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let client = ids.iter().filter(|i| i.starts_with("cli-")).count();
    assert!(
        ids.len() >= 880 && client >= 60,
        "{} listed, {client} client",
        ids.len()
    );
    assert!(ids
        .iter()
        .skip_while(|i| !i.starts_with("cli-"))
        .all(|i| i.starts_with("cli-")));
    let (_, out, _) = run(&["--list", "--role", "server"]);
    assert_eq!(out.lines().count(), ids.len() - client);
    let (_, out, _) = run(&["--list", "--role", "client"]);
    assert_eq!(out.lines().count(), client);
    // The client cases in their own sections, marked in the title, in
    // every format.
    let (code, out, _) = run(&["--filter", "9112 §6.3", "--format", "json"]);
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let roles: Vec<(&str, &str)> = v["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["role"].as_str().unwrap(), s["title"].as_str().unwrap()))
        .collect();
    // The server sections first, then the client's.
    let server = roles
        .iter()
        .position(|r| *r == ("server", "Message Body Length"));
    let client = roles
        .iter()
        .position(|r| *r == ("client", "client: Message Body Length"));
    assert!(
        matches!((server, client), (Some(a), Some(b)) if a < b),
        "{roles:?}"
    );
    assert_eq!(roles.last().map(|r| r.0), Some("client"), "{roles:?}");
    let (_, out, _) = run(&["--filter", "cli-conn-", "--verbose"]);
    assert!(
        out.contains("client: Persistence") && out.contains("PASS cli-conn-001"),
        "{out}"
    );
    let junit =
        std::env::temp_dir().join(format!("h1-conformance-junit-{}.xml", std::process::id()));
    let (code, _, _) = run(&["--filter", "cli-empty-", "--junit", junit.to_str().unwrap()]);
    assert_eq!(code, Some(0));
    let x = std::fs::read_to_string(&junit).unwrap();
    let _ = std::fs::remove_file(&junit);
    assert!(
        x.contains("<testsuite name=\"9110 §15.2 client: Informational 1xx\""),
        "{x}"
    );
    assert!(x.contains("classname=\"client 9110 §15.2\""), "{x}");
    // Usage errors and refused targets.
    assert_eq!(
        run(&["--target", "127.0.0.1:1", "--client", "curl"]).0,
        Some(2)
    );
    assert_eq!(
        run(&["--target", "127.0.0.1:1", "--role", "client"]).0,
        Some(2)
    );
    assert_eq!(run(&["--client-cmd", "true"]).0, Some(2));
    assert_eq!(run(&["--client", "wget"]).0, Some(2));
    assert_eq!(run(&["--bogus"]).0, Some(2));
    assert_eq!(run(&["--target", "192.0.2.1:80"]).0, Some(2));
    assert_eq!(run(&["--filter", "no-such-case"]).0, Some(2));
    // A server that accepts everything fails MUSTs: exit 1, failures listed.
    let yes = start_yes_server().to_string();
    let (code, out, _) = run(&[
        "--target",
        &yes,
        "--filter",
        "clte-",
        "--filter",
        "host-",
        "--timeout",
        "2",
    ]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("FAIL clte-") && out.contains("no echo contract"),
        "{out}"
    );
    // A client that accepts whatever it gets fails MUST client cases: it
    // reports the same response for every request, whatever came back.
    let (code, out, _) = run(&[
        "--client-cmd",
        "curl -s -o /dev/null {url}; printf 'request 1\\nstatus 200\\nbody 4\\nbody\\n'",
        "--filter",
        "cli-len-",
        "--timeout",
        "3",
    ]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("FAIL cli-len-006 [MUST]"), "{out}");
    assert!(out.contains("against the client command"), "{out}");
}

#[test]
fn the_judge_asks_less_of_a_server_without_the_echo_contract() {
    let cases = cases();
    let get = |id: &str| cases.iter().find(|c| c.id == id).unwrap().clone();
    let plain = |status: u16| Answer {
        echo: None,
        ..answer(status, b"")
    };
    // A policy answer to a request it read is fine; a refusal to parse
    // it is not.
    let post = get("basic-003");
    for (status, pass) in [
        (405, true),
        (404, true),
        (411, true),
        (400, false),
        (431, false),
    ] {
        let v = judge(
            &post,
            &obs(vec![plain(status)], Ending::Open),
            Server::OTHER,
        );
        assert_eq!(v == Verdict::Pass, pass, "{status}: {v:?}");
        // With the echo contract only a 2xx is.
        let v = judge(&post, &obs(vec![plain(status)], Ending::Open), ECHO);
        assert!(matches!(v, Verdict::Fail(..)), "{status}: {v:?}");
    }
    // CONNECT and OPTIONS * are optional: a 400 to them from a server
    // without the echo contract says it does not implement them.
    for id in ["conn-001", "basic-008"] {
        let c = get(id);
        let refused = obs(vec![plain(400)], Ending::Closed);
        assert!(
            matches!(
                judge(&c, &refused, Server::OTHER),
                Verdict::NotApplicable(_)
            ),
            "{id}"
        );
        assert!(
            matches!(judge(&c, &refused, ECHO), Verdict::Fail(..)),
            "{id}"
        );
    }
    // A defect in a body it never read: an early answer, then the close.
    let bad_chunk = get("chunk-bad-001");
    let early = obs(vec![plain(200)], Ending::Closed);
    assert_eq!(judge(&bad_chunk, &early, Server::OTHER), Verdict::Pass);
    assert!(matches!(judge(&bad_chunk, &early, ECHO), Verdict::Fail(..)));
    let kept = obs(vec![plain(200)], Ending::Open);
    assert!(matches!(
        judge(&bad_chunk, &kept, Server::OTHER),
        Verdict::Fail(Level::Must, _)
    ));
    // A defect in the head gets no such leave.
    let head_defect = cases
        .iter()
        .find(|c| {
            c.id.starts_with("clte-") && matches!(c.outcome, Outcome::Reject { before: 0, .. })
        })
        .unwrap();
    assert!(matches!(
        judge(head_defect, &early, Server::OTHER),
        Verdict::Fail(..)
    ));
}

#[test]
fn a_server_that_closes_after_each_response_is_not_judged_on_the_rest() {
    // Persistence is a SHOULD (RFC 9112 §9.3): a server that answers the
    // first of three pipelined requests with "close" and closes cannot be
    // judged on the other two.
    let cases = cases();
    let pipe = cases.iter().find(|c| c.id == "pipe-002").unwrap();
    let mut first = answer(200, b"AAA");
    first.closes = true;
    let o = obs(vec![first.clone()], Ending::Closed);
    assert!(matches!(
        judge(pipe, &o, Server::OTHER),
        Verdict::NotApplicable(_)
    ));
    // Without "close" on the answer, the missing answers are a failure.
    first.closes = false;
    let o = obs(vec![first.clone()], Ending::Closed);
    assert!(matches!(judge(pipe, &o, Server::OTHER), Verdict::Fail(..)));
    // And "close" with the connection kept open breaks 9112 §9.6.
    first.closes = true;
    let o = obs(vec![first], Ending::Open);
    assert!(matches!(
        judge(pipe, &o, Server::OTHER),
        Verdict::Fail(Level::Must, _)
    ));
}

#[test]
fn a_101_must_name_a_protocol_the_client_offered() {
    let cases = cases();
    let up = cases.iter().find(|c| c.id == "upg-001").unwrap();
    let switched = |upgrade: Option<&[u8]>| {
        let mut a = answer(101, b"");
        a.echo = None;
        a.upgrade = upgrade.map(<[u8]>::to_vec);
        obs(vec![a], Ending::Switched)
    };
    assert_eq!(
        judge(up, &switched(Some(b"websocket")), ECHO),
        Verdict::Pass
    );
    assert_eq!(
        judge(up, &switched(Some(b"WebSocket")), ECHO),
        Verdict::Pass
    );
    for bad in [None, Some(&b""[..]), Some(b"h2c"), Some(b"websocket, h2c")] {
        assert!(
            matches!(judge(up, &switched(bad), ECHO), Verdict::Fail(..)),
            "{bad:?}"
        );
    }
}

/// The live runner's `--trickle`: every case sent to h1's echo in pieces of
/// three bytes (a pause after each within a step's first 2 KiB) reaches
/// the verdict of the in-process run given whole: no MUST fails, and a
/// server's answers do not depend on how its input was cut.
#[test]
fn live_echo_trickled_gives_the_in_process_verdicts() {
    let (_echo, addr) = start_echo();
    let mut live = Live::new(addr).unwrap();
    live.trickle = Some(3);
    // The pauses make a head of 300 bytes take about 0.1 s.
    live.timeout = Duration::from_secs(10);
    let cases = cases();
    let config = echo::config();
    let started = Instant::now();
    let lives = run_live(&live, &cases);
    let mut differ = Vec::new();
    let mut must_failed = 0;
    for (c, got) in cases.iter().zip(lives) {
        let (vw, vg) = (
            judge(c, &inprocess::run(c, &config), ECHO),
            judge(c, &got, ECHO),
        );
        if matches!(vg, Verdict::Fail(Level::Must, _)) {
            must_failed += 1;
        }
        if vw != vg {
            differ.push(format!("{}: in process {vw:?}, trickled {vg:?}", c.id));
        }
    }
    println!("{} cases trickled in {:?}", cases.len(), started.elapsed());
    assert_eq!(must_failed, 0, "{}", differ.join("\n"));
    assert!(
        differ.is_empty(),
        "{} cases differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
}
