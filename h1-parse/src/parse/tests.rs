//! Unit tests of the head parsers.
