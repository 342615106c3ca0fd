//! Settings that change after the transport is built: headers sent on
//! every request and the authorization provider.
//!
//! A client may be built first and given its credentials later (for
//! example between connecting and initializing), or rotate a static token
//! mid-session. [`HttpTransport::set_header`], [`HttpTransport::remove_header`]
//! and [`HttpTransport::set_auth`] change what every later request carries;
//! requests already sent keep what they had.
//!
//! One request can also carry its own `Authorization` (see
//! [`HttpTransport::send_with`]): the provider is then not consulted for
//! that request.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use http::{HeaderMap, HeaderName, HeaderValue};

use crate::auth::AuthProvider;
use crate::config::HttpConfig;
use crate::error::ConfigError;
use crate::parts::HeaderList;
use crate::transport::HttpTransport;

/// The mutable part of the configuration, behind one lock.
pub(crate) struct Runtime {
    state: RwLock<State>,
    /// No header and no provider set (written under the lock, after each
    /// change): a request then reads nothing and takes no lock.
    unset: AtomicBool,
}

struct State {
    headers: HeaderMap,
    auth: Option<Arc<dyn AuthProvider>>,
}

impl State {
    fn is_unset(&self) -> bool {
        self.headers.is_empty() && self.auth.is_none()
    }
}

impl Runtime {
    /// Starts from the configuration's headers and provider.
    pub(crate) fn new(config: &HttpConfig) -> Self {
        let state = State {
            headers: config.default_headers.clone(),
            auth: config.auth.clone(),
        };
        Runtime {
            unset: AtomicBool::new(state.is_unset()),
            state: RwLock::new(state),
        }
    }

    /// Whether no header and no provider is set (one atomic load).
    #[inline]
    pub(crate) fn is_unset(&self) -> bool {
        self.unset.load(Ordering::Acquire)
    }

    /// The headers every request carries now.
    #[cfg(test)]
    pub(crate) fn headers(&self) -> HeaderMap {
        self.read(|s| s.headers.clone())
    }

    /// Readies a request's headers in one look at the settings: the
    /// provider now in effect, unless the request carries its own
    /// `Authorization` (which leaves the provider out); then the headers
    /// every request carries now are added, except the names the request
    /// already has (its own headers take precedence; every value of such
    /// a name is left out), and for a `post` the names of its own fields
    /// (`Accept`, `Content-Type`). Nothing is copied but the values added.
    #[inline]
    pub(crate) fn apply(
        &self,
        headers: &mut HeaderList,
        post: bool,
    ) -> Option<Arc<dyn AuthProvider>> {
        if self.is_unset() {
            return None;
        }
        self.apply_set(headers, post)
    }

    /// [`Runtime::apply`] once anything is set (out of line: most
    /// transports never set anything at run time).
    #[inline(never)]
    fn apply_set(&self, headers: &mut HeaderList, post: bool) -> Option<Arc<dyn AuthProvider>> {
        self.read(|s| {
            let auth = match &s.auth {
                Some(auth) if !headers.contains(&http::header::AUTHORIZATION) => Some(auth.clone()),
                _ => None,
            };
            for name in s.headers.keys() {
                // A POST's own fields (not in the list) stay the transport's.
                if headers.contains(name) || (post && crate::headers::is_post_basic(name)) {
                    continue;
                }
                for value in s.headers.get_all(name) {
                    headers.append(name.clone(), value.clone());
                }
            }
            auth
        })
    }

    /// The authorization provider now in effect.
    #[cfg(test)]
    pub(crate) fn auth(&self) -> Option<Arc<dyn AuthProvider>> {
        self.read(|s| s.auth.clone())
    }

    fn read<R>(&self, f: impl FnOnce(&State) -> R) -> R {
        f(&self.state.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn write<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
        let r = f(&mut state);
        self.unset.store(state.is_unset(), Ordering::Release);
        r
    }
}

/// Checks a header for [`HttpTransport::set_header`]: valid, not reserved,
/// and marked sensitive when it carries credentials.
pub(crate) fn checked_header(
    name: &str,
    value: &str,
) -> Result<(HeaderName, HeaderValue), ConfigError> {
    let header = HeaderName::try_from(name)
        .map_err(|_| ConfigError::InvalidHeader(format!("name {name:?}")))?;
    if crate::headers::is_reserved(&header) {
        return Err(ConfigError::InvalidHeader(format!(
            "{name}: reserved for the transport"
        )));
    }
    let mut value = HeaderValue::try_from(value)
        .map_err(|_| ConfigError::InvalidHeader(format!("value for {name}")))?;
    if is_credential(&header) {
        value.set_sensitive(true);
    }
    Ok((header, value))
}

/// Whether a header carries credentials (its value is never logged).
pub(crate) fn is_credential(name: &HeaderName) -> bool {
    name == http::header::AUTHORIZATION || name == http::header::PROXY_AUTHORIZATION
}

impl HttpTransport {
    /// Sets a header sent on every later request (POST, GET and DELETE),
    /// replacing any header of that name configured with
    /// [`HttpConfig::with_header`] or set before. `Authorization` and
    /// `Proxy-Authorization` values are marked sensitive (never logged); an
    /// [`AuthProvider`] still takes precedence over an `Authorization` set
    /// here.
    ///
    /// ```
    /// use mcp_transport_http::{HttpConfig, HttpTransport};
    /// let transport = HttpTransport::new(HttpConfig::new("https://example.com/mcp")?)?;
    /// transport.set_header("X-Tenant", "acme")?;
    /// transport.remove_header("X-Tenant")?;
    /// # Ok::<(), mcp_transport_http::HttpError>(())
    /// ```
    ///
    /// # Errors
    /// [`ConfigError::InvalidHeader`] when the name or value is invalid, or
    /// the name is reserved for the transport (`Mcp-*`, `Last-Event-ID`,
    /// `Host`, `Content-Length`). Nothing changes then.
    pub fn set_header(&self, name: &str, value: &str) -> Result<(), ConfigError> {
        let (name, value) = checked_header(name, value)?;
        self.inner.runtime.write(|s| {
            s.headers.insert(name, value);
        });
        Ok(())
    }

    /// Stops sending a header set with [`HttpTransport::set_header`] or
    /// configured with [`HttpConfig::with_header`]; returns whether it was
    /// set.
    ///
    /// # Errors
    /// [`ConfigError::InvalidHeader`] when the name is not a valid header
    /// name.
    pub fn remove_header(&self, name: &str) -> Result<bool, ConfigError> {
        let name = HeaderName::try_from(name)
            .map_err(|_| ConfigError::InvalidHeader(format!("name {name:?}")))?;
        Ok(self
            .inner
            .runtime
            .write(|s| s.headers.remove(name).is_some()))
    }

    /// Replaces the authorization provider for every later request
    /// (`None` sends requests without provider credentials).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use mcp_transport_http::auth::BearerToken;
    /// use mcp_transport_http::{HttpConfig, HttpTransport};
    /// let transport = HttpTransport::new(HttpConfig::new("https://example.com/mcp")?)?;
    /// transport.set_auth(Some(Arc::new(BearerToken::new("s3cr3t")?)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_auth(&self, auth: Option<Arc<dyn AuthProvider>>) {
        self.inner.runtime.write(|s| s.auth = auth);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_headers_are_sensitive_and_reserved_names_refused() {
        let (_, v) = checked_header("Authorization", "Bearer x").expect("valid");
        assert!(v.is_sensitive());
        let (_, v) = checked_header("X-Tenant", "acme").expect("valid");
        assert!(!v.is_sensitive());
        assert!(checked_header("Mcp-Session-Id", "1").is_err());
        assert!(checked_header("bad name", "1").is_err());
        assert!(checked_header("X-Ok", "line\nbreak").is_err());
    }

    #[test]
    fn set_and_remove_change_later_requests() {
        let config = HttpConfig::new("http://127.0.0.1:1/mcp")
            .and_then(|c| c.with_header("X-A", "1"))
            .expect("config");
        let t = HttpTransport::new(config).expect("transport");
        t.set_header("X-A", "2").expect("set");
        t.set_header("X-B", "3").expect("set");
        let h = t.inner.runtime.headers();
        assert_eq!(h.get_all("x-a").iter().count(), 1, "replaced, not added");
        assert_eq!(h.get("x-a").map(HeaderValue::as_bytes), Some(&b"2"[..]));
        assert!(t.remove_header("X-B").expect("remove"));
        assert!(!t.remove_header("X-B").expect("remove"));
        assert!(t.inner.runtime.headers().get("x-b").is_none());
        assert!(t.inner.runtime.auth().is_none());
    }

    /// What a request gets from the settings follows every change, through
    /// the unset state (which takes no lock) and back.
    #[test]
    fn requests_see_each_change_from_and_to_nothing_set() {
        let t = HttpTransport::new(HttpConfig::new("http://127.0.0.1:1/mcp").expect("config"))
            .expect("transport");
        let applied = |post: bool| {
            let mut list = HeaderList::default();
            let auth = t.inner.runtime.apply(&mut list, post);
            let names: Vec<String> = list.iter().map(|(n, _)| n.to_string()).collect();
            (names, auth.is_some())
        };
        assert_eq!(applied(true), (vec![], false));
        t.set_header("X-A", "1").expect("set");
        t.set_header("Accept", "text/plain").expect("set");
        assert_eq!(applied(true), (vec!["x-a".to_owned()], false));
        assert_eq!(
            applied(false),
            (vec!["x-a".to_owned(), "accept".to_owned()], false)
        );
        t.remove_header("X-A").expect("remove");
        t.remove_header("Accept").expect("remove");
        assert_eq!(applied(true), (vec![], false));
        let token = crate::auth::BearerToken::new("s3cr3t").expect("token");
        t.set_auth(Some(Arc::new(token)));
        assert_eq!(applied(true), (vec![], true));
        t.set_auth(None);
        assert_eq!(applied(true), (vec![], false));
    }
}
