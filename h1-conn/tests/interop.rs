//! The example servers against real clients: raw sockets (keep-alive,
//! pipelining, chunked bodies, `Expect`, HTTP/1.0, errors, closing),
//! `curl`, Python's `http.client`, and the pipelining load tools `h2load`
//! and `wrk`.
//!
//! The servers run in this process: their code is the examples' own,
//! included as modules, each started on 127.0.0.1 port 0 in a thread of its
//! own (which ends with the test process). One test also builds and starts
//! the example binaries themselves, to check what they print.
//!
//! External clients are needed: `curl` (Debian package `curl`), `python3`,
//! `h2load` (`nghttp2-client`) and `wrk` (`wrk`); `.ci/run` installs them. A
//! missing one fails its test with the package to install. Only for the
//! load tools (`h2load`, `wrk`) can a run say `H1_SKIP_LOAD_TOOLS=1`, which
//! skips their tests when the tool is missing, saying so on stderr.
//!
//! Every socket operation and every child process has a timeout; children
//! are killed by their handle, never by name.
// The examples need `std` for their `Date` line: hello keeps it with
// h1-encode's `DateCache`, echo has the connection's (`Config::send_date`),
// which without `std` has no clock.
#![cfg(feature = "std")]

use std::ffi::OsStr;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use test_child::{start_listening, Kid};

// Both examples include `examples/common/listen.rs`; here that makes two
// copies of it, one in each, which is what the examples get too.
#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../examples/echo.rs"]
mod echo;
#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../examples/hello.rs"]
mod hello;

/// Longest wait for any socket read or write.
const IO_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest run of a client process.
const TOOL_TIMEOUT: Duration = Duration::from_secs(120);

// --- servers ---

fn local_listener() -> TcpListener {
    TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0")
}

fn start_echo() -> SocketAddr {
    let listener = local_listener();
    let addr = listener.local_addr().unwrap();
    thread::spawn(move || echo::serve(listener));
    addr
}

fn start_hello() -> SocketAddr {
    let listener = local_listener();
    let addr = listener.local_addr().unwrap();
    thread::spawn(move || hello::serve(listener));
    addr
}

// --- a small, independent HTTP/1.1 client ---

struct Client {
    r: BufReader<TcpStream>,
}

impl Client {
    fn connect(addr: SocketAddr) -> Client {
        let s = TcpStream::connect_timeout(&addr, IO_TIMEOUT).expect("connect");
        s.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
        s.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
        Client {
            r: BufReader::new(s),
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        self.r.get_mut().write_all(bytes).expect("write");
    }

    /// Reads one response; `head`: it answers a HEAD request (no body).
    fn response(&mut self, head: bool) -> Response {
        read_response(&mut self.r, head)
    }

    /// The peer closed cleanly (FIN, not a reset) with nothing more sent.
    fn expect_eof(&mut self) {
        let mut rest = Vec::new();
        match self.r.read_to_end(&mut rest) {
            Ok(_) => assert!(
                rest.is_empty(),
                "expected the end of the connection, got {:?}",
                String::from_utf8_lossy(&rest)
            ),
            Err(e) => panic!("expected a clean end of the connection, got {e}"),
        }
    }
}

#[derive(Debug)]
struct Response {
    status: u16,
    fields: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn field(&self, name: &str) -> Option<&str> {
        let mut found = self
            .fields
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name));
        let first = found.next().map(|(_, v)| v.as_str());
        assert!(found.next().is_none(), "{name} twice in {self:?}");
        first
    }

    fn closes(&self) -> bool {
        self.field("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"))
    }
}

fn read_line(r: &mut impl BufRead) -> String {
    let mut line = Vec::new();
    let n = r.read_until(b'\n', &mut line).expect("read a head line");
    assert!(n > 0, "the connection ended where a head line was expected");
    assert!(line.ends_with(b"\r\n"), "line not ended by CRLF: {line:?}");
    line.truncate(line.len() - 2);
    String::from_utf8(line).expect("ASCII head line")
}

fn read_response(r: &mut impl BufRead, head: bool) -> Response {
    let status_line = read_line(r);
    let rest = status_line
        .strip_prefix("HTTP/1.1 ")
        .unwrap_or_else(|| panic!("status line {status_line:?}"));
    let status: u16 = rest[..3].parse().expect("status code");
    let mut fields = Vec::new();
    loop {
        let line = read_line(r);
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').expect("field line");
        fields.push((name.to_owned(), value.trim().to_owned()));
    }
    let mut resp = Response {
        status,
        fields,
        body: Vec::new(),
    };
    if head || status < 200 || status == 204 || status == 304 {
        return resp;
    }
    assert!(
        resp.field("transfer-encoding").is_none(),
        "the servers frame every response with Content-Length"
    );
    let len: usize = resp
        .field("content-length")
        .expect("content-length")
        .parse()
        .expect("content-length value");
    resp.body = vec![0; len];
    r.read_exact(&mut resp.body).expect("response body");
    resp
}

fn get(target: &str) -> String {
    format!("GET {target} HTTP/1.1\r\nHost: t\r\n\r\n")
}

fn post(target: &str, body: &str) -> String {
    format!(
        "POST {target} HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

fn assert_echo(resp: &Response, method: &str, target: &str, body: &[u8]) {
    assert_eq!(resp.status, 200, "{resp:?}");
    assert_eq!(resp.field("x-echo-method"), Some(method), "{resp:?}");
    assert_eq!(resp.field("x-echo-target"), Some(target), "{resp:?}");
    assert_eq!(resp.field("x-echo-version"), Some("HTTP/1.1"), "{resp:?}");
    assert_eq!(resp.body, body, "{resp:?}");
    assert!(resp.field("date").is_some(), "{resp:?}");
}

// --- echo, raw sockets ---

#[test]
fn echo_keeps_the_connection_alive() {
    let addr = start_echo();
    let mut c = Client::connect(addr);
    c.send(get("/one?a=b").as_bytes());
    let r = c.response(false);
    assert_echo(&r, "GET", "/one?a=b", b"");
    assert!(!r.closes());
    c.send(post("/two", "some body").as_bytes());
    assert_echo(&c.response(false), "POST", "/two", b"some body");
    c.send(b"HEAD /three HTTP/1.1\r\nHost: t\r\n\r\n");
    let r = c.response(true);
    assert_eq!(r.field("x-echo-method"), Some("HEAD"));
    assert_eq!(r.field("content-length"), Some("0"));
    // Targets are echoed as received, whatever their form.
    c.send(b"OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n");
    assert_echo(&c.response(false), "OPTIONS", "*", b"");
    c.send(get("http://example.com/abs?q").as_bytes());
    assert_echo(&c.response(false), "GET", "http://example.com/abs?q", b"");
    // Closing our side ends the connection cleanly.
    c.r.get_ref().shutdown(std::net::Shutdown::Write).unwrap();
    c.expect_eof();
}

#[test]
fn echo_answers_16_pipelined_requests_in_order() {
    let addr = start_echo();
    let mut c = Client::connect(addr);
    let mut batch = String::new();
    for i in 0..16 {
        if i % 3 == 0 {
            batch += &post(&format!("/p{i}"), &format!("body {i}"));
        } else {
            batch += &get(&format!("/g{i}"));
        }
    }
    c.send(batch.as_bytes());
    for i in 0..16 {
        let r = c.response(false);
        if i % 3 == 0 {
            assert_echo(
                &r,
                "POST",
                &format!("/p{i}"),
                format!("body {i}").as_bytes(),
            );
        } else {
            assert_echo(&r, "GET", &format!("/g{i}"), b"");
        }
    }
    // The connection is still open for more.
    c.send(get("/after").as_bytes());
    assert_echo(&c.response(false), "GET", "/after", b"");
}

#[test]
fn echo_answers_requests_arriving_byte_by_byte() {
    let addr = start_echo();
    let mut c = Client::connect(addr);
    c.r.get_ref().set_nodelay(true).unwrap();
    let mut batch = post("/one", "first body");
    batch +=
        "PATCH /two HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
    batch += &get("/three");
    for b in batch.as_bytes() {
        c.send(&[*b]);
    }
    assert_echo(&c.response(false), "POST", "/one", b"first body");
    assert_echo(&c.response(false), "PATCH", "/two", b"abc");
    assert_echo(&c.response(false), "GET", "/three", b"");
}

#[test]
fn echo_answers_everything_sent_before_the_client_half_closes() {
    let addr = start_echo();
    let mut c = Client::connect(addr);
    c.send((get("/1") + &post("/2", "two") + &get("/3")).as_bytes());
    c.r.get_ref().shutdown(std::net::Shutdown::Write).unwrap();
    assert_echo(&c.response(false), "GET", "/1", b"");
    assert_echo(&c.response(false), "POST", "/2", b"two");
    assert_echo(&c.response(false), "GET", "/3", b"");
    c.expect_eof();
}

#[test]
fn echo_pipelines_large_bodies() {
    // Many reads per body, the answers written while the client still
    // writes: 1.6 MB each way.
    let addr = start_echo();
    let mut c = Client::connect(addr);
    let body = binary_body(200_000);
    let mut batch = Vec::new();
    for i in 0..8 {
        let head = format!(
            "PUT /big/{i} HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        batch.extend_from_slice(head.as_bytes());
        batch.extend_from_slice(&body);
    }
    let mut writer = c.r.get_ref().try_clone().unwrap();
    let sender = thread::spawn(move || writer.write_all(&batch));
    for i in 0..8 {
        assert_echo(&c.response(false), "PUT", &format!("/big/{i}"), &body);
    }
    sender.join().unwrap().expect("all sent");
}

#[test]
fn echo_dechunks_a_chunked_body() {
    let addr = start_echo();
    let mut c = Client::connect(addr);
    c.send(
        b"PUT /chunks HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n\
          5\r\nhello\r\n1;ext=val\r\n,\r\nA\r\n world, 10\r\n0\r\nx-trailer: t\r\n\r\n",
    );
    assert_echo(&c.response(false), "PUT", "/chunks", b"hello, world, 10");
    // Sent in pieces, with a pause in the middle of a chunk.
    c.send(b"POST /slow HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nab");
    thread::sleep(Duration::from_millis(50));
    c.send(b"cd\r\n0\r\n\r\n");
    assert_echo(&c.response(false), "POST", "/slow", b"abcd");
}

#[test]
fn echo_sends_100_continue_before_reading_the_body() {
    let addr = start_echo();
    let mut c = Client::connect(addr);
    c.send(b"POST /e HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n");
    let interim = c.response(false);
    assert_eq!(interim.status, 100, "{interim:?}");
    c.send(b"hello");
    assert_echo(&c.response(false), "POST", "/e", b"hello");

    // An expectation it cannot meet: 417 at once, and the connection ends
    // since the body is never read.
    c.send(b"POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: something\r\n\r\n");
    let r = c.response(false);
    assert_eq!(r.status, 417, "{r:?}");
    assert!(r.closes(), "{r:?}");
    c.expect_eof();
}

#[test]
fn echo_http10_closes_unless_asked_to_keep_alive() {
    let addr = start_echo();
    let mut c = Client::connect(addr);
    c.send(b"GET /ten HTTP/1.0\r\n\r\n");
    let r = c.response(false);
    assert_eq!(r.status, 200);
    assert_eq!(r.field("x-echo-version"), Some("HTTP/1.0"));
    assert!(r.closes(), "{r:?}");
    c.expect_eof();

    let mut c = Client::connect(addr);
    for target in ["/k1", "/k2"] {
        c.send(format!("GET {target} HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").as_bytes());
        let r = c.response(false);
        assert_eq!(r.field("x-echo-target"), Some(target));
        assert_eq!(r.field("connection"), Some("keep-alive"), "{r:?}");
    }
}

#[test]
fn echo_answers_a_malformed_request_with_400_and_closes() {
    let addr = start_echo();
    let mut c = Client::connect(addr);
    c.send(b"GET /bad HTTP/1.1\r\nHost: t\r\nno colon here\r\n\r\n");
    let r = c.response(false);
    assert_eq!(r.status, 400, "{r:?}");
    assert!(r.closes(), "{r:?}");
    c.expect_eof();

    // Behind a good request in the same write: its answer comes first.
    let mut c = Client::connect(addr);
    let mut batch = get("/good");
    batch += "GET /bad HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n";
    batch += &get("/never");
    c.send(batch.as_bytes());
    assert_echo(&c.response(false), "GET", "/good", b"");
    let r = c.response(false);
    assert_eq!(r.status, 400, "{r:?}");
    assert!(r.closes());
    c.expect_eof();
}

#[test]
fn echo_answers_one_request_of_a_closing_batch() {
    let addr = start_echo();
    let mut c = Client::connect(addr);
    let mut batch = String::from("GET /only HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    // Far more than a socket buffer behind it: the server must drain
    // (linger), or our unread bytes make its stack reset the connection and
    // the response may be lost.
    for i in 0..4000 {
        batch += &get(&format!("/ignored/{i:04}"));
    }
    let mut writer = c.r.get_ref().try_clone().unwrap();
    let sender = thread::spawn(move || {
        // The server may close before it has read it all: an error here is
        // expected, only the response matters.
        let _ = writer.write_all(batch.as_bytes());
    });
    let r = c.response(false);
    assert_echo(&r, "GET", "/only", b"");
    assert!(r.closes());
    c.expect_eof();
    sender.join().unwrap();
}

#[test]
fn echo_refuses_connect_and_oversized_bodies_and_switches_only_to_websocket() {
    let addr = start_echo();
    let mut c = Client::connect(addr);
    c.send(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
    let r = c.response(false);
    assert_eq!(r.status, 501, "{r:?}");
    assert_eq!(r.field("x-echo-method"), Some("CONNECT"));
    assert_eq!(r.field("x-echo-target"), Some("example.com:443"));
    // Still HTTP/1.1 afterwards: no tunnel was opened.
    c.send(get("/next").as_bytes());
    assert_echo(&c.response(false), "GET", "/next", b"");

    // An upgrade to anything but websocket is declined: no switch.
    c.send(b"GET /up HTTP/1.1\r\nHost: t\r\nConnection: upgrade\r\nUpgrade: h2c\r\n\r\n");
    assert_echo(&c.response(false), "GET", "/up", b"");
    c.send(get("/still").as_bytes());
    assert_echo(&c.response(false), "GET", "/still", b"");

    let limit = echo::config().max_body_len;
    c.send(
        format!(
            "POST /big HTTP/1.1\r\nHost: t\r\nContent-Length: {}\r\n\r\n",
            limit + 1
        )
        .as_bytes(),
    );
    let r = c.response(false);
    assert_eq!(r.status, 413, "{r:?}");
    assert!(r.closes());
    c.expect_eof();

    // A websocket upgrade is accepted (101), then echo, which speaks no
    // websocket, closes.
    let mut c = Client::connect(addr);
    c.send(b"GET /ws HTTP/1.1\r\nHost: t\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n");
    let r = c.response(false);
    assert_eq!(r.status, 101, "{r:?}");
    assert_eq!(r.field("upgrade"), Some("websocket"));
    c.expect_eof();
}

#[test]
fn echo_serves_many_connections_at_once() {
    let addr = start_echo();
    let clients: Vec<_> = (0..32)
        .map(|n| {
            thread::spawn(move || {
                let mut c = Client::connect(addr);
                for i in 0..20 {
                    let target = format!("/c{n}/r{i}");
                    let body = format!("{n}:{i}");
                    c.send(post(&target, &body).as_bytes());
                    assert_echo(&c.response(false), "POST", &target, body.as_bytes());
                }
            })
        })
        .collect();
    for c in clients {
        c.join().expect("a client failed");
    }
}

#[test]
fn echo_closes_connections_beyond_its_limit() {
    let addr = start_echo();
    let mut held: Vec<Client> = (0..echo::MAX_CONNECTIONS)
        .map(|_| Client::connect(addr))
        .collect();
    // One request on the last one: all accepted connections have threads.
    let last = held.last_mut().unwrap();
    last.send(get("/held").as_bytes());
    assert_echo(&last.response(false), "GET", "/held", b"");
    let mut over = Client::connect(addr);
    over.expect_eof();
    drop(held);
    // The threads notice the closed connections and give their places back.
    let deadline = Instant::now() + IO_TIMEOUT;
    loop {
        let mut c = Client::connect(addr);
        c.send(get("/again").as_bytes());
        let mut line = Vec::new();
        match c.r.read_until(b'\n', &mut line) {
            Ok(n) if n > 0 => {
                assert!(line.starts_with(b"HTTP/1.1 200"), "{line:?}");
                break;
            }
            _ => assert!(Instant::now() < deadline, "places are not given back"),
        }
        thread::sleep(Duration::from_millis(20));
    }
}

// --- hello, raw sockets ---

fn assert_plaintext(r: &Response) {
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.field("content-type"), Some("text/plain"), "{r:?}");
    assert_eq!(r.field("server"), Some("h1"), "{r:?}");
    assert_eq!(r.field("content-length"), Some("13"), "{r:?}");
    let date = r.field("date").expect("date");
    assert!(date.len() == 29 && date.ends_with(" GMT"), "{date:?}");
}

#[test]
fn hello_answers_plaintext_and_nothing_else() {
    let addr = start_hello();
    let mut c = Client::connect(addr);
    c.send(get("/plaintext").as_bytes());
    let r = c.response(false);
    assert_plaintext(&r);
    assert_eq!(r.body, b"Hello, World!");
    c.send(b"HEAD /plaintext HTTP/1.1\r\nHost: t\r\n\r\n");
    let r = c.response(true);
    assert_plaintext(&r);
    c.send(get("/other").as_bytes());
    let r = c.response(false);
    assert_eq!((r.status, r.body.len()), (404, 0), "{r:?}");
    c.send(post("/plaintext", "x").as_bytes());
    let r = c.response(false);
    assert_eq!(r.status, 405, "{r:?}");
    assert_eq!(r.field("allow"), Some("GET, HEAD"));
    c.send(b"GET /plaintext HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    let r = c.response(false);
    assert_plaintext(&r);
    assert!(r.closes());
    c.expect_eof();

    let mut c = Client::connect(addr);
    c.send(b"GET /plaintext HTTP/1.1\r\nHost: t\r\nHost: u\r\n\r\n");
    let r = c.response(false);
    assert_eq!(r.status, 400, "{r:?}");
    assert!(r.closes());
    c.expect_eof();
}

#[test]
fn hello_answers_a_pipelined_batch() {
    let addr = start_hello();
    let mut c = Client::connect(addr);
    for _ in 0..3 {
        let batch = get("/plaintext").repeat(16);
        c.send(batch.as_bytes());
        for _ in 0..16 {
            let r = c.response(false);
            assert_plaintext(&r);
            assert_eq!(r.body, b"Hello, World!");
        }
    }
}

#[test]
fn hello_waits_for_a_client_that_does_not_read() {
    const N: usize = 50_000;
    let addr = start_hello();
    let mut c = Client::connect(addr);
    let mut writer = c.r.get_ref().try_clone().unwrap();
    // Megabytes of answers: more than the socket buffers hold, so the
    // server's writes would block while we do not read.
    let batch = get("/plaintext").repeat(N);
    let sender = thread::spawn(move || writer.write_all(batch.as_bytes()));
    thread::sleep(Duration::from_millis(300));
    // Meanwhile the server goes on serving others.
    let mut other = Client::connect(addr);
    other.send(get("/plaintext").as_bytes());
    assert_plaintext(&other.response(false));
    for i in 0..N {
        let r = c.response(false);
        assert!(
            r.status == 200 && r.body == b"Hello, World!",
            "response {i}: {r:?}"
        );
    }
    sender.join().unwrap().expect("the requests were all sent");
    c.send(get("/plaintext").as_bytes());
    assert_plaintext(&c.response(false));
}

// --- child processes ---

/// Waits for `kid` to exit, failing the test (which kills it on the way
/// out) after `timeout`.
fn wait_for(kid: &mut Kid, what: &str, timeout: Duration) -> ExitStatus {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = kid.0.try_wait().expect("wait for a child") {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "{what} did not finish within {timeout:?}"
        );
        thread::sleep(Duration::from_millis(20));
    }
}

struct ToolOutput {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

/// Which Debian package has each client program.
fn package_of(program: &str) -> &'static str {
    match program {
        "curl" => "curl",
        "python3" => "python3",
        "h2load" => "nghttp2-client",
        "wrk" => "wrk",
        _ => unreachable!("{program}"),
    }
}

fn is_load_tool(program: &str) -> bool {
    matches!(program, "h2load" | "wrk")
}

/// Runs `program` to its end (at most [`TOOL_TIMEOUT`]). `None` only when
/// it is a load tool, missing, and `H1_SKIP_LOAD_TOOLS=1`; any other
/// missing program fails the test.
fn run_tool<S: AsRef<OsStr>>(program: &str, args: &[S]) -> Option<ToolOutput> {
    let spawned = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut kid = match spawned {
        Ok(child) => Kid(child),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let package = package_of(program);
            if is_load_tool(program) {
                if std::env::var_os("H1_SKIP_LOAD_TOOLS").is_some_and(|v| v == "1") {
                    eprintln!(
                        "SKIPPED: {program} is not installed (Debian package {package}) \
                         and H1_SKIP_LOAD_TOOLS=1"
                    );
                    return None;
                }
                panic!(
                    "{program} is not installed: apt-get install -y {package} \
                     (or set H1_SKIP_LOAD_TOOLS=1 to skip the load-tool tests)"
                );
            }
            panic!("{program} is not installed: apt-get install -y {package}");
        }
        Err(e) => panic!("cannot run {program}: {e}"),
    };
    let pipe = |mut p: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut v = Vec::new();
            let _ = p.read_to_end(&mut v);
            String::from_utf8_lossy(&v).into_owned()
        })
    };
    let out = pipe(Box::new(kid.0.stdout.take().unwrap()));
    let err = pipe(Box::new(kid.0.stderr.take().unwrap()));
    let status = wait_for(&mut kid, program, TOOL_TIMEOUT);
    Some(ToolOutput {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    })
}

/// Runs `program` and requires it to succeed.
fn run_ok<S: AsRef<OsStr>>(program: &str, args: &[S]) -> Option<ToolOutput> {
    let out = run_tool(program, args)?;
    assert!(
        out.status.success(),
        "{program} failed ({}):\n{}\n{}",
        out.status,
        out.stdout,
        out.stderr
    );
    Some(out)
}

/// A directory of this test's own, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("h1-conn-interop-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Bytes that are not text, to see them come back unchanged.
fn binary_body(len: usize) -> Vec<u8> {
    let mut x: u32 = 0x1234_5678;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

/// The fields of the last response in a `curl -D` dump, lowercase names.
fn dumped_fields(dump: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(dump).unwrap();
    let last = text
        .rsplit("\r\n\r\n")
        .find(|h| !h.is_empty())
        .expect("a head");
    last.lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.to_ascii_lowercase(), v.trim().to_owned()))
        .collect()
}

fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

// --- curl ---

#[test]
fn curl_gets_its_bodies_echoed() {
    let addr = start_echo();
    let dir = TempDir::new("curl");
    let input = dir.path("input");
    let sent = binary_body(300_000);
    std::fs::write(&input, &sent).unwrap();
    let url = format!("http://{addr}/upload?x=1");
    let data = format!("@{}", input.display());
    let body = dir.path("body");
    let dump = dir.path("dump");
    for extra in [
        &["-H", "Transfer-Encoding: chunked"][..],
        &["-H", "Expect: 100-continue"][..],
        &[][..],
    ] {
        let mut args = vec!["-sS", "--max-time", "30", "--data-binary", &data, "-o"];
        let body_arg = body.to_str().unwrap();
        let dump_arg = dump.to_str().unwrap();
        args.extend([body_arg, "-D", dump_arg]);
        args.extend(extra);
        args.push(&url);
        run_ok("curl", &args);
        let got = std::fs::read(&body).unwrap();
        assert!(
            got == sent,
            "curl {extra:?}: body of {} bytes differs",
            got.len()
        );
        let fields = dumped_fields(&dump);
        assert_eq!(field(&fields, "x-echo-method"), Some("POST"), "{extra:?}");
        assert_eq!(field(&fields, "x-echo-target"), Some("/upload?x=1"));
        assert_eq!(field(&fields, "x-echo-version"), Some("HTTP/1.1"));
        assert_eq!(field(&fields, "content-length"), Some("300000"));
    }

    // Several URLs in one run share the connection.
    let urls: Vec<String> = (0..3).map(|i| format!("http://{addr}/k{i}")).collect();
    let mut args = vec![
        "-sS",
        "--max-time",
        "30",
        "-o",
        "/dev/null",
        "-w",
        "%{num_connects} %{http_code}\\n",
    ];
    for u in &urls {
        args.push(u);
    }
    let out = run_ok("curl", &args).unwrap();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines, ["1 200", "0 200", "0 200"], "{}", out.stderr);

    // HTTP/1.0.
    let out = run_ok("curl", &["-sS", "--max-time", "30", "-0", "-i", &urls[0]]).unwrap();
    assert!(
        out.stdout.contains("x-echo-version: HTTP/1.0"),
        "{}",
        out.stdout
    );
}

#[test]
fn curl_gets_hello() {
    let addr = start_hello();
    let url = format!("http://{addr}/plaintext");
    let out = run_ok("curl", &["-sS", "--max-time", "30", "-i", &url, &url]).unwrap();
    assert_eq!(
        out.stdout.matches("HTTP/1.1 200 OK\r\n").count(),
        2,
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("Content-Type: text/plain\r\n"));
    assert!(
        out.stdout.ends_with("\r\n\r\nHello, World!"),
        "{}",
        out.stdout
    );
}

// --- Python's http.client ---

const PY_ECHO: &str = r#"
import http.client, json, sys
c = http.client.HTTPConnection(sys.argv[1], int(sys.argv[2]), timeout=10)
socks, out = [], []
def ask(method, target, body=None, chunked=False):
    c.request(method, target, body=body, encode_chunked=chunked)
    socks.append(c.sock)
    r = c.getresponse()
    data = r.read()
    out.append({"status": r.status, "method": r.getheader("x-echo-method"),
                "target": r.getheader("x-echo-target"), "body": data.hex()})
ask("GET", "/a?b=c")
ask("POST", "/p", body=bytes(range(256)) * 40)
ask("PUT", "/chunked", body=iter([b"ab", b"cd", b"ef"]), chunked=True)
ask("HEAD", "/h")
ask("DELETE", "/d")
print(json.dumps({"responses": out, "connections": len({id(s) for s in socks})}))
"#;

#[test]
fn python_http_client_reuses_one_connection_to_echo() {
    let addr = start_echo();
    let (host, port) = (addr.ip().to_string(), addr.port().to_string());
    let out = run_ok("python3", &["-c", PY_ECHO, &host, &port]).unwrap();
    let v: serde_json::Value = serde_json::from_str(out.stdout.trim()).expect(&out.stderr);
    assert_eq!(v["connections"], 1, "{v}");
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let long: Vec<u8> = (0..=255u8).cycle().take(256 * 40).collect();
    let expected = [
        ("GET", "/a?b=c", hex(b"")),
        ("POST", "/p", hex(&long)),
        ("PUT", "/chunked", hex(b"abcdef")),
        ("HEAD", "/h", hex(b"")),
        ("DELETE", "/d", hex(b"")),
    ];
    let got = v["responses"].as_array().unwrap();
    assert_eq!(got.len(), expected.len());
    for (r, (method, target, body)) in got.iter().zip(expected) {
        assert_eq!(r["status"], 200, "{r}");
        assert_eq!(r["method"], method, "{r}");
        assert_eq!(r["target"], target, "{r}");
        assert_eq!(r["body"], body.as_str(), "{r}");
    }
}

const PY_HELLO: &str = r#"
import http.client, sys
c = http.client.HTTPConnection(sys.argv[1], int(sys.argv[2]), timeout=10)
socks = []
for i in range(100):
    c.request("GET", "/plaintext")
    socks.append(c.sock)
    r = c.getresponse()
    assert r.status == 200 and r.read() == b"Hello, World!", (i, r.status)
    assert r.getheader("content-type") == "text/plain"
print(len({id(s) for s in socks}))
"#;

#[test]
fn python_http_client_gets_hello() {
    let addr = start_hello();
    let (host, port) = (addr.ip().to_string(), addr.port().to_string());
    let out = run_ok("python3", &["-c", PY_HELLO, &host, &port]).unwrap();
    assert_eq!(
        out.stdout.trim(),
        "1",
        "one connection for all: {}",
        out.stderr
    );
}

// --- load tools ---

/// The counts of h2load's `requests:` line: total, started, done,
/// succeeded, failed, errored, timeout.
fn h2load_counts(stdout: &str) -> Vec<u64> {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("requests:"))
        .unwrap_or_else(|| panic!("no requests line in h2load's output:\n{stdout}"));
    line.trim_start_matches("requests:")
        .split(',')
        .map(|part| {
            part.split_whitespace()
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("h2load line {line:?}"))
        })
        .collect()
}

fn h2load(args: &[&str], n: u64) {
    let Some(out) = run_ok("h2load", args) else {
        return;
    };
    let counts = h2load_counts(&out.stdout);
    assert_eq!(
        &counts[..6],
        [n, n, n, n, 0, 0],
        "every request must succeed:\n{}",
        out.stdout
    );
    assert!(counts.get(6).map_or(true, |&t| t == 0), "{}", out.stdout);
    assert!(
        out.stdout.contains(&format!("status codes: {n} 2xx")),
        "{}",
        out.stdout
    );
}

#[test]
fn h2load_pipelines_against_hello() {
    let addr = start_hello();
    let url = format!("http://{addr}/plaintext");
    h2load(
        &["--h1", "-m", "16", "-n", "20000", "-c", "4", &url],
        20_000,
    );
}

#[test]
fn h2load_pipelines_bodies_against_echo() {
    let addr = start_echo();
    let dir = TempDir::new("h2load");
    let data = dir.path("data");
    std::fs::write(&data, binary_body(1000)).unwrap();
    let url = format!("http://{addr}/post");
    let data = data.to_str().unwrap();
    h2load(
        &["--h1", "-m", "8", "-n", "4000", "-c", "4", "-d", data, &url],
        4000,
    );
}

const WRK_PIPELINE: &str = r#"
init = function(args)
  local r = {}
  for i = 1, 16 do r[i] = wrk.format(nil, "/plaintext") end
  req = table.concat(r)
end
request = function() return req end
"#;

#[test]
fn wrk_pipelines_against_hello() {
    let addr = start_hello();
    let dir = TempDir::new("wrk");
    let script = dir.path("pipeline.lua");
    std::fs::write(&script, WRK_PIPELINE).unwrap();
    let url = format!("http://{addr}/plaintext");
    let script = script.to_str().unwrap();
    let args = ["-t", "2", "-c", "8", "-d", "2s", "-s", script, &url];
    let Some(out) = run_ok("wrk", &args) else {
        return;
    };
    let requests: u64 = out
        .stdout
        .lines()
        .find_map(|l| l.trim().split_once(" requests in "))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| panic!("no request count in wrk's output:\n{}", out.stdout));
    assert!(requests > 1000, "{}", out.stdout);
    // wrk prints these lines only when something went wrong.
    assert!(!out.stdout.contains("Socket errors"), "{}", out.stdout);
    assert!(!out.stdout.contains("Non-2xx"), "{}", out.stdout);
}

// --- the example binaries ---

/// Builds the examples with the cargo running this test and returns the
/// path of each by name.
fn build_examples() -> Vec<(String, PathBuf)> {
    let cargo = env!("CARGO");
    let out = run_cargo(
        Command::new(cargo)
            .args([
                "build",
                "-q",
                "-p",
                "h1-conn",
                "--examples",
                "--message-format=json",
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR")),
    );
    let mut found = Vec::new();
    for line in out.lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let is_example = msg["target"]["kind"]
            .as_array()
            .is_some_and(|k| k.iter().any(|k| k == "example"));
        if let (true, Some(exe)) = (is_example, msg["executable"].as_str()) {
            let name = msg["target"]["name"].as_str().unwrap().to_owned();
            found.push((name, PathBuf::from(exe)));
        }
    }
    found
}

fn run_cargo(cmd: &mut Command) -> String {
    let mut kid = Kid(cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("run cargo"));
    let mut stdout = kid.0.stdout.take().unwrap();
    let reader = thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    // A build on a busy machine: generous, still bounded.
    let status = wait_for(&mut kid, "cargo build --examples", Duration::from_secs(600));
    assert!(status.success(), "cargo build --examples failed");
    reader.join().unwrap()
}

/// Starts an example binary on port 0 and reads the address it prints.
fn start_binary(exe: &Path) -> (Kid, SocketAddr) {
    let mut cmd = Command::new(exe);
    cmd.args(["--addr", "127.0.0.1:0"]);
    start_listening(cmd, "the example")
}

#[test]
fn the_example_binaries_print_their_address_and_serve() {
    let built = build_examples();
    let exe = |name: &str| {
        built
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p.clone())
            .unwrap_or_else(|| panic!("cargo built no example {name}: {built:?}"))
    };

    let (_echo, addr) = start_binary(&exe("echo"));
    assert_eq!(addr.ip().to_string(), "127.0.0.1");
    assert_ne!(addr.port(), 0, "the bound port, not the one asked for");
    let mut c = Client::connect(addr);
    c.send(post("/bin", "from the binary").as_bytes());
    assert_echo(&c.response(false), "POST", "/bin", b"from the binary");

    let (_hello, addr) = start_binary(&exe("hello"));
    let mut c = Client::connect(addr);
    c.send(get("/plaintext").as_bytes());
    assert_plaintext(&c.response(false));

    let mut bogus = Kid(Command::new(exe("echo"))
        .arg("--bogus")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run echo"));
    let status = wait_for(&mut bogus, "echo --bogus", Duration::from_secs(30));
    assert_eq!(status.code(), Some(2), "a bad argument is a usage error");
}
