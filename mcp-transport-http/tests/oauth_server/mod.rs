//! An in-test OAuth 2.1 world on loopback: a protected MCP resource server
//! (with its RFC 9728 metadata) and an authorization server (RFC 8414
//! metadata, dynamic registration, authorization, token endpoint with PKCE,
//! refresh, client credentials and DPoP with nonces), each on its own port.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used)]

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use http::{Response, StatusCode};
use mcp_auth::Url;

use crate::support::{self, Body, Seen, TestServer};

/// What the servers do; set before starting.
#[derive(Clone, Debug)]
pub struct Knobs {
    /// `token_endpoint_auth_methods_supported`.
    pub auth_methods: Vec<String>,
    /// Whether `/register` exists.
    pub dcr: bool,
    /// The PRM `scopes_supported`.
    pub prm_scopes: Option<Vec<String>>,
    /// The `scope` of the 401 challenge.
    pub challenge_scope: Option<String>,
    /// `expires_in` of tokens from the authorization code grant.
    pub first_expires_in: u64,
    /// The scope each JSON-RPC method needs (403 `insufficient_scope` else).
    pub needs: HashMap<String, String>,
    /// DPoP-bound tokens: the resource wants `Authorization: DPoP` and a proof.
    pub dpop: bool,
    /// The nonce the authorization server demands in proofs.
    pub as_nonce: Option<String>,
    /// The nonce the resource server demands in proofs.
    pub rs_nonce: Option<String>,
    /// Client credentials the token endpoint accepts via HTTP Basic.
    pub basic_client: Option<(String, String)>,
    /// The scope every token gets, whatever was asked.
    pub grant_scope: Option<String>,
    /// A nonce the resource server rotates to on its first success (sent in
    /// `DPoP-Nonce` on that 200, required from then on).
    pub rotate_rs_nonce: Option<String>,
}

impl Default for Knobs {
    fn default() -> Self {
        Knobs {
            auth_methods: vec!["none".into()],
            dcr: true,
            prm_scopes: None,
            challenge_scope: None,
            first_expires_in: 3600,
            needs: HashMap::new(),
            dpop: false,
            as_nonce: None,
            rs_nonce: None,
            basic_client: None,
            grant_scope: None,
            rotate_rs_nonce: None,
        }
    }
}

/// One token endpoint request: the form and the headers that matter.
#[derive(Clone, Debug)]
pub struct TokenCall {
    pub form: HashMap<String, String>,
    pub authorization: Option<String>,
    pub dpop: Option<serde_json::Value>,
}

#[derive(Default)]
pub struct Record {
    pub registrations: Vec<serde_json::Value>,
    pub authorizations: Vec<HashMap<String, String>>,
    pub token_calls: Vec<TokenCall>,
    /// Every MCP request: the method and its `Authorization` header.
    pub mcp_calls: Vec<(String, Option<String>)>,
    /// Discovery GETs, by path.
    pub metadata_gets: Vec<String>,
    /// The `nonce` of every DPoP proof the resource server saw.
    pub rs_proof_nonces: Vec<Option<String>>,
}

struct Code {
    challenge: String,
    redirect_uri: String,
    scope: Option<String>,
    resource: Option<String>,
}

#[derive(Default)]
struct Issued {
    counter: u32,
    codes: HashMap<String, Code>,
    /// Access token -> its scope.
    tokens: HashMap<String, String>,
    /// Refresh token -> its scope.
    refresh: HashMap<String, String>,
    revoked: HashSet<String>,
}

pub struct OAuthWorld {
    pub knobs: Knobs,
    pub record: Mutex<Record>,
    issued: Mutex<Issued>,
    /// The nonce the resource server currently demands.
    rs_nonce: Mutex<Option<String>>,
    pub rs: TestServer,
    pub as_: TestServer,
}

fn form(s: &str) -> HashMap<String, String> {
    Url::parse(&format!("http://x/?{s}"))
        .unwrap()
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

fn json(status: u16, v: &serde_json::Value) -> Response<Body> {
    support::json(status, &v.to_string())
}

fn oauth_error(status: u16, error: &str) -> Response<Body> {
    json(status, &serde_json::json!({ "error": error }))
}

/// The JWT's payload, unverified (the proof's signature is mcp-auth's concern).
pub fn jwt_parts(jwt: &str) -> (serde_json::Value, serde_json::Value) {
    let mut it = jwt.split('.');
    let mut part = || {
        let bytes = URL_SAFE_NO_PAD
            .decode(it.next().unwrap_or_default())
            .unwrap();
        serde_json::from_slice(&bytes).unwrap()
    };
    (part(), part())
}

impl OAuthWorld {
    /// Starts both servers.
    pub async fn start(knobs: Knobs) -> Arc<Self> {
        // The handlers need the world, the world needs the servers: tie the
        // knot through a slot filled once both are up.
        let slot: Arc<Mutex<Option<Arc<OAuthWorld>>>> = Arc::default();
        let s = slot.clone();
        let rs = support::serve(move |seen, _| {
            let world = s.lock().unwrap().clone().unwrap();
            world.resource(seen)
        })
        .await;
        let s = slot.clone();
        let as_ = support::serve(move |seen, _| {
            let world = s.lock().unwrap().clone().unwrap();
            world.authorization(seen)
        })
        .await;
        let world = Arc::new(OAuthWorld {
            rs_nonce: Mutex::new(knobs.rs_nonce.clone()),
            knobs,
            record: Mutex::default(),
            issued: Mutex::default(),
            rs,
            as_,
        });
        *slot.lock().unwrap() = Some(world.clone());
        world
    }

    /// The MCP endpoint.
    pub fn mcp_url(&self) -> String {
        self.rs.url.clone()
    }

    /// The issuer.
    pub fn issuer(&self) -> String {
        format!("http://{}", self.as_.addr)
    }

    fn prm_url(&self) -> String {
        format!(
            "http://{}/.well-known/oauth-protected-resource/mcp",
            self.rs.addr
        )
    }

    /// Revokes every access token issued so far (the next use gets a 401).
    pub fn revoke_all(&self) {
        let mut issued = self.issued.lock().unwrap();
        let all: Vec<String> = issued.tokens.keys().cloned().collect();
        issued.revoked.extend(all);
    }

    pub fn token_calls(&self) -> Vec<TokenCall> {
        self.record.lock().unwrap().token_calls.clone()
    }

    pub fn grants(&self, grant: &str) -> usize {
        self.token_calls()
            .iter()
            .filter(|c| c.form.get("grant_type").map(String::as_str) == Some(grant))
            .count()
    }

    fn issue(&self, scope: &str, expires_in: u64) -> serde_json::Value {
        let scope = self.knobs.grant_scope.as_deref().unwrap_or(scope);
        let mut issued = self.issued.lock().unwrap();
        issued.counter += 1;
        let n = issued.counter;
        let token = format!("tok-{n}");
        let refresh = format!("rt-{n}");
        issued.tokens.insert(token.clone(), scope.to_owned());
        issued.refresh.insert(refresh.clone(), scope.to_owned());
        let kind = if self.knobs.dpop { "DPoP" } else { "Bearer" };
        let mut body = serde_json::json!({
            "access_token": token,
            "token_type": kind,
            "expires_in": expires_in,
            "refresh_token": refresh,
        });
        if !scope.is_empty() {
            body["scope"] = scope.into();
        }
        body
    }

    // ---- the protected resource ----

    fn challenge(&self, status: u16, extra: &str) -> Response<Body> {
        let scheme = if self.knobs.dpop { "DPoP" } else { "Bearer" };
        let mut value = format!(r#"{scheme} resource_metadata="{}""#, self.prm_url());
        if !extra.is_empty() {
            value.push_str(", ");
            value.push_str(extra);
        }
        let mut builder = Response::builder()
            .status(status)
            .header("www-authenticate", value);
        // As the conformance suite does: the nonce only comes with the
        // `use_dpop_nonce` challenge, not with the first 401.
        if let Some(n) = self.rs_nonce.lock().unwrap().as_deref()
            && extra.contains("use_dpop_nonce")
        {
            builder = builder.header("dpop-nonce", n);
        }
        builder.body(support::full("")).unwrap()
    }

    fn resource(&self, seen: &Seen) -> Response<Body> {
        if seen.path == "/.well-known/oauth-protected-resource/mcp" {
            self.record
                .lock()
                .unwrap()
                .metadata_gets
                .push(seen.path.clone());
            let mut prm = serde_json::json!({
                "resource": self.mcp_url(),
                "authorization_servers": [self.issuer()],
            });
            if let Some(s) = &self.knobs.prm_scopes {
                prm["scopes_supported"] = s.clone().into();
            }
            return json(200, &prm);
        }
        if seen.path != "/mcp" {
            self.record
                .lock()
                .unwrap()
                .metadata_gets
                .push(seen.path.clone());
            return support::status(404);
        }
        let body = seen.json();
        let method = body["method"].as_str().unwrap_or_default().to_owned();
        let authorization = seen.header("authorization").map(str::to_owned);
        self.record
            .lock()
            .unwrap()
            .mcp_calls
            .push((method.clone(), authorization.clone()));
        let scheme = if self.knobs.dpop { "DPoP " } else { "Bearer " };
        let token = authorization
            .as_deref()
            .and_then(|a| a.strip_prefix(scheme))
            .map(str::to_owned);
        let scope = token.as_ref().and_then(|t| {
            let issued = self.issued.lock().unwrap();
            if issued.revoked.contains(t) {
                return None;
            }
            issued.tokens.get(t).cloned()
        });
        let Some(scope) = scope else {
            let extra = self
                .knobs
                .challenge_scope
                .as_ref()
                .map(|s| format!(r#"scope="{s}""#))
                .unwrap_or_default();
            return self.challenge(401, &extra);
        };
        if self.knobs.dpop {
            let Some(proof) = seen.header("dpop") else {
                return self.challenge(401, r#"error="invalid_dpop_proof""#);
            };
            let (header, claims) = jwt_parts(proof);
            assert_eq!(header["typ"], "dpop+jwt");
            assert_eq!(claims["htm"], "POST");
            assert_eq!(claims["htu"], self.mcp_url());
            assert!(
                claims["ath"].is_string(),
                "a resource proof is bound to the token"
            );
            let nonce = claims["nonce"].as_str().map(str::to_owned);
            self.record
                .lock()
                .unwrap()
                .rs_proof_nonces
                .push(nonce.clone());
            let wanted = self.rs_nonce.lock().unwrap().clone();
            if wanted.is_some() && nonce != wanted {
                return self.challenge(401, r#"error="use_dpop_nonce""#);
            }
        }
        if let Some(needed) = self.knobs.needs.get(&method) {
            let have: HashSet<&str> = scope.split(' ').collect();
            if !needed.split(' ').all(|s| have.contains(s)) {
                return self.challenge(
                    403,
                    &format!(r#"error="insufficient_scope", scope="{needed}""#),
                );
            }
        }
        let id = body["id"].clone();
        let mut response = json(
            200,
            &serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {"tools": []}}),
        );
        if let Some(next) = &self.knobs.rotate_rs_nonce {
            *self.rs_nonce.lock().unwrap() = Some(next.clone());
            response
                .headers_mut()
                .insert("dpop-nonce", next.parse().unwrap());
        }
        response
    }

    // ---- the authorization server ----

    fn authorization(&self, seen: &Seen) -> Response<Body> {
        match seen.path.as_str() {
            "/.well-known/oauth-authorization-server" => {
                self.record
                    .lock()
                    .unwrap()
                    .metadata_gets
                    .push(seen.path.clone());
                let base = self.issuer();
                let mut meta = serde_json::json!({
                    "issuer": base,
                    "authorization_endpoint": format!("{base}/authorize"),
                    "token_endpoint": format!("{base}/token"),
                    "response_types_supported": ["code"],
                    "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
                    "code_challenge_methods_supported": ["S256"],
                    "authorization_response_iss_parameter_supported": true,
                    "token_endpoint_auth_methods_supported": self.knobs.auth_methods,
                });
                if self.knobs.dcr {
                    meta["registration_endpoint"] = format!("{base}/register").into();
                }
                if self.knobs.dpop {
                    meta["dpop_signing_alg_values_supported"] = serde_json::json!(["ES256"]);
                }
                json(200, &meta)
            }
            "/register" if self.knobs.dcr => {
                let request = seen.json();
                self.record
                    .lock()
                    .unwrap()
                    .registrations
                    .push(request.clone());
                let method = request["token_endpoint_auth_method"]
                    .as_str()
                    .unwrap_or("none")
                    .to_owned();
                let mut info = serde_json::json!({
                    "client_id": "dyn-client",
                    "token_endpoint_auth_method": method,
                    "redirect_uris": request["redirect_uris"],
                });
                if method != "none" {
                    info["client_secret"] = "dyn-secret".into();
                }
                json(201, &info)
            }
            "/authorize" => self.authorize(seen),
            "/token" => self.token(seen),
            other => {
                self.record
                    .lock()
                    .unwrap()
                    .metadata_gets
                    .push(other.to_owned());
                support::status(404)
            }
        }
    }

    fn authorize(&self, seen: &Seen) -> Response<Body> {
        let q = form(&seen.query);
        self.record.lock().unwrap().authorizations.push(q.clone());
        assert_eq!(q.get("response_type").map(String::as_str), Some("code"));
        assert_eq!(
            q.get("code_challenge_method").map(String::as_str),
            Some("S256")
        );
        let mut issued = self.issued.lock().unwrap();
        issued.counter += 1;
        let code = format!("code-{}", issued.counter);
        issued.codes.insert(
            code.clone(),
            Code {
                challenge: q["code_challenge"].clone(),
                redirect_uri: q["redirect_uri"].clone(),
                scope: q.get("scope").cloned(),
                resource: q.get("resource").cloned(),
            },
        );
        let mut target = Url::parse(&q["redirect_uri"]).unwrap();
        target
            .query_pairs_mut()
            .append_pair("code", &code)
            .append_pair("state", &q["state"])
            .append_pair("iss", &self.issuer());
        Response::builder()
            .status(StatusCode::FOUND)
            .header("location", target.as_str())
            .body(support::full(""))
            .unwrap()
    }

    fn token(&self, seen: &Seen) -> Response<Body> {
        let f = form(std::str::from_utf8(&seen.body).unwrap());
        let proof = seen.header("dpop").map(|p| jwt_parts(p).1);
        self.record.lock().unwrap().token_calls.push(TokenCall {
            form: f.clone(),
            authorization: seen.header("authorization").map(str::to_owned),
            dpop: proof.clone(),
        });
        if self.knobs.dpop {
            let Some(claims) = proof else {
                return oauth_error(400, "invalid_dpop_proof");
            };
            assert_eq!(claims["htm"], "POST");
            assert_eq!(claims["htu"], format!("{}/token", self.issuer()));
            if let Some(n) = &self.knobs.as_nonce
                && claims["nonce"].as_str() != Some(n)
            {
                return Response::builder()
                    .status(400)
                    .header("content-type", "application/json")
                    .header("dpop-nonce", n)
                    .body(support::full(r#"{"error":"use_dpop_nonce"}"#))
                    .unwrap();
            }
        }
        if let Some((id, secret)) = &self.knobs.basic_client {
            let want = format!("Basic {}", STANDARD.encode(format!("{id}:{secret}")));
            if seen.header("authorization") != Some(want.as_str()) {
                return oauth_error(401, "invalid_client");
            }
        }
        match f.get("grant_type").map(String::as_str) {
            Some("authorization_code") => {
                let Some(code) = self.issued.lock().unwrap().codes.remove(&f["code"]) else {
                    return oauth_error(400, "invalid_grant");
                };
                let verifier = f.get("code_verifier").cloned().unwrap_or_default();
                if mcp_auth::pkce::s256_challenge(&verifier) != code.challenge
                    || f.get("redirect_uri") != Some(&code.redirect_uri)
                    || f.get("resource") != code.resource.as_ref()
                    || f.get("resource") != Some(&self.mcp_url())
                {
                    return oauth_error(400, "invalid_grant");
                }
                let scope = code.scope.unwrap_or_default();
                json(200, &self.issue(&scope, self.knobs.first_expires_in))
            }
            Some("refresh_token") => {
                let scope = self
                    .issued
                    .lock()
                    .unwrap()
                    .refresh
                    .remove(&f["refresh_token"]);
                match scope {
                    Some(scope) => json(200, &self.issue(&scope, 3600)),
                    None => oauth_error(400, "invalid_grant"),
                }
            }
            Some("client_credentials") => {
                let scope = f.get("scope").cloned().unwrap_or_default();
                json(200, &self.issue(&scope, 3600))
            }
            _ => oauth_error(400, "unsupported_grant_type"),
        }
    }
}
