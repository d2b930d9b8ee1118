//! How far an unfinished head has been parsed, so that the next call, with
//! more bytes, goes on from there: each line of a head that arrives in
//! pieces is parsed once, by the same walk that parses a head that arrives
//! whole ([`HeadParser`](crate::HeadParser) keeps the [`Progress`]).

use h1_headers::Entry;

use super::blocks::Blocks;
use super::facts::Facts;
use super::fields::{parse_fields, FieldsEnd, Resume};
use super::{clamp, err, Result};
use crate::error::ErrorKind as K;
use crate::head::{RequestHead, ResponseHead, Status};
use crate::scan::{Classify, Kernel, Path};
use crate::Config;

/// Where the parse of an unfinished head stopped.
#[derive(Clone, Debug)]
pub(crate) struct Progress<H>(Stage<H>);

#[derive(Clone, Debug)]
enum Stage<H> {
    /// No start line yet. For a request, the empty lines before `at` were
    /// skipped; the start line starts there or later.
    Start { at: usize },
    /// The start line is parsed into `head`; the field lines before `line`
    /// are parsed, `count` of them stored, their facts in `facts`.
    Fields {
        head: H,
        facts: Facts,
        line: usize,
        count: usize,
        obs_fold: bool,
    },
}

impl<H> Progress<H> {
    /// Nothing parsed.
    pub(crate) const NONE: Progress<H> = Progress(Stage::Start { at: 0 });

    /// Where the next parse starts reading: the bytes before were parsed.
    pub(crate) fn position(&self) -> usize {
        match self.0 {
            Stage::Start { at } => at,
            Stage::Fields { line, .. } => line,
        }
    }

    /// Whether the start line is still unfinished.
    pub(crate) fn in_start_line(&self) -> bool {
        matches!(self.0, Stage::Start { .. })
    }
}

/// What the walk tells about a head it could not finish. The one-shot
/// parsers tell nothing (`()`); [`HeadParser`](crate::HeadParser) keeps it
/// in a [`Progress`].
pub(super) trait Track<H> {
    /// Where a new start line may start: the empty lines before were
    /// skipped.
    fn from(&self) -> usize;
    /// The start line, which starts at `at`, is not complete.
    fn start_line(&mut self, at: usize);
    /// The start line is in `head`; the walk stopped at an unfinished field
    /// line.
    fn fields(&mut self, head: &H, facts: &Facts, resume: Resume);
}

impl<H> Track<H> for () {
    #[inline(always)]
    fn from(&self) -> usize {
        0
    }
    #[inline(always)]
    fn start_line(&mut self, _: usize) {}
    #[inline(always)]
    fn fields(&mut self, _: &H, _: &Facts, _: Resume) {}
}

impl<H: Copy> Track<H> for Progress<H> {
    #[inline(always)]
    fn from(&self) -> usize {
        self.position()
    }

    #[cold]
    fn start_line(&mut self, at: usize) {
        self.0 = Stage::Start { at };
    }

    #[cold]
    fn fields(&mut self, head: &H, facts: &Facts, resume: Resume) {
        self.0 = Stage::Fields {
            head: *head,
            facts: facts.clone(),
            line: resume.line,
            count: resume.count,
            obs_fold: resume.obs_fold,
        };
    }
}

/// The heads the walk ends: the fields that only the end of a head decides.
pub(super) trait Ends: Copy {
    /// The head's field walk ended as `end` says: the head-wide verdicts
    /// of `facts`, then the rest of the head.
    fn end(&mut self, facts: &Facts, end: FieldsEnd) -> Result<Status<usize>>;
}

macro_rules! ends {
    ($head:ty) => {
        impl Ends for $head {
            #[inline(always)]
            fn end(&mut self, facts: &Facts, end: FieldsEnd) -> Result<Status<usize>> {
                let transfer_encoding = facts.verdict(end.end)?;
                self.len = end.end;
                self.field_count = end.count;
                self.facts = facts.field_facts(transfer_encoding);
                self.obs_fold = end.obs_fold;
                Ok(Status::Complete(end.end))
            }
        }
    };
}
ends!(RequestHead);
ends!(ResponseHead);

/// Goes on with a request head from where `progress` says the last call
/// stopped; `buf` holds the same bytes as then, and more.
pub(crate) fn continue_request(
    buf: &[u8],
    progress: &mut Progress<RequestHead>,
    head: &mut RequestHead,
    fields: &mut [Entry],
    config: &Config,
) -> Result<Status<usize>> {
    match progress.0 {
        Stage::Start { .. } => super::request_tracked(buf, head, fields, config, progress),
        Stage::Fields { .. } => Path::run_detected(ContinueKernel {
            buf,
            progress,
            head,
            fields,
            config,
        }),
    }
}

/// Goes on with a response head, as [`continue_request`].
pub(crate) fn continue_response(
    buf: &[u8],
    progress: &mut Progress<ResponseHead>,
    head: &mut ResponseHead,
    fields: &mut [Entry],
    config: &Config,
) -> Result<Status<usize>> {
    match progress.0 {
        Stage::Start { .. } => super::response_tracked(buf, head, fields, config, progress),
        Stage::Fields { .. } => Path::run_detected(ContinueKernel {
            buf,
            progress,
            head,
            fields,
            config,
        }),
    }
}

/// The field walk from the first unfinished line.
struct ContinueKernel<'a, 'b, H> {
    buf: &'a [u8],
    progress: &'b mut Progress<H>,
    head: &'b mut H,
    fields: &'b mut [Entry],
    config: &'b Config,
}

impl<H: Ends> Kernel for ContinueKernel<'_, '_, H> {
    type Output = Result<Status<usize>>;

    #[inline(always)]
    fn run<C: Classify>(self, c: C) -> Self::Output {
        let ContinueKernel {
            buf,
            progress,
            head,
            fields,
            config,
        } = self;
        let Stage::Fields {
            head: started,
            facts,
            line,
            count,
            obs_fold,
        } = &mut progress.0
        else {
            return Ok(Status::Partial);
        };
        let (buf, cut) = clamp(buf, config.max_head_len);
        // The fields stored before count against the limit; the walk
        // stores the next ones after them.
        let limits = Config {
            max_fields: config.max_fields.saturating_sub(*count),
            ..config.clone()
        };
        let rest = fields.get_mut(*count..).unwrap_or_default();
        let mut blocks = Blocks::<C, false>::new(c, buf, *line);
        let mut resume = Resume::default();
        match parse_fields(&mut blocks, buf, *line, rest, &limits, facts, &mut resume)? {
            Status::Complete(mut end) => {
                // The lines stored by earlier calls count too.
                end.count += *count;
                end.obs_fold |= *obs_fold;
                *head = *started;
                head.end(facts, end)
            }
            Status::Partial if cut => err(K::HeadTooLarge, buf.len()),
            Status::Partial => {
                *line = resume.line;
                *count += resume.count;
                *obs_fold |= resume.obs_fold;
                Ok(Status::Partial)
            }
        }
    }
}
