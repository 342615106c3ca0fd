//! Strict mode: every response checked as a complete JSON-RPC envelope and
//! its result validated against the negotiated revision's schema.
//!
//! Off by default; turn it on with
//! [`ClientBuilder::strict`](crate::ClientBuilder::strict). Conformance
//! runs and this repository's tests run strict.
//!
//! # What is checked
//!
//! * **Envelopes.** The transports read every frame with the lenient
//!   reader, which already refuses a wrong `jsonrpc`, both `result` and
//!   `error`, an unreadable `id` or `method`, and a malformed `error`. In
//!   strict mode the core also refuses a response whose id is the string
//!   spelling of the numeric id that was sent (the lenient path accepts it
//!   from gateways). [`mcp_types::jsonrpc::Message::from_slice_checked`]
//!   reports the facts the lenient reader forgives (a missing `jsonrpc`, a
//!   missing `id` on an error) and the id of a rejected frame;
//!   [`mcp_core::Connection::handle_envelope_violation`] turns them into a
//!   failed request.
//! * **Results.** Each result is validated, before the core reads it,
//!   against the definition its method has in the schema of the revision in
//!   use: `tools/call` against `CallToolResult` of 2025-11-25 or of
//!   2026-07-28, or against the variant the result declares:
//!   `InputRequiredResult` (`resultType: "input_required"`), the tasks
//!   extension's `CreateTaskResult` (`resultType: "task"`), 2025-11-25's
//!   `CreateTaskResult` (a `task` member); `tasks/get`, `tasks/cancel`,
//!   `tasks/update` against their task definitions; a 2025-11-25
//!   `tasks/result` against the result of the task's own method. Every page
//!   of a listing is checked, and so are the handshake's results. A method
//!   the schema does not define is checked against `Result`. A 2026-07-28
//!   result without `resultType` is checked as `"complete"`, since the spec
//!   tells clients to read it that way. Revisions
//!   other than 2025-11-25 and 2026-07-28 are not validated (no schema is
//!   embedded for them).
//! * **Server requests and notifications.** Their envelope gets the
//!   lenient reader's checks (a `"2.0"` or absent `jsonrpc`, a string
//!   `method`, a readable `id`, no `result` or `error`); strict mode adds
//!   that `params`, when present, is an object, and validates the params of
//!   the methods the revision's schema defines (`ProgressNotification`,
//!   `LoggingMessageNotification`, `CreateMessageRequest`, `ElicitRequest`,
//!   ...; absent params are checked as `{}`). A notification that fails is
//!   dropped, and logged as a warning naming the method, the definition and
//!   the failed paths and keywords. A server request that fails is logged
//!   the same way and still handed to the core and the handlers, which
//!   answer it (with `-32602` when its params do not decode): the server
//!   waits for an answer, and a JSON-RPC error is the useful one.
//!
//! # What a violation looks like
//!
//! The request fails with an [`Error`] whose
//! [`strict_violation`](Error::strict_violation) is a [`StrictViolation`]:
//! the method, the id and the failed places (JSON Pointers into the result
//! and schema keywords, at most [`MAX_FAILURES`](mcp_core::strict::MAX_FAILURES)).
//! It keeps no value from the server's payload, so it is bounded and safe
//! to log. Other requests on the connection go on.
//!
//! # Cost
//!
//! Off: one flag test per message. On: the embedded schemas (about 350 KB
//! of JSON) are compiled once per process, on the first response checked;
//! each result is then parsed once more into a `serde_json::Value` and
//! validated.

#[cfg(feature = "strict-schema")]
mod methods;
#[cfg(feature = "strict-schema")]
pub(crate) mod schema;

use mcp_core::{ConnectError, PeerMisbehaved, RequestError};

pub use mcp_core::strict::{SchemaFailure, StrictProblem, StrictViolation};

use crate::error::{Error, ErrorKind};

impl Error {
    /// The strict-mode violation behind this error: a response that was
    /// not a complete envelope or whose result does not validate against
    /// the revision's schema (see [`crate::strict`]).
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), mcp_client::Error> {
    /// use mcp_client::{Client, ServerCommand};
    /// let client = Client::builder()
    ///     .stdio(ServerCommand::new("my-mcp-server"))
    ///     .strict(true)
    ///     .connect()
    ///     .await?;
    /// if let Err(e) = client.list_all_tools().await {
    ///     if let Some(v) = e.strict_violation() {
    ///         // Method, id and JSON Pointers; never a value from the server.
    ///         let paths: Vec<&str> = v.failed_paths().collect();
    ///         eprintln!("`{}` (id {}) broke the schema at {paths:?}", v.method, v.id);
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub fn strict_violation(&self) -> Option<&StrictViolation> {
        let request = match self.kind() {
            ErrorKind::Request(r) => r,
            ErrorKind::Connect {
                error: ConnectError::Request(r),
                ..
            } => r,
            _ => return None,
        };
        match request {
            RequestError::Peer(PeerMisbehaved::Strict(v)) => Some(v),
            _ => None,
        }
    }
}
