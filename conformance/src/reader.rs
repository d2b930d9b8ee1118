//! The server's bytes read as responses, with h1-conn's client role (it
//! reads the answers, not the case): one [`Observation`] per case, the same
//! way for the in-process and the live runner. Which requests the answers
//! are for comes from the case's declared heads ([`crate::heads`]).

use std::collections::VecDeque;

use h1_conn::{ClientConn, ClientEvent, Config};

use crate::heads::Sent;
use crate::observe::{Answer, Echo, Ending, Observation, MAX_BODY, MAX_INTERIM};

/// Reads a server's bytes as responses to the requests [`Sent`].
pub struct Reader {
    conn: ClientConn,
    /// Requests not yet registered with `conn`: the client role refuses a
    /// request queued behind one that asked to switch protocols until that
    /// one is answered.
    queue: VecDeque<Sent>,
    answers: Vec<Answer>,
    current: Option<Answer>,
    step: usize,
    broken: Option<String>,
    /// The client role says no further response can come.
    done: bool,
    /// The last answer switched protocols.
    switched: bool,
    /// The server closed the connection.
    closed: bool,
}

impl Reader {
    /// A reader expecting answers to `sent`, in order, and to up to two
    /// more requests (error answers to requests the server refused, or
    /// requests it read where h1 reads none: both show up as answers for
    /// the judge to count).
    pub fn new(sent: &[Sent]) -> Reader {
        let mut config = Config::default();
        // Responses echo targets and fields up to the servers' own limits.
        config.parse.max_head_len = 1 << 20;
        config.parse.max_field_line_len = 1 << 20;
        config.parse.max_fields = 1000;
        config.max_body_len = 64 << 20;
        config.max_unanswered = sent.len() + 3;
        let mut queue: VecDeque<Sent> = sent.iter().cloned().collect();
        queue.extend([plain_get(), plain_get()]);
        let mut reader = Reader {
            conn: ClientConn::new(config),
            queue,
            answers: Vec::new(),
            current: None,
            step: 0,
            broken: None,
            done: false,
            switched: false,
            closed: false,
        };
        reader.register();
        reader
    }

    /// Registers the queued requests the client role accepts now.
    fn register(&mut self) {
        while let Some(s) = self.queue.front() {
            // Refused behind an upgrade until it is answered, and for good
            // after a request that closes.
            if self
                .conn
                .sent(&s.method, s.http10, s.upgrade, s.close)
                .is_err()
            {
                return;
            }
            self.queue.pop_front();
        }
    }

    /// Bytes from now on arrived after step `step` was sent.
    pub fn set_step(&mut self, step: usize) {
        self.step = step;
    }

    /// Registers the keep-alive probe; false when the connection cannot
    /// carry another request.
    pub fn probe_sent(&mut self) -> bool {
        // A plain GET is queued already for an unexpected answer: the
        // probe's answer takes its place.
        if !self.queue.is_empty() || self.conn.outstanding() > 0 {
            return !self.stopped();
        }
        self.conn.sent(b"GET", false, false, false).is_ok()
    }

    /// Reads `data` from the server.
    pub fn feed(&mut self, mut data: &[u8]) {
        if self.done && !self.switched && self.broken.is_none() && !data.is_empty() {
            self.broken = Some(after_close(data.len()));
        }
        while !data.is_empty() && !self.stopped() {
            let n = self.conn.feed(data);
            data = &data[n..];
            self.process();
            if n == 0 && !self.stopped() {
                self.broken = Some("the response reader accepts no more bytes".into());
            }
        }
    }

    /// The server closed the connection.
    pub fn eof(&mut self) {
        // Between responses the end is a close, not a cut-off response
        // (the client role would call it one: it waits for answers).
        // An interim response that the close cut off from its final one
        // is no answer either (RFC 9110 §10.1.1 lets a server that sent
        // 100 close without a final status when the content never came).
        let interim_only = self.current.as_ref().is_some_and(|a| a.status == 0);
        let between = (self.current.is_none() || interim_only) && self.conn.buffered() == 0;
        if between {
            self.current = None;
        }
        if !self.stopped() && !between {
            self.conn.eof();
            self.process();
        }
        self.closed = true;
    }

    /// No more bytes will be read as HTTP/1.1: broken, closed, or the last
    /// response said the connection closes.
    pub fn stopped(&self) -> bool {
        self.broken.is_some() || self.done || self.closed
    }

    /// A response said the connection closes (or switched protocols): the
    /// server's end of the connection is what is left to see.
    pub fn ended_by_server(&self) -> bool {
        self.done
    }

    /// Final responses read so far.
    pub fn finals(&self) -> usize {
        self.answers.len()
    }

    /// The observation, with the probe's answer taken out when `probed`
    /// (it is the last answer).
    pub fn finish(mut self, probed: Option<usize>) -> Observation {
        // A response that began and did not end is an answer too (a head
        // whose body never came, say): the judge must count it.
        if let Some(a) = self.current.take().filter(|a| a.status != 0) {
            self.answers.push(a);
            self.broken
                .get_or_insert_with(|| "the last response never ended".into());
        }
        let probe =
            probed.map(|before| (self.answers.len() > before).then(|| self.answers.remove(before)));
        let ending = match self.broken {
            Some(why) => Ending::Broken(why),
            None if self.switched => Ending::Switched,
            None if self.closed => Ending::Closed,
            None => Ending::Open,
        };
        Observation {
            answers: self.answers,
            ending,
            probe,
            seen: None,
        }
    }

    fn process(&mut self) {
        loop {
            match self.conn.next_event() {
                ClientEvent::Interim(r) => {
                    let a = answer(&mut self.current, self.step);
                    if a.interim.len() >= MAX_INTERIM {
                        self.broken = Some(format!(
                            "more than {MAX_INTERIM} interim responses before a final one"
                        ));
                        return;
                    }
                    a.interim.push(r.status());
                }
                ClientEvent::Response(r) => {
                    let echo = self.conn.fields().and_then(|f| {
                        Some(Echo {
                            method: f.get(b"x-echo-method")?.to_vec(),
                            target: f.get(b"x-echo-target")?.to_vec(),
                            version: f.get(b"x-echo-version")?.to_vec(),
                        })
                    });
                    let field = |name: &[u8]| {
                        self.conn
                            .fields()
                            .and_then(|f| f.get(name))
                            .map(<[u8]>::to_vec)
                    };
                    let (upgrade, server) = (field(b"upgrade"), field(b"server"));
                    let a = answer(&mut self.current, self.step);
                    a.status = r.status();
                    a.echo = echo;
                    a.closes = !r.persistent;
                    a.upgrade = upgrade;
                    a.server = server;
                }
                ClientEvent::Data(span) => {
                    let data = span.slice(self.conn.received());
                    let a = answer(&mut self.current, self.step);
                    let room = MAX_BODY.saturating_sub(a.body.len());
                    a.body.extend_from_slice(&data[..data.len().min(room)]);
                }
                ClientEvent::Trailers(_) => {}
                ClientEvent::End => {
                    let a = self.current.take().expect("End follows a head");
                    self.answers.push(a);
                    self.register();
                }
                ClientEvent::NeedMore => return,
                ClientEvent::Switch(_) => {
                    // The answers so far stand; what follows is not HTTP/1.1.
                    if let Some(a) = self.current.take() {
                        self.answers.push(a);
                    }
                    self.switched = true;
                    self.done = true;
                    return;
                }
                ClientEvent::Error(e) => {
                    self.broken = Some(match e {
                        h1_conn::Error::UnsolicitedResponse => {
                            "a response to a request that was not sent (or after one that closed)"
                                .to_string()
                        }
                        h1_conn::Error::UnexpectedEof => {
                            "the connection closed inside a response".to_string()
                        }
                        e => format!("a response h1 cannot read: {e}"),
                    });
                    return;
                }
                ClientEvent::Closed => {
                    self.done = true;
                    let left = self.conn.buffered();
                    if left > 0 {
                        self.broken = Some(after_close(left));
                    }
                    return;
                }
                _ => return,
            }
        }
    }
}

fn after_close(n: usize) -> String {
    format!("{n} more bytes after the response that closed the connection")
}

/// The answer being read, begun when its first head arrives.
fn answer(current: &mut Option<Answer>, step: usize) -> &mut Answer {
    current.get_or_insert_with(|| Answer {
        interim: Vec::new(),
        status: 0,
        echo: None,
        body: Vec::new(),
        closes: false,
        upgrade: None,
        server: None,
        step,
    })
}

fn plain_get() -> Sent {
    Sent {
        method: b"GET".to_vec(),
        target: b"/".to_vec(),
        http10: false,
        upgrade: false,
        close: false,
        step: 0,
    }
}
