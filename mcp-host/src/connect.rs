//! From a config entry to a [`ClientBuilder`]: transport, era, deadlines,
//! handlers, notifications, OAuth with a per-server token store, and a
//! bounded tail of the stdio server's stderr for failure causes.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use mcp_client::oauth::registration::ClientCredentials;
use mcp_client::oauth::store::{StoreError, TokenKey, TokenStore};
use mcp_client::oauth::token::TokenSet;
use mcp_client::{Client, ClientBuilder, EraPreference, HttpConfig, ServerCommand};

use crate::config::{EraChoice, ServerEntry, TransportConfig};
use crate::error::HostError;
use crate::handlers::Notifier;
use crate::host::Shared;

/// Lines of stderr kept per server, and the longest line kept.
const TAIL_LINES: usize = 20;
const TAIL_LINE_BYTES: usize = 512;

/// The last lines a stdio server wrote to stderr.
#[derive(Debug, Default)]
pub(crate) struct StderrTail(Mutex<VecDeque<String>>);

impl StderrTail {
    fn push(&self, line: &str) {
        let mut end = line.len().min(TAIL_LINE_BYTES);
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        let mut q = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if q.len() == TAIL_LINES {
            q.pop_front();
        }
        q.push_back(line[..end].to_owned());
    }

    /// The tail as one string (`None` when empty).
    pub(crate) fn text(&self) -> Option<String> {
        let q = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        (!q.is_empty()).then(|| q.iter().map(String::as_str).collect::<Vec<_>>().join(" | "))
    }

    /// Forgets the previous process's lines.
    pub(crate) fn clear(&self) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }
}

/// Builds and connects the client of `entry`.
pub(crate) async fn connect(
    shared: &Shared,
    entry: &ServerEntry,
    notifier: Notifier,
    tail: &Arc<StderrTail>,
) -> Result<Client, ConnectFailure> {
    let builder = builder_for(shared, entry, notifier, tail).map_err(|e| ConnectFailure {
        cause: e.to_string(),
        permanent: true,
    })?;
    let limit = entry
        .settings
        .connect_timeout
        .unwrap_or(shared.options.connect_timeout);
    match tokio::time::timeout(limit, builder.connect()).await {
        Ok(Ok(client)) => Ok(client),
        Ok(Err(e)) => Err(ConnectFailure {
            permanent: matches!(e.kind(), mcp_client::ErrorKind::Spawn(_)),
            cause: with_tail(e.to_string(), tail),
        }),
        Err(_) => Err(ConnectFailure {
            cause: with_tail(format!("connecting took longer than {limit:?}"), tail),
            permanent: false,
        }),
    }
}

/// Why connecting failed, and whether trying again is pointless.
#[derive(Debug)]
pub(crate) struct ConnectFailure {
    pub(crate) cause: String,
    pub(crate) permanent: bool,
}

/// `cause` with the stderr tail appended when it is not already in it.
pub(crate) fn with_tail(cause: String, tail: &StderrTail) -> String {
    match tail.text() {
        Some(t) if !cause.contains(&t) => format!("{cause}; stderr: {t}"),
        _ => cause,
    }
}

fn builder_for(
    shared: &Shared,
    entry: &ServerEntry,
    notifier: Notifier,
    tail: &Arc<StderrTail>,
) -> Result<ClientBuilder, HostError> {
    let label = entry.label.as_str();
    let setup = |reason: String| HostError::Setup {
        server: label.to_owned(),
        reason,
    };
    let mut builder = Client::builder();
    builder = match &entry.transport {
        TransportConfig::Stdio(s) => {
            let tail = tail.clone();
            let mut command = ServerCommand::new(&s.command)
                .args(&s.args)
                .envs(&s.env)
                .on_stderr_line(move |line| tail.push(line));
            if let Some(cwd) = &s.cwd {
                command = command.current_dir(cwd);
            }
            builder.stdio(command)
        }
        TransportConfig::Http(h) => {
            let mut config = HttpConfig::new(&h.url).map_err(|e| setup(e.to_string()))?;
            for (name, value) in &h.headers {
                config = config
                    .with_header(name, value)
                    .map_err(|e| setup(format!("header `{name}`: {e}")))?;
            }
            if let Some(oauth) = oauth_for(shared, entry)? {
                config = config.with_oauth(oauth).map_err(|e| setup(e.to_string()))?;
            }
            builder.http_config(config)
        }
    };
    let era = match entry.settings.era {
        EraChoice::Auto => EraPreference::Auto,
        EraChoice::Legacy => EraPreference::LegacyOnly,
        EraChoice::Modern => EraPreference::ModernOnly,
    };
    let options = &shared.options;
    builder = builder
        .client_info(&options.client_name, &options.client_version)
        .era(era)
        .notifications(notifier);
    if let Some(t) = entry.settings.request_timeout.or(options.request_timeout) {
        builder = builder.request_timeout(Some(t));
    }
    Ok(shared.handlers.apply(label, builder))
}

/// The OAuth setup of an HTTP entry, with its token store scoped to the
/// server label.
fn oauth_for(
    shared: &Shared,
    entry: &ServerEntry,
) -> Result<Option<mcp_client::oauth::OAuthConfig>, HostError> {
    let configured = entry.settings.oauth.is_some();
    let made = shared.oauth.as_ref().and_then(|factory| factory(entry));
    match made {
        Some(oauth) => {
            let store = LabelledStore {
                label: entry.label.clone(),
                inner: shared.token_store.clone(),
            };
            Ok(Some(oauth.with_store(Arc::new(store))))
        }
        None if configured => Err(HostError::Setup {
            server: entry.label.clone(),
            reason: "`mcpHost.oauth` is set but the host has no OAuth flow \
                     (HostBuilder::oauth)"
                .into(),
        }),
        None => Ok(None),
    }
}

/// A view of a shared token store in which every key belongs to one
/// server: two servers never see each other's registrations or tokens,
/// even for the same issuer or resource.
pub(crate) struct LabelledStore {
    pub(crate) label: String,
    pub(crate) inner: Arc<dyn TokenStore>,
}

impl LabelledStore {
    fn issuer(&self, issuer: &str) -> String {
        format!("mcp-host:{}:{issuer}", self.label)
    }

    fn key(&self, key: &TokenKey) -> TokenKey {
        TokenKey::new(
            format!("mcp-host:{}:{}", self.label, key.resource),
            &key.issuer,
        )
    }
}

impl TokenStore for LabelledStore {
    fn load_client(&self, issuer: &str) -> Result<Option<ClientCredentials>, StoreError> {
        self.inner.load_client(&self.issuer(issuer))
    }
    fn save_client(&self, issuer: &str, creds: &ClientCredentials) -> Result<(), StoreError> {
        self.inner.save_client(&self.issuer(issuer), creds)
    }
    fn load_tokens(&self, key: &TokenKey) -> Result<Option<TokenSet>, StoreError> {
        self.inner.load_tokens(&self.key(key))
    }
    fn save_tokens(&self, key: &TokenKey, tokens: &TokenSet) -> Result<(), StoreError> {
        self.inner.save_tokens(&self.key(key), tokens)
    }
    fn remove_tokens(&self, key: &TokenKey) -> Result<(), StoreError> {
        self.inner.remove_tokens(&self.key(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_tail_is_bounded_and_cut_at_char_boundaries() {
        let tail = StderrTail::default();
        assert_eq!(tail.text(), None);
        for i in 0..30 {
            tail.push(&format!("line {i}"));
        }
        let text = tail.text().unwrap();
        assert!(
            text.starts_with("line 10 |") && text.ends_with("line 29"),
            "{text}"
        );
        tail.clear();
        tail.push(&"é".repeat(600));
        assert!(tail.text().unwrap().len() <= TAIL_LINE_BYTES);
    }

    #[test]
    fn labelled_stores_do_not_share_tokens() {
        let inner: Arc<dyn TokenStore> = Arc::new(mcp_client::oauth::store::MemoryStore::new());
        let a = LabelledStore {
            label: "a".into(),
            inner: inner.clone(),
        };
        let b = LabelledStore {
            label: "b".into(),
            inner,
        };
        let key = TokenKey::new("https://r", "https://i");
        let tokens = TokenSet::new(
            mcp_client::oauth::Secret::new("t"),
            mcp_client::oauth::security::TokenScheme::Bearer,
        );
        a.save_tokens(&key, &tokens).unwrap();
        assert!(a.load_tokens(&key).unwrap().is_some());
        assert!(b.load_tokens(&key).unwrap().is_none());
    }
}
