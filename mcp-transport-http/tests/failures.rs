//! Failures named by their cause in the first words of `Display` (issue 14
//! item 6), against real loopback servers: refused connections, DNS,
//! untrusted and wrong-name certificates, a 401 challenge, an HTML sign-in
//! page, a redirect and an oversized event.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use std::sync::Arc;

use http::Response;
use mcp_transport_http::{
    HttpConfig, HttpError, HttpTransport, Limits, ProxyConfig, Reply, RootStore, TlsConfig,
};
use support::*;

async fn fail(config: HttpConfig) -> String {
    let t = HttpTransport::new(config).unwrap();
    let err = within(ms(10_000), t.send(request(1, "ping"), &modern(1, "ping")))
        .await
        .unwrap_err();
    err.to_string()
}

#[tokio::test]
async fn refused_connections_and_dns_failures_say_so_first() {
    // Bound, not listening, and held: refused, and never handed to a
    // server another test starts meanwhile.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let port = socket.local_addr().unwrap().port();
    let text = fail(config(&format!("http://127.0.0.1:{port}/mcp?key=s3cret"))).await;
    assert_eq!(
        text,
        format!("connection refused: nothing listens at http://127.0.0.1:{port}")
    );

    let text = fail(config("http://no-such-host.invalid/mcp")).await;
    assert!(
        text.starts_with("DNS: cannot resolve no-such-host.invalid ("),
        "{text}"
    );
}

/// A CA and a server certificate for `other.test` only.
fn wrong_name_pki() -> (String, rustls::ServerConfig) {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
    let leaf_key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["other.test".to_owned()])
        .unwrap()
        .signed_by(&leaf_key, &ca)
        .unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(leaf_key.serialize_der().into());
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let server = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![leaf.der().clone()], key)
        .unwrap();
    (ca.pem(), server)
}

#[tokio::test]
async fn untrusted_and_wrong_name_certificates_say_so_first() {
    let pki = test_pki();
    let server = serve_tls(
        |seen, _| json(200, &result(request_id(seen), "{}")),
        pki.server,
    )
    .await;
    let port = server.addr.port();
    // The default roots do not hold the test CA.
    let text = fail(config(&server.url)).await;
    assert_eq!(
        text,
        format!("TLS: certificate not trusted (UnknownIssuer) for https://127.0.0.1:{port}")
    );

    let (ca_pem, tls) = wrong_name_pki();
    let server = serve_tls(|seen, _| json(200, &result(request_id(seen), "{}")), tls).await;
    let port = server.addr.port();
    let trusted = TlsConfig::default()
        .with_roots(RootStore::Empty)
        .with_ca_pem(ca_pem);
    let text = fail(config(&server.url).with_tls(trusted)).await;
    assert_eq!(
        text,
        format!(
            "TLS: certificate not valid for this host name (NotValidForName) for \
             https://127.0.0.1:{port}"
        )
    );
}

#[tokio::test]
async fn a_401_summarises_its_challenge() {
    let server = serve(|_, _| {
        Response::builder()
            .status(401)
            .header(
                "www-authenticate",
                r#"Bearer realm="mcp", error="invalid_token", error_description="expired", resource_metadata="https://x.test/.well-known/oauth-protected-resource""#,
            )
            .body(full(""))
            .unwrap()
    })
    .await;
    assert_eq!(
        fail(config(&server.url)).await,
        "HTTP status 401 Unauthorized: unauthorized: the server asks for Bearer (realm=mcp, \
         error=invalid_token, error_description=expired, \
         resource_metadata=https://x.test/.well-known/oauth-protected-resource)"
    );
    let bare = serve(|_, _| status(401)).await;
    assert_eq!(
        fail(config(&bare.url)).await,
        "HTTP status 401 Unauthorized: unauthorized (no WWW-Authenticate challenge)"
    );
}

#[tokio::test]
async fn an_html_sign_in_page_and_a_redirect_are_named() {
    let server = serve(|_, _| {
        Response::builder()
            .status(200)
            .header("content-type", "text/html; charset=utf-8")
            .body(full("<html><title>Sign in</title></html>"))
            .unwrap()
    })
    .await;
    let text = fail(config(&server.url)).await;
    assert!(
        text.starts_with(
            "the server answered with an HTML page (status 200 OK, text/html; charset=utf-8)"
        ),
        "{text}"
    );
    let redirect = serve(|_, _| {
        Response::builder()
            .status(302)
            .header(
                "location",
                "https://login.test/authorize?client_secret=s3cret",
            )
            .body(full(""))
            .unwrap()
    })
    .await;
    let text = fail(config(&redirect.url)).await;
    assert!(
        text.starts_with(
            "HTTP redirect 302 Found to https://login.test/authorize?client_secret=<redacted> \
             not followed"
        ),
        "{text}"
    );
}

#[tokio::test]
async fn an_oversized_event_is_named_with_its_limit() {
    let server = serve(|seen, _| {
        let big = format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{{"x":"{}"}}}}"#,
            request_id(seen),
            "y".repeat(4096)
        );
        sse(vec![chunk(&event(&big))], None)
    })
    .await;
    let limits = Limits::default();
    let t = HttpTransport::new(
        config(&server.url)
            .with_proxy(ProxyConfig::None)
            .with_limits(limits)
            .with_max_event_bytes(1024),
    )
    .unwrap();
    let reply = t
        .send(request(1, "ping"), &modern(1, "ping"))
        .await
        .unwrap();
    let Reply::Stream(mut stream) = reply else {
        panic!("expected a stream")
    };
    let err = within(ms(5_000), stream.next()).await.unwrap().unwrap_err();
    assert!(matches!(err, HttpError::Sse(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        "server-sent event larger than the 1024-byte limit"
    );
}
