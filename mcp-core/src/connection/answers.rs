//! Typed answers: [`Connection::respond_to`],
//! [`Connection::answer_input_with`] and
//! [`Connection::answer_task_input_with`] take the `mcp_types` result
//! types and serialize them for the caller; a value that does not
//! serialize is a [`UsageError::Serialize`], and nothing is sent or
//! consumed then (the request still awaits its answer).
//!
//! Which to use: the typed forms when you hold a typed result (a
//! `ListRootsResult` from your own roots, a `CreateMessageResult` from
//! your model); the `Value` forms ([`Connection::respond`],
//! [`Connection::answer_input`], [`Connection::answer_task_input`]) when
//! the answer already is JSON (forwarded, or checked as JSON).

use std::time::Instant;

use mcp_types::jsonrpc::ErrorObject;
use mcp_types::{RequestId, RequestMethod};
use serde::Serialize;
use serde_json::Map;

use super::Connection;
use crate::error::UsageError;

impl Connection {
    /// Answers a server-to-client request (2025-11-25) with the typed
    /// result of its method `M`, or an error.
    ///
    /// ```
    /// use std::time::Instant;
    /// use mcp_core::{Connection, UsageError};
    /// use mcp_types::RequestId;
    /// use mcp_types::methods::v2025_11_25::ListRoots;
    /// use mcp_types::roots::{ListRootsResult, Root};
    ///
    /// // `id` came with `Event::ServerRequest { request: ServerRequest::ListRoots(_), .. }`.
    /// fn answer_roots(conn: &mut Connection, now: Instant, id: &RequestId) -> Result<(), UsageError> {
    ///     let roots = ListRootsResult::new(vec![Root::new("file:///work")]);
    ///     conn.respond_to::<ListRoots>(now, id, Ok(roots))
    /// }
    /// ```
    ///
    /// # Errors
    /// [`UsageError::Serialize`] when the result does not serialize
    /// (nothing is sent; the request still awaits an answer);
    /// [`UsageError::UnknownServerRequest`] as for
    /// [`Connection::respond`].
    pub fn respond_to<M: RequestMethod>(
        &mut self,
        now: Instant,
        id: &RequestId,
        result: Result<M::Result, ErrorObject>,
    ) -> Result<(), UsageError> {
        self.promote_quick();
        let result = match result {
            Ok(r) => Ok(serde_json::to_value(&r)?),
            Err(e) => Err(e),
        };
        self.respond(now, id, result)
    }

    /// Answers one input request of a call (2026-07-28 multi round-trip)
    /// with a typed answer, e.g. a `ListRootsResult` for `roots/list`.
    ///
    /// # Errors
    /// [`UsageError::Serialize`] when the answer does not serialize (the
    /// input still awaits an answer); otherwise as
    /// [`Connection::answer_input`].
    pub fn answer_input_with<T: Serialize + ?Sized>(
        &mut self,
        now: Instant,
        call: &RequestId,
        key: &str,
        answer: &T,
    ) -> Result<(), UsageError> {
        self.promote_quick();
        let value = serde_json::to_value(answer)?;
        self.answer_input(now, call, key, value)
    }

    /// Answers one input request of a task (2026-07-28 tasks extension,
    /// `tasks/update`) with a typed answer.
    ///
    /// # Errors
    /// [`UsageError::Serialize`] when the answer does not serialize
    /// (nothing is sent); otherwise as [`Connection::answer_task_input`].
    pub fn answer_task_input_with<T: Serialize + ?Sized>(
        &mut self,
        now: Instant,
        call: &RequestId,
        key: &str,
        answer: &T,
    ) -> Result<(), UsageError> {
        self.promote_quick();
        let mut responses = Map::with_capacity(1);
        responses.insert(key.to_owned(), serde_json::to_value(answer)?);
        self.answer_task_input(now, call, responses)
    }
}
