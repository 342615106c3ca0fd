//! Randomness for PKCE verifiers, `state`, and JWT `jti` values, behind an injectable
//! [`RandomSource`]: [`SystemRandomSource`] (ring's OS generator) in production, and
//! [`SeededRandom`] for deterministic tests.

use std::sync::Mutex;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// The random generator failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("random generator failure")]
pub struct RandomError;

/// A source of random bytes.
pub trait RandomSource: Send + Sync {
    /// Fills `buf` with random bytes.
    fn fill(&self, buf: &mut [u8]) -> Result<(), RandomError>;
}

/// The operating system's CSPRNG, through `ring::rand::SystemRandom`.
#[derive(Debug)]
pub struct SystemRandomSource(ring::rand::SystemRandom);

impl SystemRandomSource {
    /// The system generator.
    pub fn new() -> Self {
        Self(ring::rand::SystemRandom::new())
    }
}

impl Default for SystemRandomSource {
    fn default() -> Self {
        Self::new()
    }
}

impl RandomSource for SystemRandomSource {
    fn fill(&self, buf: &mut [u8]) -> Result<(), RandomError> {
        ring::rand::SecureRandom::fill(&self.0, buf).map_err(|_| RandomError)
    }
}

/// A deterministic generator (SplitMix64) for tests. **Not** for production use.
#[derive(Debug)]
pub struct SeededRandom(Mutex<u64>);

impl SeededRandom {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        Self(Mutex::new(seed))
    }
}

impl RandomSource for SeededRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), RandomError> {
        let mut state = self.0.lock().map_err(|_| RandomError)?;
        for chunk in buf.chunks_mut(8) {
            *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = *state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            let bytes = z.to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
        Ok(())
    }
}

/// `n` random bytes, base64url-encoded without padding (32 bytes give 43 characters).
pub fn random_b64url(rng: &dyn RandomSource, n: usize) -> Result<String, RandomError> {
    let mut buf = vec![0u8; n];
    rng.fill(&mut buf)?;
    Ok(URL_SAFE_NO_PAD.encode(buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_is_deterministic_and_system_varies() {
        let a = random_b64url(&SeededRandom::new(7), 32).unwrap();
        let b = random_b64url(&SeededRandom::new(7), 32).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.len(), 43);
        let sys = SystemRandomSource::new();
        assert_ne!(
            random_b64url(&sys, 32).unwrap(),
            random_b64url(&sys, 32).unwrap()
        );
    }
}
