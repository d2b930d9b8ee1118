//! Checking an incomplete head line by line, for [`HeadParser`](crate::HeadParser):
//! each complete line is checked once, with the same rules and in the same
//! order as the one-shot parser, so both report the same first error.

use h1_headers::Entry;

use super::blocks::Blocks;
use super::facts::Facts;
use super::fields::{parse_fields, Resume};
use super::start::{request_line, status_line};
use super::Result;
use crate::head::{Status, TargetForm};
use crate::scan::{Classify, Kernel, Path};
use crate::Config;

/// How far the lines of an incomplete head have been checked.
#[derive(Clone, Debug, Default)]
pub(crate) struct LineCheck {
    /// The facts so far, once the start line has been checked.
    facts: Option<Facts>,
    /// Where the next unchecked line starts.
    pos: usize,
    /// Field lines checked so far.
    count: usize,
}

impl LineCheck {
    /// Checks the lines of `buf` (which ends right after an LF) not checked
    /// yet; the head starts at `start` (after skipped empty lines).
    pub(crate) fn check(
        &mut self,
        request: bool,
        buf: &[u8],
        start: usize,
        fields: &mut [Entry],
        config: &Config,
    ) -> Result<()> {
        Path::detected().run(CheckKernel {
            check: self,
            request,
            buf,
            start,
            fields,
            config,
        })
    }
}

struct CheckKernel<'a> {
    check: &'a mut LineCheck,
    request: bool,
    buf: &'a [u8],
    start: usize,
    fields: &'a mut [Entry],
    config: &'a Config,
}

impl Kernel for CheckKernel<'_> {
    type Output = Result<()>;

    #[inline(always)]
    fn run<C: Classify>(self, c: C) -> Result<()> {
        let CheckKernel {
            check,
            request,
            buf,
            start,
            fields,
            config,
        } = self;
        if check.facts.is_none() {
            let (version, absolute, fields_start) = if request {
                let mut blocks = Blocks::<C, false>::with_target(c, buf, start);
                match request_line(&mut blocks, buf, start, config)? {
                    Status::Complete(l) => {
                        let absolute = l.target_form == TargetForm::Absolute;
                        (l.version, absolute, l.fields_start)
                    }
                    Status::Partial => return Ok(()),
                }
            } else {
                match status_line(c, buf, config)? {
                    Status::Complete(l) => (l.version, false, l.fields_start),
                    Status::Partial => return Ok(()),
                }
            };
            check.facts = Some(Facts::new(request, version, absolute));
            check.pos = fields_start;
        }
        let Some(facts) = check.facts.as_mut() else {
            return Ok(());
        };
        if check.pos >= buf.len() {
            return Ok(());
        }
        // Complete lines without the empty line (the head end was not
        // found): Partial, or the first error. The field limit counts the
        // lines checked before. With obs-fold allowed the last line may yet
        // be continued: it is checked again with the next lines.
        let config = &Config {
            max_fields: config.max_fields.saturating_sub(check.count),
            ..config.clone()
        };
        let mut blocks = Blocks::<C, false>::new(c, buf, check.pos);
        let mut resume = Resume {
            line: buf.len(),
            count: 0,
        };
        let _partial = parse_fields(
            &mut blocks,
            buf,
            check.pos,
            fields,
            config,
            facts,
            &mut resume,
        )?;
        check.count += resume.count;
        check.pos = resume.line;
        Ok(())
    }
}
