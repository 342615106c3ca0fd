//! The reconnect schedule: exponential backoff with seeded jitter, a pure
//! function of the policy, the attempt number and a random source.
//!
//! ```
//! use std::time::Duration;
//! use mcp_host::backoff::{schedule, Jitter};
//! use mcp_host::config::Backoff;
//! let policy = Backoff { jitter_percent: 0, max_attempts: 5, ..Backoff::default() };
//! let ms: Vec<u128> = schedule(&policy, &mut Jitter::new(1)).iter().map(Duration::as_millis).collect();
//! assert_eq!(ms, [500, 1000, 2000, 4000, 8000]);
//! ```

use std::time::Duration;

pub use crate::config::Backoff;

/// A small seeded random source (SplitMix64): the same seed gives the same
/// jitter, so a schedule can be replayed in a test.
#[derive(Clone, Debug)]
pub struct Jitter(u64);

impl Jitter {
    /// A source seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Jitter(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..=max`.
    pub fn up_to(&mut self, max: u64) -> u64 {
        match max.checked_add(1) {
            Some(span) => self.next_u64() % span,
            None => self.next_u64(),
        }
    }
}

/// The delay before restart attempt `attempt` (0 for the first), or `None`
/// when the policy allows no more attempts. The exponential part is
/// `initial * factor^attempt` capped at `max`; the jitter takes a random
/// part of up to `jitter_percent` percent off it, so delays never exceed
/// `max` and never drop below `(100 - jitter_percent)%` of the exponential
/// part.
pub fn delay(policy: &Backoff, attempt: u32, jitter: &mut Jitter) -> Option<Duration> {
    if attempt >= policy.max_attempts {
        return None;
    }
    let cap = policy.max.as_nanos();
    let grown = u128::from(policy.factor.max(1))
        .checked_pow(attempt)
        .and_then(|f| policy.initial.as_nanos().checked_mul(f))
        .map_or(cap, |n| n.min(cap));
    let base = u64::try_from(grown).unwrap_or(u64::MAX);
    let span = u64::try_from(u128::from(base) * u128::from(policy.jitter_percent.min(100)) / 100)
        .unwrap_or(u64::MAX);
    Some(Duration::from_nanos(base - jitter.up_to(span)))
}

/// Every delay the policy allows, in order (at most `max_attempts`).
pub fn schedule(policy: &Backoff, jitter: &mut Jitter) -> Vec<Duration> {
    (0..)
        .map_while(|attempt| delay(policy, attempt, jitter))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> Backoff {
        Backoff {
            initial: Duration::from_millis(100),
            max: Duration::from_secs(2),
            factor: 2,
            jitter_percent: 25,
            max_attempts: 8,
        }
    }

    #[test]
    fn grows_exponentially_caps_and_stops() {
        let exact = Backoff {
            jitter_percent: 0,
            ..policy()
        };
        let ms: Vec<u128> = schedule(&exact, &mut Jitter::new(0))
            .iter()
            .map(Duration::as_millis)
            .collect();
        assert_eq!(ms, [100, 200, 400, 800, 1600, 2000, 2000, 2000]);
        assert_eq!(delay(&exact, 8, &mut Jitter::new(0)), None);
    }

    #[test]
    fn jitter_stays_in_its_band_and_is_seeded() {
        let p = policy();
        let a = schedule(&p, &mut Jitter::new(42));
        assert_eq!(a, schedule(&p, &mut Jitter::new(42)));
        assert_ne!(a, schedule(&p, &mut Jitter::new(43)));
        let exact = schedule(
            &Backoff {
                jitter_percent: 0,
                ..p
            },
            &mut Jitter::new(0),
        );
        for (j, e) in a.iter().zip(&exact) {
            assert!(
                *j <= *e && *j >= *e * 3 / 4,
                "{j:?} outside 75..=100% of {e:?}"
            );
        }
    }

    #[test]
    fn huge_factors_and_attempts_do_not_overflow() {
        let p = Backoff {
            factor: 1000,
            max_attempts: u32::MAX,
            jitter_percent: 100,
            ..policy()
        };
        let d = delay(&p, 1_000_000, &mut Jitter::new(7)).unwrap();
        assert!(d <= Duration::from_secs(2));
        let none = Backoff {
            max_attempts: 0,
            ..policy()
        };
        assert!(schedule(&none, &mut Jitter::new(1)).is_empty());
    }
}
