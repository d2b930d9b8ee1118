//! The tables in the module docs and the picture in `doc/states.svg` are
//! checked against the transition functions: every state (with each shape
//! of its data) is given every input, and the transitions taken are the
//! rows the tables must list, no more and no fewer, and the edges the
//! picture draws. `H1_BLESS=1 cargo test -p h1-conn --lib state` redraws
//! the picture after a change to the machine.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use h1_encode::{BodyWriter, Exchange, Framing, ResponseWriter};
use h1_headers::Version;

use super::*;

fn decoder() -> BodyDecoder {
    BodyDecoder::new(Framing::Length(3))
}

/// Every receiving state, with each shape of its data.
fn recv_states() -> Vec<Recv> {
    let mut all = vec![Recv::Head];
    for persistent in [true, false] {
        for switch in [
            Switch::No,
            Switch::Asked,
            Switch::Decided(true),
            Switch::Decided(false),
        ] {
            all.push(Recv::Body {
                decoder: decoder(),
                persistent,
                switch,
            });
        }
        all.push(Recv::AwaitSwitch { persistent });
    }
    all.extend([
        Recv::Switched,
        Recv::Closed,
        Recv::Failed { answer: None },
        Recv::Failed { answer: Some(400) },
    ]);
    all
}

/// Every receiving input, with each shape of its data.
fn recv_inputs() -> Vec<RecvInput> {
    let mut all = Vec::new();
    for persistent in [true, false] {
        for switch in [Switch::No, Switch::Asked, Switch::Decided(true)] {
            all.push(RecvInput::Head {
                decoder: decoder(),
                persistent,
                switch,
            });
        }
    }
    all.extend([
        RecvInput::End,
        RecvInput::Decided { switched: true },
        RecvInput::Decided { switched: false },
        RecvInput::Finish,
        RecvInput::Close,
        RecvInput::Eof { clean: true },
        RecvInput::Eof { clean: false },
        RecvInput::Error { answer: None },
        RecvInput::Error { answer: Some(400) },
        RecvInput::Answered,
    ]);
    all
}

fn writer() -> BodyWriter {
    let mut out = Vec::new();
    let ex = Exchange::new(Version::Http11).clock(false);
    let head = ResponseWriter::start(&mut out, 200, &ex, Framing::Length(3))
        .and_then(ResponseWriter::finish)
        .expect("a 200 with a length encodes");
    head.body
}

/// Every sending state, with each shape of its data (fresh each call: a
/// body writer is not `Clone`).
fn send_states() -> Vec<Send> {
    let mut all = vec![Send::Idle];
    for close in [true, false] {
        for asked in [true, false] {
            all.push(Send::Body {
                writer: writer(),
                close,
                asked,
            });
        }
    }
    all.extend([Send::Closed, Send::Switched]);
    all
}

fn send_inputs() -> Vec<SendInput> {
    let mut all = vec![SendInput::Interim];
    for body in [true, false] {
        for close in [true, false] {
            for switch in [true, false] {
                all.push(SendInput::Head {
                    body: body.then(writer),
                    close,
                    switch,
                    asked: switch,
                });
            }
        }
    }
    all.extend([SendInput::End, SendInput::Finish, SendInput::Answer]);
    all
}

fn recv_input_name(i: &RecvInput) -> &'static str {
    match i {
        RecvInput::Head { .. } => "Head",
        RecvInput::End => "End",
        RecvInput::Decided { .. } => "Decided",
        RecvInput::Finish => "Finish",
        RecvInput::Close => "Close",
        RecvInput::Eof { .. } => "Eof",
        RecvInput::Error { .. } => "Error",
        RecvInput::Answered => "Answered",
    }
}

fn send_input_name(i: &SendInput) -> &'static str {
    match i {
        SendInput::Interim => "Interim",
        SendInput::Head { .. } => "Head",
        SendInput::End => "End",
        SendInput::Finish => "Finish",
        SendInput::Answer => "Answer",
    }
}

type Edge = (String, &'static str, String);

/// The transitions the receiving side takes.
fn recv_edges() -> BTreeSet<Edge> {
    let mut edges = BTreeSet::new();
    for (n, input) in recv_inputs().into_iter().enumerate() {
        for mut state in recv_states() {
            let from = format!("{:?}", state.kind());
            let name = recv_input_name(&input);
            // Inputs are not `Clone` (nor need to be): take the n-th again.
            let input = recv_inputs().swap_remove(n);
            if state.next(input) {
                edges.insert((from, name, format!("{:?}", state.kind())));
            }
        }
    }
    edges
}

/// The transitions the sending side takes.
fn send_edges() -> BTreeSet<Edge> {
    let mut edges = BTreeSet::new();
    let inputs = send_inputs().len();
    let states = send_states().len();
    for n in 0..inputs {
        for k in 0..states {
            let mut state = send_states().swap_remove(k);
            let input = send_inputs().swap_remove(n);
            let from = format!("{:?}", state.kind());
            let name = send_input_name(&input);
            if state.next(input) {
                edges.insert((from, name, format!("{:?}", state.kind())));
            }
        }
    }
    edges
}

/// The rows of the table under `heading` in the module docs.
fn table(heading: &str) -> BTreeSet<Edge> {
    let source = include_str!("../state.rs");
    let start = source.find(heading).expect("heading in the module docs");
    let mut rows = BTreeSet::new();
    for line in source[start..].lines().skip(1) {
        let Some(row) = line.strip_prefix("//! |") else {
            if rows.is_empty() {
                continue;
            }
            break;
        };
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        if cells[0] == "from" || cells[0].starts_with("---") {
            continue;
        }
        let input = [
            "Head", "End", "Decided", "Finish", "Close", "Eof", "Error", "Answered", "Interim",
            "Answer",
        ]
        .into_iter()
        .find(|n| *n == cells[1])
        .unwrap_or_else(|| panic!("unknown input in row {line}"));
        rows.insert((String::from(cells[0]), input, String::from(cells[2])));
    }
    rows
}

#[test]
fn the_receiving_table_lists_exactly_the_transitions_the_code_takes() {
    assert_eq!(table("# Receiving"), recv_edges());
}

#[test]
fn the_sending_table_lists_exactly_the_transitions_the_code_takes() {
    assert_eq!(table("# Sending"), send_edges());
}

#[test]
fn the_picture_is_drawn_from_the_transitions() {
    let svg = picture(&recv_edges(), &send_edges());
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/doc/states.svg");
    if std::env::var_os("H1_BLESS").is_some() {
        std::fs::write(path, &svg).expect("write doc/states.svg");
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == svg,
        "doc/states.svg is out of date: run `H1_BLESS=1 cargo test -p h1-conn --lib state`"
    );
}

#[test]
fn final_states_take_no_message() {
    for mut s in [Recv::Closed, Recv::Failed { answer: None }, Recv::Switched] {
        for input in recv_inputs() {
            let before = format!("{s:?}");
            assert!(!s.next(input), "{s:?}");
            assert_eq!(format!("{s:?}"), before);
        }
    }
    for mut s in [Send::Closed, Send::Switched] {
        for input in send_inputs() {
            assert!(!s.next(input), "{s:?}");
        }
    }
}

#[test]
fn a_switch_waits_for_its_answer_and_an_early_answer_is_kept() {
    let mut s = Recv::Body {
        decoder: decoder(),
        persistent: true,
        switch: Switch::Asked,
    };
    assert!(s.next(RecvInput::End));
    assert_eq!(s, Recv::AwaitSwitch { persistent: true });
    assert!(!s.next(RecvInput::Head {
        decoder: decoder(),
        persistent: true,
        switch: Switch::No
    }));
    assert!(s.next(RecvInput::Decided { switched: false }));
    assert_eq!(s, Recv::Head);

    let mut s = Recv::Body {
        decoder: decoder(),
        persistent: true,
        switch: Switch::Asked,
    };
    assert!(s.next(RecvInput::Decided { switched: true }));
    assert!(s.next(RecvInput::End));
    assert_eq!(s, Recv::Switched);
}

/// Only a message that asked to switch takes an answer while its body is
/// read; one that did not ask, or was answered already, is left as it is
/// (the table lists `Body` + `Decided` once, whatever the data).
#[test]
fn only_a_switch_asked_and_not_answered_takes_an_answer() {
    for switch in [Switch::No, Switch::Decided(true), Switch::Decided(false)] {
        for switched in [true, false] {
            let mut s = Recv::Body {
                decoder: decoder(),
                persistent: true,
                switch,
            };
            assert!(!s.next(RecvInput::Decided { switched }), "{switch:?}");
            assert_eq!(
                s,
                Recv::Body {
                    decoder: decoder(),
                    persistent: true,
                    switch,
                }
            );
        }
    }
}

#[test]
fn finishing_makes_the_message_in_progress_the_last() {
    let mut s = Recv::Body {
        decoder: decoder(),
        persistent: true,
        switch: Switch::No,
    };
    assert!(s.next(RecvInput::Finish));
    assert!(s.next(RecvInput::End));
    assert_eq!(s, Recv::Closed);

    let mut s = Send::Body {
        writer: writer(),
        close: false,
        asked: false,
    };
    assert!(s.next(SendInput::Finish));
    assert!(s.next(SendInput::End));
    assert_eq!(s, Send::Closed);
}

#[test]
fn eof_mid_message_fails_and_between_messages_closes() {
    let mut s = Recv::Head;
    assert!(s.next(RecvInput::Eof { clean: false }));
    assert_eq!(s, Recv::Failed { answer: None });
    let mut s = Recv::Head;
    assert!(s.next(RecvInput::Eof { clean: true }));
    assert_eq!(s, Recv::Closed);
}

// --- the picture ---

const W: i32 = 130;
const H: i32 = 36;

/// Where each state is drawn, per side: the layout is chosen here, the
/// edges come from the code.
fn position(side: usize, state: &str) -> (i32, i32) {
    let (x, y) = match (side, state) {
        (0, "Head") => (110, 90),
        (0, "Body") => (400, 90),
        (0, "AwaitSwitch") => (690, 90),
        (0, "Switched") => (690, 300),
        (0, "Closed") => (400, 300),
        (0, "Failed") => (110, 300),
        (1, "Idle") => (110, 530),
        (1, "Body") => (400, 530),
        (1, "Closed") => (400, 700),
        (1, "Switched") => (110, 700),
        _ => panic!("no position for {state}"),
    };
    (x, y)
}

/// Where the segment from `a`'s centre towards `b` leaves `a`'s box.
fn border(a: (i32, i32), b: (i32, i32)) -> (f64, f64) {
    let (dx, dy) = (f64::from(b.0 - a.0), f64::from(b.1 - a.1));
    let hw = f64::from(W / 2) + 4.0;
    let hh = f64::from(H / 2) + 4.0;
    let t = if dx == 0.0 {
        hh / dy.abs()
    } else if dy == 0.0 {
        hw / dx.abs()
    } else {
        (hw / dx.abs()).min(hh / dy.abs())
    };
    (f64::from(a.0) + dx * t, f64::from(a.1) + dy * t)
}

fn picture(recv: &BTreeSet<Edge>, send: &BTreeSet<Edge>) -> String {
    let mut svg = String::from(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 800 750\" width=\"800\" \
         font-family=\"sans-serif\" font-size=\"12\">\n\
         <defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" \
         markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">\
         <path d=\"M 0 0 L 10 5 L 0 10 z\"/></marker></defs>\n\
         <rect width=\"800\" height=\"750\" fill=\"white\"/>\n\
         <text x=\"20\" y=\"30\" font-weight=\"bold\">Receiving (server: requests; client: responses)</text>\n\
         <text x=\"20\" y=\"440\" font-weight=\"bold\">Sending (server: responses; client: requests)</text>\n",
    );
    for (side, edges) in [recv, send].into_iter().enumerate() {
        // One arrow per pair of states, labelled with every input that
        // takes it.
        let mut arrows: Vec<(String, String, Vec<&str>)> = Vec::new();
        for (from, input, to) in edges {
            match arrows.iter_mut().find(|(f, t, _)| f == from && t == to) {
                Some((_, _, inputs)) => inputs.push(input),
                None => arrows.push((from.clone(), to.clone(), vec![*input])),
            }
        }
        let mut states: Vec<&str> = Vec::new();
        for (from, to, _) in &arrows {
            for s in [from.as_str(), to.as_str()] {
                if !states.contains(&s) {
                    states.push(s);
                }
            }
        }
        for (from, to, inputs) in &arrows {
            let label = inputs.join(", ");
            let a = position(side, from);
            if from == to {
                let (x, y) = (a.0, a.1 - H / 2);
                svg += &format!(
                    "<path d=\"M {} {y} C {} {} {} {} {} {y}\" fill=\"none\" stroke=\"black\" \
                     marker-end=\"url(#arrow)\"/>\n<text x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{label}</text>\n",
                    x - 20,
                    x - 30,
                    y - 40,
                    x + 30,
                    y - 40,
                    x + 20,
                    y - 34,
                );
                continue;
            }
            let b = position(side, to);
            // A pair with arrows both ways bends each to its own side.
            let both = arrows.iter().any(|(f, t, _)| f == to && t == from);
            let bend = if both { 28.0 } else { 0.0 };
            let (dx, dy) = (f64::from(b.0 - a.0), f64::from(b.1 - a.1));
            let len = (dx * dx + dy * dy).sqrt();
            let (nx, ny) = (-dy / len * bend, dx / len * bend);
            let mid = (
                f64::from(a.0 + b.0) / 2.0 + nx,
                f64::from(a.1 + b.1) / 2.0 + ny,
            );
            let toward = |p: (i32, i32)| (p.0 + nx as i32, p.1 + ny as i32);
            let p0 = border(a, toward(b));
            let p1 = border(b, toward(a));
            // Labels of diagonal arrows sit near their start, where
            // crossing arrows are apart.
            let t = if a.0 != b.0 && a.1 != b.1 { 0.3 } else { 0.5 };
            let (u, v, w) = ((1.0 - t) * (1.0 - t), 2.0 * (1.0 - t) * t, t * t);
            let (lx, ly) = (
                u * p0.0 + v * mid.0 + w * p1.0,
                u * p0.1 + v * mid.1 + w * p1.1,
            );
            svg += &format!(
                "<path d=\"M {:.0} {:.0} Q {:.0} {:.0} {:.0} {:.0}\" fill=\"none\" stroke=\"black\" \
                 marker-end=\"url(#arrow)\"/>\n<text x=\"{lx:.0}\" y=\"{:.0}\" text-anchor=\"middle\" \
                 stroke=\"white\" stroke-width=\"4\" paint-order=\"stroke\">{label}</text>\n",
                p0.0,
                p0.1,
                mid.0,
                mid.1,
                p1.0,
                p1.1,
                ly - 4.0,
            );
        }
        for s in states {
            let (x, y) = position(side, s);
            let final_state = matches!(s, "Closed" | "Failed" | "Switched");
            let fill = if final_state { "#e8e8e8" } else { "#dceefb" };
            svg += &format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{W}\" height=\"{H}\" rx=\"8\" fill=\"{fill}\" \
                 stroke=\"black\"/>\n<text x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{s}</text>\n",
                x - W / 2,
                y - H / 2,
                y + 4,
            );
        }
    }
    svg += "</svg>\n";
    svg
}
