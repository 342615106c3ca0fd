//! Checks of what a server sends beyond what the protocol requires of
//! every client: strict mode (envelopes, results and params against the
//! revision's schema) and a tool's `structuredContent` against its
//! `outputSchema`.

#[cfg(feature = "output-schema")]
pub(crate) mod output_schema;
pub mod strict;
