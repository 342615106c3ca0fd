//! The HTTP stack: pooling, redirects, auth, headers, TLS, the proxy tunnel.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use http::{HeaderMap, HeaderValue, StatusCode};
use mcp_transport_http::auth::{
    AuthChallenge, AuthDecision, AuthError, AuthProvider, AuthRequest, BearerToken, BoxFuture,
    Credentials,
};
use mcp_transport_http::{
    ConfigError, Fault, HttpConfig, HttpError, HttpTransport, ProxyConfig, Reply, TlsConfig,
};
use support::*;

#[tokio::test]
async fn a_thousand_sequential_calls_reuse_one_connection() {
    let server = serve(|seen, _| json(200, &result(request_id(seen), "{}"))).await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    for id in 0..1000 {
        let reply = t
            .send(request(id, "ping"), &modern(id, "ping"))
            .await
            .unwrap();
        assert!(matches!(reply, Reply::Message(_)));
    }
    assert_eq!(server.state.connections.load(Ordering::SeqCst), 1);
    assert_eq!(server.state.seen().len(), 1000);
}

#[tokio::test]
async fn the_pool_opens_a_connection_per_request_in_flight_and_reuses_them() {
    let server = serve(|seen, _| delayed_json(&result(request_id(seen), "{}"), ms(30))).await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let burst = |base: i64| {
        futures::future::join_all((base..base + 4).map(|id| {
            let t = t.clone();
            async move { t.send(request(id, "ping"), &modern(id, "ping")).await }
        }))
    };
    for reply in burst(0).await {
        assert!(matches!(reply.unwrap(), Reply::Message(_)));
    }
    let connections = || server.state.connections.load(Ordering::SeqCst);
    assert_eq!(connections(), 4, "one connection per request in flight");
    for id in 10..30 {
        let reply = t.send(request(id, "ping"), &modern(id, "ping")).await;
        assert!(matches!(reply.unwrap(), Reply::Message(_)));
    }
    for reply in burst(100).await {
        assert!(matches!(reply.unwrap(), Reply::Message(_)));
    }
    assert_eq!(
        connections(),
        4,
        "later requests reuse the open connections"
    );
}

#[tokio::test]
async fn idle_connections_are_closed_after_the_idle_timeout() {
    let server = serve(|seen, _| json(200, &result(request_id(seen), "{}"))).await;
    let t = HttpTransport::new(config(&server.url).with_pool_idle_timeout(ms(50))).unwrap();
    t.send(request(1, "ping"), &modern(1, "ping"))
        .await
        .unwrap();
    // Closed by the client between one and two idle timeouts later.
    within(ms(5000), server.state.connection_closed.notified()).await;
    t.send(request(2, "ping"), &modern(2, "ping"))
        .await
        .unwrap();
    assert_eq!(server.state.connections.load(Ordering::SeqCst), 2);
}

/// A raw HTTP/1.1 server that answers one request per connection (with
/// keep-alive announced) and then closes it; each close is reported.
async fn closing_server() -> (
    String,
    Arc<AtomicUsize>,
    tokio::sync::mpsc::UnboundedReceiver<()>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let connections = Arc::new(AtomicUsize::new(0));
    let (closed, rx) = tokio::sync::mpsc::unbounded_channel();
    let count = connections.clone();
    tokio::spawn(async move {
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            count.fetch_add(1, Ordering::SeqCst);
            let mut buf = Vec::new();
            // Head and body: the body is the last thing, ending in `}}`.
            while !buf.ends_with(b"}}") {
                let mut chunk = [0u8; 4096];
                let n = socket.read(&mut chunk).await.unwrap();
                assert!(n > 0, "the client closed mid-request");
                buf.extend_from_slice(&chunk[..n]);
            }
            let body = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
            let response = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\
                 content-length: {}\r\n\r\n{body}",
                body.len()
            );
            socket.write_all(response.as_bytes()).await.unwrap();
            drop(socket);
            let _ = closed.send(());
        }
    });
    (url, connections, rx)
}

#[tokio::test]
async fn a_connection_the_server_closed_while_idle_is_replaced_without_a_failure() {
    let (url, connections, mut closed) = closing_server().await;
    let t = HttpTransport::new(config(&url)).unwrap();
    for id in 1..=3 {
        let reply = t.send(request(id, "ping"), &modern(id, "ping")).await;
        assert!(matches!(reply, Ok(Reply::Message(_))), "{reply:?}");
        within(ms(5000), closed.recv()).await;
        // Let the runtime's reactor see the server's FIN: the pooled
        // connection looks idle, and the next request finds it closed
        // before writing, so it goes out on a new connection.
        tokio::time::sleep(ms(20)).await;
    }
    assert_eq!(connections.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn try_reserve_gives_a_slot_only_while_a_permit_is_free() {
    use mcp_types::{ProtocolVersion, routing::HttpRouting};
    let server = serve(|seen, _| json(200, &result(request_id(seen), "{}"))).await;
    let t = HttpTransport::new(config(&server.url).with_max_concurrent_posts(1)).unwrap();
    let first = modern(1, "ping");
    let slot = t.try_reserve(&first).expect("a permit is free").unwrap();
    assert!(
        t.try_reserve(&modern(2, "ping")).is_none(),
        "the one permit is taken"
    );
    let note = HttpRouting::new(ProtocolVersion::V2026_07_28).with_method("notifications/x");
    assert!(
        matches!(t.try_reserve(&note), Some(Ok(_))),
        "a notification takes no permit"
    );
    let reply = t
        .send_in(slot, request(1, "ping"), &first, &HeaderMap::new())
        .await;
    assert!(matches!(reply, Ok(Reply::Message(_))), "{reply:?}");
    assert!(
        matches!(t.try_reserve(&modern(3, "ping")), Some(Ok(_))),
        "the reply released the permit"
    );
    t.close().await.unwrap();
    assert!(matches!(
        t.try_reserve(&modern(4, "ping")),
        Some(Err(HttpError::Closed))
    ));
}

#[tokio::test]
async fn sequential_sse_calls_reuse_one_connection() {
    let server = serve(|seen, _| {
        let id = request_id(seen);
        sse(
            vec![
                chunk(&event(&progress(1))),
                chunk(&event(&result(id, "{}"))),
            ],
            None,
        )
    })
    .await;
    let t = HttpTransport::new(config(&server.url)).unwrap();
    for id in 0..50 {
        let Reply::Stream(mut s) = t.send(request(id, "x"), &modern(id, "x")).await.unwrap() else {
            panic!()
        };
        // Drop the stream right after the reply: the pump drains the rest.
        loop {
            let m = s.next().await.unwrap().unwrap();
            if m.method().is_none() {
                break;
            }
        }
        assert!(s.reply_received());
    }
    tokio::time::sleep(ms(20)).await;
    assert_eq!(server.state.connections.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn redirects_are_not_followed_and_credentials_stay_put() {
    let server = serve(|seen, _| {
        if seen.path == "/mcp" {
            http::Response::builder()
                .status(307)
                .header("location", "/elsewhere")
                .body(full(""))
                .unwrap()
        } else {
            json(200, &result(request_id(seen), "{}"))
        }
    })
    .await;
    let auth = Arc::new(BearerToken::new("tok").unwrap());
    let t = HttpTransport::new(config(&server.url).with_auth(auth)).unwrap();
    let err = t.send(request(1, "x"), &modern(1, "x")).await.unwrap_err();
    assert!(
        matches!(&err, HttpError::Redirect { status, location } if *status == StatusCode::TEMPORARY_REDIRECT && location.as_deref() == Some("/elsewhere")),
        "{err:?}"
    );
    let seen = server.state.seen();
    assert_eq!(seen.len(), 1, "the redirect was not followed");
    assert_eq!(seen[0].header("authorization"), Some("Bearer tok"));
}

#[tokio::test]
async fn unauthorized_surfaces_the_challenge() {
    let server = serve(|_, _| {
        http::Response::builder()
            .status(401)
            .header(
                "www-authenticate",
                r#"Bearer resource_metadata="https://x/.well-known/oauth-protected-resource""#,
            )
            .body(full(""))
            .unwrap()
    })
    .await;
    let t =
        HttpTransport::new(config(&server.url).with_auth(Arc::new(BearerToken::new("t").unwrap())))
            .unwrap();
    let err = t.send(request(1, "x"), &modern(1, "x")).await.unwrap_err();
    let HttpError::Unauthorized {
        status,
        www_authenticate,
        ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(*status, StatusCode::UNAUTHORIZED);
    assert!(www_authenticate[0].contains("resource_metadata"));
    assert_eq!(
        server.state.seen().len(),
        1,
        "a static token is not retried"
    );
}

/// A provider that refreshes its token on each refusal, and records what
/// it was told.
#[derive(Debug, Default)]
struct Refreshing {
    generation: AtomicUsize,
    challenges: std::sync::Mutex<Vec<AuthChallenge>>,
    requests: std::sync::Mutex<Vec<(String, String, Option<String>)>>,
    successes: AtomicUsize,
}

impl AuthProvider for Refreshing {
    fn credentials<'a>(
        &'a self,
        request: AuthRequest<'a>,
    ) -> BoxFuture<'a, Result<Credentials, AuthError>> {
        let n = self.generation.load(Ordering::SeqCst);
        self.requests.lock().unwrap().push((
            request.method.to_string(),
            request.uri.to_string(),
            request.operation.map(str::to_owned),
        ));
        let credentials = Credentials::none(n as u64)
            .with_header(
                http::header::AUTHORIZATION,
                HeaderValue::try_from(format!("DPoP gen{n}")).unwrap(),
            )
            .with_header(
                http::HeaderName::from_static("dpop"),
                HeaderValue::from_static("proof"),
            );
        Box::pin(async move { Ok(credentials) })
    }

    fn on_unauthorized<'a>(
        &'a self,
        challenge: &'a AuthChallenge,
    ) -> BoxFuture<'a, Result<AuthDecision, AuthError>> {
        self.challenges.lock().unwrap().push(challenge.clone());
        self.generation.fetch_add(1, Ordering::SeqCst);
        Box::pin(async { Ok(AuthDecision::Retry) })
    }

    fn on_success(&self, _operation: Option<&str>, _headers: &HeaderMap) {
        self.successes.fetch_add(1, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn an_auth_provider_gets_the_challenge_and_may_retry() {
    let server = serve(|seen, _| match seen.header("authorization") {
        Some("DPoP gen2") => json(200, &result(request_id(seen), "{}")),
        _ => http::Response::builder()
            .status(if seen.header("authorization") == Some("DPoP gen0") {
                401
            } else {
                403
            })
            .header("www-authenticate", r#"DPoP error="use_dpop_nonce""#)
            .header("dpop-nonce", "n-1")
            .body(full("refused"))
            .unwrap(),
    })
    .await;
    let provider = Arc::new(Refreshing::default());
    let t = HttpTransport::new(config(&server.url).with_auth(provider.clone())).unwrap();
    let reply = t
        .send(request(1, "tools/call"), &modern(1, "tools/call"))
        .await
        .unwrap();
    assert!(matches!(reply, Reply::Message(_)));
    let challenges = provider.challenges.lock().unwrap().clone();
    assert_eq!(challenges.len(), 2);
    assert_eq!(challenges[0].status, StatusCode::UNAUTHORIZED);
    assert_eq!(challenges[0].generation, 0);
    assert_eq!(challenges[0].headers["dpop-nonce"], "n-1");
    assert_eq!(&challenges[0].body[..], b"refused");
    assert_eq!(challenges[0].operation.as_deref(), Some("tools/call"));
    assert!(challenges[0].www_authenticate[0].contains("use_dpop_nonce"));
    assert_eq!(challenges[1].status, StatusCode::FORBIDDEN);
    assert_eq!(challenges[1].generation, 1);
    assert_eq!(provider.successes.load(Ordering::SeqCst), 1);
    let requests = provider.requests.lock().unwrap().clone();
    assert_eq!(requests[0].0, "POST");
    assert_eq!(requests[0].1, server.url);
    assert_eq!(server.state.seen()[2].header("dpop"), Some("proof"));
    // Refusals past the retry budget are surfaced.
    provider.generation.store(5, Ordering::SeqCst);
    let err = t.send(request(2, "x"), &modern(2, "x")).await.unwrap_err();
    assert!(
        matches!(err, HttpError::Unauthorized { status, .. } if status == StatusCode::FORBIDDEN)
    );
    // The three of the first request, then one plus each re-send.
    let budget = mcp_transport_http::auth::MAX_AUTH_RETRIES as usize;
    assert_eq!(server.state.seen().len(), 3 + 1 + budget);
}

#[tokio::test]
async fn default_and_extra_headers_are_sent_but_do_not_override_the_transport() {
    let server = serve(|seen, _| json(200, &result(request_id(seen), "{}"))).await;
    let config = config(&server.url)
        .with_header("x-default", "d")
        .unwrap()
        .with_header("accept", "text/plain")
        .unwrap();
    let t = HttpTransport::new(config).unwrap();
    let mut extra = HeaderMap::new();
    extra.insert("x-extra", HeaderValue::from_static("e"));
    extra.insert("x-default", HeaderValue::from_static("overridden"));
    extra.insert("mcp-method", HeaderValue::from_static("spoofed"));
    extra.insert("mcp-param-region", HeaderValue::from_static("spoofed"));
    extra.insert("content-type", HeaderValue::from_static("text/plain"));
    t.send_with(request(1, "tools/list"), &modern(1, "tools/list"), &extra)
        .await
        .unwrap();
    let seen = &server.state.seen()[0];
    assert_eq!(seen.header("x-extra"), Some("e"));
    assert_eq!(seen.header("x-default"), Some("overridden"));
    assert_eq!(
        seen.header("accept"),
        Some("application/json, text/event-stream")
    );
    assert_eq!(seen.headers.get_all("accept").iter().count(), 1);
    assert_eq!(seen.header("content-type"), Some("application/json"));
    assert_eq!(seen.headers.get_all("content-type").iter().count(), 1);
    assert_eq!(seen.header("mcp-method"), Some("tools/list"));
    assert_eq!(seen.headers.get_all("mcp-method").iter().count(), 1);
    assert_eq!(seen.header("mcp-param-region"), None);
}

#[test]
fn reserved_default_headers_are_refused() {
    for name in [
        "mcp-session-id",
        "Mcp-Param-Region",
        "last-event-id",
        "host",
    ] {
        let result = HttpConfig::new("http://127.0.0.1:1/mcp")
            .unwrap()
            .with_header(name, "x");
        assert!(
            matches!(result, Err(ConfigError::InvalidHeader(_))),
            "{name}"
        );
    }
}

#[tokio::test]
async fn secrets_stay_out_of_debug_output() {
    let config = HttpConfig::new("https://example.com/mcp")
        .unwrap()
        .with_auth(Arc::new(BearerToken::new("sekrit-token").unwrap()))
        .with_header("authorization", "Bearer sekrit-header")
        .unwrap()
        .with_proxy(ProxyConfig::Explicit {
            url: "http://user:sekrit-pw@proxy:8080".into(),
            no_proxy: String::new(),
        })
        .with_tls(TlsConfig::default().with_client_cert("chain", "sekrit-key"));
    let text = format!("{config:?}");
    assert!(!text.contains("sekrit"), "{text}");
    let t = HttpTransport::new(config.with_tls(TlsConfig::default())).unwrap();
    assert!(!format!("{t:?}").contains("sekrit"));
}

#[test]
fn credentials_in_the_endpoint_url_are_refused() {
    assert!(matches!(
        HttpConfig::new("https://u:p@example.com/mcp"),
        Err(ConfigError::InvalidEndpoint(_))
    ));
    assert!(matches!(
        HttpConfig::new("ftp://example.com/mcp"),
        Err(ConfigError::InvalidEndpoint(_))
    ));
    assert!(HttpConfig::new("not a url").is_err());
}

#[tokio::test]
async fn tls_with_a_test_ca_negotiates_http2() {
    let pki = test_pki();
    let server = serve_tls(
        |seen, _| json(200, &result(request_id(seen), "{}")),
        pki.server,
    )
    .await;
    let tls = trust_ca(&pki.ca_pem);
    let t = HttpTransport::new(config(&server.url).with_tls(tls)).unwrap();
    for id in 0..20 {
        let reply = t
            .send(request(id, "ping"), &modern(id, "ping"))
            .await
            .unwrap();
        assert!(matches!(reply, Reply::Message(_)));
    }
    let seen = server.state.seen();
    assert_eq!(seen[0].version, http::Version::HTTP_2, "ALPN picked h2");
    assert_eq!(server.state.connections.load(Ordering::SeqCst), 1);
    // Concurrent calls multiplex over the same HTTP/2 connection.
    let calls = (100..110).map(|id| {
        let t = t.clone();
        tokio::spawn(async move {
            t.send(request(id, "ping"), &modern(id, "ping"))
                .await
                .map(|_| ())
        })
    });
    for call in calls.collect::<Vec<_>>() {
        call.await.unwrap().unwrap();
    }
    assert_eq!(server.state.connections.load(Ordering::SeqCst), 1);
}

/// Over HTTP/2 a POST's event stream is read by the POST up to its reply
/// as over HTTP/1.1 (from hyper's frames): a stream of its reply alone is
/// the reply, a message before the reply hands the stream to a pump.
#[tokio::test]
async fn event_streams_over_http2_are_read_to_their_reply() {
    let pki = test_pki();
    let server = serve_tls(
        |seen, _| {
            let id = request_id(seen);
            let mut steps = vec![chunk("id: 1\nretry: 50\ndata:\n\n")];
            if id % 2 == 1 {
                steps.push(chunk(&event(&progress(1))));
            }
            steps.push(chunk(&event(&result(id, "{}"))));
            sse(steps, None)
        },
        pki.server,
    )
    .await;
    let t = HttpTransport::new(config(&server.url).with_tls(trust_ca(&pki.ca_pem))).unwrap();
    for id in 0..6 {
        match t.send(request(id, "x"), &modern(id, "x")).await.unwrap() {
            Reply::Message(m) => assert_eq!(id % 2, 0, "{m:?}"),
            Reply::Stream(mut s) => {
                assert_eq!(id % 2, 1);
                let first = s.next().await.unwrap().unwrap();
                assert_eq!(first.method(), Some("notifications/progress"));
                let reply = s.next().await.unwrap().unwrap();
                assert!(reply.method().is_none(), "{reply:?}");
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(server.state.seen()[0].version, http::Version::HTTP_2);
    assert_eq!(server.state.connections.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_untrusted_certificate_is_rejected() {
    let pki = test_pki();
    let server = serve_tls(
        |seen, _| json(200, &result(request_id(seen), "{}")),
        pki.server,
    )
    .await;
    // Default roots (webpki) do not include the test CA.
    let t = HttpTransport::new(config(&server.url)).unwrap();
    let err = t
        .send(request(1, "ping"), &modern(1, "ping"))
        .await
        .unwrap_err();
    assert!(matches!(err, HttpError::Network(_)), "{err:?}");
    assert_eq!(err.fault(), Fault::Network);
    assert!(server.state.seen().is_empty());
}

#[test]
fn bad_pem_is_a_config_error() {
    let tls = TlsConfig::default().with_ca_pem("not pem");
    let err =
        HttpTransport::new(HttpConfig::new("https://x/mcp").unwrap().with_tls(tls)).unwrap_err();
    assert!(matches!(err, HttpError::Config(ConfigError::InvalidPem(_))));
}

#[tokio::test]
async fn the_connect_timeout_bounds_a_stalled_tls_handshake() {
    // A TCP listener that never speaks: the TLS handshake stalls.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let hold = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((s, _)) = listener.accept().await {
            held.push(s);
        }
    });
    let config = config(&format!("https://{addr}/mcp")).with_connect_timeout(ms(150));
    let t = HttpTransport::new(config).unwrap();
    let started = Instant::now();
    let err = within(
        Duration::from_secs(3),
        t.send(request(1, "x"), &modern(1, "x")),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, HttpError::Network(_)), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
    hold.abort();
}

#[tokio::test]
async fn requests_go_through_a_connect_proxy() {
    let pki = test_pki();
    let server = serve_tls(
        |seen, _| json(200, &result(request_id(seen), "{}")),
        pki.server,
    )
    .await;
    let proxy = connect_proxy().await;
    let url_with_creds = proxy.url.replace("http://", "http://user:pw@");
    let tls = trust_ca(&pki.ca_pem);
    let config = config(&server.url)
        .with_tls(tls)
        .with_proxy(ProxyConfig::Explicit {
            url: url_with_creds,
            no_proxy: "example.invalid".into(),
        });
    let t = HttpTransport::new(config).unwrap();
    for id in 0..3 {
        t.send(request(id, "ping"), &modern(id, "ping"))
            .await
            .unwrap();
    }
    let connects = proxy.connects.lock().unwrap().clone();
    assert_eq!(connects.len(), 1, "one tunnel, reused");
    assert!(
        connects[0].starts_with(&format!("CONNECT {} HTTP/1.1", server.addr)),
        "{}",
        connects[0]
    );
    assert!(
        connects[0].contains("Basic dXNlcjpwdw=="),
        "proxy credentials sent"
    );
    assert_eq!(server.state.seen().len(), 3);
}

#[tokio::test]
async fn no_proxy_bypasses_the_proxy() {
    let server = serve(|seen, _| json(200, &result(request_id(seen), "{}"))).await;
    let proxy = connect_proxy().await;
    let config = config(&server.url).with_proxy(ProxyConfig::Explicit {
        url: proxy.url.clone(),
        no_proxy: "127.0.0.1".into(),
    });
    let t = HttpTransport::new(config).unwrap();
    t.send(request(1, "ping"), &modern(1, "ping"))
        .await
        .unwrap();
    assert!(proxy.connects.lock().unwrap().is_empty());
}

#[tokio::test]
async fn connection_refused_is_a_network_error() {
    // Bound, not listening, and held: refused, and never handed to a
    // server another test starts meanwhile.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = socket.local_addr().unwrap();
    let t = HttpTransport::new(config(&format!("http://{addr}/mcp"))).unwrap();
    let err = t.send(request(1, "x"), &modern(1, "x")).await.unwrap_err();
    assert_eq!(err.fault(), Fault::Network);
}

#[tokio::test]
async fn cancel_over_http2_resets_only_that_stream() {
    let pki = test_pki();
    let server = serve_tls_st(
        |seen, _, st| {
            if seen.json()["method"] == "slow" {
                sse(
                    vec![chunk(&event(&progress(1))), Step::Hang],
                    Some(st.clone()),
                )
            } else {
                json(200, &result(request_id(seen), "{}"))
            }
        },
        pki.server,
    )
    .await;
    let tls = trust_ca(&pki.ca_pem);
    let t = HttpTransport::new(config(&server.url).with_tls(tls)).unwrap();
    let Reply::Stream(mut slow) = t
        .send(request(1, "slow"), &modern(1, "slow"))
        .await
        .unwrap()
    else {
        panic!()
    };
    assert!(slow.next().await.unwrap().is_ok());
    let dropped = server.state.dropped.notified();
    assert!(t.cancel(&mcp_types::RequestId::Number(1)));
    within(Duration::from_secs(2), dropped).await;
    assert!(matches!(slow.next().await, Some(Err(HttpError::Cancelled))));
    t.send(request(2, "ping"), &modern(2, "ping"))
        .await
        .unwrap();
    assert_eq!(server.state.seen()[1].version, http::Version::HTTP_2);
    assert_eq!(
        server.state.connections.load(Ordering::SeqCst),
        1,
        "the connection survived"
    );
}

#[tokio::test]
async fn a_client_certificate_is_presented_when_configured() {
    let pki = test_pki();
    let server = serve_tls(
        |seen, _| json(200, &result(request_id(seen), "{}")),
        pki.server_mtls,
    )
    .await;
    let base = trust_ca(&pki.ca_pem);
    // Without a certificate the server refuses the handshake.
    let t = HttpTransport::new(config(&server.url).with_tls(base.clone())).unwrap();
    let err = t
        .send(request(1, "ping"), &modern(1, "ping"))
        .await
        .unwrap_err();
    assert_eq!(err.fault(), Fault::Network, "{err:?}");
    // With one, the call goes through.
    let tls = base.with_client_cert(pki.client_chain_pem, pki.client_key_pem);
    let t = HttpTransport::new(config(&server.url).with_tls(tls)).unwrap();
    let reply = t
        .send(request(2, "ping"), &modern(2, "ping"))
        .await
        .unwrap();
    assert!(matches!(reply, Reply::Message(_)));
}
