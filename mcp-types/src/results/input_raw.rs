//! The input requests of an `InputRequiredResult` as they arrived: each
//! with its key, method and raw params, left undecoded until whoever serves
//! it decodes them once with its own type ([`RawInputRequest::decode`] for
//! the typed [`InputRequest`]).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::InputRequest;
use crate::methods::facts::{self, MethodFacts};

/// One embedded request of an `InputRequiredResult` (or of a task waiting
/// for input), params kept raw.
///
/// ```
/// use mcp_types::results::{InputRequest, RawInputRequired};
/// let raw = serde_json::value::RawValue::from_string(
///     r#"{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}},"requestState":"s1"}"#.into(),
/// ).unwrap();
/// let round = RawInputRequired::from_raw(&raw).unwrap();
/// assert_eq!(round.requests[0].key, "r");
/// assert!(matches!(round.requests[0].decode().unwrap(), InputRequest::ListRoots(_)));
/// assert_eq!(round.request_state.unwrap().get(), r#""s1""#);
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RawInputRequest {
    /// The server-chosen key; the answer goes under the same key.
    pub key: String,
    /// The method (`elicitation/create`, `sampling/createMessage`,
    /// `roots/list`, or one this crate does not know).
    pub method: String,
    /// The params as sent, if any.
    pub params: Option<Box<RawValue>>,
}

impl RawInputRequest {
    /// An input request under `key`.
    pub fn new(
        key: impl Into<String>,
        method: impl Into<String>,
        params: Option<Box<RawValue>>,
    ) -> Self {
        RawInputRequest {
            key: key.into(),
            method: method.into(),
            params,
        }
    }

    /// Decodes the params with the method's type.
    ///
    /// # Errors
    /// When a known method's params do not have its shape.
    pub fn decode(&self) -> Result<InputRequest, serde_json::Error> {
        // A known method's params are read from their text in one parse
        // (not into a `Value` first and then again out of it); only an
        // unknown method's are kept as a `Value`.
        let text = self.params.as_deref().map_or("{}", RawValue::get);
        Ok(match self.method.as_str() {
            "sampling/createMessage" => InputRequest::CreateMessage(serde_json::from_str(text)?),
            "elicitation/create" => InputRequest::Elicit(serde_json::from_str(text)?),
            "roots/list" => InputRequest::ListRoots(serde_json::from_str(text)?),
            _ => InputRequest::Unknown {
                method: self.method.clone(),
                params: self
                    .params
                    .as_deref()
                    .map(|p| serde_json::from_str(p.get()))
                    .transpose()?,
            },
        })
    }

    /// What is known about the method, if it is known.
    pub fn facts(&self) -> Option<&'static MethodFacts> {
        facts::lookup(&self.method)
    }
}

/// The members of an `InputRequiredResult` a client acts on, read without
/// decoding any input request's params.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct RawInputRequired {
    /// The input requests, in key order.
    pub requests: Vec<RawInputRequest>,
    /// `requestState`, as the raw JSON token to echo byte for byte.
    pub request_state: Option<Box<RawValue>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Wire {
    #[serde(default)]
    input_requests: Option<BTreeMap<String, WireRequest>>,
    #[serde(default)]
    request_state: Option<Box<RawValue>>,
}

#[derive(Deserialize)]
struct WireRequest {
    method: String,
    #[serde(default)]
    params: Option<Box<RawValue>>,
}

impl RawInputRequired {
    /// Reads an `InputRequiredResult` (or any object with
    /// `inputRequests`/`requestState`).
    ///
    /// # Errors
    /// When the result is not an object, or an input request has no
    /// string `method`.
    pub fn from_raw(raw: &RawValue) -> Result<Self, serde_json::Error> {
        if !raw.get().trim_start().starts_with('{') {
            // serde would read a struct from an array too.
            return Err(serde::de::Error::custom(
                "an InputRequiredResult must be a JSON object",
            ));
        }
        let w: Wire = serde_json::from_str(raw.get())?;
        Ok(RawInputRequired {
            requests: RawInputRequired::keyed(w.input_requests.unwrap_or_default()),
            request_state: w.request_state,
        })
    }

    /// Reads an `inputRequests` map alone (a task waiting for input carries
    /// one), in key order.
    ///
    /// # Errors
    /// When it is not an object of `{method, params?}` objects.
    pub fn requests_from_raw(raw: &RawValue) -> Result<Vec<RawInputRequest>, serde_json::Error> {
        let map: BTreeMap<String, WireRequest> = serde_json::from_str(raw.get())?;
        Ok(RawInputRequired::keyed(map))
    }

    fn keyed(map: BTreeMap<String, WireRequest>) -> Vec<RawInputRequest> {
        map.into_iter()
            .map(|(key, r)| RawInputRequest::new(key, r.method, r.params))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    #[test]
    fn params_stay_raw_until_decoded_and_bad_ones_fail_there() {
        let round = RawInputRequired::from_raw(&raw(
            r#"{"inputRequests":{"b":{"method":"sampling/createMessage","params":{"maxTokens":"x"}},"a":{"method":"x/y","params":{"k":1}}}}"#,
        ))
        .unwrap();
        let keys: Vec<&str> = round.requests.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["a", "b"]);
        assert!(round.request_state.is_none());
        assert!(
            matches!(round.requests[0].decode().unwrap(), InputRequest::Unknown { method, .. } if method == "x/y")
        );
        assert!(round.requests[0].facts().is_none());
        assert!(round.requests[1].decode().is_err());
        assert_eq!(
            round.requests[1].facts().unwrap().name,
            "sampling/createMessage"
        );
    }

    #[test]
    fn a_request_without_a_method_is_refused() {
        assert!(RawInputRequired::from_raw(&raw(r#"{"inputRequests":{"a":{}}}"#)).is_err());
        assert!(RawInputRequired::from_raw(&raw("[]")).is_err());
        let tasks =
            RawInputRequired::requests_from_raw(&raw(r#"{"k":{"method":"roots/list"}}"#)).unwrap();
        assert_eq!(tasks[0].method, "roots/list");
    }
}
