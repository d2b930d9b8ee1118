//! The `header_blob` target: h1-headers' owned and borrowed field sets held
//! against a model.
//!
//! A sequence of operations drawn from the input runs on a [`HeaderBlob`]
//! and on a plain list of `(lowercase name, value)` pairs; after each one
//! the blob must hold exactly the model's fields, in order, with its
//! documented layout (names and values back to back, names lowercased), and
//! answer every lookup as the model does. Whether a field is accepted is
//! decided here from RFC 9110's grammar (§5.6.2 token, §5.5 field value),
//! written out byte by byte, not with `h1_headers::chars`.
//!
//! Views over arbitrary buffers and entries (spans inside, at the edge of,
//! and past the buffer) are checked the same way: [`HeadersView`] lookups
//! skip an entry with a span out of range, `try_new` and
//! [`SharedHeaders::new`] refuse one, and `extend_from_view` /`from_view`
//! either copy every field or, naming the first entry at fault, none.

use arbitrary::{Arbitrary, Unstructured};
use h1_headers::{Entry, HeaderBlob, HeaderError, HeadersView, SharedHeaders, Span};

/// Names the operations draw from besides arbitrary bytes: duplicates in
/// several cases, the framing fields, a one-byte name and invalid ones.
const NAMES: [&[u8]; 12] = [
    b"host",
    b"Host",
    b"HOST",
    b"set-cookie",
    b"Set-Cookie",
    b"content-length",
    b"transfer-encoding",
    b"x",
    b"X-Custom_1.~!",
    b"",
    b"bad name",
    b"n\xe9",
];

/// Values the operations draw from besides arbitrary bytes.
const VALUES: [&[u8]; 8] = [
    b"",
    b"v",
    b"a b\tc",
    b"\x80\xff obs-text",
    b" leading",
    b"trailing\t",
    b"a\r\nInjected: 1",
    b"\x7f",
];

#[derive(Arbitrary, Debug)]
enum Drawn {
    Known(u8),
    Raw(Vec<u8>),
}

impl Drawn {
    fn get<'a>(&'a self, table: &[&'static [u8]]) -> &'a [u8] {
        match self {
            Drawn::Known(i) => table[*i as usize % table.len()],
            Drawn::Raw(v) => v,
        }
    }
}

/// An entry of a view: offsets and lengths taken modulo a little more than
/// the buffer's length, so that some spans reach past it.
#[derive(Arbitrary, Debug)]
struct RawEntry {
    name: (u16, u16),
    value: (u16, u16),
}

impl RawEntry {
    fn entry(&self, buf_len: usize) -> Entry {
        let span = |(off, len): (u16, u16)| {
            let m = buf_len + 3;
            Span::new(off as usize % m, len as usize % m).expect("small span")
        };
        Entry::new(span(self.name), span(self.value))
    }
}

#[derive(Arbitrary, Debug)]
enum Op {
    Append(Drawn, Drawn),
    Insert(Drawn, Drawn),
    Remove(Drawn),
    Clear,
    Reserve(u8, u8),
    Extend(Vec<u8>, Vec<RawEntry>),
    FromView(Vec<u8>, Vec<RawEntry>),
    Shared(Vec<u8>, Vec<RawEntry>),
}

/// RFC 9110 §5.6.2: `token = 1*tchar`.
fn model_token(name: &[u8]) -> bool {
    !name.is_empty()
        && name
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// RFC 9110 §5.5: `field-value = *field-content`, which starts and ends with
/// a `field-vchar` (VCHAR or obs-text) and holds SP, HTAB and field-vchars.
fn model_value(value: &[u8]) -> bool {
    let vchar = |b: u8| (0x21..=0x7e).contains(&b) || b >= 0x80;
    let inner = |b: u8| vchar(b) || b == b' ' || b == b'\t';
    match (value.first(), value.last()) {
        (None, _) | (_, None) => true,
        (Some(&f), Some(&l)) => vchar(f) && vchar(l) && value.iter().all(|&b| inner(b)),
    }
}

/// The error `append(name, value)` must give, if any.
fn model_refusal(name: &[u8], value: &[u8]) -> Option<HeaderError> {
    if !model_token(name) {
        Some(HeaderError::InvalidName)
    } else if !model_value(value) {
        Some(HeaderError::InvalidValue)
    } else {
        None
    }
}

type Model = Vec<(Vec<u8>, Vec<u8>)>;

/// Operations per input.
const OPS: usize = 32;
/// Entries of a view built from the input (so a blob holds at most
/// `OPS * VIEW_ENTRIES` fields and each check stays cheap).
const VIEW_ENTRIES: usize = 16;
/// Present names looked up after each operation, besides [`NAMES`].
const PROBED: usize = 6;

/// The entries a view is built from.
fn entries(buf: &[u8], raw: &[RawEntry]) -> Vec<Entry> {
    raw.iter()
        .take(VIEW_ENTRIES)
        .map(|r| r.entry(buf.len()))
        .collect()
}

/// The fields a view over `buf` must copy, or the error for its first entry
/// at fault.
fn model_view(buf: &[u8], entries: &[Entry]) -> Result<Model, HeaderError> {
    let mut out = Model::new();
    for e in entries {
        let (Some(name), Some(value)) = (buf.get(e.name.range()), buf.get(e.value.range())) else {
            return Err(HeaderError::OutOfRange);
        };
        if let Some(err) = model_refusal(name, value) {
            return Err(err);
        }
        out.push((name.to_ascii_lowercase(), value.to_vec()));
    }
    Ok(out)
}

/// Runs the operations drawn from `data` on a blob and on the model.
pub fn header_blob(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let mut blob = HeaderBlob::new();
    let mut model = Model::new();
    for _ in 0..OPS {
        let Ok(op) = Op::arbitrary(&mut u) else {
            break;
        };
        apply(&mut blob, &mut model, &op);
        check_blob(&blob, &model);
    }
    check_lookups(&blob);
    check_equality(&blob, &model);
}

fn apply(blob: &mut HeaderBlob, model: &mut Model, op: &Op) {
    match op {
        Op::Append(n, v) => {
            let (name, value) = (n.get(&NAMES), v.get(&VALUES));
            let expected = model_refusal(name, value);
            let got = blob.append(name, value).err();
            assert_eq!(got, expected, "append");
            if let Some(err) = got {
                assert!(!err.to_string().is_empty());
            } else {
                model.push((name.to_ascii_lowercase(), value.to_vec()));
            }
        }
        Op::Insert(n, v) => {
            let (name, value) = (n.get(&NAMES), v.get(&VALUES));
            let got = blob.insert(name, value);
            match model_refusal(name, value) {
                Some(err) => assert_eq!(got, Err(err), "insert"),
                None => {
                    let before = model.len();
                    model.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
                    assert_eq!(got, Ok(before - model.len()), "insert");
                    model.push((name.to_ascii_lowercase(), value.to_vec()));
                }
            }
        }
        Op::Remove(n) => {
            let name = n.get(&NAMES);
            let before = model.len();
            model.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
            assert_eq!(blob.remove(name), before - model.len(), "remove");
        }
        Op::Clear => {
            let (bytes, fields) = (blob.byte_capacity(), blob.field_capacity());
            blob.clear();
            model.clear();
            assert_eq!(
                (blob.byte_capacity(), blob.field_capacity()),
                (bytes, fields)
            );
        }
        Op::Reserve(bytes, fields) => {
            let (bytes, fields) = (usize::from(*bytes), usize::from(*fields));
            blob.reserve(bytes, fields);
            assert!(blob.byte_capacity() >= blob.byte_len() + bytes);
            assert!(blob.field_capacity() >= blob.len() + fields);
        }
        Op::Extend(buf, raw) => {
            let entries = entries(buf, raw);
            let view = HeadersView::new(buf, &entries);
            check_view(&view);
            match model_view(buf, &entries) {
                Ok(fields) => {
                    assert_eq!(blob.extend_from_view(&view), Ok(()), "extend_from_view");
                    model.extend(fields);
                }
                Err(err) => {
                    let before = blob.clone();
                    assert_eq!(blob.extend_from_view(&view), Err(err), "extend_from_view");
                    assert_eq!(*blob, before, "a refused view leaves the blob unchanged");
                }
            }
        }
        Op::FromView(buf, raw) => {
            let entries = entries(buf, raw);
            let view = HeadersView::new(buf, &entries);
            match (HeaderBlob::from_view(&view), model_view(buf, &entries)) {
                (Ok(made), Ok(fields)) => {
                    check_blob(&made, &fields);
                    let _ = format!("{view:?}");
                    assert_eq!(HeaderBlob::try_from(view), Ok(made));
                }
                (got, expected) => assert_eq!(got.err(), expected.err(), "from_view"),
            }
        }
        Op::Shared(buf, raw) => {
            let entries = entries(buf, raw);
            let in_range = entries
                .iter()
                .all(|e| buf.get(e.name.range()).is_some() && buf.get(e.value.range()).is_some());
            let view = HeadersView::new(buf, &entries);
            assert_eq!(HeadersView::try_new(buf, &entries).is_some(), in_range);
            let bytes = bytes::Bytes::copy_from_slice(buf);
            match SharedHeaders::from_head(bytes.clone(), &entries) {
                Err(err) => {
                    assert!(!in_range);
                    assert_eq!(err, HeaderError::OutOfRange);
                }
                Ok(shared) => {
                    assert!(in_range);
                    let pairs: Vec<_> = view.iter().collect();
                    assert_eq!(shared.iter().collect::<Vec<_>>(), pairs);
                    assert_eq!(
                        (shared.len(), shared.is_empty()),
                        (view.len(), view.is_empty())
                    );
                    assert_eq!(shared.entries(), &entries[..]);
                    for name in probes(&pairs) {
                        let value = view.get(&name);
                        assert_eq!(shared.get(&name), value);
                        assert_eq!(shared.contains(&name), value.is_some());
                        assert_eq!(shared.get_bytes(&name).as_deref(), value);
                        assert!(shared.get_all(&name).eq(view.get_all(&name)));
                    }
                    let (b, e) = shared.into_parts();
                    assert_eq!((b, e), (bytes, entries));
                }
            }
        }
    }
}

/// Names to look up: every name present, in another case, and absent ones.
fn probes(pairs: &[(&[u8], &[u8])]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = NAMES.iter().map(|n| n.to_vec()).collect();
    // A few suffice: lookups of the others take the same code path, and
    // every probe walks every field.
    for (n, _) in pairs.iter().take(PROBED) {
        out.push(n.to_vec());
        out.push(n.to_ascii_uppercase());
        out.push(n[..n.len() / 2].to_vec());
    }
    out
}

/// A view's lookups skip exactly the entries with a span outside its buffer.
fn check_view(view: &HeadersView<'_>) {
    let buf = view.buf();
    let valid: Vec<(&[u8], &[u8])> = view
        .entries()
        .iter()
        .filter_map(|e| Some((buf.get(e.name.range())?, buf.get(e.value.range())?)))
        .collect();
    assert_eq!(view.iter().collect::<Vec<_>>(), valid);
    assert_eq!(view.len(), view.entries().len());
    for name in probes(&valid) {
        let all: Vec<&[u8]> = valid
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(&name))
            .map(|&(_, v)| v)
            .collect();
        assert_eq!(view.get_all(&name).collect::<Vec<_>>(), all);
        assert_eq!(view.get(&name), all.first().copied());
        assert_eq!(view.contains(&name), !all.is_empty());
    }
}

/// The blob holds exactly `model`, laid out as documented.
fn check_blob(blob: &HeaderBlob, model: &Model) {
    let pairs: Vec<(&[u8], &[u8])> = blob.iter().collect();
    let expected: Vec<(&[u8], &[u8])> = model
        .iter()
        .map(|(n, v)| (n.as_slice(), v.as_slice()))
        .collect();
    assert_eq!(pairs, expected);
    assert_eq!(
        (blob.len(), blob.is_empty()),
        (model.len(), model.is_empty())
    );
    let mut layout = Vec::new();
    for (e, (n, v)) in blob.entries().iter().zip(model) {
        assert_eq!(e.name.offset(), layout.len());
        layout.extend_from_slice(n);
        assert_eq!(e.value.offset(), layout.len());
        layout.extend_from_slice(v);
    }
    assert_eq!(blob.as_bytes(), layout);
    assert_eq!(blob.byte_len(), layout.len());
}

/// The blob's lookups are its view's. (Checked once, on the final state:
/// [`check_blob`] has pinned every state after each operation, and a lookup
/// is a function of the state.)
fn check_lookups(blob: &HeaderBlob) {
    let pairs: Vec<(&[u8], &[u8])> = blob.iter().collect();
    check_view(&blob.view());
    for name in probes(&pairs) {
        assert_eq!(blob.get(&name), blob.view().get(&name));
        assert_eq!(blob.contains(&name), blob.view().contains(&name));
        assert!(blob.get_all(&name).eq(blob.view().get_all(&name)));
    }
}

/// Equal blobs are equal fields in order: one rebuilt from the model
/// compares equal, and so does a copy made through its view.
fn check_equality(blob: &HeaderBlob, model: &Model) {
    let mut rebuilt = HeaderBlob::new();
    for (n, v) in model {
        rebuilt.append(n, v).expect("the model holds valid fields");
    }
    assert_eq!(*blob, rebuilt);
    assert_eq!(HeaderBlob::from_view(&blob.view()).as_ref(), Ok(blob));
    assert!((&rebuilt).into_iter().eq(blob.iter()));
    let _ = format!("{blob:?}");
}
