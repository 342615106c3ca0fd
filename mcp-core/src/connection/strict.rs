//! Strict mode inputs: envelope violations, refused responses, and the
//! lookup the facade's schema validator needs.

use std::time::Instant;

use mcp_types::jsonrpc::{EnvelopeViolation, Message};
use mcp_types::{ProtocolVersion, RequestId};

use super::{Connection, Role};
use crate::error::{PeerMisbehaved, RequestError};
use crate::event::Event;
use crate::strict::{StrictProblem, StrictViolation};

/// What a response id answers, for validating its result (strict mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResponseTarget<'a> {
    /// The method of the wire request the response answers (`tasks/get`
    /// while a task is polled, `tools/list` for every page of a listing).
    pub method: &'a str,
    /// The method of the call that request belongs to: the same as `method`
    /// except for task requests. A 2025-11-25 `tasks/result` carries the
    /// result type of this method.
    pub call_method: &'a str,
    /// The revision in use when the response arrives (during the
    /// handshake, the one being tried).
    pub revision: Option<&'a ProtocolVersion>,
}

impl Connection {
    /// What a response with this id would answer: `None` for an id that is
    /// not in flight (late, unknown or duplicate: [`Connection::handle_message`]
    /// reports those) and for acknowledgements the core does not read
    /// (`tasks/update`, `tasks/cancel` sent by the core).
    ///
    /// ```
    /// use mcp_core::{Config, Connection};
    /// use mcp_types::RequestId;
    ///
    /// let conn = Connection::new(Config::new("my-client", "1.0").with_strict(true));
    /// // Nothing is in flight on a fresh connection.
    /// assert!(conn.response_target(&RequestId::Number(1)).is_none());
    /// ```
    pub fn response_target(&self, id: &RequestId) -> Option<ResponseTarget<'_>> {
        if self.is_quick(id) {
            return Some(ResponseTarget {
                method: "tools/call",
                call_method: "tools/call",
                revision: self.version.as_ref(),
            });
        }
        let wire = self.wires.resolve(id)?;
        let w = self.wires.get(wire)?;
        let call = self.calls.get(w.call)?;
        let method = match w.role {
            Role::Main => &*call.method,
            Role::TaskGet => "tasks/get",
            Role::TaskResult => "tasks/result",
            Role::TaskAck => return None,
        };
        Some(ResponseTarget {
            method,
            call_method: &call.method,
            revision: self.version.as_ref(),
        })
    }

    /// Strict mode refused the response with this id (instead of
    /// [`Connection::handle_message`]): the request it answers fails with
    /// [`PeerMisbehaved::Strict`]. A response for an id not in flight
    /// is absorbed (as [`Connection::handle_message`] would absorb it).
    ///
    /// ```
    /// use std::time::Instant;
    /// use mcp_core::Connection;
    /// use mcp_core::strict::{SchemaFailure, StrictProblem};
    /// use mcp_types::ProtocolVersion;
    /// use mcp_types::jsonrpc::Response;
    ///
    /// /// A validator of the application's own says no.
    /// fn refuse(conn: &mut Connection, now: Instant, response: &Response) {
    ///     let problem = StrictProblem::Schema {
    ///         revision: ProtocolVersion::V2026_07_28,
    ///         definition: "CallToolResult",
    ///         failures: vec![SchemaFailure::new("/content", "required", "/required")],
    ///         truncated: false,
    ///     };
    ///     conn.reject_response(now, &response.id, problem);
    /// }
    /// ```
    pub fn reject_response(&mut self, now: Instant, id: &RequestId, problem: StrictProblem) {
        self.promote_quick();
        let _ = now;
        let Some(method) = self.response_target(id).map(|t| t.method.to_owned()) else {
            // Unknown, late, duplicate or an acknowledgement: absorbed.
            let _ = self.take_wire(id);
            return;
        };
        let Some((_, call, _)) = self.take_wire(id) else {
            return;
        };
        let violation = StrictViolation::new(method, id.clone(), problem);
        self.fail_call(call, RequestError::Peer(PeerMisbehaved::Strict(violation)));
    }

    /// A frame broke the JSON-RPC envelope (what
    /// [`Message::from_slice_checked`] reports). With a readable `id` that
    /// is in flight, the request fails with [`PeerMisbehaved::Strict`];
    /// otherwise (a broken server request or notification, or an unknown
    /// id) it is reported as [`Event::ProtocolViolation`] and the
    /// connection goes on. Call it for frames the lenient reader rejected
    /// and, in strict mode, for frames it accepted with violations (then do
    /// not also pass the message to [`Connection::handle_message`]).
    ///
    /// A transport's strict read of one frame:
    ///
    /// ```
    /// use std::time::Instant;
    /// use mcp_core::Connection;
    /// use mcp_types::jsonrpc::Message;
    ///
    /// fn on_frame(conn: &mut Connection, now: Instant, frame: &[u8]) {
    ///     let Ok(check) = Message::from_slice_checked(frame) else {
    ///         return; // not a JSON object: nothing to correlate
    ///     };
    ///     if !check.is_complete() {
    ///         conn.handle_envelope_violation(now, check.id.as_ref(), check.violations);
    ///     } else if let Some(message) = check.message {
    ///         conn.handle_message(now, message);
    ///     }
    /// }
    /// ```
    pub fn handle_envelope_violation(
        &mut self,
        now: Instant,
        id: Option<&RequestId>,
        violations: Vec<EnvelopeViolation>,
    ) {
        self.promote_quick();
        if let Some(id) = id
            && self.response_target(id).is_some()
        {
            return self.reject_response(now, id, StrictProblem::Envelope(violations));
        }
        self.events
            .push_back(Event::ProtocolViolation(PeerMisbehaved::InvalidEnvelope {
                id: id.cloned(),
                violations,
            }));
    }

    /// Strict mode: the params of a server request or notification must be
    /// an object (`null` included). The violation is reported; a
    /// notification is then dropped (returns `true`: consumed), while a
    /// request goes on to its admission, which answers `-32602` (where a
    /// `null` counts as absent).
    #[inline(never)]
    pub(super) fn strict_params_check(&mut self, message: &Message) -> bool {
        let (params, notification) = match message {
            Message::Request(r) => (r.params.as_deref(), false),
            Message::Notification(n) => (n.params.as_deref(), true),
            Message::Response(_) | Message::Error(_) => return false,
        };
        if params.is_none_or(crate::wire::is_object) {
            return false;
        }
        self.events
            .push_back(Event::ProtocolViolation(PeerMisbehaved::InvalidEnvelope {
                id: None,
                violations: vec![EnvelopeViolation::ParamsNotObject],
            }));
        notification
    }

    /// Strict mode: a response whose id is the string spelling of the
    /// number that was sent fails its request. Returns whether the message
    /// was consumed.
    #[inline(never)]
    pub(super) fn strict_id_check(&mut self, now: Instant, message: &Message) -> bool {
        let id = match message {
            Message::Response(r) => &r.id,
            Message::Error(e) => match &e.id {
                Some(id) => id,
                None => return false,
            },
            Message::Request(_) | Message::Notification(_) => return false,
        };
        if !matches!(id, RequestId::String(_)) || self.wires.resolve(id).is_none() {
            return false;
        }
        self.reject_response(now, id, StrictProblem::IdMismatch);
        true
    }
}
