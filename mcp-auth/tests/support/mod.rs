//! An in-process fake MCP server + authorization server behind the `HttpClient`
//! trait (no sockets), with knobs for the scenarios the tests drive.

#![allow(dead_code, unreachable_pub)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mcp_auth::handler::{AuthorizationHandler, Clock};
use mcp_auth::http::{BoxFuture, HttpClient, HttpError, HttpRequest, HttpResponse, Method};
use mcp_auth::pkce::s256_challenge;
use mcp_auth::{ChallengeOutcome, OAuthClient};
use serde_json::{Value, json};
use url::Url;

pub const MCP: &str = "https://mcp.example.com/mcp";
pub const ISSUER: &str = "https://auth.example.com";
pub const REDIRECT: &str = "http://127.0.0.1:3000/callback";

#[derive(Clone, Debug)]
pub struct Knobs {
    /// Scopes the MCP endpoint requires (403 insufficient_scope otherwise).
    pub required_scope: Vec<String>,
    /// Scope in the 401 challenge.
    pub challenge_scope: Option<String>,
    /// Advertise `resource_metadata` in the challenge.
    pub header_metadata: bool,
    /// Serve PRM at the path-aware location only.
    pub prm_path_only: bool,
    pub issuer_in_metadata: String,
    pub pkce_methods: Option<Vec<String>>,
    pub iss_supported: bool,
    /// `iss` value put in the redirect (None: omit).
    pub redirect_iss: Option<String>,
    pub scopes_supported_as: Option<Vec<String>>,
    pub issue_refresh_token: bool,
    pub access_lifetime: u64,
    /// Token endpoint delay, to make concurrent callers overlap.
    pub token_delay_ms: u64,
    /// Require DPoP nonces at the AS and RS.
    pub dpop_nonce: bool,
    pub cimd: bool,
    /// Scope put in the 403 challenge instead of the required set.
    pub step_up_challenge: Option<String>,
    /// Leave `error="insufficient_scope"` out of the 403 challenge.
    pub step_up_without_error: bool,
}

impl Default for Knobs {
    fn default() -> Self {
        Self {
            required_scope: vec![],
            challenge_scope: Some("mcp:read".into()),
            header_metadata: true,
            prm_path_only: false,
            issuer_in_metadata: ISSUER.into(),
            pkce_methods: Some(vec!["S256".into()]),
            iss_supported: true,
            redirect_iss: Some(ISSUER.into()),
            scopes_supported_as: Some(vec![
                "mcp:read".into(),
                "mcp:write".into(),
                "offline_access".into(),
            ]),
            issue_refresh_token: true,
            access_lifetime: 3600,
            token_delay_ms: 0,
            dpop_nonce: false,
            cimd: false,
            step_up_challenge: None,
            step_up_without_error: false,
        }
    }
}

#[derive(Debug, Default)]
pub struct Log {
    /// Every URL fetched by the OAuth client, in order.
    pub requests: Vec<String>,
    pub grants: Vec<HashMap<String, String>>,
    pub token_headers: Vec<Vec<(String, String)>>,
    pub registrations: Vec<Value>,
    pub authorize_queries: Vec<HashMap<String, String>>,
    /// code -> (challenge, scope)
    pub codes: HashMap<String, (String, Option<String>)>,
    /// access token -> scopes
    pub access: HashMap<String, Vec<String>>,
    pub counter: u32,
    /// access token -> issuer that minted it
    pub token_issuer: HashMap<String, String>,
    pub mcp_auth_headers: Vec<Vec<(String, String)>>,
}

pub struct Fake {
    pub knobs: Knobs,
    pub log: Mutex<Log>,
    /// The PRM's `authorization_servers` (mutable to simulate a migration).
    pub prm_servers: Mutex<Vec<String>>,
}

fn form(body: &[u8]) -> HashMap<String, String> {
    url::form_urlencoded::parse(body).into_owned().collect()
}

fn json_resp(status: u16, v: Value) -> HttpResponse {
    HttpResponse::json(status, &v)
}

impl Fake {
    pub fn new(knobs: Knobs) -> Arc<Self> {
        Arc::new(Self {
            knobs,
            log: Mutex::new(Log::default()),
            prm_servers: Mutex::new(vec![ISSUER.to_owned()]),
        })
    }

    fn prm(&self) -> Value {
        json!({
            "resource": MCP,
            "authorization_servers": self.prm_servers.lock().unwrap().clone(),
            "scopes_supported": ["mcp:read"],
        })
    }

    fn as_meta(&self, host: &str) -> Value {
        let base = format!("https://{host}");
        let issuer = if host == "auth.example.com" {
            self.knobs.issuer_in_metadata.clone()
        } else {
            base.clone()
        };
        let mut m = json!({
            "issuer": issuer,
            "authorization_endpoint": format!("{base}/authorize"),
            "token_endpoint": format!("{base}/token"),
            "registration_endpoint": format!("{base}/register"),
            "authorization_response_iss_parameter_supported": self.knobs.iss_supported,
            "client_id_metadata_document_supported": self.knobs.cimd,
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"],
        });
        if let Some(p) = &self.knobs.pkce_methods {
            m["code_challenge_methods_supported"] = json!(p);
        }
        if let Some(s) = &self.knobs.scopes_supported_as {
            m["scopes_supported"] = json!(s);
        }
        m
    }

    fn token(&self, req: &HttpRequest, host: &str) -> HttpResponse {
        let f = form(&req.body);
        let mut log = self.log.lock().unwrap();
        log.grants.push(f.clone());
        log.token_headers.push(req.headers.clone());
        if self.knobs.dpop_nonce {
            let proof = req.header("dpop").unwrap_or_default();
            if !proof_has_nonce(proof, "as-nonce") {
                return HttpResponse::new(
                    400,
                    vec![
                        ("dpop-nonce".into(), "as-nonce".into()),
                        ("content-type".into(), "application/json".into()),
                    ],
                    json!({"error": "use_dpop_nonce"}).to_string().into_bytes(),
                );
            }
        }
        let scope: Option<String> = match f.get("grant_type").map(String::as_str) {
            Some("authorization_code") => {
                let code = f.get("code").cloned().unwrap_or_default();
                let Some((challenge, s)) = log.codes.remove(&code) else {
                    return json_resp(400, json!({"error": "invalid_grant"}));
                };
                let verifier = f.get("code_verifier").cloned().unwrap_or_default();
                if s256_challenge(&verifier) != challenge {
                    return json_resp(
                        400,
                        json!({"error": "invalid_grant", "error_description": "pkce"}),
                    );
                }
                if f.get("resource").map(String::as_str) != Some(MCP) {
                    return json_resp(400, json!({"error": "invalid_target"}));
                }
                s
            }
            Some("refresh_token") => {
                if f.get("refresh_token").map(|r| r.starts_with("rt-")) != Some(true) {
                    return json_resp(400, json!({"error": "invalid_grant"}));
                }
                None
            }
            Some("client_credentials") | Some("urn:ietf:params:oauth:grant-type:jwt-bearer") => {
                f.get("scope").cloned()
            }
            _ => return json_resp(400, json!({"error": "unsupported_grant_type"})),
        };
        log.counter += 1;
        let at = format!("at-{}", log.counter);
        let granted: Vec<String> = scope
            .clone()
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        log.access.insert(at.clone(), granted);
        log.token_issuer
            .insert(at.clone(), format!("https://{host}"));
        let token_type = if req.header("dpop").is_some() {
            "DPoP"
        } else {
            "Bearer"
        };
        let mut body = json!({"access_token": at, "token_type": token_type, "expires_in": self.knobs.access_lifetime});
        if self.knobs.issue_refresh_token
            && f.get("grant_type").map(String::as_str) == Some("authorization_code")
        {
            body["refresh_token"] = json!(format!("rt-{}", log.counter));
        }
        if let Some(s) = scope {
            body["scope"] = json!(s);
        }
        json_resp(200, body)
    }

    /// The "browser": validates the authorization request and redirects.
    pub fn browse(&self, url: &str) -> Result<String, String> {
        let u = Url::parse(url).map_err(|e| e.to_string())?;
        let q: HashMap<String, String> = u.query_pairs().into_owned().collect();
        let mut log = self.log.lock().unwrap();
        log.authorize_queries.push(q.clone());
        if q.get("code_challenge_method").map(String::as_str) != Some("S256") {
            return Err("no pkce".into());
        }
        log.counter += 1;
        let code = format!("code-{}", log.counter);
        log.codes.insert(
            code.clone(),
            (q["code_challenge"].clone(), q.get("scope").cloned()),
        );
        let mut r = Url::parse(&q["redirect_uri"]).map_err(|e| e.to_string())?;
        r.query_pairs_mut()
            .append_pair("code", &code)
            .append_pair("state", &q["state"]);
        if let Some(iss) = &self.knobs.redirect_iss {
            // The default knob means "the issuer of the server that was visited".
            let iss = if iss == ISSUER {
                format!("https://{}", u.host_str().unwrap_or_default())
            } else {
                iss.clone()
            };
            r.query_pairs_mut().append_pair("iss", &iss);
        }
        Ok(r.to_string())
    }

    /// The MCP endpoint: 401 without a valid token, 403 without the scopes.
    pub fn mcp(&self, headers: &[(&'static str, mcp_auth::Secret)]) -> HttpResponse {
        let mut log = self.log.lock().unwrap();
        log.mcp_auth_headers.push(
            headers
                .iter()
                .map(|(n, v)| ((*n).to_owned(), v.expose().to_owned()))
                .collect(),
        );
        let auth = headers
            .iter()
            .find(|(n, _)| *n == "authorization")
            .map(|(_, v)| v.expose().to_owned());
        let mut challenge = String::from("Bearer");
        let mut params = vec![];
        if self.knobs.header_metadata {
            params.push("resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\"".to_owned());
        }
        let token = auth
            .as_deref()
            .and_then(|a| a.split_once(' '))
            .map(|(_, t)| t.to_owned());
        // The resource trusts only the authorization servers it currently lists.
        let trusted = self.prm_servers.lock().unwrap().clone();
        let granted = token
            .as_ref()
            .filter(|t| {
                log.token_issuer
                    .get(*t)
                    .is_some_and(|i| trusted.contains(i))
            })
            .and_then(|t| log.access.get(t))
            .cloned();
        let Some(granted) = granted else {
            if let Some(s) = &self.knobs.challenge_scope {
                params.push(format!("scope=\"{s}\""));
            }
            if !params.is_empty() {
                challenge = format!("{challenge} {}", params.join(", "));
            }
            return HttpResponse::new(401, vec![("www-authenticate".into(), challenge)], vec![]);
        };
        if self.knobs.dpop_nonce {
            let proof = headers
                .iter()
                .find(|(n, _)| *n == "dpop")
                .map(|(_, v)| v.expose().to_owned())
                .unwrap_or_default();
            if !proof_has_nonce(&proof, "rs-nonce") {
                return HttpResponse::new(
                    401,
                    vec![
                        (
                            "www-authenticate".into(),
                            "DPoP error=\"use_dpop_nonce\", algs=\"ES256\"".into(),
                        ),
                        ("dpop-nonce".into(), "rs-nonce".into()),
                    ],
                    vec![],
                );
            }
        }
        let missing: Vec<&String> = self
            .knobs
            .required_scope
            .iter()
            .filter(|s| !granted.contains(s))
            .collect();
        if !missing.is_empty() {
            let want = self
                .knobs
                .step_up_challenge
                .clone()
                .unwrap_or_else(|| self.knobs.required_scope.join(" "));
            return HttpResponse::new(
                403,
                vec![(
                    "www-authenticate".into(),
                    if self.knobs.step_up_without_error {
                        format!("Bearer scope=\"{want}\"")
                    } else {
                        format!("Bearer error=\"insufficient_scope\", scope=\"{want}\"")
                    },
                )],
                vec![],
            );
        }
        HttpResponse::json(200, &json!({"ok": true}))
    }
}

pub fn proof_has_nonce(proof: &str, nonce: &str) -> bool {
    use base64::Engine as _;
    let Some(claims) = proof.split('.').nth(1) else {
        return false;
    };
    let Ok(bytes) = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(claims) else {
        return false;
    };
    serde_json::from_slice::<Value>(&bytes)
        .ok()
        .and_then(|v| v.get("nonce").cloned())
        == Some(json!(nonce))
}

impl HttpClient for Fake {
    fn send(&self, req: HttpRequest) -> BoxFuture<'_, Result<HttpResponse, HttpError>> {
        Box::pin(async move {
            self.log.lock().unwrap().requests.push(req.url.clone());
            let u = Url::parse(&req.url).map_err(|e| HttpError::InvalidUrl(e.to_string()))?;
            let path = u.path().to_owned();
            let host = u.host_str().unwrap_or_default().to_owned();
            Ok(match (req.method, host.as_str(), path.as_str()) {
                (Method::Get, "mcp.example.com", "/.well-known/oauth-protected-resource/mcp") => {
                    json_resp(200, self.prm())
                }
                (Method::Get, "mcp.example.com", "/.well-known/oauth-protected-resource")
                    if !self.knobs.prm_path_only =>
                {
                    json_resp(200, self.prm())
                }
                (
                    Method::Get,
                    "auth.example.com" | "auth2.example.com",
                    "/.well-known/oauth-authorization-server",
                ) => json_resp(200, self.as_meta(&host)),
                (Method::Post, "auth.example.com" | "auth2.example.com", "/register") => {
                    let mut v: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
                    v["registered_at"] = json!(host);
                    self.log.lock().unwrap().registrations.push(v);
                    let id = if host == "auth.example.com" {
                        "dcr-client".to_owned()
                    } else {
                        format!("dcr-{host}")
                    };
                    json_resp(201, json!({"client_id": id}))
                }
                (Method::Get, "auth.example.com" | "auth2.example.com", "/authorize") => {
                    match self.browse(&req.url) {
                        Ok(location) => {
                            HttpResponse::new(302, vec![("location".into(), location)], vec![])
                        }
                        Err(_) => HttpResponse::new(400, vec![], vec![]),
                    }
                }
                (Method::Post, "idp.example.com", "/token") => {
                    let f = form(&req.body);
                    self.log.lock().unwrap().grants.push(f.clone());
                    if f.get("subject_token").map(String::as_str) != Some("id-token-1") {
                        json_resp(400, json!({"error": "invalid_grant"}))
                    } else {
                        json_resp(
                            200,
                            json!({
                                "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                                "access_token": "jag-1",
                                "token_type": "N_A",
                                "expires_in": 300
                            }),
                        )
                    }
                }
                (Method::Post, "auth.example.com" | "auth2.example.com", "/token") => {
                    if self.knobs.token_delay_ms > 0 {
                        tokio::time::sleep(Duration::from_millis(self.knobs.token_delay_ms)).await;
                    }
                    self.token(&req, &host)
                }
                _ => HttpResponse::new(404, vec![], vec![]),
            })
        })
    }
}

/// The user: hands the URL to the fake browser.
pub struct Browser(pub Arc<Fake>);

impl AuthorizationHandler for Browser {
    fn authorize<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move { self.0.browse(url) })
    }
}

/// A settable clock.
pub struct TestClock(pub Mutex<SystemTime>);

impl TestClock {
    pub fn at(secs: u64) -> Arc<Self> {
        Arc::new(Self(Mutex::new(UNIX_EPOCH + Duration::from_secs(secs))))
    }
    pub fn advance(&self, secs: u64) {
        *self.0.lock().unwrap() += Duration::from_secs(secs);
    }
}

impl Clock for TestClock {
    fn now(&self) -> SystemTime {
        *self.0.lock().unwrap()
    }
}

/// Plays the transport: send, and on 401/403 let the OAuth client react, bounded.
pub async fn call(
    client: &OAuthClient,
    fake: &Fake,
    operation: &str,
) -> Result<HttpResponse, mcp_auth::AuthError> {
    let url = Url::parse(MCP).unwrap();
    for _ in 0..8 {
        let auth = client.headers_for(Method::Post, &url).await?;
        let resp = fake.mcp(&auth.headers);
        if resp.status == 401 || resp.status == 403 {
            let ChallengeOutcome::Retry = client
                .on_unauthorized(&resp, auth.generation, operation)
                .await?;
            continue;
        }
        client.on_success(operation);
        return Ok(resp);
    }
    panic!("transport loop did not terminate");
}
