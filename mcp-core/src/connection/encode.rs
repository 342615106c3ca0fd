//! Encoding a request once: the JSON-RPC envelope, its params with the
//! `_meta` and retry extras merged in, and the HTTP routing data.

use mcp_types::ProtocolVersion;
use mcp_types::routing::HttpRouting;
use mcp_types::{Era, RequestId};
use serde::Serialize;
use serde_json::Map;
use serde_json::value::RawValue;
use std::borrow::Cow;

use super::{CallKind, Connection};
use crate::config::TransportKind;
use crate::lifecycle::modern;
use crate::mrtr::RetryExtras;
use crate::params::Params;

/// How many sent buffers [`Connection::recycle`] keeps: as many as a
/// client has requests in flight at once, often (over HTTP every POST's
/// buffer comes back when it ends).
const SPARE_BUFFERS: usize = 32;

/// The largest buffer [`Connection::recycle`] keeps (a larger one held a
/// big request; keeping it would pin its memory)...
const SPARE_CAPACITY: usize = 16 * 1024;

/// ...for the first few kept; the others are kept up to this size (a
/// typical request's): at most some 120 KiB are kept in all.
const SPARE_CAPACITY_MORE: usize = 2 * 1024;

/// How many spare buffers may be up to [`SPARE_CAPACITY`].
const SPARE_LARGE: usize = 4;

/// A request's params: the caller's members, then the retry extras and the
/// `_meta`, which replace caller members of the same names.
pub(super) struct OutParams<'a> {
    pub(super) base: &'a Params,
    pub(super) extras: &'a RetryExtras,
    pub(super) meta: Option<OutMeta<'a>>,
}

/// A request's `_meta`: serialized from its parts, or, when the request
/// adds nothing of its own, the connection's `plain_meta` rendered once
/// (the same bytes: it was rendered from the same parts).
pub(super) enum OutMeta<'a> {
    Parts(modern::RequestMeta<'a>),
    Rendered(&'a RawValue),
}

impl Serialize for OutMeta<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            OutMeta::Parts(meta) => meta.serialize(s),
            OutMeta::Rendered(raw) => raw.serialize(s),
        }
    }
}

impl OutParams<'_> {
    /// The members written from the request's `_meta` and retry extras,
    /// never from its params.
    pub(super) fn is_reserved(key: &str) -> bool {
        matches!(key, "_meta" | "inputResponses" | "requestState")
    }
}

impl OutParams<'_> {
    /// Appends the params object to `out`: the bytes serde writes for the
    /// same map, with the member names this module knows written as
    /// literals (a tool call's `name` and `arguments` too), not through
    /// the string escaper.
    fn write(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        let mut first = true;
        match self.base {
            Params::Tool(call) => {
                separate(out, &mut first);
                out.extend_from_slice(br#""name":"#);
                mcp_types::raw::write_string(out, call.name());
                out.extend_from_slice(br#","arguments":"#);
                out.extend_from_slice(call.arguments().as_bytes());
            }
            Params::Map(members) => {
                for (k, v) in members {
                    if !OutParams::is_reserved(k) {
                        separate(out, &mut first);
                        serde_json::to_writer(&mut *out, k)?;
                        out.push(b':');
                        serde_json::to_writer(&mut *out, v)?;
                    }
                }
            }
        }
        if let Some(r) = &self.extras.input_responses {
            member(out, &mut first, br#""inputResponses":"#, r)?;
        }
        if let Some(state) = &self.extras.request_state {
            member(out, &mut first, br#""requestState":"#, state)?;
        }
        if let Some(meta) = &self.meta {
            member(out, &mut first, br#""_meta":"#, meta)?;
        }
        if first {
            out.push(b'{');
        }
        out.push(b'}');
        Ok(())
    }
}

/// Opens the object before its first member, separates any later one.
fn separate(out: &mut Vec<u8>, first: &mut bool) {
    out.push(if *first { b'{' } else { b',' });
    *first = false;
}

/// Appends a member whose quoted name and colon are `name`.
fn member<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    first: &mut bool,
    name: &[u8],
    value: &T,
) -> Result<(), serde_json::Error> {
    separate(out, first);
    out.extend_from_slice(name);
    serde_json::to_writer(&mut *out, value)
}

/// A JSON-RPC request, written straight from borrowed parts.
pub(super) struct OutRequest<'a> {
    pub(super) id: i64,
    pub(super) method: &'a str,
    pub(super) params: Option<OutParams<'a>>,
}

impl OutRequest<'_> {
    /// Appends the request to `out`: the envelope's fixed members as
    /// literal bytes (the same text serde writes for them, without a
    /// serializer call per key), the method and params through serde.
    pub(super) fn write(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        serde_json::to_writer(&mut *out, &self.id)?;
        out.extend_from_slice(br#","method":"#);
        mcp_types::raw::write_string(out, self.method);
        if let Some(params) = &self.params {
            out.extend_from_slice(br#","params":"#);
            params.write(out)?;
        }
        out.push(b'}');
        Ok(())
    }
}

impl Connection {
    /// Renders the `_meta` of a 2026-07-28 request that adds no members of
    /// its own, once per negotiated version: every such request of the
    /// connection carries the same one. Only once the era is 2026-07-28:
    /// a 2025-11-25 request carries none (a probe, before the era is
    /// known, renders its own).
    #[inline]
    pub(super) fn render_plain_meta(&mut self) {
        if self.era != Some(Era::Modern) {
            return;
        }
        let Some(version) = &self.version else {
            return;
        };
        if matches!(&self.plain_meta, Some((v, _)) if v == version) {
            return;
        }
        self.render_plain_meta_anew();
    }

    /// [`Connection::render_plain_meta`] when the version changed (once a
    /// connection, nearly always: out of line).
    #[cold]
    #[inline(never)]
    fn render_plain_meta_anew(&mut self) {
        let Some(version) = &self.version else {
            return;
        };
        let meta = modern::RequestMeta {
            user: &Map::new(),
            progress_token: None,
            modern: Some(self.modern_meta(version, self.config.log_level.as_deref())),
        };
        self.plain_meta = serde_json::value::to_raw_value(&meta)
            .ok()
            .map(|raw| (version.clone(), raw));
    }

    /// Sets the log level every later 2026-07-28 request asks for
    /// (`io.modelcontextprotocol/logLevel`; `None`: none), as
    /// [`Config::with_log_level`](crate::Config::with_log_level) does at the
    /// start. A request whose own `_meta` names a level keeps its own.
    pub fn set_log_level(&mut self, level: Option<String>) {
        self.promote_quick();
        if self.config.log_level != level {
            self.config.log_level = level;
            // Rendered again, with the new level, by the next request.
            self.plain_meta = None;
        }
    }

    pub(super) fn modern_meta<'a>(
        &'a self,
        version: &'a ProtocolVersion,
        log_level: Option<&'a str>,
    ) -> modern::ModernMeta<'a> {
        modern::ModernMeta {
            version,
            capabilities: &self.modern_capabilities,
            client_info: &self.client_info,
            log_level,
        }
    }

    /// Hands back the bytes of a [`Transmit::Message`] once the transport
    /// has copied them (a byte stream's write buffer does): a later request
    /// is encoded into the same buffer instead of a new one. Optional; a
    /// large buffer is dropped, and only so many are kept.
    ///
    /// [`Transmit::Message`]: crate::Transmit::Message
    #[inline]
    pub fn recycle(&mut self, mut bytes: Vec<u8>) {
        let kept = self.spare_buffers.len();
        let limit = match kept < SPARE_LARGE {
            true => SPARE_CAPACITY,
            false => SPARE_CAPACITY_MORE,
        };
        if kept < SPARE_BUFFERS && bytes.capacity() <= limit {
            bytes.clear();
            self.spare_buffers.push(bytes);
        }
    }

    /// A buffer to encode a request into: a recycled one, or a new one
    /// sized for a typical request with its `_meta` (no regrowth).
    pub(super) fn encode_buffer(&mut self) -> Vec<u8> {
        self.spare_buffers
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(512))
    }

    /// The `Mcp-Param-*` values of a tool call whose tool's listing
    /// annotated some (`x-mcp-header`). Out of line: most tools have none.
    #[inline(never)]
    fn param_headers(&self, params: &crate::params::Params) -> Vec<(String, String)> {
        let tool = params.get_str("name").unwrap_or("");
        match self.tools.get(tool) {
            Some(b) => b.derive(params.arguments().as_deref()),
            None => Vec::new(),
        }
    }

    /// A request's `_meta` (`modern`: it carries 2026-07-28's members):
    /// the connection's `plain_meta`, rendered once, when the request adds
    /// nothing of its own (no `user` members, no progress token), or else
    /// serialized from its parts; `None` when it has none.
    pub(super) fn out_meta<'a>(
        &'a self,
        modern: bool,
        user: &'a Map<String, serde_json::Value>,
        progress_token: Option<i64>,
    ) -> Option<OutMeta<'a>> {
        let version = self.version.as_ref().filter(|_| modern);
        let adds_nothing = user.is_empty() && progress_token.is_none();
        match (version, &self.plain_meta) {
            (Some(v), Some((rendered_for, raw))) if adds_nothing && rendered_for == v => {
                Some(OutMeta::Rendered(raw))
            }
            _ => {
                let meta = modern::RequestMeta {
                    user,
                    progress_token,
                    modern: version.map(|v| self.modern_meta(v, self.config.log_level.as_deref())),
                };
                (!meta.is_empty()).then_some(OutMeta::Parts(meta))
            }
        }
    }

    /// Encodes the main request of call `key` with wire id `id` into
    /// `bytes` (empty; from [`Connection::encode_buffer`]).
    pub(super) fn encode_call(
        &mut self,
        id: i64,
        key: i64,
        mut bytes: Vec<u8>,
    ) -> Result<(Vec<u8>, HttpRouting), serde_json::Error> {
        let c = self
            .calls
            .get(key)
            .ok_or_else(|| serde::ser::Error::custom("call vanished while encoding"))?;
        let modern = self.era == Some(Era::Modern) || matches!(c.kind, CallKind::Probe);
        let version = self.version.as_ref();
        let meta = self.out_meta(modern, &c.opts.meta, c.opts.progress.then_some(key));
        let has_params = !c.params.is_empty() || meta.is_some() || c.extras().is_retry();
        let out = OutRequest {
            id,
            method: &c.method,
            params: has_params.then_some(OutParams {
                base: &c.params,
                extras: c.extras(),
                meta,
            }),
        };
        out.write(&mut bytes)?;
        let mut routing = match (version, matches!(c.kind, CallKind::Initialize)) {
            (Some(v), false) => HttpRouting::new(v.clone()),
            _ => HttpRouting::default(),
        };
        // Set in place: the builder would move the whole routing twice.
        routing.request_id = Some(RequestId::Number(id));
        // The 2026-07-28 headers travel over HTTP only: a byte stream
        // ignores them, so it does not pay for them on every request.
        let http = self.config.transport == TransportKind::Http;
        if modern && http {
            // A known method's name is static: borrowed again, not cloned
            // through `Cow`'s out-of-line clone.
            routing = routing.with_method(match &c.method {
                Cow::Borrowed(name) => Cow::Borrowed(*name),
                Cow::Owned(name) => Cow::Owned(name.clone()),
            });
            if let Some(name) = crate::headers::mcp_name(&c.method, c.facts, &c.params) {
                routing.name = Some(self.names.value(name));
            }
            if c.method == "tools/call" && !self.tools.is_empty() {
                routing.params = self.param_headers(&c.params);
            }
        }
        if matches!(c.kind, CallKind::Listen { .. }) {
            routing = routing.long_lived();
        }
        Ok((bytes, routing))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// The params as serde writes the map they stand for.
    fn by_serde(members: Value) -> String {
        serde_json::to_string(&members).unwrap()
    }

    fn written(base: &Params, extras: &RetryExtras, meta: Option<OutMeta<'_>>) -> String {
        let mut out = Vec::new();
        OutParams { base, extras, meta }.write(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn params_are_the_bytes_serde_writes_for_their_map() {
        let none = RetryExtras::default();
        let raw = serde_json::value::to_raw_value(&json!({"k": "v"})).unwrap();
        assert_eq!(written(&Params::default(), &none, None), "{}");
        let rendered = Some(OutMeta::Rendered(&raw));
        assert_eq!(
            written(&Params::default(), &none, rendered),
            by_serde(json!({"_meta": {"k": "v"}}))
        );
        let args = json!({"q\"uote": ["a\n", 1.5, null], "b": {}});
        let tool = Params::Tool(crate::ToolCall::new("ec\"ho", &args).unwrap());
        assert_eq!(
            written(&tool, &none, None),
            by_serde(json!({"name": "ec\"ho", "arguments": args}))
        );
        // A caller's reserved members give way to the extras and `_meta`.
        let map = json!({"z": 1, "_meta": {"x": 1}, "a\u{1}": "é", "requestState": "old"});
        let Value::Object(map) = map else { panic!() };
        let extras = RetryExtras {
            input_responses: Some(json!({"r": {"ok": true}}).as_object().unwrap().clone()),
            request_state: Some(serde_json::value::to_raw_value("s").unwrap()),
        };
        let rendered = Some(OutMeta::Rendered(&raw));
        assert_eq!(
            written(&Params::Map(map), &extras, rendered),
            by_serde(json!({
                "z": 1, "a\u{1}": "é", "inputResponses": {"r": {"ok": true}},
                "requestState": "s", "_meta": {"k": "v"}
            }))
        );
    }

    /// As many buffers come back as requests were in flight: up to
    /// `SPARE_BUFFERS` are kept, the first few up to `SPARE_CAPACITY`, the
    /// rest only if small, and each is handed out again, emptied.
    #[test]
    fn sent_buffers_are_kept_within_bounds_and_reused() {
        let mut conn = Connection::new(crate::Config::new("t", "1"));
        for _ in 0..SPARE_LARGE {
            conn.recycle(Vec::with_capacity(SPARE_CAPACITY));
        }
        conn.recycle(Vec::with_capacity(SPARE_CAPACITY));
        assert_eq!(
            conn.spare_buffers.len(),
            SPARE_LARGE,
            "a large one past the first few goes"
        );
        for _ in 0..2 * SPARE_BUFFERS {
            conn.recycle(b"sent".to_vec());
        }
        assert_eq!(conn.spare_buffers.len(), SPARE_BUFFERS);
        conn.recycle(Vec::with_capacity(SPARE_CAPACITY + 1));
        let reused = conn.encode_buffer();
        assert!(reused.is_empty(), "handed out emptied");
        assert_eq!(conn.spare_buffers.len(), SPARE_BUFFERS - 1);
    }
}
