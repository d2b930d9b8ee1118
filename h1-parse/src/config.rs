//! Limits and named leniencies.

/// Parser limits and leniencies. [`Config::default`] is the strict profile:
/// it refuses every ambiguity that has been used for request smuggling (the
/// list is in the crate's docs); every leniency is off by default and named
/// for what it lets through.
///
/// ```
/// let mut config = h1_parse::Config::default();
/// config.max_fields = 50;
/// assert!(!config.allow_bare_lf);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Config {
    /// Longest head accepted, from the first byte received for it (empty
    /// lines skipped before a request line count too, so a flood of them is
    /// bounded) to the end of the empty line (431). Default 64 KiB. A
    /// trailer section ([`parse_trailers`](crate::parse_trailers)) is held to
    /// it too.
    pub max_head_len: usize,
    /// Longest field line, name through value, without its CRLF (431).
    /// Default 8 KiB.
    pub max_field_line_len: usize,
    /// Most field lines in a head or trailer section (431). Default 100.
    pub max_fields: usize,
    /// Longest request-target (414). Default 8 KiB.
    pub max_target_len: usize,
    /// Longest chunk-size line, extensions included, without its CRLF (400).
    /// Default 4 KiB.
    pub max_chunk_line_len: usize,
    /// **Leniency.** Accept a bare LF as the end of the request line, the
    /// status line and field lines (RFC 9112 §2.2 MAY). Never applies to
    /// chunked framing. A bare LF has been used to smuggle requests past
    /// proxies that disagree about it.
    pub allow_bare_lf: bool,
    /// **Leniency.** Accept obs-fold (a value continued on a line starting with
    /// whitespace, RFC 9112 §5.2: for clients). A span covers each fold's CRLF;
    /// [`unfold_in_place`](crate::unfold_in_place) turns it to SP, as the RFC
    /// requires before use. Folded framing fields are still refused (peers that
    /// unfold differently have framed, and so smuggled, messages differently).
    pub allow_obs_fold: bool,
    /// **Leniency.** Accept several SP (and HTAB) between the parts of the
    /// request line (RFC 9112 §3 MAY).
    pub allow_multiple_spaces_in_request_line: bool,
}

impl Config {
    /// Whether every field value span of a head this configuration accepts
    /// holds field-value bytes only (`h1_headers::chars::is_field_value_byte`:
    /// HTAB, SP, VCHAR, obs-text; no CR, LF, NUL or DEL). Only
    /// [`allow_obs_fold`](Self::allow_obs_fold) breaks it: a folded value
    /// keeps its CR LF. Code that takes values as checked relies on it
    /// (h1-tokio hands them to the `http` types without a second walk), so
    /// a leniency added here must say whether it breaks it.
    ///
    /// ```
    /// let mut config = h1_parse::Config::default();
    /// assert!(config.values_are_field_value_bytes());
    /// config.allow_obs_fold = true;
    /// assert!(!config.values_are_field_value_bytes());
    /// ```
    pub const fn values_are_field_value_bytes(&self) -> bool {
        !self.allow_obs_fold
    }

    /// The strict defaults.
    pub const DEFAULT: Config = Config {
        max_head_len: 64 * 1024,
        max_field_line_len: 8 * 1024,
        max_fields: 100,
        max_target_len: 8 * 1024,
        max_chunk_line_len: 4 * 1024,
        allow_bare_lf: false,
        allow_obs_fold: false,
        allow_multiple_spaces_in_request_line: false,
    };
}

impl Default for Config {
    fn default() -> Config {
        Config::DEFAULT
    }
}
