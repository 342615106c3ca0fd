//! Who has to act to fix an error ([`Fault`]): one classification shared by
//! the crates that fail for reasons outside the protocol (authorization in
//! `mcp-auth`, the HTTP transport in `mcp-transport-http`, and the facade's
//! `mcp_client::Error::fault`), so each answers the question the same way.
//! It lives here because every one of them depends on this crate and on no
//! other shared one.

/// Who has to act to fix an error: the server, the network, the host's
/// configuration, the calling code or the user.
///
/// ```
/// use mcp_types::fault::Fault;
///
/// let who = Fault::Configuration;
/// assert_ne!(who, Fault::Server);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fault {
    /// The MCP server or the authorization server: it sent something wrong
    /// (an error status, a malformed, oversized or refused response) or
    /// refused.
    Server,
    /// The network or the HTTP stack: connecting, TLS, a dropped connection.
    Network,
    /// The host's configuration: the transport's settings (endpoint,
    /// headers, TLS, proxy, limits), credentials, keys, redirect URIs, the
    /// token store, the authorization provider.
    Configuration,
    /// The calling code: a value it passed for one request that cannot be
    /// sent, a call it cancelled, a transport it closed.
    Caller,
    /// The user (declined, closed the browser) or the host's authorization
    /// handler.
    User,
}
