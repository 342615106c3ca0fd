//! Canned servers of each protocol era for a [`Peer`]: the handshake
//! answers a client needs before it is ready.

use serde_json::{Value, json};

use crate::peer::Peer;

/// The capabilities of the canned servers: tools (with list changes),
/// resources (with subscriptions), prompts and logging.
pub fn capabilities() -> Value {
    json!({
        "tools": {"listChanged": true},
        "resources": {"subscribe": true, "listChanged": true},
        "prompts": {"listChanged": true},
        "logging": {}
    })
}

/// A 2026-07-28 `server/discover` result with these capabilities.
pub fn discover_result(capabilities: Value) -> Value {
    json!({
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": capabilities,
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "scripted", "version": "1"}}
    })
}

/// A 2025-11-25 `initialize` result with these capabilities.
pub fn initialize_result(capabilities: Value) -> Value {
    json!({
        "protocolVersion": "2025-11-25",
        "capabilities": capabilities,
        "serverInfo": {"name": "scripted", "version": "1"}
    })
}

impl Peer {
    /// Plays a 2026-07-28 server: answers `server/discover` with
    /// [`discover_result`] of `capabilities`, and `initialize` with
    /// "method not found" (a client probing for the old era learns there is
    /// none).
    pub fn serve_modern(&self, capabilities: Value) -> &Self {
        self.answer("server/discover", discover_result(capabilities));
        self.answer_error("initialize", -32601, "Method not found")
    }

    /// Plays a 2025-11-25 server: answers `initialize` with
    /// [`initialize_result`] of `capabilities`, `server/discover` with
    /// "method not found", and `ping` with an empty result.
    pub fn serve_legacy(&self, capabilities: Value) -> &Self {
        self.answer("initialize", initialize_result(capabilities));
        self.answer_error("server/discover", -32601, "Method not found");
        self.answer("ping", json!({}))
    }
}
