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
