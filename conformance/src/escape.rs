//! The byte escapes of the case files (`cases/README.md`) and their inverse
//! for reports.

use std::fmt::Write;

/// Decodes a case-file string into bytes: `\r \n \t \0 \\ \xHH` and
/// `\{N:TEXT}` (TEXT, itself escaped, repeated N times). Every other
/// character must be printable ASCII or a space.
///
/// ```
/// use h1_conformance::escape::unescape;
/// assert_eq!(unescape(r"GET /\{3:a} \xff\r\n").unwrap(), b"GET /aaa \xff\r\n");
/// ```
pub fn unescape(s: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(s.len());
    let rest = unescape_into(s, &mut out, 0)?;
    match rest.is_empty() {
        true => Ok(out),
        false => Err(format!("unmatched `}}` before {:?}", clip(rest))),
    }
}

/// Repeats may nest this deep (`\{2:\{3:a}}`); the bound keeps a
/// malformed file from recursing without end.
const MAX_NESTING: usize = 4;
/// The largest input a case may describe: the limit cases need a few
/// hundred KiB; nothing needs more.
const MAX_BYTES: usize = 16 << 20;

/// Decodes until the end of `s` or an unescaped `}`, which it leaves in the
/// returned rest.
fn unescape_into<'s>(mut s: &'s str, out: &mut Vec<u8>, depth: usize) -> Result<&'s str, String> {
    while let Some(c) = s.chars().next() {
        match c {
            '}' => return Ok(s),
            '\\' => s = escape_at(&s[1..], out, depth)?,
            ' '..='~' => {
                out.push(c as u8);
                s = &s[1..];
            }
            _ => {
                return Err(format!(
                    "{c:?} is not printable ASCII: write bytes outside it as \\xHH"
                ))
            }
        }
        if out.len() > MAX_BYTES {
            return Err(format!("more than {MAX_BYTES} bytes"));
        }
    }
    Ok(s)
}

/// One escape; `s` starts after the backslash.
fn escape_at<'s>(s: &'s str, out: &mut Vec<u8>, depth: usize) -> Result<&'s str, String> {
    let simple = match s.as_bytes().first() {
        Some(b'r') => Some(b'\r'),
        Some(b'n') => Some(b'\n'),
        Some(b't') => Some(b'\t'),
        Some(b'0') => Some(0),
        Some(b'\\') => Some(b'\\'),
        _ => None,
    };
    if let Some(b) = simple {
        out.push(b);
        return Ok(&s[1..]);
    }
    if let Some(hex) = s.strip_prefix('x') {
        let byte = hex
            .get(..2)
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .ok_or_else(|| format!("\\x wants two hex digits, not {:?}", clip(hex)))?;
        out.push(byte);
        return Ok(&hex[2..]);
    }
    if let Some(rep) = s.strip_prefix('{') {
        if depth >= MAX_NESTING {
            return Err("repeats nested too deep".into());
        }
        let colon = rep
            .find(':')
            .ok_or_else(|| format!("\\{{ wants N:TEXT}}, not {:?}", clip(rep)))?;
        let n: usize = rep[..colon]
            .parse()
            .map_err(|_| format!("\\{{ wants a count, not {:?}", &rep[..colon]))?;
        let mut unit = Vec::new();
        let rest = unescape_into(&rep[colon + 1..], &mut unit, depth + 1)?;
        let rest = rest
            .strip_prefix('}')
            .ok_or_else(|| format!("\\{{{n}:... has no closing `}}`"))?;
        if unit.len().saturating_mul(n) > MAX_BYTES.saturating_sub(out.len()) {
            return Err(format!("\\{{{n}:...}} makes more than {MAX_BYTES} bytes"));
        }
        for _ in 0..n {
            out.extend_from_slice(&unit);
        }
        return Ok(rest);
    }
    Err(format!("unknown escape \\{:?}", clip(s)))
}

fn clip(s: &str) -> &str {
    let end = s.char_indices().nth(12).map_or(s.len(), |(i, _)| i);
    &s[..end]
}

/// Bytes written back in the case-file escapes, with runs of one byte
/// longer than 16 folded into `\{N:x}` and the whole cut after `max`
/// output characters (saying how many bytes were left out), so that a
/// report stays readable for a 64 KiB head.
///
/// ```
/// use h1_conformance::escape::escape;
/// assert_eq!(escape(b"GET /aaaaaaaaaaaaaaaaaaaaa\r\n", 100), r"GET /\{21:a}\r\n");
/// ```
pub fn escape(bytes: &[u8], max: usize) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < bytes.len() {
        if out.len() >= max {
            let _ = write!(out, "... ({} more bytes)", bytes.len() - i);
            break;
        }
        let b = bytes[i];
        let run = bytes[i..].iter().take_while(|&&c| c == b).count();
        if run > 16 {
            let _ = write!(out, "\\{{{run}:");
            push_byte(&mut out, b);
            out.push('}');
            i += run;
            continue;
        }
        push_byte(&mut out, b);
        i += 1;
    }
    out
}

fn push_byte(out: &mut String, b: u8) {
    match b {
        b'\r' => out.push_str("\\r"),
        b'\n' => out.push_str("\\n"),
        b'\t' => out.push_str("\\t"),
        b'\\' => out.push_str("\\\\"),
        // Braces are plain in the files, but escaped here so that a folded
        // run stays unambiguous.
        b'{' | b'}' => {
            let _ = write!(out, "\\x{b:02x}");
        }
        b' '..=b'~' => out.push(b as char),
        _ => {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_escape() {
        assert_eq!(
            unescape(r"a\r\n\t\0\\\x7F\xa0\{2:x\{2:y}}z").unwrap(),
            b"a\r\n\t\0\\\x7f\xa0xyyxyyz"
        );
        assert_eq!(unescape(r"\{0:abc}").unwrap(), b"");
        assert_eq!(unescape("plain { brace").unwrap(), b"plain { brace");
    }

    #[test]
    fn bad_escapes_are_refused() {
        for bad in [
            r"\q",
            r"\x",
            r"\x4",
            r"\xg0",
            r"\{3}",
            r"\{n:a}",
            r"\{3:a",
            "a}",
            "tab\there",
            "é",
            r"\{99999999:\{99999999:a}}",
            r"\{1:\{1:\{1:\{1:\{1:a}}}}}",
        ] {
            assert!(unescape(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn escape_inverts_unescape() {
        let bytes: Vec<u8> = (0..=255u8).chain([b'a'; 40]).chain(*b"{x}").collect();
        let text = escape(&bytes, usize::MAX);
        assert_eq!(unescape(&text).unwrap(), bytes);
        assert!(escape(&bytes, 10).ends_with("more bytes)"));
    }
}
