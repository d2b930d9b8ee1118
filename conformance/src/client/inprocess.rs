//! The client-role runner in process: h1's user agent ([`Agent`], on
//! h1-conn's client role) against the case's test server ([`Script`]) in
//! memory. Each step of an answer is one read for the agent; a connection
//! the server closed reads as closed once its steps are read; waiting for
//! bytes the server will never send ends as a timeout does.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io;
use std::rc::Rc;

use h1_conn::Config;

use crate::client::agent::{Agent, Dial, Request, Transport};
use crate::client::case::ClientCase;
use crate::client::observe::ClientObservation;
use crate::client::script::{Action, Script};

/// Runs `case` with h1's user agent, its connections set up with `config`
/// (the agent's own: [`crate::client::agent::config`]).
pub fn run(case: &ClientCase, config: &Config) -> ClientObservation {
    run_split(case, config, usize::MAX)
}

/// Runs `case` with every step of the server's answers read in pieces of
/// at most `piece` bytes (1: one byte at a time). A correct client's
/// observation does not depend on `piece`.
pub fn run_split(case: &ClientCase, config: &Config, piece: usize) -> ClientObservation {
    let script = Rc::new(RefCell::new(Script::new(case)));
    let dial = MemDial {
        script: Rc::clone(&script),
        piece: piece.max(1),
    };
    let mut agent = Agent::new(dial, b"localhost", config.clone());
    let records = case
        .exchanges
        .iter()
        .enumerate()
        .map(|(i, x)| {
            agent.fetch(&Request {
                method: x.ask.method.clone(),
                target: case.target(i).into_bytes(),
                body: x.ask.body.clone(),
            })
        })
        .collect();
    drop(agent);
    let script = Rc::try_unwrap(script)
        .ok()
        .expect("the agent and its connections are gone")
        .into_inner();
    let (received, unreadable) = script.finish();
    ClientObservation {
        records,
        received,
        unreadable,
        problem: None,
        stderr: String::new(),
        h1: true,
    }
}

struct MemDial<'c> {
    script: Rc<RefCell<Script<'c>>>,
    piece: usize,
}

impl<'c> Dial for MemDial<'c> {
    type Conn = MemConn<'c>;

    fn dial(&mut self) -> io::Result<MemConn<'c>> {
        let id = self.script.borrow_mut().connect();
        Ok(MemConn {
            script: Rc::clone(&self.script),
            id,
            inbox: VecDeque::new(),
            closed: false,
            piece: self.piece,
        })
    }
}

/// One connection to the script: what the server wrote, step by step.
struct MemConn<'c> {
    script: Rc<RefCell<Script<'c>>>,
    id: usize,
    inbox: VecDeque<Vec<u8>>,
    /// The server closed after the steps in `inbox`.
    closed: bool,
    /// The most one read returns.
    piece: usize,
}

impl MemConn<'_> {
    fn take(&mut self, buf: &mut [u8]) -> Option<usize> {
        if let Some(step) = self.inbox.front_mut() {
            let n = step.len().min(buf.len()).min(self.piece);
            buf[..n].copy_from_slice(&step[..n]);
            step.drain(..n);
            if step.is_empty() {
                self.inbox.pop_front();
            }
            return Some(n);
        }
        self.closed.then_some(0)
    }
}

impl Transport for MemConn<'_> {
    fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.closed {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the server closed",
            ));
        }
        for action in self.script.borrow_mut().input(self.id, bytes) {
            match action {
                Action::Write(step) => self.inbox.push_back(step),
                Action::Close => self.closed = true,
            }
        }
        Ok(())
    }

    fn recv(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.take(buf).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::TimedOut,
                "the server sends nothing more and keeps the connection open",
            )
        })
    }

    fn poll(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        Ok(self.take(buf))
    }
}

impl Drop for MemConn<'_> {
    fn drop(&mut self) {
        self.script.borrow_mut().eof(self.id);
    }
}
