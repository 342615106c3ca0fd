//! A scripted-server harness with a virtual clock.
#![allow(dead_code, unreachable_pub, missing_docs, clippy::unwrap_used)]
// One clock read gives the virtual clock its origin; every later instant is derived.
#![allow(clippy::disallowed_methods)]

#[path = "../support/fixtures.rs"]
mod fixtures;
#[allow(unused_imports)] // Each test file uses its own.
pub(crate) use fixtures::{task_status, weather_tool};

use std::time::{Duration, Instant};

use mcp_core::{Config, Connection, Event, Transmit};
use mcp_types::Message;
use serde_json::{Value, json};

/// One connection, a virtual clock and the wire transcript.
pub struct Harness {
    pub conn: Connection,
    pub now: Instant,
    pub start: Instant,
    pub transcript: Vec<String>,
    pub events: Vec<Event>,
    pub sent: Vec<Value>,
    /// GET stream transmits (`OpenServerStream`, `CloseServerStream`), kept
    /// out of `sent` and the transcript.
    pub streams: Vec<Transmit>,
}

impl Harness {
    pub fn new(config: Config) -> Harness {
        let start = Instant::now();
        Harness {
            conn: Connection::new(config),
            now: start,
            start,
            transcript: Vec::new(),
            events: Vec::new(),
            sent: Vec::new(),
            streams: Vec::new(),
        }
    }

    /// Drains transmits and events; returns the messages sent since the last drain.
    pub fn drain(&mut self) -> Vec<Value> {
        let mut out = Vec::new();
        while let Some(t) = self.conn.poll_transmit() {
            match t {
                Transmit::Message { bytes, routing, .. } => {
                    let text = String::from_utf8(bytes).unwrap();
                    self.transcript.push(format!("C->S {text}"));
                    if !routing.params.is_empty() || routing.name.is_some() {
                        self.transcript.push(format!(
                            "     headers name={:?} params={:?}",
                            routing.name, routing.params
                        ));
                    }
                    let v: Value = serde_json::from_str(&text).unwrap();
                    out.push(v);
                }
                Transmit::CloseStream { request_id } => {
                    self.transcript
                        .push(format!("C-x  close stream {request_id}"));
                    out.push(json!({ "closeStream": request_id.to_string() }));
                }
                t @ (Transmit::OpenServerStream { .. } | Transmit::CloseServerStream) => {
                    self.streams.push(t);
                }
                _ => panic!("unknown transmit"),
            }
        }
        while let Some(e) = self.conn.poll_event() {
            self.events.push(e);
        }
        self.sent.extend(out.iter().cloned());
        out
    }

    /// Drains and returns the events collected so far, clearing them.
    pub fn take_events(&mut self) -> Vec<Event> {
        self.drain();
        std::mem::take(&mut self.events)
    }

    /// Feeds a server message.
    pub fn feed(&mut self, v: Value) {
        let text = v.to_string();
        self.transcript.push(format!("S->C {text}"));
        let m = Message::from_slice(text.as_bytes()).unwrap();
        self.conn.handle_message(self.now, m);
    }

    /// Feeds raw text (for byte-exact checks).
    pub fn feed_raw(&mut self, text: &str) {
        self.transcript.push(format!("S->C {text}"));
        let m = Message::from_slice(text.as_bytes()).unwrap();
        self.conn.handle_message(self.now, m);
    }

    /// Moves the virtual clock and fires due timers.
    pub fn advance(&mut self, d: Duration) {
        self.now += d;
        self.transcript.push(format!("     +{}ms", d.as_millis()));
        loop {
            let next = self.conn.poll_timeout();
            // The instant alone agrees with the instant and its reason.
            assert_eq!(self.conn.next_timeout(), next.as_ref().map(|(at, _)| *at));
            let Some((at, _)) = next else { break };
            if at > self.now {
                break;
            }
            self.conn.handle_timeout(self.now);
        }
    }

    /// Replies to a request with a result.
    pub fn reply(&mut self, req: &Value, result: Value) {
        self.feed(json!({"jsonrpc": "2.0", "id": req["id"], "result": result}));
    }

    /// Replies to a request with an error.
    pub fn reply_error(&mut self, req: &Value, code: i32, message: &str, data: Option<Value>) {
        let mut error = json!({"code": code, "message": message});
        if let Some(d) = data {
            error["data"] = d;
        }
        self.feed(json!({"jsonrpc": "2.0", "id": req["id"], "error": error}));
    }

    pub fn transcript(&self) -> String {
        self.transcript.join("\n")
    }
}

pub fn discover_result() -> Value {
    json!({
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {"listChanged": true}, "resources": {}, "prompts": {},
                          "extensions": {"io.modelcontextprotocol/tasks": {}}},
        "instructions": "be nice",
        "ttlMs": 60000,
        "cacheScope": "public",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "demo", "version": "1"}}
    })
}

pub fn initialize_result(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {}, "resources": {"subscribe": true}, "logging": {},
                          "tasks": {"cancel": {}, "requests": {"tools": {"call": {}}}}},
        "serverInfo": {"name": "legacy-demo", "version": "1"}
    })
}

pub fn config() -> Config {
    Config::new("test-client", "0.1.0")
}

/// A modern connection, ready (stdio unless configured otherwise).
pub fn modern(config: Config) -> Harness {
    let mut h = Harness::new(config);
    h.conn.connect(h.now).unwrap();
    let sent = h.drain();
    assert_eq!(sent[0]["method"], "server/discover");
    h.reply(&sent[0], discover_result());
    h.drain();
    assert_eq!(h.conn.state(), mcp_core::State::Ready);
    h.events.clear();
    h
}

/// A legacy connection, ready.
pub fn legacy(config: Config) -> Harness {
    let mut h = Harness::new(config.with_era(mcp_core::EraPreference::LegacyOnly));
    h.conn.connect(h.now).unwrap();
    let sent = h.drain();
    assert_eq!(sent[0]["method"], "initialize");
    h.reply(&sent[0], initialize_result("2025-11-25"));
    h.drain();
    assert_eq!(h.conn.state(), mcp_core::State::Ready);
    h.events.clear();
    h
}

/// An origin for virtual clocks in pure-function tests.
pub fn origin() -> Instant {
    Instant::now()
}

/// The `TaskStatus` events: each status (as `Debug`) and its poll count.
pub fn statuses(events: &[Event]) -> Vec<(String, u32)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::TaskStatus { task, .. } => Some((format!("{:?}", task.status), task.polls)),
            _ => None,
        })
        .collect()
}
