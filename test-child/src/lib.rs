//! Test support for the tests that run binaries of the workspace (h1-conn's
//! example servers, the conformance runner against them): a child process
//! that is killed and reaped when dropped, so a failing test leaves none
//! behind, and the start of a server that binds `127.0.0.1:0` and prints
//! `listening on ADDR` as its first line.

#![forbid(unsafe_code)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// A child killed and reaped when dropped (a test that fails leaves none).
#[derive(Debug)]
pub struct Kid(pub Child);

impl Drop for Kid {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs `cmd` with stdin closed, stdout read here and stderr inherited,
/// and returns it with the address from its first line, `listening on
/// ADDR`. Panics (killing the child) when it cannot start, prints nothing
/// within 30 s, or prints something else; `what` names it in the message.
pub fn start_listening(mut cmd: Command, what: &str) -> (Kid, SocketAddr) {
    let mut kid = Kid(cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("start {what}: {e}")));
    let stdout = kid.0.stdout.take().expect("stdout was piped");
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx
        .recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|_| panic!("{what} printed nothing within 30 s"));
    let addr = line
        .trim_end()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .parse()
        .expect("an address");
    (kid, addr)
}
