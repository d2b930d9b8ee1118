//! The report: a table by RFC section, every failure with what was sent,
//! what was expected and what came back, and totals; as text for people,
//! JSON for machines, or JUnit XML for CI systems.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde_json::{json, Value};

use crate::case::{section_key, section_order, Case, Level, Origin, Role};
use crate::client::case::ClientCase;
use crate::client::judge as client_judge;
use crate::client::observe::ClientObservation;
use crate::escape::escape;
use crate::judge::{describe, expected, Verdict};
use crate::observe::Observation;
use crate::titles::title;

/// One case's result.
#[derive(Clone, Debug)]
pub struct CaseResult<'c> {
    /// The case.
    pub case: &'c Case,
    /// What came back.
    pub obs: Observation,
    /// The verdict.
    pub verdict: Verdict,
}

/// One client case's result.
#[derive(Clone, Debug)]
pub struct ClientResult<'c> {
    /// The case.
    pub case: &'c ClientCase,
    /// What the client reported and the server received.
    pub obs: ClientObservation,
    /// The verdict.
    pub verdict: Verdict,
}

/// What the report needs of one case's result, for either role.
pub trait Reported {
    /// The case's id.
    fn id(&self) -> &str;
    /// Its file's area (or the vector's category).
    fn area(&self) -> &str;
    /// Its section as written.
    fn section(&self) -> &str;
    /// Its requirement level.
    fn level(&self) -> Level;
    /// The sentence it checks.
    fn sentence(&self) -> &str;
    /// The side of the connection it tests.
    fn role(&self) -> Role;
    /// Own case or imported vector.
    fn origin(&self) -> Origin;
    /// What it requires of the peer (`"echo"`), if anything.
    fn requires(&self) -> Option<&'static str>;
    /// The deviation h1 declares, if any.
    fn deviation(&self) -> Option<&str>;
    /// What was sent, escaped, each step at most `max` characters.
    fn sent(&self, max: usize) -> String;
    /// What the case wants, in one line.
    fn expected(&self) -> String;
    /// What came back, in one line.
    fn got(&self) -> String;
    /// The final statuses seen.
    fn statuses(&self) -> Vec<u16>;
    /// The verdict.
    fn verdict(&self) -> &Verdict;

    /// The section key the report groups by.
    fn section_key(&self) -> String {
        section_key(self.section())
    }

    /// The level the verdict counts at.
    fn counts_at(&self) -> Level {
        self.verdict().counts_at(self.level())
    }
}

impl Reported for CaseResult<'_> {
    fn id(&self) -> &str {
        &self.case.id
    }
    fn area(&self) -> &str {
        &self.case.area
    }
    fn section(&self) -> &str {
        &self.case.section
    }
    fn level(&self) -> Level {
        self.case.level
    }
    fn sentence(&self) -> &str {
        &self.case.sentence
    }
    fn role(&self) -> Role {
        Role::Server
    }
    fn origin(&self) -> Origin {
        self.case.origin
    }
    fn requires(&self) -> Option<&'static str> {
        self.case.requires_echo.then_some("echo")
    }
    fn deviation(&self) -> Option<&str> {
        self.case.deviation.as_deref()
    }
    fn sent(&self, max: usize) -> String {
        sent(self.case, max)
    }
    fn expected(&self) -> String {
        expected(self.case)
    }
    fn got(&self) -> String {
        describe(&self.obs)
    }
    fn statuses(&self) -> Vec<u16> {
        self.obs.answers.iter().map(|a| a.status).collect()
    }
    fn verdict(&self) -> &Verdict {
        &self.verdict
    }
}

impl Reported for ClientResult<'_> {
    fn id(&self) -> &str {
        &self.case.id
    }
    fn area(&self) -> &str {
        &self.case.area
    }
    fn section(&self) -> &str {
        &self.case.section
    }
    fn level(&self) -> Level {
        self.case.level
    }
    fn sentence(&self) -> &str {
        &self.case.sentence
    }
    fn role(&self) -> Role {
        Role::Client
    }
    fn origin(&self) -> Origin {
        Origin::Suite
    }
    fn requires(&self) -> Option<&'static str> {
        None
    }
    fn deviation(&self) -> Option<&str> {
        self.case.deviation.as_deref()
    }
    fn sent(&self, max: usize) -> String {
        client_judge::sent(self.case, max)
    }
    fn expected(&self) -> String {
        client_judge::expected(self.case)
    }
    fn got(&self) -> String {
        client_judge::describe(self.case, &self.obs)
    }
    fn statuses(&self) -> Vec<u16> {
        self.obs.records.iter().filter_map(|r| r.status).collect()
    }
    fn verdict(&self) -> &Verdict {
        &self.verdict
    }
}

impl<T: Reported + ?Sized> Reported for &T {
    fn id(&self) -> &str {
        (**self).id()
    }
    fn area(&self) -> &str {
        (**self).area()
    }
    fn section(&self) -> &str {
        (**self).section()
    }
    fn level(&self) -> Level {
        (**self).level()
    }
    fn sentence(&self) -> &str {
        (**self).sentence()
    }
    fn role(&self) -> Role {
        (**self).role()
    }
    fn origin(&self) -> Origin {
        (**self).origin()
    }
    fn requires(&self) -> Option<&'static str> {
        (**self).requires()
    }
    fn deviation(&self) -> Option<&str> {
        (**self).deviation()
    }
    fn sent(&self, max: usize) -> String {
        (**self).sent(max)
    }
    fn expected(&self) -> String {
        (**self).expected()
    }
    fn got(&self) -> String {
        (**self).got()
    }
    fn statuses(&self) -> Vec<u16> {
        (**self).statuses()
    }
    fn verdict(&self) -> &Verdict {
        (**self).verdict()
    }
}

/// Counts of verdicts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Passed.
    pub pass: usize,
    /// Failed.
    pub fail: usize,
    /// Failed as h1 declares it intends.
    pub deviation: usize,
    /// Not applicable to the server.
    pub na: usize,
}

impl Tally {
    fn add(&mut self, v: &Verdict) {
        match v {
            Verdict::Pass => self.pass += 1,
            Verdict::Fail(..) => self.fail += 1,
            Verdict::Deviation(_) => self.deviation += 1,
            Verdict::NotApplicable(_) => self.na += 1,
        }
    }

    /// All counted.
    pub fn total(&self) -> usize {
        self.pass + self.fail + self.deviation + self.na
    }
}

/// Totals by section (in RFC order, the server role's sections first), by
/// level, and overall.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// By role and section key (`9112 §6.3`).
    pub sections: Vec<(Role, String, Tally)>,
    /// MUST, SHOULD, MAY.
    pub levels: Vec<(Level, Tally)>,
    /// Every case.
    pub total: Tally,
    /// Own server cases, imported vectors, and client cases.
    pub origins: [Tally; 3],
}

impl Summary {
    /// Counts `results`.
    pub fn of<R: Reported>(results: &[R]) -> Summary {
        type Key = (Role, (String, Vec<u32>));
        let mut sections: BTreeMap<Key, (String, Tally)> = BTreeMap::new();
        let mut levels: BTreeMap<Level, Tally> = BTreeMap::new();
        let mut s = Summary::default();
        for r in results {
            let key = r.section_key();
            sections
                .entry((r.role(), section_order(&key)))
                .or_insert_with(|| (key.clone(), Tally::default()))
                .1
                .add(r.verdict());
            levels.entry(r.counts_at()).or_default().add(r.verdict());
            s.total.add(r.verdict());
            s.origins[origin_index(r)].add(r.verdict());
        }
        s.sections = sections
            .into_iter()
            .map(|((role, _), (key, t))| (role, key, t))
            .collect();
        s.levels = levels.into_iter().collect();
        s
    }

    /// Failed MUST cases.
    pub fn must_failed(&self) -> usize {
        self.levels
            .iter()
            .find(|(l, _)| *l == Level::Must)
            .map_or(0, |(_, t)| t.fail)
    }
}

/// Which cases a report lists one by one (the totals always count all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listing {
    /// Every case.
    All,
    /// Failures and declared deviations (the text report's default).
    Problems,
    /// Failures only (`--only-failures`).
    Failures,
}

impl Listing {
    fn shows(self, v: &Verdict) -> bool {
        match self {
            Listing::All => true,
            Listing::Problems => matches!(v, Verdict::Fail(..) | Verdict::Deviation(_)),
            Listing::Failures => matches!(v, Verdict::Fail(..)),
        }
    }
}

/// Where a result is counted in [`Summary::origins`].
fn origin_index<R: Reported>(r: &R) -> usize {
    match (r.role(), r.origin()) {
        (Role::Client, _) => 2,
        (Role::Server, Origin::Suite) => 0,
        (Role::Server, Origin::Vector) => 1,
    }
}

/// A section's title in the report: the RFC's, marked `client:` for the
/// client role's sections.
fn section_title(role: Role, key: &str) -> String {
    let t = title(key).unwrap_or("");
    match role {
        Role::Server => t.to_string(),
        Role::Client => format!("client: {t}"),
    }
}

/// How many cases of each kind the report holds, for its first line.
fn counts(s: &Summary) -> String {
    let [own, vectors, client] = s.origins.map(|t| t.total());
    let clients = match client {
        1 => "1 client case".to_string(),
        n => format!("{n} client cases"),
    };
    match (own + vectors, client) {
        (_, 0) => format!(
            "{} cases ({own} own, {vectors} imported vectors)",
            s.total.total()
        ),
        (0, _) => clients,
        _ => format!(
            "{} cases ({own} own, {vectors} imported vectors, {clients})",
            s.total.total()
        ),
    }
}

/// The text report. `against` names the server (or client); `notes` say
/// what the run could not check; `listing` says which cases are listed one
/// by one.
pub fn text<R: Reported>(
    results: &[R],
    against: &str,
    notes: &[String],
    listing: Listing,
) -> String {
    let s = Summary::of(results);
    let mut out = String::new();
    let _ = writeln!(out, "h1-conformance: {} against {against}\n", counts(&s));
    let _ = writeln!(
        out,
        "{:<14} {:<44} {:>5} {:>5} {:>5} {:>5}",
        "section", "title", "pass", "fail", "dev", "n/a"
    );
    for (role, key, t) in &s.sections {
        let name: String = section_title(*role, key).chars().take(44).collect();
        let _ = writeln!(
            out,
            "{key:<14} {name:<44} {:>5} {:>5} {:>5} {:>5}",
            t.pass,
            dash(t.fail),
            dash(t.deviation),
            dash(t.na)
        );
    }
    let t = s.total;
    let _ = writeln!(
        out,
        "{:<14} {:<44} {:>5} {:>5} {:>5} {:>5}",
        "total", "", t.pass, t.fail, t.deviation, t.na
    );
    out.push('\n');
    for (level, t) in &s.levels {
        let _ = writeln!(
            out,
            "{:<7} {:>4} cases: {:>4} passed, {} failed, {} declared deviations, {} not applicable",
            level.as_str(),
            t.total(),
            t.pass,
            t.fail,
            t.deviation,
            t.na
        );
    }
    let shown: Vec<&R> = results
        .iter()
        .filter(|r| listing.shows(r.verdict()))
        .collect();
    if !shown.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            match listing {
                Listing::All => "every case:",
                Listing::Problems => "failures and declared deviations:",
                Listing::Failures => "failures:",
            }
        );
    }
    for r in shown {
        let _ = writeln!(
            out,
            "\n{} {} [{}] {}{}: {}",
            r.verdict().label().to_uppercase(),
            r.id(),
            r.counts_at(),
            r.section(),
            match r.role() {
                Role::Server => "",
                Role::Client => " (client)",
            },
            one_line(r.sentence(), 160)
        );
        let _ = writeln!(out, "  sent:     {}", r.sent(300));
        let _ = writeln!(out, "  expected: {}", r.expected());
        let _ = writeln!(out, "  got:      {}", r.got());
        match r.verdict() {
            Verdict::Fail(level, why) => {
                let _ = writeln!(out, "  why:      {why}");
                if *level != r.level() {
                    let _ = writeln!(
                        out,
                        "  counts:   as a {level} failure (the case is {})",
                        r.level()
                    );
                }
            }
            Verdict::Deviation(why) => {
                let _ = writeln!(out, "  why:      {why}");
                let _ = writeln!(
                    out,
                    "  declared: {}",
                    one_line(r.deviation().unwrap_or(""), 300)
                );
            }
            Verdict::NotApplicable(why) => {
                let _ = writeln!(out, "  n/a:      {why}");
            }
            Verdict::Pass => {}
        }
    }
    for note in notes {
        let _ = writeln!(out, "\nnote: {note}");
    }
    let _ = writeln!(
        out,
        "\n{} passed, {} failed ({} MUST), {} declared deviations, {} not applicable, of {} cases",
        t.pass,
        t.fail,
        s.must_failed(),
        t.deviation,
        t.na,
        t.total()
    );
    out
}

/// The JSON report: the cases `listing` lists (every case, or the
/// failures) with their verdicts, plus the summary of all.
pub fn json<R: Reported>(
    results: &[R],
    against: &str,
    notes: &[String],
    listing: Listing,
) -> String {
    let s = Summary::of(results);
    let tally = |t: &Tally| json!({"pass": t.pass, "fail": t.fail, "deviation": t.deviation, "not_applicable": t.na});
    let cases: Vec<Value> = results
        .iter()
        .filter(|r| listing.shows(r.verdict()))
        .map(|r| {
            let reason = match r.verdict() {
                Verdict::Pass => Value::Null,
                Verdict::Fail(_, w) | Verdict::Deviation(w) | Verdict::NotApplicable(w) => {
                    Value::from(w.as_str())
                }
            };
            json!({
                "id": r.id(),
                "role": r.role().as_str(),
                "area": r.area(),
                "section": r.section(),
                "level": r.level().as_str(),
                "counts_as": r.counts_at().as_str(),
                "sentence": r.sentence(),
                "requires": r.requires(),
                "origin": match r.origin() { Origin::Suite => "suite", Origin::Vector => "vector" },
                "verdict": r.verdict().label(),
                "reason": reason,
                "sent": r.sent(usize::MAX),
                "expected": r.expected(),
                "got": r.got(),
                "statuses": r.statuses(),
            })
        })
        .collect();
    let sections: Vec<Value> = s
        .sections
        .iter()
        .map(|(role, k, t)| {
            let mut v = tally(t);
            v["section"] = Value::from(k.as_str());
            v["role"] = Value::from(role.as_str());
            v["title"] = title(k).map_or(Value::Null, |_| Value::from(section_title(*role, k)));
            v
        })
        .collect();
    let levels: serde_json::Map<String, Value> = s
        .levels
        .iter()
        .map(|(l, t)| (l.as_str().to_string(), tally(t)))
        .collect();
    let report = json!({
        "against": against,
        "cases": cases,
        "sections": sections,
        "levels": levels,
        "total": tally(&s.total),
        "must_failed": s.must_failed(),
        "notes": notes,
    });
    serde_json::to_string_pretty(&report).expect("JSON of plain values")
}

/// The JUnit XML report, for CI systems: one test suite per RFC section,
/// one test case per case (`id`, the sentence as its name); a failure is a
/// `<failure>` with the reason and what was sent, expected and got; a case
/// not applicable, or a declared deviation, is `<skipped>` with its reason.
pub fn junit<R: Reported>(results: &[R], against: &str) -> String {
    // By role and section, in RFC order; cases in their own order within
    // one.
    let mut sorted: Vec<&R> = results.iter().collect();
    sorted.sort_by_cached_key(|r| (r.role(), section_order(&r.section_key())));
    let mut by_section: Vec<(Role, String, Vec<&R>)> = Vec::new();
    for r in sorted {
        let key = r.section_key();
        match by_section.last_mut() {
            Some((role, k, rs)) if *k == key && *role == r.role() => rs.push(r),
            _ => by_section.push((r.role(), key, vec![r])),
        }
    }
    let s = Summary::of(results);
    let skipped = |t: &Tally| t.na + t.deviation;
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"h1-conformance against {}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">",
        xml(against),
        s.total.total(),
        s.total.fail,
        skipped(&s.total)
    );
    for (role, key, rs) in &by_section {
        let mut t = Tally::default();
        for r in rs {
            t.add(r.verdict());
        }
        let name = match title(key) {
            Some(_) => format!("{key} {}", section_title(*role, key)),
            None => key.clone(),
        };
        let class = match role {
            Role::Server => key.clone(),
            Role::Client => format!("client {key}"),
        };
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">",
            xml(&name),
            t.total(),
            t.fail,
            skipped(&t)
        );
        for r in rs {
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"{} [{}] {}\"",
                xml(&class),
                xml(r.id()),
                r.level(),
                xml(&one_line(r.sentence(), 160))
            );
            match r.verdict() {
                Verdict::Pass => out.push_str("/>\n"),
                Verdict::Fail(level, why) => {
                    let _ = writeln!(
                        out,
                        ">\n      <failure type=\"{level}\" message=\"{}\">sent: {}\nexpected: {}\ngot: {}</failure>\n    </testcase>",
                        xml(why),
                        xml(&r.sent(300)),
                        xml(&r.expected()),
                        xml(&r.got())
                    );
                }
                Verdict::Deviation(why) | Verdict::NotApplicable(why) => {
                    let kind = if matches!(r.verdict(), Verdict::Deviation(_)) {
                        "declared deviation"
                    } else {
                        "not applicable"
                    };
                    let _ = writeln!(
                        out,
                        ">\n      <skipped message=\"{kind}: {}\"/>\n    </testcase>",
                        xml(why)
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// `s` as XML character data or an attribute value: the five markup
/// characters escaped, and the control characters XML 1.0 cannot hold
/// written as `\xHH` (the case-file escapes already leave none in `sent`).
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(ch),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// The bytes a case sends, escaped; steps separated by ` | `.
fn sent(c: &Case, max: usize) -> String {
    let steps: Vec<String> = c.steps.iter().map(|s| escape(s, max)).collect();
    let mut s = steps.join(" | ");
    if c.eof {
        s.push_str(" <client closes>");
    }
    s
}

fn one_line(s: &str, max: usize) -> String {
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &flat[..i]),
        None => flat,
    }
}

fn dash(n: usize) -> String {
    if n == 0 {
        "-".into()
    } else {
        n.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{self, Level};
    use crate::observe::Ending;

    fn results(cases: &[Case]) -> Vec<CaseResult<'_>> {
        let obs = Observation {
            answers: Vec::new(),
            ending: Ending::Closed,
            probe: None,
            seen: None,
        };
        let verdicts = [
            Verdict::Pass,
            Verdict::Fail(Level::Must, "answered <200> & closed".into()),
            Verdict::Deviation("declared".into()),
            Verdict::NotApplicable("needs the echo contract".into()),
        ];
        cases
            .iter()
            .zip(verdicts)
            .map(|(case, verdict)| CaseResult {
                case,
                obs: obs.clone(),
                verdict,
            })
            .collect()
    }

    #[test]
    fn junit_counts_failures_and_skips_and_escapes_markup() {
        let cases: Vec<Case> = case::all().unwrap().into_iter().take(4).collect();
        let x = junit(&results(&cases), "a \"server\" <here>");
        assert!(x.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "));
        assert!(x.contains(
            "name=\"h1-conformance against a &quot;server&quot; &lt;here&gt;\" tests=\"4\" failures=\"1\" skipped=\"2\">"
        ), "{x}");
        assert!(
            x.contains("<failure type=\"MUST\" message=\"answered &lt;200&gt; &amp; closed\">"),
            "{x}"
        );
        assert!(
            x.contains("<skipped message=\"declared deviation: declared\"/>"),
            "{x}"
        );
        assert!(
            x.contains("<skipped message=\"not applicable: needs the echo contract\"/>"),
            "{x}"
        );
        assert_eq!(x.matches("<testcase ").count(), 4);
        assert!(x.trim_end().ends_with("</testsuites>"));
        // Nothing XML 1.0 cannot hold.
        assert!(!x
            .chars()
            .any(|c| (c as u32) < 0x20 && !"\t\n\r".contains(c)));
    }

    #[test]
    fn only_failures_lists_the_failures_and_still_counts_all() {
        let cases: Vec<Case> = case::all().unwrap().into_iter().take(4).collect();
        let r = results(&cases);
        let t = text(&r, "x", &[], Listing::Failures);
        assert!(t.contains(&format!("FAIL {}", cases[1].id)), "{t}");
        assert!(!t.contains(&format!("DEVIATION {}", cases[2].id)), "{t}");
        assert!(t.contains(
            "1 passed, 1 failed (1 MUST), 1 declared deviations, 1 not applicable, of 4 cases"
        ));
        let problems = text(&r, "x", &[], Listing::Problems);
        assert!(problems.contains(&format!(
            "{} {}",
            r[2].verdict.label().to_uppercase(),
            cases[2].id
        )));
        let j: Value = serde_json::from_str(&json(&r, "x", &[], Listing::Failures)).unwrap();
        let ids: Vec<&str> = j["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, [cases[1].id.as_str()]);
        assert_eq!(j["total"]["pass"], 1);
        let all: Value = serde_json::from_str(&json(&r, "x", &[], Listing::All)).unwrap();
        assert_eq!(all["cases"].as_array().unwrap().len(), 4);
    }
}
