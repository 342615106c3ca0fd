//! The server's notifications, forwarded from the client's notification
//! handler to the command that shows them (`watch`, `logs`, `resources
//! subscribe`, or the log lines printed next to any command).

use mcp_client::NotificationHandler;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

/// One notification from the server.
#[derive(Clone, Debug)]
pub(crate) struct Event {
    /// Its method (`notifications/message`, ...).
    pub(crate) method: String,
    /// Its params (`null` when absent or not JSON).
    pub(crate) params: Value,
}

impl Event {
    /// The event as one JSON object (`{"method": ..., "params": ...}`).
    pub(crate) fn to_json(&self) -> Value {
        serde_json::json!({ "method": self.method, "params": self.params })
    }

    /// A one-line description for people.
    pub(crate) fn describe(&self) -> String {
        let p = &self.params;
        match self.method.as_str() {
            "notifications/message" => {
                let level = p.get("level").and_then(Value::as_str).unwrap_or("?");
                let logger = p
                    .get("logger")
                    .and_then(Value::as_str)
                    .map(|l| format!(" {l}:"))
                    .unwrap_or_default();
                let data = match p.get("data") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                format!("[{level}]{logger} {data}")
            }
            "notifications/resources/updated" => format!(
                "resource updated: {}",
                p.get("uri").and_then(Value::as_str).unwrap_or("?")
            ),
            m if m.ends_with("/list_changed") => {
                let what = m
                    .trim_start_matches("notifications/")
                    .trim_end_matches("/list_changed");
                format!("{what} list changed")
            }
            m if p.is_null() => m.to_owned(),
            m => format!("{m} {p}"),
        }
    }
}

/// Notifications held for a command that is slow to show them; more are
/// dropped (the server's input is bounded).
const BACKLOG: usize = 1024;

/// The notification handler: forwards every notification, in order.
#[derive(Debug)]
pub(crate) struct EventSink {
    tx: mpsc::Sender<Event>,
}

impl EventSink {
    /// A sink and the receiving end.
    pub(crate) fn new() -> (EventSink, mpsc::Receiver<Event>) {
        let (tx, rx) = mpsc::channel(BACKLOG);
        (EventSink { tx }, rx)
    }
}

impl NotificationHandler for EventSink {
    fn on_notification(&self, method: &str, params: Option<&RawValue>) {
        let params = params
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or(Value::Null);
        // Full: the oldest are still unseen, drop this one. Closed: the run
        // is ending.
        let _ = self.tx.try_send(Event {
            method: method.to_owned(),
            params,
        });
    }
}
