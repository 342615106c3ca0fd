//! An origin instant for the unit tests of `mcp-core`'s private machines
//! (timers, cache), compiled into the crate under `#[cfg(test)]` only.
//!
//! It lives outside `mcp-core/src` because the library reads no clock:
//! every instant it handles comes in as an argument. The tests need one
//! real `Instant` to build from (std has no other constructor); any
//! instant serves, since the machines only compare instants derived from
//! it.

use std::time::Instant;

/// The tests' origin: read once per call, by test code only.
#[allow(clippy::disallowed_methods)]
pub(crate) fn origin() -> Instant {
    Instant::now()
}
