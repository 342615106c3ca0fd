//! Multi round-trip requests (2026-07-28).
//!
//! An `InputRequiredResult` opens a round: one [`InputRequest`] per entry
//! of `inputRequests`. When every entry has an answer the original request
//! is sent again with a fresh id, `inputResponses` and `requestState`
//! echoed byte for byte (kept as the raw JSON token, never re-encoded).
//! Each round starts empty, so no answer of an earlier round is carried
//! into a later one. [`RoundCounter`] caps the number of rounds
//! (default [`DEFAULT_MAX_ROUNDS`]).

use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// The default cap on `input_required` rounds for one call.
pub const DEFAULT_MAX_ROUNDS: u32 = 8;

/// One embedded server request of an `InputRequiredResult` (its key, its
/// method, its params raw): `mcp-types`' one declaration.
pub use mcp_types::results::RawInputRequest as InputRequest;
use mcp_types::results::RawInputRequired;

/// One round of a multi round-trip request.
#[derive(Debug)]
pub(crate) struct InputRound {
    request_state: Option<Box<RawValue>>,
    pending: Vec<String>,
    responses: Map<String, Value>,
}

impl InputRound {
    /// Opens a round from an `InputRequiredResult`; returns the round and
    /// the input requests to surface, in key order.
    ///
    /// # Errors
    /// When the result is not an `InputRequiredResult`.
    pub(crate) fn open(
        raw: &RawValue,
    ) -> Result<(InputRound, Vec<InputRequest>), serde_json::Error> {
        let RawInputRequired {
            requests,
            request_state,
            ..
        } = RawInputRequired::from_raw(raw)?;
        let round = InputRound {
            request_state,
            pending: requests.iter().map(|r| r.key.clone()).collect(),
            responses: Map::new(),
        };
        Ok((round, requests))
    }

    /// Records the answer to one input request; `false` when the key is not
    /// pending in this round.
    pub(crate) fn answer(&mut self, key: &str, response: Value) -> bool {
        let Some(pos) = self.pending.iter().position(|k| k == key) else {
            return false;
        };
        self.pending.swap_remove(pos);
        self.responses.insert(key.to_owned(), response);
        true
    }

    /// Whether every input request has an answer.
    pub(crate) fn is_complete(&self) -> bool {
        self.pending.is_empty()
    }

    /// Consumes the round into what the retry carries: `inputResponses`
    /// (absent when the server asked for none) and the raw `requestState`.
    pub(crate) fn into_retry(self) -> RetryExtras {
        RetryExtras {
            input_responses: (!self.responses.is_empty()).then_some(self.responses),
            request_state: self.request_state,
        }
    }
}

/// The members a retried request adds to its original params.
#[derive(Clone, Debug, Default)]
pub struct RetryExtras {
    /// `params.inputResponses`.
    pub input_responses: Option<Map<String, Value>>,
    /// `params.requestState`, verbatim.
    pub request_state: Option<Box<RawValue>>,
}

impl RetryExtras {
    /// The retry for a manual-mode `InputRequiredResult`: the caller's
    /// answers plus the result's `requestState`, kept byte for byte.
    ///
    /// # Errors
    /// When `result` is not an `InputRequiredResult`.
    pub fn from_input_required(
        result: &RawValue,
        input_responses: Map<String, Value>,
    ) -> Result<RetryExtras, serde_json::Error> {
        let read = RawInputRequired::from_raw(result)?;
        Ok(RetryExtras {
            input_responses: (!input_responses.is_empty()).then_some(input_responses),
            request_state: read.request_state,
        })
    }

    /// Whether this retry carries MRTR data (its result must not be cached).
    pub fn is_retry(&self) -> bool {
        self.input_responses.is_some() || self.request_state.is_some()
    }
}

/// Counts rounds against the cap.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RoundCounter {
    max: u32,
    rounds: u32,
}

impl RoundCounter {
    /// A counter with a cap.
    pub(crate) fn new(max: u32) -> Self {
        RoundCounter { max, rounds: 0 }
    }

    /// Counts one `input_required` result; `false` when the cap is reached.
    pub(crate) fn next_round(&mut self) -> bool {
        self.rounds = self.rounds.saturating_add(1);
        self.rounds <= self.max
    }

    /// Rounds counted.
    pub(crate) fn rounds(&self) -> u32 {
        self.rounds
    }
}

/// Whether a method may answer `input_required` (only
/// requests whose result the server may need input to build).
pub(crate) fn allows_input_required(method: &str) -> bool {
    mcp_types::methods::facts::allows_input_required(method)
}
