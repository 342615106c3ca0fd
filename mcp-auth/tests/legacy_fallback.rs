//! 2025-03-26 authorization back-compatibility, one test per fallback
//! decision, against a scripted 2025-03-26 era server behind the
//! `HttpClient` trait (no sockets).
//!
//! That revision had no protected resource metadata: the authorization
//! server is the MCP server's origin (its path discarded), its RFC 8414
//! metadata is used when served, and `/authorize`, `/token` and `/register`
//! at the origin are the endpoints when it is not.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_auth::discovery::DiscoveryError;
use mcp_auth::handler::AuthorizationHandler;
use mcp_auth::http::{BoxFuture, HttpClient, HttpError, HttpRequest, HttpResponse, Method};
use mcp_auth::random::SeededRandom;
use mcp_auth::registration::RegistrationConfig;
use mcp_auth::{AuthError, Flow, OAuthClient};
use serde_json::{Value, json};
use url::Url;

/// The MCP endpoint: a path below the origin, which discovery discards.
const SERVER: &str = "https://legacy.example.com/v1/mcp";
const ORIGIN: &str = "https://legacy.example.com";
const REDIRECT: &str = "http://127.0.0.1:3000/callback";

/// What the server answers at `/.well-known/oauth-authorization-server`.
#[derive(Clone)]
enum Metadata {
    /// This document, with status 200.
    Served(Value),
    /// An empty response with this status.
    Status(u16),
}

/// A 2025-03-26 era server: its own authorization server, no protected
/// resource metadata unless `prm` is set.
struct LegacyServer {
    metadata: Metadata,
    prm: Option<Value>,
    /// `METHOD url` of every request, in order.
    log: Mutex<Vec<String>>,
    /// The token requests' form fields.
    grants: Mutex<Vec<HashMap<String, String>>>,
}

impl LegacyServer {
    fn new(metadata: Metadata) -> Arc<Self> {
        Arc::new(Self {
            metadata,
            prm: None,
            log: Mutex::new(Vec::new()),
            grants: Mutex::new(Vec::new()),
        })
    }

    fn requests(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    fn answer(&self, req: &HttpRequest) -> HttpResponse {
        let url = Url::parse(&req.url).unwrap();
        let not_found = HttpResponse::new(404, vec![], vec![]);
        if url.host_str() != Some("legacy.example.com") {
            return not_found;
        }
        match (req.method, url.path()) {
            (Method::Get, p) if p.starts_with("/.well-known/oauth-protected-resource") => {
                match &self.prm {
                    Some(prm) => HttpResponse::json(200, prm),
                    None => not_found,
                }
            }
            (Method::Get, "/.well-known/oauth-authorization-server") => match &self.metadata {
                Metadata::Served(doc) => HttpResponse::json(200, doc),
                Metadata::Status(status) => HttpResponse::new(*status, vec![], vec![]),
            },
            (Method::Post, "/register" | "/oauth/register") => {
                HttpResponse::json(201, &json!({"client_id": "legacy-client"}))
            }
            (Method::Post, "/token" | "/oauth/token") => {
                let form = url::form_urlencoded::parse(&req.body)
                    .into_owned()
                    .collect();
                self.grants.lock().unwrap().push(form);
                HttpResponse::json(
                    200,
                    &json!({"access_token": "at-1", "token_type": "Bearer", "expires_in": 3600}),
                )
            }
            _ => not_found,
        }
    }
}

impl HttpClient for LegacyServer {
    fn send(&self, req: HttpRequest) -> BoxFuture<'_, Result<HttpResponse, HttpError>> {
        Box::pin(async move {
            let line = format!("{} {}", req.method.as_str(), req.url);
            self.log.lock().unwrap().push(line);
            Ok(self.answer(&req))
        })
    }
}

/// The user's browser: records the authorization URL and approves at once.
struct Browser(Arc<LegacyServer>);

impl AuthorizationHandler for Browser {
    fn authorize<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            self.0.log.lock().unwrap().push(format!("BROWSE {url}"));
            let u = Url::parse(url).map_err(|e| e.to_string())?;
            let q: HashMap<String, String> = u.query_pairs().into_owned().collect();
            let mut back = Url::parse(&q["redirect_uri"]).map_err(|e| e.to_string())?;
            back.query_pairs_mut()
                .append_pair("code", "code-1")
                .append_pair("state", &q["state"]);
            Ok(back.to_string())
        })
    }
}

fn client(server: &Arc<LegacyServer>) -> OAuthClient {
    let flow = Flow::AuthorizationCode {
        handler: Arc::new(Browser(server.clone())),
        registration: RegistrationConfig::new(vec![REDIRECT.into()]),
    };
    OAuthClient::builder(Url::parse(SERVER).unwrap(), server.clone(), flow)
        .random(Arc::new(SeededRandom::new(3)))
        .build()
}

/// RFC 8414 metadata as a 2025-03-26 server served it, endpoints under `/oauth`.
fn origin_metadata() -> Value {
    json!({
        "issuer": ORIGIN,
        "authorization_endpoint": format!("{ORIGIN}/oauth/authorize"),
        "token_endpoint": format!("{ORIGIN}/oauth/token"),
        "registration_endpoint": format!("{ORIGIN}/oauth/register"),
        "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"],
    })
}

/// The protected resource metadata probes every flow starts with.
fn prm_probes() -> [String; 2] {
    [
        format!("GET {ORIGIN}/.well-known/oauth-protected-resource/v1/mcp"),
        format!("GET {ORIGIN}/.well-known/oauth-protected-resource"),
    ]
}

/// Everything after the probes, with the browser's query cut off.
fn after_probes(server: &LegacyServer) -> Vec<String> {
    let requests = server.requests();
    assert_eq!(requests[..2], prm_probes());
    requests[2..]
        .iter()
        .map(|r| {
            r.split_once('?')
                .map_or(r.as_str(), |(head, _)| head)
                .to_owned()
        })
        .collect()
}

#[tokio::test]
async fn without_resource_metadata_the_origin_metadata_is_used() {
    let server = LegacyServer::new(Metadata::Served(origin_metadata()));
    client(&server).authorize().await.unwrap();
    // Metadata at the origin (no path insertion), then its own endpoints.
    assert_eq!(
        after_probes(&server),
        [
            format!("GET {ORIGIN}/.well-known/oauth-authorization-server"),
            format!("POST {ORIGIN}/oauth/register"),
            format!("BROWSE {ORIGIN}/oauth/authorize"),
            format!("POST {ORIGIN}/oauth/token"),
        ]
    );
}

#[tokio::test]
async fn absent_metadata_means_the_default_endpoints_at_the_origin() {
    let server = LegacyServer::new(Metadata::Status(404));
    let client = client(&server);
    client.authorize().await.unwrap();
    assert_eq!(
        after_probes(&server),
        [
            format!("GET {ORIGIN}/.well-known/oauth-authorization-server"),
            format!("GET {ORIGIN}/.well-known/openid-configuration"),
            format!("POST {ORIGIN}/register"),
            format!("BROWSE {ORIGIN}/authorize"),
            format!("POST {ORIGIN}/token"),
        ]
    );
    // PKCE is used with the defaults too, and the resource is the server URL.
    let browse = server.requests()[5].clone();
    assert!(browse.contains("code_challenge_method=S256"), "{browse}");
    let grant = &server.grants.lock().unwrap()[0];
    assert_eq!(grant["grant_type"], "authorization_code");
    assert_eq!(grant["client_id"], "legacy-client");
    assert_eq!(grant["resource"], SERVER);
    assert!(grant.contains_key("code_verifier"));
    assert_eq!(client.tokens().unwrap().access_token.expose(), "at-1");
}

#[tokio::test]
async fn a_failed_metadata_fetch_also_means_the_default_endpoints() {
    // 2025-03-26: "discovery failed" leads to the defaults, whatever the status.
    let server = LegacyServer::new(Metadata::Status(500));
    client(&server).authorize().await.unwrap();
    let requests = after_probes(&server);
    assert_eq!(
        requests[2..],
        [
            format!("POST {ORIGIN}/register"),
            format!("BROWSE {ORIGIN}/authorize"),
            format!("POST {ORIGIN}/token"),
        ]
    );
}

#[tokio::test]
async fn origin_metadata_naming_another_issuer_is_refused_not_replaced() {
    let mut doc = origin_metadata();
    doc["issuer"] = json!("https://attacker.example");
    let server = LegacyServer::new(Metadata::Served(doc));
    let err = client(&server).authorize().await.unwrap_err();
    assert!(
        matches!(
            err,
            AuthError::Discovery(DiscoveryError::IssuerMismatch { .. })
        ),
        "{err}"
    );
    // Neither the document's endpoints nor the defaults were used.
    assert_eq!(
        after_probes(&server),
        [format!(
            "GET {ORIGIN}/.well-known/oauth-authorization-server"
        )]
    );
}

#[tokio::test]
async fn origin_metadata_without_pkce_s256_is_refused() {
    let mut doc = origin_metadata();
    doc.as_object_mut()
        .unwrap()
        .remove("code_challenge_methods_supported");
    let server = LegacyServer::new(Metadata::Served(doc));
    let err = client(&server).authorize().await.unwrap_err();
    assert!(
        matches!(err, AuthError::Discovery(DiscoveryError::PkceNotSupported)),
        "{err}"
    );
    assert!(server.requests().iter().all(|r| !r.contains("authorize")));
}

#[tokio::test]
async fn with_resource_metadata_there_is_no_fallback() {
    // A current server whose listed authorization server is unreachable: the
    // client reports it instead of guessing endpoints at the MCP origin.
    let mut server = LegacyServer::new(Metadata::Served(origin_metadata()));
    Arc::get_mut(&mut server).unwrap().prm = Some(json!({
        "resource": SERVER,
        "authorization_servers": ["https://auth.legacy.example.com"],
    }));
    let err = client(&server).authorize().await.unwrap_err();
    assert!(
        matches!(err, AuthError::NoAuthorizationServerMetadata(ref i) if i == "https://auth.legacy.example.com"),
        "{err}"
    );
    let requests = server.requests();
    assert_eq!(
        requests[0],
        format!("GET {ORIGIN}/.well-known/oauth-protected-resource/v1/mcp")
    );
    assert!(
        requests.iter().all(|r| !r.starts_with(&format!(
            "GET {ORIGIN}/.well-known/oauth-authorization-server"
        )) && !r.starts_with("POST")),
        "{requests:?}"
    );
}
