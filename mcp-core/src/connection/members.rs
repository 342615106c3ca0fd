//! The members of a request's params the core looks at before it sends
//! it: the reserved ones a caller put there (`_meta`, `inputResponses`,
//! `requestState`, moved to where the core writes them from), a
//! 2025-11-25 request's `task` member. Out of line, all of it: a tool
//! call by name has no params map, and almost no request has any of these.

use serde_json::{Map, Value, json};

use super::encode::OutParams;
use crate::error::UsageError;
use crate::mrtr::RetryExtras;
use crate::params::Params;

/// Moves the reserved members a caller put in a request's params
/// (`_meta`, `inputResponses`, `requestState`) to where the core writes
/// them from. Out of line: almost no request has any.
#[inline(never)]
fn take_reserved(
    params: &mut Map<String, Value>,
    opts: &mut crate::config::RequestOptions,
    extras: &mut RetryExtras,
) -> Result<(), UsageError> {
    if let Some(Value::Object(meta)) = params.remove("_meta") {
        for (k, v) in meta {
            opts.meta.entry(k).or_insert(v);
        }
    }
    if let Some(Value::Object(r)) = params.remove("inputResponses") {
        extras
            .input_responses
            .get_or_insert_with(Map::new)
            .extend(r);
    }
    if let Some(state) = params.remove("requestState") {
        extras.request_state = Some(serde_json::value::to_raw_value(&state)?);
    }
    Ok(())
}

/// Adds a 2025-11-25 task-augmented request's `task` member (`ttl`: its
/// TTL in milliseconds, if any). Out of line: few calls ask for a task.
#[cold]
#[inline(never)]
pub(super) fn add_task_member(params: &mut Params, ttl: Option<u64>) -> Result<(), UsageError> {
    let task = ttl.map_or_else(|| json!({}), |t| json!({ "ttl": t }));
    params.as_map()?.insert("task".into(), task);
    Ok(())
}

/// Looks at a map's members for the reserved ones (moved into `opts` and
/// `extras`) and for `task`; `true` when the request is task-augmented.
/// One scan of the few keys costs less than hashed lookups, and almost no
/// request carries any of these members. Out of line: a tool call by name
/// has no map.
#[inline(never)]
pub(super) fn scan_members(
    members: &mut Map<String, Value>,
    opts: &mut crate::config::RequestOptions,
    extras: &mut Option<RetryExtras>,
) -> Result<bool, UsageError> {
    let (mut reserved, mut task_augmented) = (false, false);
    for k in members.keys() {
        reserved |= OutParams::is_reserved(k);
        task_augmented |= k == "task";
    }
    if reserved {
        take_reserved(members, opts, extras.get_or_insert_with(Default::default))?;
    }
    Ok(task_augmented)
}
