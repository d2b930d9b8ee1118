//! The report: a table by RFC section, every failure with what was sent,
//! what was expected and what came back, and totals; as text for people,
//! JSON for machines, or JUnit XML for CI systems.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde_json::{json, Value};

use crate::case::{section_order, Case, Level, Origin};
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

/// Totals by section (in RFC order), by level, and overall.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// By section key (`9112 §6.3`).
    pub sections: Vec<(String, Tally)>,
    /// MUST, SHOULD, MAY.
    pub levels: Vec<(Level, Tally)>,
    /// Every case.
    pub total: Tally,
    /// Own cases and imported vectors.
    pub origins: [Tally; 2],
}

impl Summary {
    /// Counts `results`.
    pub fn of(results: &[CaseResult<'_>]) -> Summary {
        let mut sections: BTreeMap<(String, Vec<u32>), (String, Tally)> = BTreeMap::new();
        let mut levels: BTreeMap<Level, Tally> = BTreeMap::new();
        let mut s = Summary::default();
        for r in results {
            let key = r.case.section_key();
            sections
                .entry(section_order(&key))
                .or_insert_with(|| (key.clone(), Tally::default()))
                .1
                .add(&r.verdict);
            levels
                .entry(r.verdict.level(r.case))
                .or_default()
                .add(&r.verdict);
            s.total.add(&r.verdict);
            let o = match r.case.origin {
                Origin::Suite => 0,
                Origin::Vector => 1,
            };
            s.origins[o].add(&r.verdict);
        }
        s.sections = sections.into_values().collect();
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

/// The text report. `against` names the server; `notes` say what the run
/// could not check; `listing` says which cases are listed one by one.
pub fn text(
    results: &[CaseResult<'_>],
    against: &str,
    notes: &[String],
    listing: Listing,
) -> String {
    let s = Summary::of(results);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "h1-conformance: {} cases ({} own, {} imported vectors) against {against}\n",
        s.total.total(),
        s.origins[0].total(),
        s.origins[1].total()
    );
    let _ = writeln!(
        out,
        "{:<14} {:<44} {:>5} {:>5} {:>5} {:>5}",
        "section", "title", "pass", "fail", "dev", "n/a"
    );
    for (key, t) in &s.sections {
        let name: String = title(key).unwrap_or("").chars().take(44).collect();
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
    let shown: Vec<&CaseResult<'_>> = results
        .iter()
        .filter(|r| listing.shows(&r.verdict))
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
        let c = r.case;
        let _ = writeln!(
            out,
            "\n{} {} [{}] {}: {}",
            r.verdict.label().to_uppercase(),
            c.id,
            r.verdict.level(c),
            c.section,
            one_line(&c.sentence, 160)
        );
        let _ = writeln!(out, "  sent:     {}", sent(c, 300));
        let _ = writeln!(out, "  expected: {}", expected(c));
        let _ = writeln!(out, "  got:      {}", describe(&r.obs));
        match &r.verdict {
            Verdict::Fail(level, why) => {
                let _ = writeln!(out, "  why:      {why}");
                if *level != c.level {
                    let _ = writeln!(
                        out,
                        "  counts:   as a {level} failure (the case is {})",
                        c.level
                    );
                }
            }
            Verdict::Deviation(why) => {
                let _ = writeln!(out, "  why:      {why}");
                let _ = writeln!(
                    out,
                    "  declared: {}",
                    one_line(c.deviation.as_deref().unwrap_or(""), 300)
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
pub fn json(
    results: &[CaseResult<'_>],
    against: &str,
    notes: &[String],
    listing: Listing,
) -> String {
    let s = Summary::of(results);
    let tally = |t: &Tally| json!({"pass": t.pass, "fail": t.fail, "deviation": t.deviation, "not_applicable": t.na});
    let cases: Vec<Value> = results
        .iter()
        .filter(|r| listing.shows(&r.verdict))
        .map(|r| {
            let c = r.case;
            let reason = match &r.verdict {
                Verdict::Pass => Value::Null,
                Verdict::Fail(_, w) | Verdict::Deviation(w) | Verdict::NotApplicable(w) => {
                    Value::from(w.as_str())
                }
            };
            json!({
                "id": c.id,
                "area": c.area,
                "section": c.section,
                "level": c.level.as_str(),
                "counts_as": r.verdict.level(c).as_str(),
                "sentence": c.sentence,
                "requires": if c.requires_echo { Value::from("echo") } else { Value::Null },
                "origin": match c.origin { Origin::Suite => "suite", Origin::Vector => "vector" },
                "verdict": r.verdict.label(),
                "reason": reason,
                "sent": sent(c, usize::MAX),
                "expected": expected(c),
                "got": describe(&r.obs),
                "statuses": r.obs.answers.iter().map(|a| a.status).collect::<Vec<_>>(),
            })
        })
        .collect();
    let sections: Vec<Value> = s
        .sections
        .iter()
        .map(|(k, t)| {
            let mut v = tally(t);
            v["section"] = Value::from(k.as_str());
            v["title"] = title(k).map_or(Value::Null, Value::from);
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
pub fn junit(results: &[CaseResult<'_>], against: &str) -> String {
    // By section, in RFC order; cases in their own order within one.
    let mut sorted: Vec<&CaseResult<'_>> = results.iter().collect();
    sorted.sort_by_cached_key(|r| section_order(&r.case.section_key()));
    let mut by_section: Vec<(String, Vec<&CaseResult<'_>>)> = Vec::new();
    for r in sorted {
        let key = r.case.section_key();
        match by_section.last_mut() {
            Some((k, rs)) if *k == key => rs.push(r),
            _ => by_section.push((key, vec![r])),
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
    for (key, rs) in &by_section {
        let mut t = Tally::default();
        for r in rs {
            t.add(&r.verdict);
        }
        let name = match title(key) {
            Some(title) => format!("{key} {title}"),
            None => key.clone(),
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
            let c = r.case;
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"{} [{}] {}\"",
                xml(key),
                xml(&c.id),
                c.level,
                xml(&one_line(&c.sentence, 160))
            );
            match &r.verdict {
                Verdict::Pass => out.push_str("/>\n"),
                Verdict::Fail(level, why) => {
                    let _ = writeln!(
                        out,
                        ">\n      <failure type=\"{level}\" message=\"{}\">sent: {}\nexpected: {}\ngot: {}</failure>\n    </testcase>",
                        xml(why),
                        xml(&sent(c, 300)),
                        xml(&expected(c)),
                        xml(&describe(&r.obs))
                    );
                }
                Verdict::Deviation(why) | Verdict::NotApplicable(why) => {
                    let kind = if matches!(r.verdict, Verdict::Deviation(_)) {
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
