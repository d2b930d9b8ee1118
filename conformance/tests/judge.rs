//! The judge on observations made by hand: a server that misbehaves
//! fails, one that takes a branch the RFC allows passes (or fails no more
//! than the level the RFC gives), and the deviations h1 declares excuse
//! h1 alone.

use h1_conformance::case::{self, Case, Level, Outcome};
use h1_conformance::echo;
use h1_conformance::inprocess;
use h1_conformance::judge::{judge, Verdict};
use h1_conformance::observe::{Answer, Ending};

mod common;

use common::{echo_answer, get, obs, ECHO, PLAIN};

/// The first case that `pred` holds for.
fn cases_with(pred: impl Fn(&Case) -> bool) -> Case {
    case::all()
        .unwrap()
        .into_iter()
        .find(|c| pred(c))
        .expect("a case of that kind")
}

/// The answer h1's echo gives the keep-alive probe.
fn probe_answer() -> Answer {
    echo_answer(200, b"GET", b"/keep-alive-probe", b"", 1)
}

// --- a server that misbehaves fails ---

/// `continue = true` holds for each request that asks for a 100, not only
/// the last: in cont-008 (two 100-continue exchanges, four steps) a server
/// that sends no 100 to the first request and waits for its content (the
/// MUST NOT of RFC 9110 §10.1.1) fails, although it answers before the
/// case's last step. Request n's answer must begin before the step that
/// carries its content.
#[test]
fn a_100_is_required_for_each_request_that_asks() {
    let c = get("cont-008");
    let mut o = inprocess::run(&c, &echo::config());
    assert_eq!(judge(&c, &o, ECHO), Verdict::Pass);
    // The server waited for `abc` (step 1) before answering POST /1 at all.
    o.answers[0].interim.clear();
    o.answers[0].step = 1;
    let v = judge(&c, &o, ECHO);
    assert!(
        matches!(v, Verdict::Fail(..)),
        "no 100 and no answer to POST /1 until its body was sent, yet: {v:?}"
    );
}

/// A case's `deviation` is h1's declared intention: another server that
/// answers line-003's 64-octet method with 200 fails; it is not reported as
/// a declared deviation with h1's reason.
#[test]
fn h1s_declared_deviations_excuse_only_h1() {
    let c = get("line-003");
    assert!(c.deviation.is_some());
    let o = obs(
        vec![Answer {
            echo: None,
            ..echo_answer(200, b"", b"", b"", 0)
        }],
        Ending::Open,
    );
    let v = judge(&c, &o, PLAIN);
    assert!(
        matches!(v, Verdict::Fail(..)),
        "nginx-like server answering 200 gets h1's excuse: {v:?}"
    );
}

/// With the echo contract, the answer taken for the probe's must echo the
/// probe; an answer to some other request in its place is a failure.
#[test]
fn the_probes_answer_must_echo_the_probe() {
    let c = cases_with(
        |c| matches!(&c.outcome, case::Outcome::Accept { requests, close: Some(false) } if requests.len() == 1 && requests[0].target.is_none() && requests[0].body.is_none() && requests[0].method.is_none()),
    );
    let mut o = obs(vec![echo_answer(200, b"GET", b"/", b"", 0)], Ending::Open);
    o.probe = Some(Some(probe_answer()));
    assert_eq!(judge(&c, &o, ECHO), Verdict::Pass);
    o.probe = Some(Some(echo_answer(200, b"GET", b"/smuggled", b"", 1)));
    assert!(matches!(judge(&c, &o, ECHO), Verdict::Fail(..)));
}

/// A request refused on its head alone (an https target on a plain
/// connection, RFC 9110 §7.4) declares no head, so the judge does not take
/// a server's 200 for an early answer to a body defect: accepting it fails
/// the MUST, whatever the server does with the connection. A 421 that keeps
/// the connection open passes (the case asks for no close).
#[test]
fn an_https_target_answered_200_fails_for_any_server() {
    let c = get("hostf-040");
    assert!(c.heads.is_empty(), "{:?}", c.heads);
    let mut ok = echo_answer(200, b"GET", b"https://example.com/a", b"", 0);
    ok.echo = None;
    for ending in [Ending::Closed, Ending::Open] {
        let o = obs(vec![ok.clone()], ending);
        assert!(
            matches!(judge(&c, &o, PLAIN), Verdict::Fail(Level::Must, _)),
            "{:?}",
            judge(&c, &o, PLAIN)
        );
    }
    let mut misdirected = ok.clone();
    misdirected.status = 421;
    let o = obs(vec![misdirected], Ending::Open);
    assert_eq!(judge(&c, &o, PLAIN), Verdict::Pass);
}

/// A 501 to a request framed by `Transfer-Encoding: chunked,` (te-031; also
/// len-029, chunk-ok-014) is RFC 9112 §6.1's answer to "a transfer coding
/// it does not understand": the server refused the chunked framing that it
/// MUST parse. From a server without the echo contract it fails the MUST
/// case; it is not taken for a policy answer. A 501 to CONNECT stays a
/// policy answer.
#[test]
fn a_501_to_chunked_is_a_refusal_for_a_plain_server() {
    for id in ["te-031", "len-029", "chunk-ok-014"] {
        let c = get(id);
        let mut a = echo_answer(501, b"POST", b"/", b"", 0);
        a.echo = None;
        let v = judge(&c, &obs(vec![a], Ending::Closed), PLAIN);
        assert!(matches!(v, Verdict::Fail(Level::Must, _)), "{id}: {v:?}");
    }
    // A 501 to CONNECT stays a policy answer.
    let c = cases_with(|c| {
        c.steps[0].starts_with(b"CONNECT ")
            && matches!(&c.outcome, Outcome::Accept { requests, .. } if requests.len() == 1)
    });
    let mut a = echo_answer(501, b"CONNECT", b"", b"", 0);
    a.echo = None;
    let v = judge(&c, &obs(vec![a], Ending::Closed), PLAIN);
    assert!(!matches!(v, Verdict::Fail(..)), "{}: {v:?}", c.id);
}

// --- a server that takes a branch the RFC allows passes ---

/// RFC 9112 §5.2 lets a server "either reject ... or replace each received
/// obs-fold with one or more SP octets": a server that takes the repair
/// branch of field-020 (own case) or fld-006 (vector, MUST-EITHER), answers
/// and keeps the connection, fails no MUST. The same holds for the bare-CR,
/// NUL and whitespace-after-start-line cases (msg-021..025, field-025/026,
/// fld-004..018, le-005..008, te-017/023/027, chunk-bad-034, clte-008,
/// smug-005): the cases are MAY/PROFILE (the hardened choice), or accept
/// both branches.
#[test]
fn replacing_obs_fold_with_sp_fails_no_must() {
    for id in ["field-020", "fld-006"] {
        let c = get(id);
        // Folded value replaced by SP, request answered, connection kept.
        let mut o = obs(vec![echo_answer(200, b"GET", b"/", b"", 0)], Ending::Open);
        o.probe = Some(Some(probe_answer()));
        let v = judge(&c, &o, ECHO);
        assert!(
            !(matches!(v, Verdict::Fail(..)) && c.level == case::Level::Must),
            "{id}: replacing obs-fold with SP is the RFC's other MUST branch, yet a MUST failure: {v:?}"
        );
    }
}

/// RFC 9112 §3.2 requires only the 400 for a missing Host ("A server MUST
/// respond with a 400"); the message is well framed and the connection may
/// stay open. A server that answers hostf-001 with 400 and keeps the
/// connection fails 9112 §2.2's SHOULD (close after an error), not the
/// MUST.
#[test]
fn a_400_without_host_kept_open_fails_only_the_should() {
    let c = get("hostf-001");
    assert_eq!(c.level, case::Level::Must);
    let o = obs(vec![echo_answer(400, b"GET", b"/", b"", 0)], Ending::Open);
    let v = judge(&c, &o, ECHO);
    // The close is 9112 §2.2's SHOULD: missing it fails at SHOULD, not MUST.
    assert!(
        !matches!(v, Verdict::Fail(case::Level::Must, _)),
        "400 to a request without Host is all RFC 9112 §3.2 requires, yet: {v:?}"
    );
    assert!(matches!(v, Verdict::Fail(case::Level::Should, _)), "{v:?}");
}

/// A request the case lets the server refuse (len-018, RFC 9110 §8.6: an
/// identical Content-Length list "MAY either reject the message as invalid
/// or replace" it) ends the sequence when refused: the refusal passes, not
/// "1 of 2 requests answered"; kept open it fails at most a SHOULD; a
/// request read past it fails.
#[test]
fn an_allowed_refusal_ends_an_accepted_sequence() {
    let c = get("len-018");
    let mut refused = echo_answer(400, b"POST", b"/list", b"", 0);
    refused.echo = None;
    let v = judge(&c, &obs(vec![refused.clone()], Ending::Closed), ECHO);
    assert_eq!(v, Verdict::Pass);
    // Refused and kept open: 9112 §2.2's SHOULD close, at most SHOULD.
    let v = judge(&c, &obs(vec![refused.clone()], Ending::Open), ECHO);
    assert!(
        matches!(v, Verdict::Fail(Level::Should | Level::May, _)),
        "{v:?}"
    );
    // Refused, then a request read past the refusal.
    let v = judge(
        &c,
        &obs(
            vec![refused, echo_answer(200, b"GET", b"/next", b"", 0)],
            Ending::Closed,
        ),
        ECHO,
    );
    assert!(matches!(v, Verdict::Fail(..)), "{v:?}");
}

/// Vectors the RFC lets a server answer either way are imported with both
/// answers allowed: an accepted vector's `alt_status` (cl-005, cl-006: 9110
/// §8.6 MAY reject or replace), bare LF in the request line and fields
/// (le-001: 9112 §2.2 MAY recognize a single LF), an empty Host (host-009:
/// 9112 §3.3 "can reject the request or determine whether a configured
/// default applies"), and CONNECT's "MUST reject ... typically by
/// responding with a 400" (conn-002).
#[test]
fn vectors_that_allow_either_answer_pass_both() {
    for id in ["cl-005", "cl-006", "le-001", "le-002", "host-009"] {
        let c = get(id);
        let mut refused = echo_answer(400, b"POST", b"/", b"", 0);
        refused.echo = None;
        let v = judge(&c, &obs(vec![refused], Ending::Closed), ECHO);
        assert_eq!(v, Verdict::Pass, "{id} refused");
    }
    for id in ["le-001", "le-002", "host-009"] {
        let c = get(id);
        let v = judge(
            &c,
            &obs(vec![echo_answer(200, b"GET", b"/", b"", 0)], Ending::Open),
            ECHO,
        );
        assert_eq!(v, Verdict::Pass, "{id} accepted");
    }
    let c = get("le-010");
    let body = b"GET / HTTP/1.1\r\nDummy: ";
    let v = judge(
        &c,
        &obs(
            vec![
                echo_answer(200, b"GET", b"/", body, 0),
                echo_answer(200, b"GET", b"/admin", b"", 0),
            ],
            Ending::Open,
        ),
        ECHO,
    );
    assert_eq!(v, Verdict::Pass, "le-010 accepted");
    for status in [404, 405, 501] {
        let mut a = echo_answer(status, b"CONNECT", b"", b"", 0);
        a.echo = None;
        let v = judge(&get("conn-002"), &obs(vec![a], Ending::Closed), ECHO);
        assert_eq!(v, Verdict::Pass, "conn-002 {status}");
    }
}
