//! Transport-independent plumbing: frames, sinks, incoming requests, era
//! classification, and turning an outcome into a final message.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use http::StatusCode;
use mcp_types::jsonrpc::{ErrorResponse, Notification, Request, Response};
use mcp_types::{Message, RequestId};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::legacy::{self, Session};
use crate::modern::{self, ModernMeta};
use crate::server::Server;
use crate::support::{Reply, RpcError};

/// One message a handler emits on its stream.
#[derive(Debug)]
pub(crate) enum Frame {
    /// A notification or server-to-client request before the final response.
    Notice(Message),
    /// The final response, with the HTTP status it travels with.
    Final(Message, StatusCode),
}

/// Where a handler writes its frames.
pub(crate) type Sink = mpsc::UnboundedSender<Frame>;

/// A request with its params decoded to a JSON value (`Null` when absent).
#[derive(Clone, Debug)]
pub(crate) struct Incoming {
    pub(crate) id: RequestId,
    pub(crate) method: String,
    pub(crate) params: Value,
}

impl Incoming {
    /// Decodes the params of a request.
    /// On failure, the id of the request whose params are not valid JSON.
    pub(crate) fn from_request(req: Request) -> Result<Incoming, RequestId> {
        let params = match req.params {
            None => Value::Null,
            Some(raw) => serde_json::from_str(raw.get()).map_err(|_| req.id.clone())?,
        };
        Ok(Incoming {
            id: req.id,
            method: req.method,
            params,
        })
    }
}

/// How a request ended.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// Send this result or error.
    Reply(Reply),
    /// Send nothing (the request was cancelled).
    Silent,
}

impl From<Reply> for Outcome {
    fn from(r: Reply) -> Self {
        Outcome::Reply(r)
    }
}

/// The era a request is served in.
pub(crate) enum Route {
    Legacy(Arc<Session>),
    Modern(ModernMeta),
}

/// Whether the params carry the modern per-request protocol version.
pub(crate) fn has_modern_meta(params: &Value) -> bool {
    params
        .get("_meta")
        .and_then(|m| m.get(modern::META_VERSION))
        .is_some()
}

/// The error for params that are not valid JSON.
pub(crate) fn bad_params() -> RpcError {
    RpcError::invalid_params("params are not valid JSON")
}

/// The `requestId` of a `notifications/cancelled`.
pub(crate) fn cancelled_id(params: &Value) -> Option<RequestId> {
    serde_json::from_value(params.get("requestId")?.clone()).ok()
}

/// Runs one request to its outcome, honouring `cancel`.
pub(crate) async fn run_request(
    server: Arc<Server>,
    route: Route,
    req: Incoming,
    sink: Sink,
    cancel: CancellationToken,
) -> Outcome {
    struct InFlight<'a>(&'a Server);
    impl Drop for InFlight<'_> {
        fn drop(&mut self) {
            self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
            self.0.bump();
        }
    }
    server.in_flight.fetch_add(1, Ordering::Relaxed);
    server.bump();
    let guard = InFlight(&server);
    let fut = async {
        match route {
            Route::Legacy(session) => legacy::handle(&server, &session, &req, &sink, &cancel).await,
            Route::Modern(meta) => modern::handle(&server, &meta, &req, &sink, &cancel).await,
        }
    };
    let out = tokio::select! {
        biased;
        () = cancel.cancelled() => Outcome::Silent,
        out = fut => out,
    };
    // Out of flight before it counts as cancelled or answered: a test that
    // saw the count sees the request gone.
    drop(guard);
    match &out {
        Outcome::Silent if cancel.is_cancelled() => {
            server.cancelled.fetch_add(1, Ordering::Relaxed);
            server.bump();
        }
        Outcome::Silent => {}
        Outcome::Reply(_) => server.count_answered(&req.method),
    }
    out
}

/// Builds the final frame for `id` from a reply.
pub(crate) fn final_frame(id: RequestId, reply: Reply) -> Frame {
    match reply {
        Ok(result) => match mcp_types::jsonrpc::to_raw(&result) {
            Ok(raw) => Frame::Final(
                Message::Response(Response {
                    id,
                    result: raw.into(),
                }),
                StatusCode::OK,
            ),
            Err(_) => error_frame(Some(id), RpcError::internal("result not serializable")),
        },
        Err(e) => error_frame(Some(id), e),
    }
}

/// An error frame (id `None` when unknown).
pub(crate) fn error_frame(id: Option<RequestId>, e: RpcError) -> Frame {
    Frame::Final(
        Message::Error(ErrorResponse { id, error: e.error }),
        e.status,
    )
}

/// A notification message with JSON params.
pub(crate) fn notification(method: &str, params: Value) -> Message {
    Message::Notification(Notification {
        method: method.to_owned(),
        params: mcp_types::jsonrpc::to_raw(&params).ok(),
    })
}

/// Sends the outcome of a request on `sink`.
pub(crate) fn send_outcome(sink: &Sink, id: RequestId, outcome: Outcome) {
    if let Outcome::Reply(reply) = outcome {
        let _ = sink.send(final_frame(id, reply));
    }
}
