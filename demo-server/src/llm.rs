//! The LLM-server pattern: the demo server serves `sampling/createMessage`
//! sent by the client, with a deterministic fake model.
//!
//! This is the inverse of host sampling (where the server asks the client
//! to sample). Neither revision lists `sampling/createMessage` as a
//! client-to-server request, so it is an extension both sides agree on; the
//! demo serves it in both eras so clients can exercise the pattern.
//!
//! The fake model answers `"Echo: <text of the last user message>"`, cut
//! to `maxTokens` whitespace-separated words, as `demo-echo-model`, with
//! `stopReason` `maxTokens` when it cut and `endTurn` otherwise.

use serde_json::{Value, json};

use crate::support::RpcError;

/// The model name the fake model reports.
pub(crate) const MODEL: &str = "demo-echo-model";

/// Longest reply text, whatever `maxTokens` says (bytes).
const MAX_REPLY: usize = 4096;

/// Serves one `sampling/createMessage` from the client.
pub(crate) fn create_message(params: &Value) -> Result<Value, RpcError> {
    let messages = params
        .get("messages")
        .and_then(Value::as_array)
        .ok_or_else(|| RpcError::invalid_params("messages must be an array"))?;
    let max_tokens = params
        .get("maxTokens")
        .and_then(Value::as_u64)
        .ok_or_else(|| RpcError::invalid_params("maxTokens must be a non-negative integer"))?;
    let prompt = messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .map(text_of)
        .ok_or_else(|| RpcError::invalid_params("no user message to answer"))?;
    let words: Vec<&str> = std::iter::once("Echo:")
        .chain(prompt.split_whitespace())
        .collect();
    let limit = usize::try_from(max_tokens).unwrap_or(usize::MAX);
    let cut = words.len() > limit;
    let mut text = words[..words.len().min(limit)].join(" ");
    if text.len() > MAX_REPLY {
        let mut end = MAX_REPLY;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    Ok(json!({
        "role": "assistant",
        "content": { "type": "text", "text": text },
        "model": MODEL,
        "stopReason": if cut { "maxTokens" } else { "endTurn" },
    }))
}

/// The text of a message's content (one block or several).
fn text_of(message: &Value) -> String {
    let content = message.get("content");
    let blocks: Vec<&Value> = match content {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(block) => vec![block],
        None => Vec::new(),
    };
    blocks
        .iter()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(text: &str, max: u64) -> Value {
        json!({
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "ignored"}},
                {"role": "assistant", "content": {"type": "text", "text": "earlier"}},
                {"role": "user", "content": [{"type": "text", "text": text}]}
            ],
            "maxTokens": max
        })
    }

    #[test]
    fn echoes_the_last_user_message_within_max_tokens() {
        let r = create_message(&ask("hello there", 10)).expect("served");
        assert_eq!(r["content"]["text"], "Echo: hello there");
        assert_eq!(r["stopReason"], "endTurn");
        assert_eq!(r["model"], MODEL);
        let r = create_message(&ask("one two three", 2)).expect("served");
        assert_eq!(r["content"]["text"], "Echo: one");
        assert_eq!(r["stopReason"], "maxTokens");
    }

    #[test]
    fn malformed_requests_are_invalid_params() {
        for bad in [
            json!({}),
            json!({"messages": [], "maxTokens": 5}),
            json!({"messages": "x", "maxTokens": 5}),
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "a"}}]}),
        ] {
            let e = create_message(&bad).expect_err("refused");
            assert_eq!(e.error.code, mcp_types::ErrorCode::INVALID_PARAMS, "{bad}");
        }
    }
}
