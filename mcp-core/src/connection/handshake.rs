//! The handshake half of the lifecycle: the `server/discover` probe, the
//! `initialize` exchange, and the era decision.

use std::time::Instant;

use mcp_types::jsonrpc::ErrorObject;
use mcp_types::{Era, ErrorCode, ProtocolVersion};
use serde_json::value::RawValue;

use super::{CallKind, Connection};
use crate::config::{Config, RequestOptions, TransportKind};
use crate::era::{self, EraDecision, EraOutcome, EraPreference, ProbeVerdict};
use crate::error::{ConnectError, PeerMisbehaved, RequestError, UsageError};
use crate::event::Event;
use crate::lifecycle::{State, legacy};
use crate::wire;
use mcp_types::lifecycle::{DiscoverResult, InitializeResult};

/// The `capabilities` member exactly as received.
fn raw_capabilities(raw: &RawValue) -> Option<crate::lifecycle::RawCapabilities> {
    #[derive(serde::Deserialize)]
    struct Caps {
        capabilities: serde_json::Value,
    }
    serde_json::from_str::<Caps>(raw.get())
        .ok()
        .map(|c| crate::lifecycle::RawCapabilities::new(c.capabilities))
}

impl Connection {
    /// Starts the lifecycle: probes with `server/discover` when a modern
    /// version is preferred (stdio: falls back to `initialize` on a
    /// non-modern error or silence; HTTP: decides from the answer), or sends
    /// `initialize` straight away for legacy-only preferences. With
    /// [`EraPreference::Known`] a modern connection is ready at once.
    ///
    /// # Errors
    /// [`UsageError::AlreadyConnecting`] unless the connection is idle.
    pub fn connect(&mut self, now: Instant) -> Result<(), UsageError> {
        self.promote_quick();
        if self.state != State::Idle {
            return Err(UsageError::AlreadyConnecting);
        }
        let prefs = self.config.era.versions();
        let Some(first) = prefs.first().cloned() else {
            self.connect_failed(ConnectError::NoMutualVersion { server: Vec::new() });
            return Ok(());
        };
        match (&self.config.era, first.era()) {
            (EraPreference::Known(v), Some(Era::Modern)) => {
                self.version = Some(v.clone());
                let opts = self.handshake_opts();
                self.become_ready(now, Era::Modern, EraDecision::Cached);
                // Ready without a round trip; the server's facts follow.
                let discover = self.start_call(
                    now,
                    "server/discover",
                    Default::default(),
                    opts,
                    CallKind::User,
                );
                self.facts_call = discover.ok().and_then(|id| id.as_number());
            }
            (_, Some(Era::Modern)) => self.start_probe(now, first)?,
            (pref, _) => {
                let decision = if matches!(pref, EraPreference::Known(_)) {
                    EraDecision::Cached
                } else {
                    EraDecision::Configured
                };
                self.start_initialize(now, first, decision)?;
            }
        }
        Ok(())
    }

    /// Propagates a W3C trace context on the handshake's requests (the
    /// `server/discover` probe or the background one of a cached era, and
    /// `initialize`, a fallback one included); set it before
    /// [`Connection::connect`]. It is dropped once the connection is ready:
    /// a later `initialize` (one replacing an expired session) carries none.
    pub fn set_handshake_trace(&mut self, cx: Option<crate::TraceContext>) {
        self.promote_quick();
        self.handshake_trace = cx;
    }

    fn handshake_opts(&self) -> RequestOptions {
        RequestOptions {
            trace: self.handshake_trace.clone(),
            ..RequestOptions::default()
        }
    }

    fn start_probe(&mut self, now: Instant, version: ProtocolVersion) -> Result<(), UsageError> {
        self.state = State::Probing;
        self.version = Some(version);
        self.start_call(
            now,
            "server/discover",
            Default::default(),
            self.handshake_opts(),
            CallKind::Probe,
        )?;
        Ok(())
    }

    pub(super) fn start_initialize(
        &mut self,
        now: Instant,
        version: ProtocolVersion,
        decision: EraDecision,
    ) -> Result<(), UsageError> {
        self.state = State::Initializing;
        self.era = None;
        self.pending_decision = Some(decision);
        let params = legacy::initialize_params(&version, &self.config.features, &self.client_info);
        self.version = Some(version);
        self.start_call(
            now,
            "initialize",
            params.into(),
            self.handshake_opts(),
            CallKind::Initialize,
        )?;
        Ok(())
    }

    #[cold]
    pub(super) fn on_discover(&mut self, now: Instant, key: i64, raw: Box<RawValue>) {
        let parsed: Result<DiscoverResult, _> = serde_json::from_str(raw.get());
        let d = match parsed {
            Ok(d) => d,
            Err(e) => {
                self.remove_call(key);
                self.connect_failed(ConnectError::Request(RequestError::Peer(
                    PeerMisbehaved::InvalidResult {
                        method: "server/discover".into(),
                        reason: e.to_string(),
                    },
                )));
                return;
            }
        };
        let prefs = self.config.era.versions();
        match era::best_mutual(&prefs, &d.supported_versions) {
            Some(v) if v.era() == Some(Era::Modern) => {
                self.remove_call(key);
                self.server.info = d.meta.server_info().ok().flatten();
                self.server.capabilities = Some(d.capabilities);
                self.server.capabilities_raw = raw_capabilities(&raw);
                self.server.instructions = d.instructions;
                self.store_discover(now, raw);
                self.version = Some(v);
                self.become_ready(now, Era::Modern, EraDecision::Discover);
            }
            Some(v) => {
                self.remove_call(key);
                self.restart_legacy(now, v, EraDecision::Discover);
            }
            None => {
                self.remove_call(key);
                self.connect_failed(ConnectError::NoMutualVersion {
                    server: d.supported_versions,
                });
            }
        }
    }

    /// The answer to the background `server/discover` (a cached era): the
    /// server's facts, now known. The era stays as decided.
    #[cold]
    pub(super) fn on_facts(&mut self, now: Instant, key: i64, raw: Box<RawValue>) {
        self.remove_call(key);
        self.facts_call = None;
        match serde_json::from_str::<DiscoverResult>(raw.get()) {
            Ok(d) => {
                self.server.info = d.meta.server_info().ok().flatten();
                self.server.capabilities = Some(d.capabilities);
                self.server.capabilities_raw = raw_capabilities(&raw);
                self.server.instructions = d.instructions;
                self.store_discover(now, raw);
                self.events.push_back(Event::ServerFactsKnown);
            }
            Err(e) => {
                self.events
                    .push_back(Event::ProtocolViolation(PeerMisbehaved::InvalidResult {
                        method: "server/discover".into(),
                        reason: e.to_string(),
                    }))
            }
        }
    }

    fn store_discover(&mut self, now: Instant, raw: Box<RawValue>) {
        let head: wire::ResultHead = serde_json::from_str(raw.get()).unwrap_or_default();
        if self.config.cache_entries > 0 {
            self.cache.insert(
                now,
                "server/discover",
                &crate::params::Params::default(),
                &self.principal,
                head.ttl_ms,
                crate::cache::CacheScope::effective(head.cache_scope.as_deref()),
                raw.clone().into(),
            );
            self.arm_cache_timer();
        }
        self.server.discover = Some(raw);
    }

    pub(super) fn on_probe_error(&mut self, now: Instant, key: i64, error: &ErrorObject) {
        let retried = self.calls.get(key).is_some_and(|c| c.version_retried);
        let verdict = era::classify_probe_error(error);
        self.decide_after_probe(now, key, verdict, retried, EraDecision::FallbackOnError);
    }

    pub(super) fn decide_after_probe(
        &mut self,
        now: Instant,
        key: i64,
        verdict: ProbeVerdict,
        retried: bool,
        fallback: EraDecision,
    ) {
        let prefs = self.config.era.versions();
        match verdict {
            ProbeVerdict::Modern { supported } if supported.is_empty() => {
                // A modern server refused the probe for another reason: stay modern.
                self.remove_call(key);
                self.become_ready(now, Era::Modern, EraDecision::ModernError);
            }
            ProbeVerdict::Modern { supported } => match era::best_mutual(&prefs, &supported) {
                Some(v) if v.era() == Some(Era::Modern) && !retried => {
                    self.version = Some(v);
                    if let Some(c) = self.calls.get_mut(key) {
                        c.version_retried = true;
                    }
                    self.send_main(now, key);
                }
                Some(v) if v.era() == Some(Era::Legacy) => {
                    self.remove_call(key);
                    self.restart_legacy(now, v, EraDecision::ModernError);
                }
                _ => {
                    self.remove_call(key);
                    self.connect_failed(ConnectError::NoMutualVersion { server: supported });
                }
            },
            ProbeVerdict::Legacy => {
                self.remove_call(key);
                match prefs.into_iter().find(|v| v.era() == Some(Era::Legacy)) {
                    Some(v) => self.restart_legacy(now, v, fallback),
                    None => self.connect_failed(ConnectError::LegacyServer),
                }
            }
        }
    }

    /// The stdio probe got no answer in time: a legacy server (one
    /// that ignores an unknown method without an answer). Only
    /// armed when a legacy version is acceptable; without one, silence
    /// decides nothing and the probe runs to the request timeout.
    pub(super) fn on_probe_silence(&mut self, now: Instant) {
        if !accepts_legacy(&self.config) {
            return;
        }
        let probe = self
            .calls
            .iter()
            .find(|(_, c)| matches!(c.kind, CallKind::Probe))
            .map(|(k, _)| k);
        if let Some(key) = probe {
            self.decide_after_probe(
                now,
                key,
                ProbeVerdict::Legacy,
                true,
                EraDecision::FallbackOnSilence,
            );
        }
    }

    fn restart_legacy(&mut self, now: Instant, version: ProtocolVersion, decision: EraDecision) {
        if self.start_initialize(now, version, decision).is_err() {
            self.connect_failed(ConnectError::Request(RequestError::Closed));
        }
    }

    #[cold]
    pub(super) fn on_initialize(&mut self, now: Instant, key: i64, raw: &RawValue) {
        self.remove_call(key);
        let init: InitializeResult = match serde_json::from_str(raw.get()) {
            Ok(i) => i,
            Err(e) => {
                self.connect_failed(ConnectError::Request(RequestError::Peer(
                    PeerMisbehaved::InvalidResult {
                        method: "initialize".into(),
                        reason: e.to_string(),
                    },
                )));
                return;
            }
        };
        let prefs = self.config.era.versions();
        let v = init.protocol_version;
        if v.era() != Some(Era::Legacy) || !prefs.contains(&v) {
            self.events.push_back(Event::ProtocolViolation(
                PeerMisbehaved::UnsupportedVersion(v.clone()),
            ));
            self.connect_failed(ConnectError::UnsupportedVersion(v));
            return;
        }
        self.server.capabilities = Some(init.capabilities);
        self.server.capabilities_raw = raw_capabilities(raw);
        self.server.info = Some(init.server_info);
        self.server.instructions = init.instructions;
        self.version = Some(v);
        self.era = Some(Era::Legacy);
        self.send_notification("notifications/initialized", None);
        let decision = self
            .pending_decision
            .take()
            .unwrap_or(EraDecision::Configured);
        self.become_ready(now, Era::Legacy, decision);
    }

    pub(super) fn on_initialize_error(&mut self, now: Instant, key: i64, error: ErrorObject) {
        let retried = self.calls.get(key).is_some_and(|c| c.version_retried);
        let supported = era::supported_versions(&error);
        let prefs: Vec<ProtocolVersion> = self
            .config
            .era
            .versions()
            .into_iter()
            .filter(|v| v.era() == Some(Era::Legacy))
            .collect();
        let current = self.version.clone();
        match era::best_mutual(&prefs, &supported) {
            Some(v)
                if error.code == ErrorCode::INVALID_PARAMS
                    && !retried
                    && Some(&v) != current.as_ref() =>
            {
                let params =
                    legacy::initialize_params(&v, &self.config.features, &self.client_info);
                self.version = Some(v);
                if let Some(c) = self.calls.get_mut(key) {
                    c.version_retried = true;
                    c.params = params.into();
                }
                self.send_main(now, key);
            }
            _ => {
                self.remove_call(key);
                self.connect_failed(ConnectError::Request(RequestError::Remote(error)));
            }
        }
    }

    pub(super) fn become_ready(&mut self, now: Instant, era: Era, decision: EraDecision) {
        let Some(version) = self.version.clone() else {
            return;
        };
        self.era = Some(era);
        self.state = State::Ready;
        self.handshake_trace = None;
        let recovered = std::mem::take(&mut self.recovering);
        let outcome = EraOutcome {
            version: version.clone(),
            era,
            decided_by: decision,
        };
        self.outcome = Some(outcome.clone());
        self.events.push_back(Event::EraDecided(outcome));
        self.events.push_back(Event::Connected { version, era });
        if era == Era::Legacy {
            self.open_stream_on_ready(now);
        }
        if recovered {
            self.restore_session(now);
        }
        let parked = std::mem::take(&mut self.parked);
        for key in parked {
            self.send_main(now, key);
        }
    }

    /// Replaces an expired 2025-11-25 session with a fresh `initialize` at
    /// the negotiated version; nothing happens when no legacy session is
    /// ready (a recovery already under way, or another era).
    pub(super) fn recover_session(&mut self, now: Instant) {
        if self.state != State::Ready || self.era != Some(Era::Legacy) {
            return;
        }
        let Some(version) = self.version.clone() else {
            return;
        };
        self.events.push_back(Event::SessionExpired);
        // The GET stream belonged to the old session.
        self.drop_stream(None);
        // Server request ids are per session: the old session's requests
        // can no longer be answered, and their ids may be reused.
        self.server_requests.clear();
        // So are the callback tasks served to it.
        self.forget_served_tasks();
        let decision = self
            .outcome
            .as_ref()
            .map_or(EraDecision::Configured, |o| o.decided_by);
        self.recovering = true;
        if self.start_initialize(now, version, decision).is_err() {
            // Only a closed connection or unserializable params get here.
            self.recovering = false;
            self.connect_failed(ConnectError::Request(RequestError::Closed));
        }
    }

    /// The lifecycle failed: report and close.
    pub(super) fn connect_failed(&mut self, error: ConnectError) {
        if self.state == State::Closed {
            self.events.push_back(Event::ConnectFailed(error));
            return;
        }
        self.events.push_back(Event::ConnectFailed(error));
        self.shut_down(|| RequestError::Closed);
    }

    /// HTTP answers to the probe that decide nothing (401/403, timeouts)
    /// fail the connect without a downgrade.
    pub(super) fn probe_undecided(&mut self, key: i64, error: RequestError) {
        self.remove_call(key);
        self.connect_failed(ConnectError::Request(error));
    }

    pub(super) fn is_http(&self) -> bool {
        self.config.transport == TransportKind::Http
    }
}

/// Whether the preferences hold any legacy (2025-11-25 era) version. A
/// function of the configuration alone, so that it can be asked while a
/// call's record is borrowed.
pub(super) fn accepts_legacy(config: &Config) -> bool {
    config
        .era
        .versions()
        .iter()
        .any(|v| v.era() == Some(Era::Legacy))
}
