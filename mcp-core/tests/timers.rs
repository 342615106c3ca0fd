//! The timer table: earliest deadline first, re-arming, expiry.

mod common;

use std::time::Duration;

use common::origin;
use mcp_core::timers::{Timer, TimerTable};
use mcp_types::RequestId;

#[test]
fn earliest_first_rearm_and_expiry() {
    let t0 = origin();
    let mut t = TimerTable::default();
    t.set(Timer::Probe, t0 + Duration::from_secs(5));
    t.set(
        Timer::Request(RequestId::Number(1)),
        t0 + Duration::from_secs(2),
    );
    t.set(Timer::CacheExpiry, t0 + Duration::from_secs(9));
    assert_eq!(
        t.next(),
        Some((
            t0 + Duration::from_secs(2),
            Timer::Request(RequestId::Number(1))
        ))
    );
    t.set(
        Timer::Request(RequestId::Number(1)),
        t0 + Duration::from_secs(7),
    );
    assert_eq!(t.len(), 3);
    assert_eq!(t.next().map(|n| n.1), Some(Timer::Probe));
    assert_eq!(
        t.expired(t0 + Duration::from_secs(7)),
        vec![Timer::Probe, Timer::Request(RequestId::Number(1))]
    );
    t.cancel(&Timer::CacheExpiry);
    assert!(t.is_empty());
}

fn request(n: i64) -> Timer {
    Timer::Request(RequestId::Number(n))
}

#[test]
fn stale_entries_are_skipped_and_bounded() {
    let t0 = origin();
    let mut t = TimerTable::default();
    // A long-lived timer on top, many short-lived ones cancelled out of
    // order underneath it.
    t.set(Timer::Probe, t0);
    for n in 0..10_000 {
        t.set(request(n), t0 + Duration::from_secs(60));
        if n % 3 == 0 {
            t.set(request(n), t0 + Duration::from_secs(30));
        }
        if n >= 5 {
            t.cancel(&request(n - 5));
        }
    }
    assert_eq!(t.len(), 6);
    assert!(t.queued() <= 2 * t.len() + 32);
    assert_eq!(t.next(), Some((t0, Timer::Probe)));
    t.cancel(&Timer::Probe);
    // 9996 and 9999 were re-armed earlier (30 s) than the rest (60 s);
    // equal deadlines fire in timer order.
    assert_eq!(
        t.next(),
        Some((t0 + Duration::from_secs(30), request(9_996)))
    );
    let due = t.expired(t0 + Duration::from_secs(60));
    let order = [9_996, 9_999, 9_995, 9_997, 9_998];
    assert_eq!(due, order.map(request));
    assert!(t.is_empty());
    assert_eq!(t.next(), None);
}

#[test]
fn rearming_at_the_same_instant_fires_once() {
    let t0 = origin();
    let mut t = TimerTable::default();
    t.set(request(1), t0);
    t.set(request(1), t0 + Duration::from_secs(1));
    t.set(request(1), t0);
    t.set(request(1), t0);
    assert_eq!(t.get(&request(1)), Some(t0));
    assert_eq!(t.expired(t0 + Duration::from_secs(5)), vec![request(1)]);
    assert!(t.expired(t0 + Duration::from_secs(5)).is_empty());
    assert_eq!(t.next(), None);
}
