//! A case: the bytes a client sends, the requirement they check and the
//! outcome a conforming server produces; and the loader of the case files
//! (`cases/README.md` describes their format). The files that test clients
//! (`role = "client"`) are read by [`crate::client::case`].

use std::fmt;

use toml::{Table, Value};

use crate::escape::unescape;
use crate::heads::Sent;

/// The requirement level of the sentence a case checks (BCP 14).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// MUST, MUST NOT, and a MUST to do one of two things.
    Must,
    /// SHOULD, SHOULD NOT.
    Should,
    /// MAY, and choices the RFC leaves open (the case encodes the hardened
    /// one).
    May,
}

impl Level {
    /// Every level, strictest first.
    pub const ALL: [Level; 3] = [Level::Must, Level::Should, Level::May];

    /// `"MUST"`, `"SHOULD"` or `"MAY"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::May => "MAY",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which side of a connection a case tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// A server: the case is the bytes a client sends.
    Server,
    /// A client: the case is the responses a server sends
    /// ([`crate::client::case::ClientCase`]).
    Client,
}

impl Role {
    /// `"server"` or `"client"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Server => "server",
            Role::Client => "client",
        }
    }
}

/// One allowed status: a code or a class (`4` for `4xx`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusPat {
    /// Exactly this code.
    Code(u16),
    /// Any code of this class (the hundreds digit).
    Class(u16),
}

/// The statuses an answer may have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statuses(pub Vec<StatusPat>);

impl Statuses {
    /// Any 2xx.
    pub fn success() -> Statuses {
        Statuses(vec![StatusPat::Class(2)])
    }

    /// Whether `status` is one of them.
    pub fn allows(&self, status: u16) -> bool {
        self.0.iter().any(|p| match *p {
            StatusPat::Code(c) => c == status,
            StatusPat::Class(c) => status / 100 == c,
        })
    }

    /// Whether every allowed answer is an error (4xx or 5xx).
    pub fn all_errors(&self) -> bool {
        self.0.iter().all(|p| match *p {
            StatusPat::Code(c) => c >= 400,
            StatusPat::Class(c) => c >= 4,
        })
    }
}

impl fmt::Display for Statuses {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" or ")?;
            }
            match p {
                StatusPat::Code(c) => write!(f, "{c}")?,
                StatusPat::Class(c) => write!(f, "{c}xx")?,
            }
        }
        Ok(())
    }
}

/// What the server must make of one request it accepts. `None` means not
/// checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Req {
    /// The method the server saw.
    pub method: Option<Vec<u8>>,
    /// The request-target, as received.
    pub target: Option<Vec<u8>>,
    /// The version the server treats the request as: `HTTP/1.1` or
    /// `HTTP/1.0`.
    pub version: Option<String>,
    /// The decoded body.
    pub body: Option<Vec<u8>>,
    /// Fields the server must have seen (name case-insensitive, value
    /// exact).
    pub fields: Vec<(Vec<u8>, Vec<u8>)>,
    /// The answers allowed.
    pub status: Statuses,
    /// The server must answer the head (`100 Continue` or a final status)
    /// before the client sends its next step.
    pub continue_first: bool,
}

impl Req {
    /// A request with nothing checked but a 2xx answer.
    pub fn any() -> Req {
        Req {
            method: None,
            target: None,
            version: None,
            body: None,
            fields: Vec::new(),
            status: Statuses::success(),
            continue_first: false,
        }
    }
}

/// How strictly a server must close the connection after refusing a
/// message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloseRule {
    /// The sentence itself requires the close (RFC 9112 §6.1 for
    /// `Transfer-Encoding` with `Content-Length`, §6.3 rules 4 and 5, §9.6):
    /// staying open fails the case at its level.
    Must,
    /// Only 9112 §2.2's "SHOULD respond with a 400 (Bad Request) response and
    /// close the connection" asks for it: staying open fails the case at
    /// SHOULD at most.
    Should,
    /// Not checked.
    No,
}

/// What a conforming server does with a case's bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every request processed and answered normally.
    Accept {
        /// One entry per request, in order.
        requests: Vec<Req>,
        /// `Some(true)`: the server closes after the last response;
        /// `Some(false)`: it keeps the connection open (a probe request is
        /// sent and must be answered).
        close: Option<bool>,
    },
    /// The message is refused.
    Reject {
        /// The error response's status.
        status: Statuses,
        /// Requests answered normally before it.
        before: usize,
        /// Whether, and how strictly, the server must close after the
        /// error response.
        close: CloseRule,
    },
    /// The bytes end inside a message, then the client closes its sending
    /// side: nothing is dispatched from the unfinished message, the answer
    /// is 400, 408 or none, and the server closes.
    Incomplete {
        /// Complete requests before it, answered normally.
        before: usize,
    },
}

/// Where a case comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// h1's own case files.
    Suite,
    /// The shared vector file (`testdata/conformance/vectors.jsonl`).
    Vector,
}

/// One conformance case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// Unique id, e.g. `line-004` or `te-011`.
    pub id: String,
    /// The file's area (`Request line`), or the vector's category.
    pub area: String,
    /// The governing section as written, e.g. `9112 §6.3 rule 4`.
    pub section: String,
    /// The requirement level.
    pub level: Level,
    /// The sentence checked.
    pub sentence: String,
    /// The bytes sent: one element per step on the connection.
    pub steps: Vec<Vec<u8>>,
    /// The client closes its sending side after the last step.
    pub eof: bool,
    /// What must happen.
    pub outcome: Outcome,
    /// The expectation holds only for a server that speaks the echo
    /// contract (`cases/README.md`).
    pub requires_echo: bool,
    /// h1 intentionally does otherwise, for this reason (never on MUST).
    pub deviation: Option<String>,
    /// Why the case exists, where servers differ.
    pub note: String,
    /// Own case or imported vector.
    pub origin: Origin,
    /// The requests a conforming server reads from the bytes, declared in
    /// `cases/heads.jsonl` ([`crate::heads`]); empty until
    /// [`all`] attaches them.
    pub heads: Vec<Sent>,
}

impl Case {
    /// The section key the report groups by: the RFC and the numbered
    /// section, without rule numbers or a second section (`9112 §6.3 rule
    /// 4` → `9112 §6.3`).
    pub fn section_key(&self) -> String {
        section_key(&self.section)
    }

    /// How many final answers a conforming server sends before the
    /// runner's own checks (close, probe): one per accepted request, the
    /// normal ones and the error of a rejection, the normal ones before an
    /// incomplete message.
    pub fn answers_wanted(&self) -> usize {
        match &self.outcome {
            Outcome::Accept { requests, .. } => requests.len(),
            Outcome::Reject { before, .. } => before + 1,
            Outcome::Incomplete { before } => *before,
        }
    }

    /// All the bytes, steps joined.
    pub fn raw(&self) -> Vec<u8> {
        self.steps.concat()
    }
}

/// See [`Case::section_key`].
pub fn section_key(section: &str) -> String {
    let mut words = section.split_whitespace();
    let rfc = words.next().unwrap_or("");
    let sec = words
        .next()
        .map(|w| w.trim_end_matches([',', ';', ')']))
        .unwrap_or("");
    if sec.is_empty() {
        rfc.to_string()
    } else {
        format!("{rfc} {sec}")
    }
}

/// The order of section keys in reports: by RFC, then numerically by
/// section (`§6.10` after `§6.9`).
pub fn section_order(key: &str) -> (String, Vec<u32>) {
    let (rfc, sec) = key.split_once(' ').unwrap_or((key, ""));
    let nums = sec
        .trim_start_matches('§')
        .split('.')
        .map(|n| n.parse().unwrap_or(u32::MAX))
        .collect();
    (rfc.to_string(), nums)
}

// The case files, compiled in so the binary runs from anywhere (see
// build.rs): `CASE_FILES`, (file name, contents) in name order.
include!(concat!(env!("OUT_DIR"), "/case_files.rs"));

/// Every case: the suite's files, then the imported vectors, each with its
/// declared heads. Ids are unique.
pub fn all() -> Result<Vec<Case>, String> {
    let mut cases = undeclared()?;
    crate::heads::attach(&mut cases, &crate::heads::parse(crate::heads::HEADS)?)?;
    Ok(cases)
}

/// [`all`] without the declared heads: for the tool that writes them
/// (`--write-heads`), which must run when a new case has none yet.
pub fn undeclared() -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    for (name, text) in CASE_FILES {
        let table = parse_toml(name, text)?;
        if file_role(name, &table)? == Role::Server {
            cases.extend(cases_of(name, &table)?);
        }
    }
    cases.extend(crate::vectors::parse(crate::vectors::VECTORS)?);
    check_unique(&cases)?;
    Ok(cases)
}

fn check_unique(cases: &[Case]) -> Result<(), String> {
    let mut ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    ids.sort_unstable();
    match ids.windows(2).find(|w| w[0] == w[1]) {
        Some(w) => Err(format!("case id {} appears twice", w[0])),
        None => Ok(()),
    }
}

/// The cases of one TOML file of server cases; `name` is used in errors.
pub fn parse_file(name: &str, text: &str) -> Result<Vec<Case>, String> {
    let table = parse_toml(name, text)?;
    match file_role(name, &table)? {
        Role::Server => cases_of(name, &table),
        Role::Client => Err(format!(
            "{name}: a file of client cases (read by client::case::parse_file)"
        )),
    }
}

/// A case file as a TOML table.
pub(crate) fn parse_toml(name: &str, text: &str) -> Result<Table, String> {
    text.parse().map_err(|e| format!("{name}: {e}"))
}

/// The role a case file's cases test: its top-level `role`, `"server"`
/// when absent.
pub(crate) fn file_role(name: &str, table: &Table) -> Result<Role, String> {
    match table.get("role") {
        None => Ok(Role::Server),
        Some(Value::String(s)) if s == "server" => Ok(Role::Server),
        Some(Value::String(s)) if s == "client" => Ok(Role::Client),
        Some(v) => Err(format!("{name}: `role` {v}: want \"server\" or \"client\"")),
    }
}

/// The server cases of a parsed file.
fn cases_of(name: &str, table: &Table) -> Result<Vec<Case>, String> {
    let mut top = Fields::new(table, name.to_string());
    let _ = top.take("role");
    let area = top.string("area")?;
    let none = Vec::new();
    let list = match top.take("case") {
        Some(Value::Array(a)) => a,
        Some(_) => return Err(format!("{name}: `case` must be an array of tables")),
        None => &none,
    };
    top.done()?;
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            let Value::Table(t) = v else {
                return Err(format!("{name}: case {} is not a table", i + 1));
            };
            let id = t
                .get("id")
                .and_then(Value::as_str)
                .map_or_else(|| format!("case {}", i + 1), str::to_string);
            parse_case(t, &area, format!("{name}: {id}"))
        })
        .collect()
}

/// The keys of one table, each taken once; [`Fields::done`] refuses the
/// keys no one asked for (a typo in a case file must not silently drop an
/// expectation).
pub(crate) struct Fields<'t> {
    table: &'t Table,
    taken: Vec<&'static str>,
    ctx: String,
}

impl<'t> Fields<'t> {
    pub(crate) fn new(table: &'t Table, ctx: String) -> Fields<'t> {
        Fields {
            table,
            taken: Vec::new(),
            ctx,
        }
    }

    pub(crate) fn take(&mut self, key: &'static str) -> Option<&'t Value> {
        self.taken.push(key);
        self.table.get(key)
    }

    pub(crate) fn err(&self, msg: impl fmt::Display) -> String {
        format!("{}: {msg}", self.ctx)
    }

    pub(crate) fn string(&mut self, key: &'static str) -> Result<String, String> {
        self.opt_string(key)?
            .ok_or_else(|| self.err(format!("`{key}` is missing")))
    }

    pub(crate) fn opt_string(&mut self, key: &'static str) -> Result<Option<String>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(self.err(format!("`{key}` must be a string"))),
        }
    }

    pub(crate) fn bytes(&mut self, key: &'static str) -> Result<Option<Vec<u8>>, String> {
        match self.opt_string(key)? {
            None => Ok(None),
            Some(s) => unescape(&s)
                .map(Some)
                .map_err(|e| self.err(format!("`{key}`: {e}"))),
        }
    }

    pub(crate) fn bool(&mut self, key: &'static str) -> Result<Option<bool>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Boolean(b)) => Ok(Some(*b)),
            Some(_) => Err(self.err(format!("`{key}` must be true or false"))),
        }
    }

    pub(crate) fn count(&mut self, key: &'static str) -> Result<Option<usize>, String> {
        match self.take(key) {
            None => Ok(None),
            Some(Value::Integer(n)) => usize::try_from(*n)
                .map(Some)
                .map_err(|_| self.err(format!("`{key}` must not be negative"))),
            Some(_) => Err(self.err(format!("`{key}` must be a number"))),
        }
    }

    pub(crate) fn statuses(&mut self, key: &'static str) -> Result<Option<Statuses>, String> {
        let Some(v) = self.take(key) else {
            return Ok(None);
        };
        let one = |v: &Value| -> Result<StatusPat, String> {
            match v {
                Value::Integer(n) if (100..=999).contains(n) => Ok(StatusPat::Code(*n as u16)),
                Value::String(s)
                    if s.len() == 3
                        && s.as_bytes()[0].is_ascii_digit()
                        && s.as_bytes()[0] != b'0'
                        && &s[1..] == "xx" =>
                {
                    Ok(StatusPat::Class(u16::from(s.as_bytes()[0] - b'0')))
                }
                _ => Err(self.err(format!(
                    "`{key}`: {v} is not a status (a code, or a class such as \"4xx\")"
                ))),
            }
        };
        let pats = match v {
            Value::Array(a) if !a.is_empty() => a.iter().map(one).collect::<Result<_, _>>()?,
            Value::Array(_) => return Err(self.err(format!("`{key}` is an empty list"))),
            v => vec![one(v)?],
        };
        Ok(Some(Statuses(pats)))
    }

    pub(crate) fn done(self) -> Result<(), String> {
        match self
            .table
            .keys()
            .find(|k| !self.taken.contains(&k.as_str()))
        {
            Some(k) => Err(self.err(format!("unknown key `{k}`"))),
            None => Ok(()),
        }
    }
}

fn parse_case(t: &Table, area: &str, ctx: String) -> Result<Case, String> {
    let mut f = Fields::new(t, ctx);
    let id = f.string("id")?;
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
        return Err(f.err("`id` must be letters, digits and `-`"));
    }
    let section = f.string("section")?;
    if !(section.starts_with("9112 §") || section.starts_with("9110 §")) {
        return Err(f.err("`section` must start with `9112 §` or `9110 §`"));
    }
    let level = match f.string("level")?.as_str() {
        "MUST" => Level::Must,
        "SHOULD" => Level::Should,
        "MAY" => Level::May,
        other => return Err(f.err(format!("`level` {other:?}: want MUST, SHOULD or MAY"))),
    };
    let sentence = f.string("sentence")?;
    let steps = match f.take("raw") {
        Some(Value::String(s)) => vec![unescape(s).map_err(|e| f.err(format!("`raw`: {e}")))?],
        Some(Value::Array(a)) if !a.is_empty() => a
            .iter()
            .map(|v| match v {
                Value::String(s) => unescape(s).map_err(|e| f.err(format!("`raw`: {e}"))),
                _ => Err(f.err("`raw` steps must be strings")),
            })
            .collect::<Result<_, _>>()?,
        _ => return Err(f.err("`raw` must be a string or a list of strings")),
    };
    if steps.iter().any(Vec::is_empty) {
        return Err(f.err("a step of `raw` is empty"));
    }
    let expect = f.string("expect")?;
    let close = f.take("close");
    let before = f.count("before")?;
    let status = f.statuses("status")?;
    let requests = f.take("requests");
    let mut eof = f.bool("eof")?.unwrap_or(false);
    let outcome = match expect.as_str() {
        "accept" => {
            if before.is_some() || status.is_some() {
                return Err(f.err("an accepted case has `requests`, not `before` or `status`"));
            }
            let requests = match requests {
                Some(Value::Integer(n)) if *n >= 1 => vec![Req::any(); *n as usize],
                Some(Value::Array(a)) if !a.is_empty() => a
                    .iter()
                    .enumerate()
                    .map(|(i, v)| match v {
                        Value::Table(t) => parse_req(t, format!("{} request {}", f.ctx, i + 1)),
                        _ => Err(f.err("`requests` entries must be tables")),
                    })
                    .collect::<Result<_, _>>()?,
                _ => {
                    return Err(f.err("`requests` must be a count (at least 1) or a list of tables"))
                }
            };
            let close = match close {
                None => None,
                Some(Value::Boolean(b)) => Some(*b),
                Some(_) => return Err(f.err("an accepted case's `close` is true or false")),
            };
            if steps.len() < 2 && requests.iter().any(|r| r.continue_first) {
                return Err(f.err("`continue = true` needs the body in a later step than the head"));
            }
            Outcome::Accept { requests, close }
        }
        "reject" => {
            if requests.is_some() {
                return Err(f.err("a rejected case has `before`, not `requests`"));
            }
            let status = status.ok_or_else(|| f.err("a rejected case needs `status`"))?;
            if !status.all_errors() {
                return Err(f.err("a rejection's `status` must be 4xx or 5xx"));
            }
            Outcome::Reject {
                status,
                before: before.unwrap_or(0),
                close: match close {
                    None => CloseRule::Should,
                    Some(Value::String(s)) if s == "should" => CloseRule::Should,
                    Some(Value::String(s)) if s == "must" => CloseRule::Must,
                    Some(Value::Boolean(false)) => CloseRule::No,
                    Some(_) => {
                        return Err(f.err(
                            "a rejection's `close` is \"must\", \"should\" (the default) or false",
                        ))
                    }
                },
            }
        }
        "incomplete" => {
            if requests.is_some() || status.is_some() || close.is_some() {
                return Err(f.err("an incomplete case has only `before`"));
            }
            eof = true;
            Outcome::Incomplete {
                before: before.unwrap_or(0),
            }
        }
        other => {
            return Err(f.err(format!(
                "`expect` {other:?}: want accept, reject or incomplete"
            )))
        }
    };
    let requires_echo = match f.opt_string("requires")?.as_deref() {
        None => false,
        Some("echo") => true,
        Some(other) => return Err(f.err(format!("`requires` {other:?}: only \"echo\" is known"))),
    };
    let deviation = f.opt_string("deviation")?;
    if deviation.is_some() && level == Level::Must {
        return Err(f.err("a MUST case cannot declare a deviation"));
    }
    let note = f.opt_string("note")?.unwrap_or_default();
    f.done()?;
    Ok(Case {
        id,
        area: area.to_string(),
        section,
        level,
        sentence,
        steps,
        eof,
        outcome,
        requires_echo,
        deviation,
        note,
        origin: Origin::Suite,
        heads: Vec::new(),
    })
}

fn parse_req(t: &Table, ctx: String) -> Result<Req, String> {
    let mut f = Fields::new(t, ctx);
    let method = f.bytes("method")?;
    let target = f.bytes("target")?;
    let version = f.opt_string("version")?;
    if let Some(v) = &version {
        if v != "HTTP/1.1" && v != "HTTP/1.0" {
            return Err(f.err("`version` is \"HTTP/1.1\" or \"HTTP/1.0\""));
        }
    }
    let body = f.bytes("body")?;
    let fields = match f.take("fields") {
        None => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|pair| match pair.as_array().map(Vec::as_slice) {
                Some([Value::String(n), Value::String(v)]) => {
                    let n = unescape(n).map_err(|e| f.err(format!("`fields`: {e}")))?;
                    let v = unescape(v).map_err(|e| f.err(format!("`fields`: {e}")))?;
                    Ok((n, v))
                }
                _ => Err(f.err("`fields` entries are [name, value] pairs of strings")),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(f.err("`fields` must be a list of [name, value] pairs")),
    };
    let status = f.statuses("status")?.unwrap_or_else(Statuses::success);
    let continue_first = f.bool("continue")?.unwrap_or(false);
    f.done()?;
    Ok(Req {
        method,
        target,
        version,
        body,
        fields,
        status,
        continue_first,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(case: &str) -> Result<Case, String> {
        let text = format!("area = \"T\"\n[[case]]\n{case}");
        parse_file("t.toml", &text).map(|mut v| v.remove(0))
    }

    const HEAD: &str = "id = \"t-1\"\nsection = \"9112 §3\"\nlevel = \"MUST\"\nsentence = \"s\"\n";

    #[test]
    fn a_case_reads() {
        let c = one(&format!(
            "{HEAD}raw = ['GET / HTTP/1.1\\r\\n', 'Host: a\\r\\n\\r\\n']\nexpect = \"accept\"\n\
             requests = [{{ method = \"GET\", fields = [[\"host\", \"a\"]], status = [\"2xx\", 501] }}]\n\
             close = false\n"
        ))
        .unwrap();
        assert_eq!(
            c.steps,
            vec![b"GET / HTTP/1.1\r\n".to_vec(), b"Host: a\r\n\r\n".to_vec()]
        );
        let Outcome::Accept { requests, close } = &c.outcome else {
            panic!("{:?}", c.outcome)
        };
        assert_eq!(*close, Some(false));
        assert_eq!(requests[0].method.as_deref(), Some(&b"GET"[..]));
        assert_eq!(requests[0].fields, vec![(b"host".to_vec(), b"a".to_vec())]);
        assert!(requests[0].status.allows(204) && requests[0].status.allows(501));
        assert!(!requests[0].status.allows(500));
        assert_eq!(c.section_key(), "9112 §3");
    }

    #[test]
    fn mistakes_in_a_case_are_refused() {
        let reject = "raw = 'x'\nexpect = \"reject\"\nstatus = 400\n";
        assert!(one(&format!("{HEAD}{reject}")).is_ok());
        for bad in [
            format!("{HEAD}{reject}stauts = 400\n"),
            format!("{HEAD}raw = 'x'\nexpect = \"reject\"\n"),
            format!("{HEAD}raw = 'x'\nexpect = \"reject\"\nstatus = 200\n"),
            format!("{HEAD}raw = 'x'\nexpect = \"reject\"\nstatus = \"4x\"\n"),
            format!("{HEAD}raw = 'x'\nexpect = \"accept\"\nrequests = 0\n"),
            format!("{HEAD}raw = 'x'\nexpect = \"maybe\"\n"),
            format!("{HEAD}raw = '\\q'\nexpect = \"accept\"\nrequests = 1\n"),
            format!("{HEAD}raw = []\nexpect = \"accept\"\nrequests = 1\n"),
            format!("{HEAD}{reject}deviation = \"no\"\n"),
            format!("{HEAD}{reject}requires = \"nginx\"\n"),
            format!("{}{reject}", HEAD.replace("9112 §3", "RFC 9112")),
            format!(
                "{HEAD}raw = 'x'\nexpect = \"accept\"\nrequests = [{{ method = \"GET\", bdy = \"\" }}]\n"
            ),
        ] {
            assert!(one(&bad).is_err(), "accepted:\n{bad}");
        }
    }

    #[test]
    fn sections_group_and_order() {
        assert_eq!(section_key("9112 §6.3 rule 4"), "9112 §6.3");
        assert_eq!(section_key("9110 §7.2; 9112 §3.2"), "9110 §7.2");
        assert!(section_order("9112 §6.9") < section_order("9112 §6.10"));
        assert!(section_order("9110 §15") < section_order("9112 §2.2"));
    }
}
