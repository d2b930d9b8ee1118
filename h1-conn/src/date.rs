//! The `Date` line responses carry (RFC 9110 §6.6.1): kept by the
//! connection from the system clock under `std`, or set by the caller.

use h1_encode::DateLine;

/// Where a server's `Date` line comes from.
#[derive(Debug)]
pub(crate) enum Dates {
    /// No clock: responses carry no `Date` (RFC 9110 §6.6.1 allows it for
    /// a server without a clock).
    None,
    /// The caller's line, until it sets another.
    Set(DateLine),
    /// The system clock, read as each response is started and formatted
    /// once a second.
    #[cfg(feature = "std")]
    Clock(h1_encode::DateCache),
}

impl Dates {
    /// The source a new connection uses: the clock under `std` when the
    /// config asks for a `Date`.
    pub(crate) fn new(send_date: bool) -> Dates {
        #[cfg(feature = "std")]
        if send_date {
            let mut cache = h1_encode::DateCache::new();
            let _ = cache.line();
            return Dates::Clock(cache);
        }
        let _ = send_date;
        Dates::None
    }

    /// Reads the clock again (a response is being made).
    #[inline]
    pub(crate) fn tick(&mut self) {
        #[cfg(feature = "std")]
        if let Dates::Clock(cache) = self {
            let _ = cache.line();
        }
    }

    /// The current line, if any.
    #[inline]
    pub(crate) fn line(&self) -> Option<&DateLine> {
        match self {
            Dates::None => None,
            Dates::Set(line) => Some(line),
            #[cfg(feature = "std")]
            Dates::Clock(cache) => Some(cache.current()),
        }
    }
}
