//! Subscriptions: modern subscriptions/listen and legacy resources/subscribe.

mod common;

use common::*;
use mcp_core::{
    Event, PeerMisbehaved, RequestError, RequestOptions, SubscriptionEnd, Transmit, TransportKind,
    UsageError,
};
use mcp_types::incoming::ServerNotification;
use serde_json::json;

fn ack(id: &serde_json::Value) -> serde_json::Value {
    json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
           "params": {"notifications": {"toolsListChanged": true}, "_meta": {"io.modelcontextprotocol/subscriptionId": id}}})
}

fn changed(id: &serde_json::Value) -> serde_json::Value {
    json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
           "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": id}}})
}

#[test]
fn listen_ack_first_and_routing() {
    let mut h = modern(config());
    let a = h
        .conn
        .listen(
            h.now,
            json!({"toolsListChanged": true}),
            RequestOptions::default(),
        )
        .unwrap();
    let la = h.drain().remove(0);
    let b = h
        .conn
        .listen(
            h.now,
            json!({"resourcesListChanged": true}),
            RequestOptions::default(),
        )
        .unwrap();
    let lb = h.drain().remove(0);
    assert_ne!(la["id"], lb["id"]);
    h.feed(ack(&la["id"]));
    h.feed(changed(&la["id"]));
    h.feed(ack(&lb["id"]));
    assert!(
        h.conn
            .poll_timeout()
            .is_none_or(|t| t.1 == mcp_core::Timer::CacheExpiry),
        "no deadline on an acknowledged listen"
    );
    // A string id equal to the numeric listen id routes too.
    h.feed(changed(&json!(lb["id"].to_string())));
    let events = h.take_events();
    assert!(matches!(&events[0], Event::SubscriptionAcknowledged { id, .. } if *id == a));
    assert!(
        matches!(&events[1], Event::SubscriptionNotification { id, notification: ServerNotification::ToolListChanged(_) } if *id == a)
    );
    assert!(matches!(&events[2], Event::SubscriptionAcknowledged { id, .. } if *id == b));
    assert!(matches!(&events[3], Event::SubscriptionNotification { id, .. } if *id == b));
    // End by result, by server cancel, by client cancel.
    h.reply(&la, json!({"resultType": "complete", "_meta": {"io.modelcontextprotocol/subscriptionId": la["id"]}}));
    h.feed(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": lb["id"]}}));
    let events = h.take_events();
    assert!(
        matches!(&events[0], Event::SubscriptionEnded { id, reason: SubscriptionEnd::Completed } if *id == a)
    );
    assert!(
        matches!(&events[1], Event::SubscriptionEnded { id, reason: SubscriptionEnd::ServerCancelled } if *id == b)
    );
    let c = h
        .conn
        .listen(h.now, json!({}), RequestOptions::default())
        .unwrap();
    h.drain();
    h.conn.cancel(h.now, &c).unwrap();
    let sent = h.drain();
    assert_eq!(sent[0]["method"], "notifications/cancelled");
    assert!(matches!(
        &h.take_events()[0],
        Event::SubscriptionEnded {
            reason: SubscriptionEnd::Cancelled,
            ..
        }
    ));
    insta::assert_snapshot!("listen", h.transcript());
}

#[test]
fn notification_before_ack_is_a_protocol_error() {
    let mut h = modern(config());
    h.conn
        .listen(
            h.now,
            json!({"toolsListChanged": true}),
            RequestOptions::default(),
        )
        .unwrap();
    let l = h.drain().remove(0);
    h.feed(changed(&l["id"]));
    let sent = h.drain();
    assert_eq!(sent[0]["method"], "notifications/cancelled");
    let events = h.take_events();
    assert!(matches!(
        &events[0],
        Event::SubscriptionEnded {
            reason: SubscriptionEnd::Failed(RequestError::Peer(
                PeerMisbehaved::NotificationBeforeAck { .. }
            )),
            ..
        }
    ));
}

#[test]
fn listen_over_http_is_long_lived_and_cancel_closes_the_stream() {
    let mut h = modern(config().with_transport(TransportKind::Http));
    let id = h
        .conn
        .listen(h.now, json!({}), RequestOptions::default())
        .unwrap();
    let Transmit::Message { routing, .. } = h.conn.poll_transmit().unwrap() else {
        panic!()
    };
    assert!(routing.long_lived);
    assert_eq!(routing.method.as_deref(), Some("subscriptions/listen"));
    h.conn.handle_stream_closed(h.now, &id);
    assert!(matches!(
        &h.take_events()[0],
        Event::SubscriptionEnded {
            reason: SubscriptionEnd::Failed(RequestError::TransportClosed),
            ..
        }
    ));
}

#[test]
fn listen_invalidates_the_cache() {
    let mut h = modern(config());
    h.conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    let r = h.drain().remove(0);
    h.reply(
        &r,
        json!({"tools": [], "ttlMs": 60000, "cacheScope": "public"}),
    );
    h.conn
        .listen(
            h.now,
            json!({"toolsListChanged": true}),
            RequestOptions::default(),
        )
        .unwrap();
    let l = h.drain().remove(0);
    h.feed(ack(&l["id"]));
    h.feed(changed(&l["id"]));
    h.conn
        .send_request(h.now, "tools/list", None, RequestOptions::default())
        .unwrap();
    assert_eq!(h.drain().len(), 1);
}

#[test]
fn legacy_subscribe_and_unsolicited_list_changed() {
    let mut h = legacy(config());
    assert!(matches!(
        h.conn.listen(h.now, json!({}), RequestOptions::default()),
        Err(UsageError::WrongEra { .. })
    ));
    h.conn
        .send_request(
            h.now,
            "resources/subscribe",
            Some(json!({"uri": "file:///x"})),
            RequestOptions::default(),
        )
        .unwrap();
    let s = h.drain().remove(0);
    h.reply(&s, json!({}));
    h.feed(json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "file:///x"}}));
    h.feed(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}));
    let events = h.take_events();
    assert!(matches!(&events[0], Event::Response(_)));
    assert!(
        matches!(&events[1], Event::Notification(ServerNotification::ResourceUpdated(u)) if u.uri.as_deref() == Some("file:///x"))
    );
    assert!(matches!(
        &events[2],
        Event::Notification(ServerNotification::ToolListChanged(_))
    ));
    h.conn
        .send_request(
            h.now,
            "resources/unsubscribe",
            Some(json!({"uri": "file:///x"})),
            RequestOptions::default(),
        )
        .unwrap();
    assert_eq!(h.drain()[0]["method"], "resources/unsubscribe");
}

#[test]
fn modern_server_requests_are_violations() {
    let mut h = modern(config());
    h.feed(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
    assert!(h.drain().is_empty(), "modern clients never send responses");
    assert!(matches!(
        &h.take_events()[0],
        Event::ProtocolViolation(PeerMisbehaved::UnexpectedRequest { .. })
    ));
}

/// Issue 14, item 8: a subscription's acknowledgement is awaited within the
/// request deadline (a server that never acknowledges does not leave it
/// pending forever); once acknowledged, the stream has no deadline by
/// design.
#[test]
fn the_acknowledgement_is_bounded_and_the_stream_is_not() {
    let cfg = config().with_request_timeout(Some(std::time::Duration::from_secs(10)));
    let mut h = modern(cfg);
    let silent = h
        .conn
        .listen(h.now, json!({}), RequestOptions::default())
        .unwrap();
    let acked = h
        .conn
        .listen(h.now, json!({}), RequestOptions::default())
        .unwrap();
    let sent = h.drain();
    h.feed(ack(&sent[1]["id"]));
    h.advance(std::time::Duration::from_secs(10));
    let events = h.take_events();
    assert!(
        events.iter().any(|e| matches!(e, Event::SubscriptionEnded { id, reason: SubscriptionEnd::Failed(RequestError::Timeout(_)) } if *id == silent)),
        "{events:?}"
    );
    h.advance(std::time::Duration::from_secs(3600));
    let events = h.take_events();
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::SubscriptionEnded { id, .. } if *id == acked)),
        "{events:?}"
    );
}
