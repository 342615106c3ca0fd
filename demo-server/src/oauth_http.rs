//! The HTTP side of the OAuth mode: the metadata documents (RFC 9728
//! protected resource, RFC 8414 authorization server), dynamic client
//! registration, the authorization endpoint (approves at once and
//! redirects with `code`, `state` and `iss`), the token endpoint
//! (`authorization_code` with PKCE, `refresh_token`), and the `401` with
//! `WWW-Authenticate` that `/mcp` answers until a valid bearer comes.

use std::collections::HashMap;
use std::time::Instant;

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Response, StatusCode, header};
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming as HyperBody;
use serde_json::{Value, json};

use crate::oauth::{AuthServer, Issued, Refusal};
use crate::sse::Body;

/// Largest accepted registration or token request body.
const MAX_FORM: usize = 64 * 1024;
const PRM_PATH: &str = "/.well-known/oauth-protected-resource";
const AS_PATH: &str = "/.well-known/oauth-authorization-server";

fn json_response(status: StatusCode, v: &Value) -> Response<Body> {
    let mut r = Response::new(Body::bytes(serde_json::to_vec(v).unwrap_or_default()));
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

fn refused(status: StatusCode, r: &Refusal) -> Response<Body> {
    json_response(
        status,
        &json!({ "error": r.error, "error_description": r.description }),
    )
}

fn bad_request(error: &'static str, description: &str) -> Response<Body> {
    let r = Refusal {
        error,
        description: description.to_owned(),
    };
    refused(StatusCode::BAD_REQUEST, &r)
}

/// The protected resource metadata URL of `/mcp`.
fn resource_metadata_url(auth: &AuthServer) -> String {
    format!("{}{PRM_PATH}/mcp", auth.base())
}

/// Checks the bearer of a request to `/mcp`: `None` to go on, or the `401`
/// to answer (with `error="invalid_token"` when a token came and is bad).
pub(crate) fn check_bearer(auth: &AuthServer, headers: &HeaderMap) -> Option<Response<Body>> {
    let value = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    let token = value.and_then(|v| {
        let (scheme, token) = v.split_once(' ')?;
        scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
    });
    let mut challenge = format!(
        "Bearer resource_metadata=\"{}\"",
        resource_metadata_url(auth)
    );
    match token.map(|t| auth.check_token(t, Instant::now())) {
        Some(Ok(())) => return None,
        Some(Err(why)) => {
            challenge.push_str(&format!(
                ", error=\"invalid_token\", error_description=\"{why}\""
            ));
        }
        None => {}
    }
    let mut r = json_response(
        StatusCode::UNAUTHORIZED,
        &json!({ "error": "invalid_token", "error_description": "a valid bearer token is required" }),
    );
    if let Ok(v) = HeaderValue::from_str(&challenge) {
        r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    Some(r)
}

/// Answers a request to any path but `/mcp`.
pub(crate) async fn endpoint(auth: &AuthServer, req: hyper::Request<HyperBody>) -> Response<Body> {
    let path = req.uri().path().to_owned();
    let query = req.uri().query().unwrap_or("").to_owned();
    match (req.method().clone(), path.as_str()) {
        (Method::GET, p) if p == PRM_PATH || p == format!("{PRM_PATH}/mcp") => json_response(
            StatusCode::OK,
            &json!({
                "resource": format!("{}/mcp", auth.base()),
                "authorization_servers": [auth.base()],
                "bearer_methods_supported": ["header"],
                "resource_name": "MCP demo server",
            }),
        ),
        (Method::GET, AS_PATH) => json_response(StatusCode::OK, &metadata(auth)),
        (Method::POST, "/register") => match read_body(req).await {
            Ok(body) => register(auth, &body),
            Err(r) => r,
        },
        (Method::GET, "/authorize") => authorize(auth, &form(query.as_bytes())),
        (Method::POST, "/token") => match read_body(req).await {
            Ok(body) => token(auth, &form(&body)),
            Err(r) => r,
        },
        _ => json_response(
            StatusCode::NOT_FOUND,
            &json!({ "error": "not_found", "error_description": format!("no endpoint {path}") }),
        ),
    }
}

fn metadata(auth: &AuthServer) -> Value {
    let base = auth.base();
    json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "registration_endpoint": format!("{base}/register"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "authorization_response_iss_parameter_supported": true,
    })
}

async fn read_body(req: hyper::Request<HyperBody>) -> Result<Bytes, Response<Body>> {
    match Limited::new(req.into_body(), MAX_FORM).collect().await {
        Ok(c) => Ok(c.to_bytes()),
        Err(_) => Err(bad_request(
            "invalid_request",
            "body too large or unreadable",
        )),
    }
}

/// An `application/x-www-form-urlencoded` body or query; a repeated name
/// keeps its first value.
fn form(bytes: &[u8]) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for (k, v) in form_urlencoded::parse(bytes) {
        out.entry(k.into_owned()).or_insert_with(|| v.into_owned());
    }
    out
}

fn register(auth: &AuthServer, body: &[u8]) -> Response<Body> {
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        return bad_request("invalid_client_metadata", "the body is not JSON");
    };
    let uris: Option<Vec<String>> = v["redirect_uris"]
        .as_array()
        .and_then(|a| a.iter().map(|u| u.as_str().map(str::to_owned)).collect());
    let Some(uris) = uris else {
        return bad_request(
            "invalid_redirect_uri",
            "redirect_uris must be an array of strings",
        );
    };
    match auth.register(uris.clone()) {
        Ok(client_id) => json_response(
            StatusCode::CREATED,
            &json!({
                "client_id": client_id,
                "redirect_uris": uris,
                "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
            }),
        ),
        Err(r) => refused(StatusCode::BAD_REQUEST, &r),
    }
}

/// The authorization endpoint. An unknown client or unregistered redirect
/// URI is answered here (never redirected to); other errors go back to the
/// client's redirect URI, as RFC 6749 §4.1.2.1 says.
fn authorize(auth: &AuthServer, q: &HashMap<String, String>) -> Response<Body> {
    let get = |k: &str| q.get(k).map(String::as_str);
    let (Some(client_id), Some(redirect_uri)) = (get("client_id"), get("redirect_uri")) else {
        return bad_request("invalid_request", "client_id and redirect_uri are required");
    };
    if !auth.redirect_allowed(client_id, redirect_uri) {
        return bad_request(
            "invalid_request",
            "unknown client_id or unregistered redirect_uri",
        );
    }
    let mut params = Vec::new();
    let outcome = match (
        get("response_type"),
        get("code_challenge"),
        get("code_challenge_method"),
    ) {
        (Some("code"), Some(challenge), Some("S256")) if !challenge.is_empty() => {
            auth.issue_code(client_id, redirect_uri, challenge, Instant::now())
        }
        (Some("code"), _, _) => Err(Refusal {
            error: "invalid_request",
            description: "PKCE with code_challenge_method=S256 is required".into(),
        }),
        _ => Err(Refusal {
            error: "unsupported_response_type",
            description: "only response_type=code".into(),
        }),
    };
    match outcome {
        Ok(code) => params.push(("code", code)),
        Err(r) => {
            params.push(("error", r.error.to_owned()));
            params.push(("error_description", r.description));
        }
    }
    if let Some(state) = get("state") {
        params.push(("state", state.to_owned()));
    }
    params.push(("iss", auth.base().to_owned()));
    let query = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params)
        .finish();
    let sep = if redirect_uri.contains('?') { '&' } else { '?' };
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::FOUND;
    if let Ok(v) = HeaderValue::from_str(&format!("{redirect_uri}{sep}{query}")) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r
}

fn token(auth: &AuthServer, f: &HashMap<String, String>) -> Response<Body> {
    let get = |k: &str| f.get(k).map(String::as_str).unwrap_or("");
    let now = Instant::now();
    let outcome = match get("grant_type") {
        "authorization_code" => auth.exchange_code(
            get("code"),
            get("client_id"),
            get("redirect_uri"),
            get("code_verifier"),
            now,
        ),
        "refresh_token" => auth.refresh(get("refresh_token"), get("client_id"), now),
        other => Err(Refusal {
            error: "unsupported_grant_type",
            description: format!("grant_type {other:?} is not supported"),
        }),
    };
    match outcome {
        Ok(Issued {
            access_token,
            expires_in,
            refresh_token,
        }) => json_response(
            StatusCode::OK,
            &json!({
                "access_token": access_token,
                "token_type": "Bearer",
                "expires_in": expires_in.as_secs(),
                "refresh_token": refresh_token,
            }),
        ),
        Err(r) => refused(StatusCode::BAD_REQUEST, &r),
    }
}
