//! OAuth 2.1 authorization for MCP clients, for both protocol revisions
//! (2025-11-25 and 2026-07-28) and the authorization extensions.
//!
//! Mostly sans-I/O: parsing, URL ordering, validation, request building and
//! security rules are pure functions with tests. [`client::OAuthClient`] is a thin
//! async executor over the [`http::HttpClient`] trait, so OAuth traffic goes through
//! the same configurable HTTP stack as MCP traffic.
//!
//! | module | what |
//! | --- | --- |
//! | [`challenge`] | `WWW-Authenticate` parsing (Bearer, DPoP) |
//! | [`discovery`] | metadata URL ordering, issuer and PKCE checks |
//! | [`metadata`] | serde types: PRM, AS metadata, DCR, token and error responses |
//! | [`scope`] | scope selection, step-up with a retry budget |
//! | [`pkce`], [`random`] | PKCE S256, `state`, injectable randomness |
//! | [`authorize`] | authorization URL, redirect validation (`state`, RFC 9207 `iss`) |
//! | [`registration`] | pre-registered, CIMD, DCR, in that order; issuer binding |
//! | [`token_request`] | grants and client authentication for the token endpoint |
//! | [`jwt`], [`dpop`] | ES256/RS256 JWS, `private_key_jwt`, DPoP proofs and nonces |
//! | [`token`], [`store`] | token lifecycle, in-memory and file stores |
//! | [`security`] | HTTPS/loopback/SSRF rules, `Authorization` header rendering |
//! | [`http`], [`handler`] | the host's HTTP client, authorization handler, clock |
//! | [`oidc`] | OpenID Connect sign-in at an enterprise IdP, the ID token for enterprise-managed auth |
//! | [`client`] | the async orchestration with single-flight refresh |
//!
//! ```
//! use mcp_auth::challenge::parse_www_authenticate;
//! use mcp_auth::scope::select_initial_scope;
//!
//! let c = parse_www_authenticate(r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read""#)?;
//! assert_eq!(select_initial_scope(c[0].scope(), None).to_param().as_deref(), Some("files:read"));
//! # Ok::<(), mcp_auth::challenge::ChallengeError>(())
//! ```

pub mod authorize;
pub mod challenge;
pub mod client;
pub mod discovery;
pub mod dpop;
pub mod error;
pub mod handler;
pub mod http;
pub mod jwt;
pub mod metadata;
pub mod oidc;
pub mod pkce;
pub mod random;
pub mod registration;
pub mod scope;
pub mod secret;
pub mod security;
pub mod store;
pub mod token;
pub mod token_request;

pub use client::{ChallengeOutcome, Flow, OAuthClient, OAuthClientBuilder, RequestAuth};
pub use error::{AuthError, Fault};
/// The one boxed-future type of the workspace's public traits
/// ([`http::HttpClient`], [`handler::AuthorizationHandler`]): `futures`'
/// `BoxFuture`, which every crate re-exports rather than declare its own.
pub use http::BoxFuture;
pub use secret::Secret;
pub use url::Url;
