//! The `Date` line: 37 bytes, formatted at most once per second.

use crate::Error;

/// `Date: ` + IMF-fixdate (29 bytes) + CRLF.
const LEN: usize = 37;

/// A complete `Date: <IMF-fixdate>\r\n` line, 37 bytes, ready to copy into
/// a head with [`ResponseWriter::date`](crate::ResponseWriter::date).
///
/// Without the `std` feature, build it from the 29 date bytes the caller
/// formats ([`DateLine::new`]); with `std`, `DateCache` keeps one up to
/// date.
///
/// ```
/// use h1_encode::DateLine;
/// let line = DateLine::new(b"Sun, 06 Nov 1994 08:49:37 GMT")?;
/// assert_eq!(line.as_bytes(), b"Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n");
/// assert!(DateLine::new(b"Sun, 06 Nov 1994 08:49:37 UTC").is_err());
/// # Ok::<(), h1_encode::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DateLine {
    line: [u8; LEN],
}

impl DateLine {
    /// The line for `date`, which must be an IMF-fixdate
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7): day name,
    /// two-digit day, month name, four-digit year, `HH:MM:SS`, `GMT`.
    pub fn new(date: &[u8]) -> Result<DateLine, Error> {
        if !is_imf_fixdate(date) {
            return Err(Error::InvalidDate);
        }
        let mut line = [0u8; LEN];
        line[..6].copy_from_slice(b"Date: ");
        line[6..35].copy_from_slice(date);
        line[35..].copy_from_slice(b"\r\n");
        Ok(DateLine { line })
    }

    /// The whole line, `Date: ...\r\n`.
    pub fn as_bytes(&self) -> &[u8] {
        &self.line
    }

    /// The 29 bytes of the date.
    pub fn date(&self) -> &[u8] {
        &self.line[6..35]
    }
}

/// Checks the shape of an IMF-fixdate (not that the day exists).
fn is_imf_fixdate(d: &[u8]) -> bool {
    const DAYS: [&[u8]; 7] = [b"Mon", b"Tue", b"Wed", b"Thu", b"Fri", b"Sat", b"Sun"];
    const MONTHS: [&[u8]; 12] = [
        b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov",
        b"Dec",
    ];
    let digits = |r: core::ops::Range<usize>| d[r].iter().all(u8::is_ascii_digit);
    let two = |i: usize| (d[i] - b'0') * 10 + (d[i + 1] - b'0');
    d.len() == 29
        && DAYS.contains(&&d[0..3])
        && &d[3..5] == b", "
        && digits(5..7)
        && d[7] == b' '
        && MONTHS.contains(&&d[8..11])
        && d[11] == b' '
        && digits(12..16)
        && d[16] == b' '
        && digits(17..19)
        && d[19] == b':'
        && digits(20..22)
        && d[22] == b':'
        && digits(23..25)
        && &d[25..] == b" GMT"
        && (1..=31).contains(&two(5))
        && two(17) < 24
        && two(20) < 60
        && two(23) < 61
}

/// Keeps the `Date` line of the current second (`std` feature).
///
/// Formatting a date costs far more than copying 37 bytes, so the cache
/// formats only when the second changes. Time comes from `SystemTime::now()`
/// ([`line`](Self::line)) or from the caller ([`line_at`](Self::line_at),
/// [`line_at_unix`](Self::line_at_unix)), which makes tests deterministic.
///
/// ```
/// use h1_encode::DateCache;
/// let mut cache = DateCache::new();
/// assert_eq!(cache.line_at_unix(784_111_777).as_bytes(), b"Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n");
/// // The current time: formatted once per second.
/// assert!(cache.line().as_bytes().starts_with(b"Date: "));
/// ```
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
#[derive(Clone, Debug)]
pub struct DateCache {
    line: DateLine,
    /// The second `line` shows.
    second: u64,
    /// Until when `line` is the wall clock's second, by the monotonic
    /// clock: checking it is cheaper than turning `SystemTime` into
    /// seconds, which [`line`](Self::line) would do per response.
    fresh_until: Option<std::time::Instant>,
    /// How many times a date was formatted (tests check the once-per-second
    /// promise with it).
    formatted: u64,
}

#[cfg(feature = "std")]
impl Default for DateCache {
    fn default() -> Self {
        DateCache::new()
    }
}

#[cfg(feature = "std")]
impl DateCache {
    /// The last second `httpdate` can format (9999-12-31T23:59:59Z).
    const LAST: u64 = 253_402_300_799;

    /// A cache showing 1970-01-01T00:00:00Z until first asked.
    pub fn new() -> DateCache {
        DateCache {
            line: DateLine {
                line: *b"Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n",
            },
            second: 0,
            fresh_until: None,
            formatted: 0,
        }
    }

    /// The line for the current time (`SystemTime::now()`).
    ///
    /// The system clock is read again once the monotonic clock says the
    /// second shown has passed; a step of the system clock shows from the
    /// next second on.
    pub fn line(&mut self) -> &DateLine {
        self.line_as_of(std::time::Instant::now())
    }

    /// [`line`](Self::line), with the monotonic clock read by the caller:
    /// a driver that reads it anyway (for its timers) saves the second
    /// read. `now` must be a reading of the monotonic clock, no earlier
    /// than the last one given.
    ///
    /// ```
    /// let mut cache = h1_encode::DateCache::new();
    /// let line = cache.line_as_of(std::time::Instant::now());
    /// assert!(line.as_bytes().starts_with(b"Date: "));
    /// ```
    #[inline]
    pub fn line_as_of(&mut self, now: std::time::Instant) -> &DateLine {
        if self.fresh_until.is_some_and(|until| now < until) {
            return &self.line;
        }
        self.line_after(now)
    }

    /// [`line_as_of`](Self::line_as_of) once the second shown has passed.
    #[cold]
    fn line_after(&mut self, now: std::time::Instant) -> &DateLine {
        let since = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        self.line_at_unix(since.as_secs());
        let left = std::time::Duration::from_nanos(1_000_000_000 - u64::from(since.subsec_nanos()));
        self.fresh_until = now.checked_add(left);
        &self.line
    }

    /// The line for `now`. Times before 1970 show 1970-01-01, times after
    /// 9999 show the last second of 9999.
    pub fn line_at(&mut self, now: std::time::SystemTime) -> &DateLine {
        let secs = now
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        self.line_at_unix(secs)
    }

    /// The line for `secs` seconds after the Unix epoch (clamped like
    /// [`line_at`](Self::line_at)). The next [`line`](Self::line) reads
    /// the clock.
    pub fn line_at_unix(&mut self, secs: u64) -> &DateLine {
        self.fresh_until = None;
        let secs = secs.min(Self::LAST);
        if secs != self.second {
            self.refresh(secs);
        }
        &self.line
    }

    /// The line last computed, without reading the clock (the Unix epoch
    /// until the first [`line`](Self::line)).
    pub fn current(&self) -> &DateLine {
        &self.line
    }

    /// How many times this cache formatted a date (not counting the one
    /// made by [`new`](Self::new)).
    #[inline]
    pub fn formatted(&self) -> u64 {
        self.formatted
    }

    fn refresh(&mut self, secs: u64) {
        use std::io::Write;
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
        let date = httpdate::HttpDate::from(t);
        let mut line = [0u8; LEN];
        let mut w = &mut line[..];
        // 37 bytes always fit: IMF-fixdate is 29 bytes for years 1970..=9999.
        if write!(w, "Date: {date}\r\n").is_ok() && w.is_empty() {
            self.line = DateLine { line };
            self.second = secs;
            self.formatted += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert!(DateLine::new(b"Thu, 01 Jan 1970 00:00:00 GMT").is_ok());
        // The largest value of each field; 60 seconds is a leap second.
        assert!(DateLine::new(b"Sat, 31 Dec 2016 23:59:60 GMT").is_ok());
        for bad in [
            &b"Thu, 01 Jan 1970 00:00:00 GMT "[..],
            b"Thu, 01 Jan 1970 00:00:00 GM",
            b"Thx, 01 Jan 1970 00:00:00 GMT",
            b"Thu, 01 Jax 1970 00:00:00 GMT",
            b"Thu, 32 Jan 1970 00:00:00 GMT",
            b"Thu, 01 Jan 1970 24:00:00 GMT",
            b"Thu, 01 Jan 1970 00:60:00 GMT",
            b"Thu, 01 Jan 1970 00:00:61 GMT",
            b"Thu, 00 Jan 1970 00:00:00 GMT",
            b"Thu, 01 Jan 197a 00:00:00 GMT",
            b"Thu,  1 Jan 1970 00:00:00 GMT",
            b"Thu, 01 Jan 1970 00:00:00\r\nX",
            b"",
        ] {
            assert_eq!(DateLine::new(bad), Err(Error::InvalidDate), "{bad:?}");
        }
    }

    #[cfg(feature = "std")]
    #[test]
    fn clock_line_is_the_current_second_after_a_caller_set_one() {
        let now = || {
            let t = std::time::SystemTime::now();
            std::format!("{}", httpdate::HttpDate::from(t)).into_bytes()
        };
        let mut c = DateCache::new();
        let before = now();
        let line = c.line().date().to_vec();
        let after = now();
        assert!(line == before || line == after, "{line:?}");
        // A time set by the caller is not kept as the clock's.
        assert_eq!(
            c.line_at_unix(784_111_777).date(),
            b"Sun, 06 Nov 1994 08:49:37 GMT"
        );
        let before = now();
        let line = c.line().date().to_vec();
        let after = now();
        assert!(line == before || line == after, "{line:?}");
        // Asked again within the second: the same line, not formatted again.
        let formatted = c.formatted();
        let again = c.line().date().to_vec();
        assert!(again == line || again == now(), "{again:?}");
        assert!(c.formatted() <= formatted + 1);
    }

    /// The cached line is kept only until the second it shows has passed
    /// (by the monotonic clock): the first `line` in the next second is that
    /// second's. Sleeps into the next second of the system clock.
    #[cfg(feature = "std")]
    #[test]
    fn clock_line_moves_on_with_the_second() {
        use std::time::{Duration, SystemTime, UNIX_EPOCH};
        let now = || std::format!("{}", httpdate::HttpDate::from(SystemTime::now())).into_bytes();
        let mut c = DateCache::new();
        let first = c.line().date().to_vec();
        let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
        let next = Duration::from_secs(since.as_secs() + 1) + Duration::from_millis(20);
        std::thread::sleep(next - since);
        let before = now();
        let line = c.line().date().to_vec();
        let after = now();
        assert_ne!(line, first);
        assert!(line == before || line == after, "{line:?}");
    }

    #[cfg(feature = "std")]
    #[test]
    fn cache_formats_once_per_second() {
        let mut c = DateCache::new();
        assert_eq!(
            c.line_at_unix(1_475_419_451).date(),
            b"Sun, 02 Oct 2016 14:44:11 GMT"
        );
        assert_eq!(c.formatted(), 1);
        for _ in 0..10 {
            c.line_at_unix(1_475_419_451);
        }
        assert_eq!(c.formatted(), 1);
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(1_475_419_451_999);
        assert_eq!(c.line_at(t).date(), b"Sun, 02 Oct 2016 14:44:11 GMT");
        assert_eq!(c.formatted(), 1);
        assert_eq!(
            c.line_at_unix(1_475_419_452).date(),
            b"Sun, 02 Oct 2016 14:44:12 GMT"
        );
        assert_eq!(c.formatted(), 2);
        assert_eq!(
            c.line_at_unix(u64::MAX).date(),
            b"Fri, 31 Dec 9999 23:59:59 GMT"
        );
        let before = std::time::UNIX_EPOCH - std::time::Duration::from_secs(5);
        assert_eq!(c.line_at(before).date(), b"Thu, 01 Jan 1970 00:00:00 GMT");
        // Every formatted line passes the shape check.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let line = *c.line_at_unix(x % (DateCache::LAST + 1));
            assert_eq!(DateLine::new(line.date()), Ok(line));
        }
    }
}
