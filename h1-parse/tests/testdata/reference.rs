//! The reference inputs of `testdata/inputs/` through the public API. This
//! file reads the repository, so it is left out of the crate's package.
use crate::common::*;
use h1_parse::Version;

#[test]
fn the_reference_response() {
    let buf = response_input();
    let (h, f) = response_head(&buf);
    assert_eq!(h.len, buf.len());
    assert_eq!(h.version, Version::Http11);
    assert_eq!(h.status, 200);
    assert_eq!(h.reason.slice(&buf), b"OK");
    assert_eq!(h.field_count, 4);
    assert_eq!(h.facts.content_length, Some(13));
    assert_eq!(h.facts.host, None);
    let view = h.fields(&buf, &f);
    assert_eq!(view.get(b"server"), Some(&b"anchors"[..]));
    assert_eq!(
        view.get(b"content-type"),
        Some(&b"text/plain; charset=utf-8"[..])
    );
}
