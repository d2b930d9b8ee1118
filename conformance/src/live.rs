//! The live runner: each case on a fresh loopback TCP connection to a
//! running server, its responses read with h1-conn's client role.
//!
//! Steps are written one after another; before the next step the runner
//! waits until the server has been quiet for [`Live::quiet`]. After the
//! last step it reads until the answers the case expects have arrived,
//! then, as the case asks: until the server closes (also after any
//! response that said it closes); or one more quiet period for answers
//! nobody asked for, then the keep-alive probe, its answer, and another
//! quiet period; or just the quiet period. Every wait ends at the case's
//! deadline.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use crate::case::{Case, Outcome};
use crate::observe::{Ending, Observation, PROBE};
use crate::reader::Reader;

/// Where and how to run.
#[derive(Clone, Debug)]
pub struct Live {
    /// The server: a loopback address.
    pub addr: SocketAddr,
    /// The longest one case may take.
    pub timeout: Duration,
    /// How long the server must send nothing to count as done with a step.
    pub quiet: Duration,
    /// Write each step in pieces of this many bytes (`--trickle`), pausing
    /// after each piece of a step's first [`TRICKLE_PAUSED`] bytes, so a
    /// server gets heads in small reads; `None` writes each step at once.
    pub trickle: Option<usize>,
}

/// How much of a step [`Live::trickle`] writes with a pause after each
/// piece: every head of the suite's cases starts within it, and the rest
/// (the large bodies of the limit cases) goes in pieces without pauses, so
/// a case stays within its time.
pub const TRICKLE_PAUSED: usize = 2048;

/// The pause after each of those pieces: long enough for the server to
/// read the piece on its own.
const TRICKLE_PAUSE: Duration = Duration::from_millis(1);

impl Live {
    /// A runner for `addr`, refused unless it is a loopback address (the
    /// suite sends malformed and oversized requests; it is for servers
    /// under test on this machine).
    pub fn new(addr: SocketAddr) -> Result<Live, String> {
        if !addr.ip().is_loopback() {
            return Err(format!(
                "{addr} is not a loopback address: the live runner only talks to 127.0.0.1 or ::1"
            ));
        }
        Ok(Live {
            addr,
            timeout: Duration::from_secs(5),
            quiet: Duration::from_millis(200),
            trickle: None,
        })
    }

    /// Runs one case on a new connection.
    pub fn run(&self, case: &Case) -> Observation {
        let deadline = Instant::now() + self.timeout;
        let mut stream = match TcpStream::connect_timeout(
            &self.addr,
            self.timeout.min(Duration::from_secs(2)),
        ) {
            Ok(s) => s,
            Err(e) => {
                return broken(format!("cannot connect to {}: {e}", self.addr));
            }
        };
        let _ = stream.set_nodelay(true);
        let mut reader = Reader::new(&case.heads);
        let mut conn = Conn {
            stream: &mut stream,
            eof: false,
            deadline,
            trickle: self.trickle,
        };
        let last = case.steps.len() - 1;
        for (i, step) in case.steps.iter().enumerate() {
            reader.set_step(i);
            if conn.write(step).is_err() {
                // The server closed early (it refused what it read so
                // far): its answer is still there to read.
                break;
            }
            if i < last {
                conn.read(&mut reader, Some(self.quiet), |_| false);
            }
        }
        if case.eof {
            let _ = conn.stream.shutdown(Shutdown::Write);
        }
        let want = case.answers_wanted();
        conn.read(&mut reader, None, |r| r.finals() >= want);
        let mut probed = None;
        match &case.outcome {
            Outcome::Accept {
                close: Some(false), ..
            } if !reader.stopped() && !conn.eof => {
                // Answers to requests that should not have been read come
                // before the probe, or they would pass for its answer.
                conn.read(&mut reader, Some(self.quiet), |_| false);
                let before = reader.finals();
                if before == want && !reader.stopped() && !conn.eof && reader.probe_sent() {
                    probed = Some(before);
                    reader.set_step(case.steps.len());
                    if conn.write(PROBE).is_ok() {
                        conn.read(&mut reader, None, |r| r.finals() > before);
                        // And any answer after the probe's is an extra one.
                        conn.read(&mut reader, Some(self.quiet), |_| false);
                    }
                }
            }
            Outcome::Accept { close: None, .. } if !reader.ended_by_server() => {
                // Answers to requests that should not have been read
                // (a smuggled one) come now or never.
                conn.read(&mut reader, Some(self.quiet), |_| false);
            }
            // The server must close (the case says so, or a response did):
            // wait for it, to the deadline.
            _ => conn.read(&mut reader, None, |_| false),
        }
        if conn.eof {
            reader.eof();
        }
        reader.finish(probed)
    }
}

fn broken(why: String) -> Observation {
    Observation {
        answers: Vec::new(),
        ending: Ending::Broken(why),
        probe: None,
        seen: None,
    }
}

struct Conn<'s> {
    stream: &'s mut TcpStream,
    eof: bool,
    deadline: Instant,
    trickle: Option<usize>,
}

impl Conn<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        self.stream
            .set_write_timeout(Some(left.max(Duration::from_millis(1))))?;
        let Some(piece) = self.trickle else {
            return self.stream.write_all(bytes);
        };
        // TCP_NODELAY is set, so each piece leaves as its own segment.
        let mut at = 0;
        for chunk in bytes.chunks(piece.max(1)) {
            self.stream.write_all(chunk)?;
            at += chunk.len();
            if at <= TRICKLE_PAUSED && at < bytes.len() {
                std::thread::sleep(TRICKLE_PAUSE);
            }
        }
        Ok(())
    }

    /// Reads into `reader` until `done` says so, the server closes, the
    /// reader stops, the deadline passes, or (with `quiet`) nothing
    /// arrives for that long.
    fn read(
        &mut self,
        reader: &mut Reader,
        quiet: Option<Duration>,
        done: impl Fn(&Reader) -> bool,
    ) {
        let mut buf = [0u8; 16 * 1024];
        while !self.eof && !done(reader) {
            let left = self.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            let wait = quiet.map_or(left, |q| q.min(left));
            if self.stream.set_read_timeout(Some(wait)).is_err() {
                return;
            }
            match self.stream.read(&mut buf) {
                Ok(0) => self.eof = true,
                // After the reader stopped (the last response closes the
                // connection), bytes still count: they show as extra data.
                Ok(n) => reader.feed(&buf[..n]),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    if quiet.is_some() {
                        return;
                    }
                }
                // A reset ends the connection as a close does.
                Err(_) => self.eof = true,
            }
        }
    }
}
