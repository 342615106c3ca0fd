//! Session control from a handle: connecting without initializing, HTTP headers and
//! credentials changed at runtime, and the 2025-11-25 GET stream opened
//! and closed on demand.
//!
//! By default [`ClientBuilder::connect`] runs the lifecycle at once and,
//! on a 2025-11-25 HTTP connection, opens the GET stream right after the
//! handshake. The methods here let a host take those steps itself:
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_client::Error> {
//! use mcp_client::Client;
//! let client = Client::builder()
//!     .http("http://127.0.0.1:8080/mcp")
//!     .connect_uninitialized()?;            // nothing sent yet
//! client.set_access_token(Some("s3cr3t")).await?;
//! client.set_http_header("X-Tenant", "acme").await?;
//! client.initialize().await?;               // initialize or server/discover
//! if client.close_server_stream().await? {  // 2025-11-25 HTTP only
//!     println!("GET stream closed; server messages wait on the server");
//! }
//! client.open_server_stream().await?;
//! # Ok(()) }
//! ```

#[cfg(feature = "http")]
use std::sync::Arc;

#[cfg(feature = "http")]
use mcp_transport_http::auth::{AuthProvider, BearerToken};
use tokio::sync::oneshot;

use crate::client::Client;
use crate::client::builder::ClientBuilder;
#[cfg(feature = "http")]
use crate::driver::HttpChange;
use crate::driver::{Command, Reply, SessionCommand};
use crate::error::Error;
#[cfg(feature = "http")]
use crate::error::ErrorKind;

impl ClientBuilder {
    /// Connects without initializing: starts the transport (a stdio server
    /// process is spawned, an HTTP client is built) and the driver, but
    /// sends nothing. Set credentials and headers
    /// ([`Client::set_access_token`], [`Client::set_auth_provider`],
    /// [`Client::set_http_header`]), then call [`Client::initialize`].
    /// Until then every request fails with
    /// [`Error::is_not_initialized`]. Must be called within a Tokio
    /// runtime.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), mcp_client::Error> {
    /// use mcp_client::Client;
    /// let client = Client::builder()
    ///     .http("http://127.0.0.1:8080/mcp")
    ///     .connect_uninitialized()?;
    /// assert!(client.list_tools(None).await.unwrap_err().is_not_initialized());
    /// client.set_access_token(Some("s3cr3t")).await?;
    /// client.initialize().await?;
    /// let tools = client.list_tools(None).await?;
    /// # let _ = tools; Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error`] when the transport cannot start.
    pub fn connect_uninitialized(self) -> Result<Client, Error> {
        let (client, _connected) = self.launch(false)?;
        Ok(client)
    }
}

impl Client {
    async fn session<T>(&self, c: impl FnOnce(Reply<T>) -> SessionCommand) -> Result<T, Error> {
        let (reply, rx) = oneshot::channel();
        self.inner
            .commands
            .send(Command::Session(c(reply)))
            .map_err(|_| Error::closed())?;
        rx.await.map_err(|_| Error::closed())?
    }

    /// Runs the lifecycle of a client made with
    /// [`ClientBuilder::connect_uninitialized`]: the era probe and
    /// `initialize`, or `server/discover`, exactly as
    /// [`ClientBuilder::connect`] would, with the headers and credentials
    /// set since. Returns when the client is ready (on a 2025-11-25 HTTP
    /// connection, once the GET stream has answered too).
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), mcp_client::Error> {
    /// use mcp_client::{Client, ServerCommand};
    /// let client = Client::builder()
    ///     .stdio(ServerCommand::new("my-mcp-server"))
    ///     .connect_uninitialized()?;
    /// client.initialize().await?;
    /// println!("{:?}", client.protocol_version());
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`ClientBuilder::connect`]; [`Error::is_usage`] when the client
    /// is already initialized (or initializing).
    pub async fn initialize(&self) -> Result<(), Error> {
        self.session(SessionCommand::Initialize).await
    }

    /// Opens the 2025-11-25 GET stream (server-initiated requests and
    /// notifications) after [`Client::close_server_stream`] or a builder
    /// with [`get_stream(false)`](ClientBuilder::get_stream), and keeps it
    /// wanted: a recovered session opens it again. Returns once the server
    /// answered: `true` when the stream is open (or already was), `false`
    /// when the server offers none (`405`). A `409 Conflict` (the server
    /// still holds the stream just closed) is retried a few times with a
    /// short backoff.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// client.close_server_stream().await?;
    /// // ... a quiet period: the server keeps its messages for later ...
    /// let open = client.open_server_stream().await?;
    /// println!("GET stream open: {open}");
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::is_usage`] on a stdio, custom or 2026-07-28 connection (no
    /// GET stream there) and before [`Client::initialize`];
    /// [`Error::is_transport`] when the GET fails;
    /// [`Error::is_session_recovered`] when the session had expired.
    pub async fn open_server_stream(&self) -> Result<bool, Error> {
        self.session(SessionCommand::OpenStream).await
    }

    /// Closes the 2025-11-25 GET stream and keeps it closed (a recovered
    /// session does not reopen it) until [`Client::open_server_stream`].
    /// Responses to the client's own requests are unaffected; what the
    /// server sends on the GET stream meanwhile (its requests, list
    /// changes, resource updates) waits on the server or is lost, as the
    /// server decides. Returns whether a stream was open or opening.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// let was_open = client.close_server_stream().await?;
    /// # let _ = was_open; Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Client::open_server_stream`] (nothing to fail on the wire).
    pub async fn close_server_stream(&self) -> Result<bool, Error> {
        self.session(SessionCommand::CloseStream).await
    }

    /// Sets a header sent on every later HTTP request of this connection
    /// (POST, GET, DELETE), replacing one of the same name; an
    /// `Authorization` value is kept out of logs (an authorization
    /// provider, when set, still supplies `Authorization`: see
    /// [`Client::set_access_token`]). Per-call headers
    /// ([`CallOptions::with_header`](crate::CallOptions::with_header)) win
    /// over it.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// client.set_http_header("X-Tenant", "acme").await?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::is_usage`]: an invalid or reserved (`Mcp-*`, `Host`, ...)
    /// header, or a connection that is not HTTP.
    #[cfg(feature = "http")]
    pub async fn set_http_header(&self, name: &str, value: &str) -> Result<(), Error> {
        let change = HttpChange::SetHeader(name.to_owned(), value.to_owned());
        self.session(|reply| SessionCommand::Http { change, reply })
            .await
            .map(drop)
    }

    /// Stops sending a header set with [`Client::set_http_header`] (or
    /// configured on the `HttpConfig`); returns whether it was set.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// client.set_http_header("X-Trace", "on").await?;
    /// assert!(client.remove_http_header("X-Trace").await?);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Client::set_http_header`].
    #[cfg(feature = "http")]
    pub async fn remove_http_header(&self, name: &str) -> Result<bool, Error> {
        let change = HttpChange::RemoveHeader(name.to_owned());
        self.session(|reply| SessionCommand::Http { change, reply })
            .await
    }

    /// Sends `Authorization: Bearer <token>` on every later HTTP request
    /// (replacing the configured authorization provider, OAuth included);
    /// `None` removes it. The token never reaches logs or `Debug` output.
    /// For one request only, see
    /// [`CallOptions::with_access_token`](crate::CallOptions::with_access_token).
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// client.set_access_token(Some("rotated-token")).await?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::is_usage`]: a token that cannot travel in a header, or a
    /// connection that is not HTTP.
    #[cfg(feature = "http")]
    pub async fn set_access_token(&self, token: Option<&str>) -> Result<(), Error> {
        let provider = match token {
            Some(t) => {
                let bearer = BearerToken::new(t).map_err(|_| {
                    Error::new(ErrorKind::InvalidHeader {
                        name: "authorization".into(),
                    })
                })?;
                Some(Arc::new(bearer) as Arc<dyn AuthProvider>)
            }
            None => None,
        };
        self.set_auth_provider(provider).await
    }

    /// Replaces the authorization provider of every later HTTP request
    /// (an OAuth provider, a custom one, or `None` for none).
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), Box<dyn std::error::Error>> {
    /// use std::sync::Arc;
    /// use mcp_client::auth::BearerToken;
    /// client.set_auth_provider(Some(Arc::new(BearerToken::new("s3cr3t")?))).await?;
    /// client.set_auth_provider(None).await?; // unauthenticated from now on
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::is_usage`] on a connection that is not HTTP.
    #[cfg(feature = "http")]
    pub async fn set_auth_provider(
        &self,
        provider: Option<Arc<dyn AuthProvider>>,
    ) -> Result<(), Error> {
        let change = HttpChange::Auth(provider);
        self.session(|reply| SessionCommand::Http { change, reply })
            .await
            .map(drop)
    }
}
