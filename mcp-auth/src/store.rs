//! Persistence of client credentials (keyed by authorization server issuer) and
//! tokens (keyed by resource and issuer).
//!
//! [`MemoryStore`] is the default. [`FileStore`] keeps one JSON file, written
//! atomically (temporary file, then rename) with mode `0600` on Unix. Stores are
//! synchronous: they are called rarely (after registration and token responses).

use std::collections::BTreeMap;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::oidc::IdpSession;
use crate::registration::ClientCredentials;
use crate::token::TokenSet;

/// A store could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// File-system failure.
    #[error("token store I/O: {0}")]
    Io(#[from] std::io::Error),
    /// The file is not a valid store document.
    #[error("token store is corrupt: {0}")]
    Corrupt(String),
    /// A lock was poisoned by a panicking thread.
    #[error("token store lock poisoned")]
    Poisoned,
}

/// Where tokens live: the resource they are for and the issuer that issued them.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TokenKey {
    /// The resource (the protected resource metadata's `resource`, or server URL).
    pub resource: String,
    /// The authorization server issuer.
    pub issuer: String,
}

impl TokenKey {
    /// A key.
    pub fn new(resource: impl Into<String>, issuer: impl Into<String>) -> Self {
        Self {
            resource: resource.into(),
            issuer: issuer.into(),
        }
    }

    fn flat(&self) -> String {
        format!("{} {}", self.resource, self.issuer)
    }
}

/// Storage for credentials and tokens. Implementations must keep the data
/// confidential (OAuth 2.1 §7.1): e.g. an OS keychain or a `0600` file.
pub trait TokenStore: Send + Sync {
    /// Client credentials registered with `issuer`.
    fn load_client(&self, issuer: &str) -> Result<Option<ClientCredentials>, StoreError>;
    /// Saves client credentials for `issuer`.
    fn save_client(&self, issuer: &str, creds: &ClientCredentials) -> Result<(), StoreError>;
    /// Tokens for `key`.
    fn load_tokens(&self, key: &TokenKey) -> Result<Option<TokenSet>, StoreError>;
    /// Saves tokens for `key`.
    fn save_tokens(&self, key: &TokenKey, tokens: &TokenSet) -> Result<(), StoreError>;
    /// Forgets tokens for `key` (after a rejected refresh).
    fn remove_tokens(&self, key: &TokenKey) -> Result<(), StoreError>;
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Document {
    #[serde(default)]
    clients: BTreeMap<String, ClientCredentials>,
    #[serde(default)]
    tokens: BTreeMap<String, TokenSet>,
    /// Enterprise identity provider sign-ins, by issuer.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    idp_sessions: BTreeMap<String, IdpSession>,
}

/// An in-memory store (lost at exit).
#[derive(Debug, Default)]
pub struct MemoryStore(Mutex<Document>);

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl TokenStore for MemoryStore {
    fn load_client(&self, issuer: &str) -> Result<Option<ClientCredentials>, StoreError> {
        let d = self.0.lock().map_err(|_| StoreError::Poisoned)?;
        Ok(d.clients.get(issuer).cloned())
    }

    fn save_client(&self, issuer: &str, creds: &ClientCredentials) -> Result<(), StoreError> {
        let mut d = self.0.lock().map_err(|_| StoreError::Poisoned)?;
        d.clients.insert(issuer.to_owned(), creds.clone());
        Ok(())
    }

    fn load_tokens(&self, key: &TokenKey) -> Result<Option<TokenSet>, StoreError> {
        let d = self.0.lock().map_err(|_| StoreError::Poisoned)?;
        Ok(d.tokens.get(&key.flat()).cloned())
    }

    fn save_tokens(&self, key: &TokenKey, tokens: &TokenSet) -> Result<(), StoreError> {
        let mut d = self.0.lock().map_err(|_| StoreError::Poisoned)?;
        d.tokens.insert(key.flat(), tokens.clone());
        Ok(())
    }

    fn remove_tokens(&self, key: &TokenKey) -> Result<(), StoreError> {
        let mut d = self.0.lock().map_err(|_| StoreError::Poisoned)?;
        d.tokens.remove(&key.flat());
        Ok(())
    }
}

/// A JSON file store: atomic replace, `0600` on Unix. The lock serializes writers
/// within the process; separate processes sharing a file race on last-writer-wins.
#[derive(Debug)]
pub struct FileStore {
    path: PathBuf,
    lock: Mutex<()>,
}

/// The largest store file read (1 MiB); a bigger file is reported corrupt.
const MAX_FILE_BYTES: u64 = 1024 * 1024;

impl FileStore {
    /// A store at `path` (created on first write).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            lock: Mutex::new(()),
        }
    }

    /// The file path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&self) -> Result<Document, StoreError> {
        match fs::metadata(&self.path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Document::default()),
            Err(e) => return Err(e.into()),
            Ok(m) if m.len() > MAX_FILE_BYTES => {
                return Err(StoreError::Corrupt("file too large".into()));
            }
            Ok(_) => {}
        }
        let bytes = fs::read(&self.path)?;
        serde_json::from_slice(&bytes).map_err(|e| StoreError::Corrupt(e.to_string()))
    }

    fn write(&self, doc: &Document) -> Result<(), StoreError> {
        let bytes =
            serde_json::to_vec_pretty(doc).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let dir = self
            .path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "tokens".to_owned());
        let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
        let mut opts = fs::OpenOptions::new();
        opts.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            opts.mode(0o600);
        }
        let result = (|| {
            let mut f = opts.open(&tmp)?;
            f.write_all(&bytes)?;
            f.sync_all()?;
            fs::rename(&tmp, &self.path)
        })();
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        Ok(result?)
    }

    /// Every enterprise identity provider sign-in kept in the file.
    pub fn idp_sessions(&self) -> Result<Vec<IdpSession>, StoreError> {
        let _g = self.lock.lock().map_err(|_| StoreError::Poisoned)?;
        Ok(self.read()?.idp_sessions.into_values().collect())
    }

    /// Keeps (or replaces) the sign-in at `session.issuer`.
    pub fn save_idp_session(&self, session: &IdpSession) -> Result<(), StoreError> {
        self.update(|d| {
            d.idp_sessions
                .insert(session.issuer.clone(), session.clone());
        })
    }

    /// Forgets the sign-in at `issuer`; returns it if there was one.
    pub fn remove_idp_session(&self, issuer: &str) -> Result<Option<IdpSession>, StoreError> {
        let mut removed = None;
        self.update(|d| removed = d.idp_sessions.remove(issuer))?;
        Ok(removed)
    }

    fn update(&self, f: impl FnOnce(&mut Document)) -> Result<(), StoreError> {
        let _g = self.lock.lock().map_err(|_| StoreError::Poisoned)?;
        let mut doc = self.read()?;
        f(&mut doc);
        self.write(&doc)
    }
}

impl TokenStore for FileStore {
    fn load_client(&self, issuer: &str) -> Result<Option<ClientCredentials>, StoreError> {
        let _g = self.lock.lock().map_err(|_| StoreError::Poisoned)?;
        Ok(self.read()?.clients.remove(issuer))
    }

    fn save_client(&self, issuer: &str, creds: &ClientCredentials) -> Result<(), StoreError> {
        self.update(|d| {
            d.clients.insert(issuer.to_owned(), creds.clone());
        })
    }

    fn load_tokens(&self, key: &TokenKey) -> Result<Option<TokenSet>, StoreError> {
        let _g = self.lock.lock().map_err(|_| StoreError::Poisoned)?;
        Ok(self.read()?.tokens.remove(&key.flat()))
    }

    fn save_tokens(&self, key: &TokenKey, tokens: &TokenSet) -> Result<(), StoreError> {
        self.update(|d| {
            d.tokens.insert(key.flat(), tokens.clone());
        })
    }

    fn remove_tokens(&self, key: &TokenKey) -> Result<(), StoreError> {
        self.update(|d| {
            d.tokens.remove(&key.flat());
        })
    }
}
