//! The report: a table by RFC section, every failure with what was sent,
//! what was expected and what came back, and totals; as text for people
//! or JSON for machines.

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

/// The text report. `against` names the server; `notes` say what the run
/// could not check; `verbose` lists every case, not only the failures.
pub fn text(results: &[CaseResult<'_>], against: &str, notes: &[String], verbose: bool) -> String {
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
        .filter(|r| verbose || !matches!(r.verdict, Verdict::Pass | Verdict::NotApplicable(_)))
        .collect();
    if !shown.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            if verbose {
                "every case:"
            } else {
                "failures and declared deviations:"
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

/// The JSON report: every case with its verdict, plus the summary.
pub fn json(results: &[CaseResult<'_>], against: &str, notes: &[String]) -> String {
    let s = Summary::of(results);
    let tally = |t: &Tally| json!({"pass": t.pass, "fail": t.fail, "deviation": t.deviation, "not_applicable": t.na});
    let cases: Vec<Value> = results
        .iter()
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
