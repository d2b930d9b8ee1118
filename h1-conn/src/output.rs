//! The sending half both roles share: the output buffer, the body of the
//! message in progress, and the head writers they wrap.

use alloc::vec::Vec;

use h1_encode::BodyWriter;

use crate::error::SendError;

/// Drops the first `n` bytes of `out` (written to the peer); the buffer
/// keeps its capacity.
pub(crate) fn discard_written(out: &mut Vec<u8>, n: usize) {
    if n >= out.len() {
        out.clear();
    } else {
        out.drain(..n);
    }
}

/// Appends body bytes of the message in progress, framed by its writer.
pub(crate) fn write_body(
    body: &mut Option<BodyWriter>,
    out: &mut Vec<u8>,
    data: &[u8],
) -> Result<(), SendError> {
    let body = body.as_mut().ok_or(SendError::NoMessage)?;
    body.write(out, data)?;
    Ok(())
}

/// What happens after the message being received: whether the connection
/// persists, and whether the message asked to switch protocols (server
/// role) or switches them (client role).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct After {
    pub(crate) persistent: bool,
    pub(crate) switch: bool,
}

/// `Debug`, `Deref` and `DerefMut` to the encoder's head writer (field `w`)
/// for a wrapper that also holds the connection's state.
macro_rules! head_writer_wrapper {
    ($wrapper:ident, $writer:ident) => {
        impl core::fmt::Debug for $wrapper<'_> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct(stringify!($wrapper)).finish_non_exhaustive()
            }
        }

        impl<'c> core::ops::Deref for $wrapper<'c> {
            type Target = $writer<'c, Vec<u8>>;
            fn deref(&self) -> &Self::Target {
                &self.w
            }
        }

        impl core::ops::DerefMut for $wrapper<'_> {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.w
            }
        }
    };
}
pub(crate) use head_writer_wrapper;
