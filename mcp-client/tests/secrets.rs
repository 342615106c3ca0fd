//! Secrets outside headers (issue 14 item 7): a token in the endpoint's
//! query string, or in a stdio server's arguments or environment, appears
//! neither in `Debug` of the configuration nor in the era cache keys that
//! `EraCache::export` writes to disk.

use mcp_testkit::demo as common;

use common::{Server, Via, demo_exe};
use mcp_client::{Client, EraCache, HttpConfig, ServerCommand};

const SECRETS: [&str; 4] = [
    "s3cret-query",
    "s3cret-arg",
    "ghp_0123456789abcdefABCDEF",
    "s3cret-env",
];

fn assert_clean(what: &str, text: &str) {
    for secret in SECRETS {
        assert!(!text.contains(secret), "{what} shows {secret}: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_in_urls_arguments_and_environment_stay_out_of_debug_and_cache_keys() {
    let server = Server::start(Via::HttpModern).await;
    let url = format!("{}?api_key=s3cret-query", server.url().expect("http"));
    let config = HttpConfig::new(&url).expect("valid endpoint");
    assert_clean("HttpConfig Debug", &format!("{config:?}"));

    let command = ServerCommand::new(demo_exe())
        .arg("--serve-stdio")
        .args(["--token", "s3cret-arg", "ghp_0123456789abcdefABCDEF"])
        .env("API_TOKEN", "s3cret-env");
    assert_clean("ServerCommand Debug", &format!("{command:?}"));

    let cache = EraCache::new();
    for builder in [
        Client::builder().http(&url),
        Client::builder().stdio(command),
    ] {
        let client = builder
            .era_cache(cache.clone())
            .connect()
            .await
            .expect("connect");
        client.close().await;
    }
    let exported = cache.export();
    assert_eq!(exported.len(), 2, "{exported:?}");
    assert_clean("EraCache keys", &format!("{exported:?}"));
    // The same endpoint finds its entry again, in this run or the next.
    let restored = EraCache::new();
    restored.restore(exported);
    assert!(restored.get(&url).is_some());
}
