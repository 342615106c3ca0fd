//! Commands that show notifications until Ctrl-C (or `--count`): `watch`,
//! `logs`, `resources subscribe`. With `--json` each notification is one
//! JSON line `{"method": ..., "params": ...}`.
//!
//! 2025-11-25 notifications arrive through the client's notification
//! handler; 2026-07-28 list changes and resource updates through a
//! `subscriptions/listen` stream, both shown in arrival order.

use std::time::Duration;

use futures::StreamExt;
use mcp_client::{Subscription, mcp_types::Era};
use mcp_types::subscriptions::SubscriptionFilter;
use serde_json::Value;

use crate::args::LevelArg;
use crate::connect::Session;
use crate::events::Event;
use crate::exit::{CliError, Exit};
use crate::render::Out;

/// How often a stream checks that the connection is still open.
const CLOSED_CHECK: Duration = Duration::from_millis(500);

/// `logs`: set the level and show log messages.
pub(super) async fn logs(
    session: &mut Session,
    level: LevelArg,
    count: Option<u64>,
    out: &Out,
) -> Result<Exit, CliError> {
    if session.client.era() == Some(Era::Modern) {
        return Err(CliError::usage(
            "a 2026-07-28 server sends log messages only with the requests that cause them: \
             add --log-level LEVEL to the command whose logs you want",
        ));
    }
    session.client.set_log_level(super::level_of(level)).await?;
    show(session, None, count, out, |e| {
        e.method == "notifications/message"
    })
    .await
}

/// `watch`: every notification and list change.
pub(super) async fn watch(
    session: &mut Session,
    resources: &[String],
    count: Option<u64>,
    out: &Out,
) -> Result<Exit, CliError> {
    let listen = if session.client.era() == Some(Era::Modern) {
        let mut filter = SubscriptionFilter::new()
            .with_tools_list_changed()
            .with_prompts_list_changed()
            .with_resources_list_changed();
        for uri in resources {
            filter = filter.with_resource(uri.clone());
        }
        Some(session.client.listen(filter).await?)
    } else {
        for uri in resources {
            session.client.subscribe(uri).await?;
        }
        None
    };
    // Also with --json (on stderr): a script may wait for it.
    out.note("mcp: watching; Ctrl-C stops");
    show(session, listen, count, out, |_| true).await
}

/// `resources subscribe`: updates of one resource.
pub(super) async fn subscribe(
    session: &mut Session,
    uri: &str,
    count: Option<u64>,
    out: &Out,
) -> Result<Exit, CliError> {
    let listen = if session.client.era() == Some(Era::Modern) {
        let filter = SubscriptionFilter::new().with_resource(uri);
        Some(session.client.listen(filter).await?)
    } else {
        session.client.subscribe(uri).await?;
        None
    };
    // Also with --json (on stderr): a script may wait for it.
    out.note(&format!("mcp: subscribed to {uri}; Ctrl-C stops"));
    let wanted = uri.to_owned();
    show(session, listen, count, out, move |e| {
        e.method == "notifications/resources/updated"
            && e.params.get("uri").and_then(Value::as_str) == Some(wanted.as_str())
    })
    .await
}

/// Shows the events `keep` selects until `count` were shown, the stream
/// ends or the connection closes.
async fn show(
    session: &mut Session,
    mut listen: Option<Subscription>,
    count: Option<u64>,
    out: &Out,
    keep: impl Fn(&Event) -> bool,
) -> Result<Exit, CliError> {
    let mut shown = 0u64;
    let mut tick = tokio::time::interval(CLOSED_CHECK);
    while count.is_none_or(|c| shown < c) {
        let event = tokio::select! {
            e = session.events.recv() => match e {
                Some(e) => e,
                None => break,
            },
            item = next(&mut listen) => match item {
                Some(Ok(ev)) => Event {
                    params: ev.params_as::<Value>().unwrap_or(Value::Null),
                    method: ev.method,
                },
                Some(Err(e)) => return Err(e.into()),
                None => return Ok(Exit::Ok),
            },
            _ = tick.tick() => {
                if session.client.is_closed() {
                    return Err(CliError::transport("the connection closed"));
                }
                continue;
            }
        };
        if !keep(&event) {
            continue;
        }
        shown += 1;
        if out.json {
            out.json_line(&event.to_json());
        } else {
            out.line(&event.describe());
        }
    }
    Ok(Exit::Ok)
}

/// The next item of the subscription, or never when there is none.
async fn next(
    listen: &mut Option<Subscription>,
) -> Option<Result<mcp_client::SubscriptionEvent, mcp_client::Error>> {
    match listen {
        Some(s) => s.next().await,
        None => std::future::pending().await,
    }
}
