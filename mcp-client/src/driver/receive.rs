//! Every message from the server enters the core here; in strict mode
//! (see [`crate::strict`]) it is checked against the revision's schema
//! first: a response's result, a request's or notification's params (the
//! core itself refuses params that are not an object).

use std::sync::atomic::Ordering;
use std::time::Instant;

use mcp_types::RequestId;
use mcp_types::jsonrpc::Message;
use serde_json::value::RawValue;

use super::Driver;

impl Driver {
    /// Feeds one message from the server to the core; in strict mode the
    /// message is checked first.
    pub(super) fn receive(&mut self, now: Instant, message: Message) {
        if self.conn.config().strict && !self.strict_admit(now, &message) {
            return;
        }
        self.conn.handle_message(now, message);
        // Merges happen only here, when a notification comes in.
        let merged = self.conn.coalesced_notifications();
        (self.shared.notify_stats.coalesced).store(merged, Ordering::Relaxed);
    }

    /// Strict checks before the core sees a message; `false` when the
    /// message was consumed (refused).
    fn strict_admit(&mut self, now: Instant, message: &Message) -> bool {
        match message {
            Message::Response(r) => {
                // The core refuses a string spelling of a numeric id itself.
                if matches!(r.id, RequestId::String(_)) {
                    return true;
                }
                #[cfg(not(feature = "strict-schema"))]
                let _ = now;
                #[cfg(feature = "strict-schema")]
                if let Some(problem) = self
                    .conn
                    .response_target(&r.id)
                    .and_then(|target| crate::validate::strict::schema::check(&target, &r.result))
                {
                    self.conn.reject_response(now, &r.id, problem);
                    return false;
                }
                true
            }
            Message::Error(_) => true,
            // Params that are not an object are the core's call (it reports
            // them, drops such a notification and answers such a request
            // with -32602). A notification whose params fail the schema
            // (which also refuses a non-object) is dropped here first.
            Message::Notification(n) => !self.params_fail_schema(&n.method, n.params.as_deref()),
            Message::Request(r) => {
                self.params_fail_schema(&r.method, r.params.as_deref());
                true
            }
        }
    }
}

impl Driver {
    /// Whether the params of a server request or notification fail the
    /// revision's schema; a failure is logged (method, definition, paths
    /// and keywords; no values).
    fn params_fail_schema(&self, method: &str, params: Option<&RawValue>) -> bool {
        #[cfg(feature = "strict-schema")]
        if let Some((definition, failures)) = crate::validate::strict::schema::check_params(
            self.conn.protocol_version(),
            method,
            params,
        ) {
            let paths: Vec<String> = failures.kept.iter().map(ToString::to_string).collect();
            tracing::warn!(
                method,
                definition,
                failures = ?paths,
                truncated = failures.truncated,
                "strict mode: a server message's params fail the schema"
            );
            return true;
        }
        #[cfg(not(feature = "strict-schema"))]
        let _ = (method, params);
        false
    }
}
