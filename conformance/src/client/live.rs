//! The client-role runner over loopback TCP: for each case, the test
//! server ([`Script`]) listens on a fresh `127.0.0.1` port, the client
//! under test runs once with the case's requests, and its report is read
//! (the [`contract`], or curl's own output
//! through the [`curl`] adapter). Each step of an
//! answer is written on its own, after a short pause, so the client reads
//! it separately. The client gets a deadline; past it, it is killed.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::client::case::ClientCase;
use crate::client::contract;
use crate::client::curl;
use crate::client::observe::ClientObservation;
use crate::client::script::{Action, Script};

/// The client under test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Client {
    /// A command run by `/bin/sh -c`, once per case, with `{url}`,
    /// `{method}` and `{requests}` replaced (see [`Invocation`]); it prints
    /// the client report contract.
    Command(String),
    /// curl, through the built-in adapter ([`curl`]); the program to run.
    Curl(PathBuf),
}

/// One request a client is asked to make, as the command gets it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    /// The method, an upper-case token.
    pub method: String,
    /// `http://127.0.0.1:PORT/{case id}/{n}`.
    pub url: String,
    /// A file holding the content to send, if any.
    pub body: Option<PathBuf>,
}

/// Where and how to run.
#[derive(Clone, Debug)]
pub struct ClientLive {
    /// The client.
    pub client: Client,
    /// The longest one case may take.
    pub timeout: Duration,
    /// The pause after each step of an answer but the last.
    pub pause: Duration,
}

impl ClientLive {
    /// A runner for `client`, 5 s per case, 20 ms between steps.
    pub fn new(client: Client) -> ClientLive {
        ClientLive {
            client,
            timeout: Duration::from_secs(5),
            pause: Duration::from_millis(20),
        }
    }

    /// Runs one case.
    pub fn run(&self, case: &ClientCase) -> ClientObservation {
        let dir = match scratch_dir(&case.id) {
            Ok(d) => d,
            Err(e) => return problem(format!("cannot make a scratch directory: {e}")),
        };
        let obs = self.run_in(case, &dir);
        let _ = std::fs::remove_dir_all(&dir);
        obs
    }

    fn run_in(&self, case: &ClientCase, dir: &Path) -> ClientObservation {
        let listener = match TcpListener::bind("127.0.0.1:0") {
            Ok(l) => l,
            Err(e) => return problem(format!("cannot listen on 127.0.0.1: {e}")),
        };
        let port = match listener.local_addr() {
            Ok(a) => a.port(),
            Err(e) => return problem(format!("cannot listen on 127.0.0.1: {e}")),
        };
        let mut requests = Vec::new();
        for (i, x) in case.exchanges.iter().enumerate() {
            let body = match &x.ask.body {
                Some(b) => {
                    let path = dir.join(format!("request-{}", i + 1));
                    if let Err(e) = std::fs::write(&path, b) {
                        return problem(format!("cannot write {}: {e}", path.display()));
                    }
                    Some(path)
                }
                None => None,
            };
            requests.push(Invocation {
                method: String::from_utf8_lossy(&x.ask.method).into_owned(),
                url: format!("http://127.0.0.1:{port}{}", case.target(i)),
                body,
            });
        }
        let script = Mutex::new(Script::new(case));
        let done = AtomicBool::new(false);
        let ran = thread::scope(|s| {
            s.spawn(|| accept_all(&listener, &script, &done, self.pause));
            let ran = self.run_client(&requests, dir);
            done.store(true, Ordering::Relaxed);
            ran
        });
        let (received, unreadable) = script.into_inner().expect("no server panics").finish();
        let mut obs = ClientObservation {
            received,
            unreadable,
            ..ClientObservation::default()
        };
        match ran {
            Ok(out) => {
                obs.stderr = tail(&out.stderr);
                let report = match &self.client {
                    Client::Command(_) => contract::parse(&out.stdout),
                    Client::Curl(_) => curl::report(&out.stdout, dir, &requests),
                };
                match report {
                    Ok(r) => {
                        obs.h1 = r.agent.as_deref() == Some("h1");
                        obs.records = r.records;
                    }
                    Err(e) => {
                        obs.problem = Some(format!("the client's report breaks the contract: {e}"))
                    }
                }
                if out.timed_out {
                    obs.problem = Some(format!(
                        "the client did not finish within {:?} and was killed",
                        self.timeout
                    ));
                }
            }
            Err(e) => obs.problem = Some(e),
        }
        obs
    }

    /// Runs the client with `requests` to its end or the deadline.
    fn run_client(&self, requests: &[Invocation], dir: &Path) -> Result<Output, String> {
        let mut cmd = match &self.client {
            Client::Command(template) => {
                let mut cmd = Command::new("/bin/sh");
                cmd.arg("-c").arg(substitute(template, requests));
                // Its own process group, so a timeout ends every process
                // the command started, and only those.
                std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
                cmd
            }
            Client::Curl(program) => curl::command(program, requests, dir),
        };
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run the client: {e}"))?;
        let stdout = collect(child.stdout.take().expect("piped"));
        let stderr = collect(child.stderr.take().expect("piped"));
        let deadline = Instant::now() + self.timeout;
        let timed_out = loop {
            match child.try_wait() {
                Ok(Some(_)) => break false,
                Ok(None) if Instant::now() >= deadline => break true,
                Ok(None) => thread::sleep(Duration::from_millis(2)),
                Err(e) => return Err(format!("cannot wait for the client: {e}")),
            }
        };
        if timed_out {
            self.kill(&mut child);
        }
        let grace = Duration::from_secs(1);
        Ok(Output {
            stdout: stdout.recv_timeout(grace).unwrap_or_default(),
            stderr: stderr.recv_timeout(grace).unwrap_or_default(),
            timed_out,
        })
    }

    fn kill(&self, child: &mut Child) {
        if matches!(self.client, Client::Command(_)) {
            // The group the command leads (see `process_group` above).
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .stderr(Stdio::null())
                .status();
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// What the client printed.
struct Output {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    timed_out: bool,
}

fn problem(why: String) -> ClientObservation {
    ClientObservation {
        problem: Some(why),
        ..ClientObservation::default()
    }
}

/// The last 400 bytes of a client's standard error, as text.
fn tail(stderr: &[u8]) -> String {
    let from = stderr.len().saturating_sub(400);
    String::from_utf8_lossy(&stderr[from..]).trim().to_string()
}

/// Reads `r` to its end on a thread of its own.
fn collect(mut r: impl Read + Send + 'static) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        let _ = tx.send(buf);
    });
    rx
}

/// `template` with `{url}` and `{method}` (the first request's) and
/// `{requests}` (every request as `METHOD URL BODY`, BODY a file or `-`)
/// replaced. The values hold no character a shell treats specially (see
/// `scratch_dir`).
pub fn substitute(template: &str, requests: &[Invocation]) -> String {
    let all: Vec<String> = requests
        .iter()
        .map(|r| {
            let body = r
                .body
                .as_ref()
                .map_or_else(|| "-".to_string(), |p| p.display().to_string());
            format!("{} {} {body}", r.method, r.url)
        })
        .collect();
    let first = requests.first();
    template
        .replace("{url}", first.map_or("", |r| r.url.as_str()))
        .replace("{method}", first.map_or("", |r| r.method.as_str()))
        .replace("{requests}", &all.join(" "))
}

/// A fresh directory for a case's request bodies and a client's files,
/// under the temporary directory; refused when its path holds a character
/// a shell would treat specially.
fn scratch_dir(id: &str) -> std::io::Result<PathBuf> {
    // Unique in this process too: runs of one case may overlap.
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("h1-conformance-{}-{n}-{id}", std::process::id()));
    let plain = dir.to_str().is_some_and(|s| {
        s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-".contains(&b))
    });
    if !plain {
        return Err(std::io::Error::new(
            ErrorKind::InvalidInput,
            format!(
                "{} holds characters a shell treats specially (set TMPDIR)",
                dir.display()
            ),
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Accepts connections until `done`, each served on its own thread.
fn accept_all(
    listener: &TcpListener,
    script: &Mutex<Script<'_>>,
    done: &AtomicBool,
    pause: Duration,
) {
    if listener.set_nonblocking(true).is_err() {
        return;
    }
    thread::scope(|s| {
        while !done.load(Ordering::Relaxed) {
            match listener.accept() {
                Ok((stream, _)) => {
                    let id = script.lock().expect("no server panics").connect();
                    s.spawn(move || serve(stream, id, script, done, pause));
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    thread::sleep(Duration::from_millis(2));
                }
                Err(_) => thread::sleep(Duration::from_millis(2)),
            }
        }
    });
}

/// Serves connection `id` until the client closes it, the script closes
/// it, or the case is done.
fn serve(
    mut stream: TcpStream,
    id: usize,
    script: &Mutex<Script<'_>>,
    done: &AtomicBool,
    pause: Duration,
) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(10)));
    let mut buf = [0u8; 16 * 1024];
    while !done.load(Ordering::Relaxed) {
        match stream.read(&mut buf) {
            Ok(0) => {
                script.lock().expect("no server panics").eof(id);
                return;
            }
            Ok(n) => {
                let actions = script
                    .lock()
                    .expect("no server panics")
                    .input(id, &buf[..n]);
                let mut wrote = false;
                for action in actions {
                    match action {
                        Action::Write(step) => {
                            if wrote {
                                thread::sleep(pause);
                            }
                            wrote = true;
                            if stream.write_all(&step).is_err() {
                                return;
                            }
                        }
                        Action::Close => {
                            close(&mut stream, done);
                            return;
                        }
                    }
                }
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => return,
        }
    }
}

/// Closes gracefully (RFC 9112 §9.6): the sending side first, then reads
/// and discards until the client closes or the case is done, so that what
/// was written is not lost to a reset.
fn close(stream: &mut TcpStream, done: &AtomicBool) {
    let _ = stream.shutdown(Shutdown::Write);
    let mut buf = [0u8; 4096];
    while !done.load(Ordering::Relaxed) {
        match stream.read(&mut buf) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => return,
        }
    }
}
