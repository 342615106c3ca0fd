//! Small helpers: errors with HTTP status hints, timestamps, cursors,
//! request-state signing and log levels.

use std::hash::{BuildHasher, Hasher};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::StatusCode;
use mcp_types::ErrorCode;
use mcp_types::jsonrpc::ErrorObject;
use serde_json::{Map, Value, json};

/// A JSON-RPC error plus the HTTP status it travels with.
#[derive(Clone, Debug)]
pub(crate) struct RpcError {
    pub(crate) error: ErrorObject,
    pub(crate) status: StatusCode,
}

impl RpcError {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> RpcError {
        RpcError {
            error: ErrorObject::new(code, message),
            status: StatusCode::OK,
        }
    }

    pub(crate) fn invalid_params(message: impl Into<String>) -> RpcError {
        RpcError::new(ErrorCode::INVALID_PARAMS, message)
    }

    pub(crate) fn method_not_found(method: &str) -> RpcError {
        RpcError::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
    }

    pub(crate) fn internal(message: impl Into<String>) -> RpcError {
        RpcError::new(ErrorCode::INTERNAL_ERROR, message)
    }

    pub(crate) fn with_status(mut self, status: StatusCode) -> RpcError {
        self.status = status;
        self
    }

    pub(crate) fn with_data(mut self, data: Value) -> RpcError {
        self.error.data = Some(data);
        self
    }
}

/// The result of handling one request.
pub(crate) type Reply = Result<Value, RpcError>;

/// Milliseconds since the Unix epoch.
pub(crate) fn now_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// An opaque cursor for an offset into a list.
pub(crate) fn encode_cursor(offset: usize) -> String {
    URL_SAFE_NO_PAD.encode(format!("offset:{offset}"))
}

/// The offset behind a cursor, or `-32602`.
pub(crate) fn decode_cursor(cursor: &str) -> Result<usize, RpcError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(cursor)
        .map_err(|_| RpcError::invalid_params("Invalid cursor"))?;
    std::str::from_utf8(&bytes)
        .ok()
        .and_then(|s| s.strip_prefix("offset:"))
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| RpcError::invalid_params("Invalid cursor"))
}

/// One page of `items` under the key `key`, with `nextCursor` when more remain.
pub(crate) fn paginate(
    items: &[Value],
    key: &str,
    params: &Value,
    page_size: usize,
) -> Result<Map<String, Value>, RpcError> {
    let start = match params.get("cursor") {
        None | Some(Value::Null) => 0,
        Some(Value::String(c)) => decode_cursor(c)?,
        Some(_) => return Err(RpcError::invalid_params("cursor must be a string")),
    };
    if start > items.len() {
        return Err(RpcError::invalid_params("Invalid cursor"));
    }
    let end = (start + page_size).min(items.len());
    let mut out = Map::new();
    out.insert(key.to_owned(), Value::Array(items[start..end].to_vec()));
    if end < items.len() {
        out.insert("nextCursor".into(), Value::String(encode_cursor(end)));
    }
    Ok(out)
}

/// Signs and verifies `requestState` blobs.
///
/// The tag is a keyed SipHash with per-process random keys: enough to make
/// tampering fail the request in a demo, not a cryptographic MAC.
pub(crate) struct Signer {
    keys: std::hash::RandomState,
}

impl Signer {
    pub(crate) fn new() -> Signer {
        Signer {
            keys: std::hash::RandomState::new(),
        }
    }

    fn tag(&self, body: &str) -> String {
        let mut h = self.keys.build_hasher();
        h.write(body.as_bytes());
        format!("{:016x}", h.finish())
    }

    /// An opaque state carrying `payload`, valid for ten minutes.
    pub(crate) fn seal(&self, payload: &Value) -> String {
        let wrapped = json!({ "exp": now_millis() + 600_000, "p": payload });
        let body = URL_SAFE_NO_PAD.encode(wrapped.to_string());
        let tag = self.tag(&body);
        format!("{body}.{tag}")
    }

    /// The payload of a state this signer sealed, or `-32602`.
    pub(crate) fn open(&self, state: &str) -> Result<Value, RpcError> {
        let bad = || RpcError::invalid_params("Invalid or expired requestState");
        let (body, tag) = state.split_once('.').ok_or_else(bad)?;
        if self.tag(body) != tag {
            return Err(bad());
        }
        let bytes = URL_SAFE_NO_PAD.decode(body).map_err(|_| bad())?;
        let wrapped: Value = serde_json::from_slice(&bytes).map_err(|_| bad())?;
        let exp = wrapped.get("exp").and_then(Value::as_u64).ok_or_else(bad)?;
        if exp < now_millis() {
            return Err(bad());
        }
        wrapped.get("p").cloned().ok_or_else(bad)
    }
}

/// RFC 5424 severities, least severe first.
pub(crate) const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// The rank of a log level name.
pub(crate) fn log_rank(level: &str) -> Option<usize> {
    LOG_LEVELS.iter().position(|l| *l == level)
}

/// `params` as an object, or `-32602`; absent params count as `{}`.
pub(crate) fn params_object(params: &Value) -> Result<&Map<String, Value>, RpcError> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    match params {
        Value::Null => Ok(EMPTY.get_or_init(Map::new)),
        Value::Object(m) => Ok(m),
        _ => Err(RpcError::invalid_params("params must be an object")),
    }
}

/// A required string member of `params`.
pub(crate) fn required_str<'a>(params: &'a Value, key: &str) -> Result<&'a str, RpcError> {
    params
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params(format!("missing string parameter {key:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_garbage() {
        assert_eq!(decode_cursor(&encode_cursor(20)).unwrap(), 20);
        assert!(decode_cursor("!!").is_err());
        assert!(decode_cursor(&URL_SAFE_NO_PAD.encode("nope")).is_err());
    }

    #[test]
    fn sealed_state_detects_tampering() {
        let s = Signer::new();
        let sealed = s.seal(&json!({"a": 1}));
        assert_eq!(s.open(&sealed).unwrap(), json!({"a": 1}));
        let mut bad = sealed.clone();
        bad.insert(0, 'x');
        assert!(s.open(&bad).is_err());
        assert!(Signer::new().open(&sealed).is_err());
    }
}
