//! A build of `mcp-client` without its `http` feature (this crate with
//! default features off: `stdio` only) still accepts an HTTP URL and
//! refuses it at connect with a typed usage error naming the feature.
//! Run by `cargo xtask features`.
#![cfg(not(feature = "client-defaults"))]

use mcp_client::{Client, ErrorKind};

#[tokio::test(flavor = "current_thread")]
async fn an_http_url_without_the_http_feature_is_a_usage_error_naming_it() {
    let err = Client::builder()
        .http("http://127.0.0.1:9/mcp")
        .connect()
        .await
        .expect_err("no HTTP transport in this build");
    assert!(err.is_usage(), "{err}");
    assert!(!err.is_transport(), "{err}");
    assert!(
        matches!(
            err.kind(),
            ErrorKind::FeatureDisabled {
                feature: "http",
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "Streamable HTTP needs mcp-client's `http` feature, which this build leaves out"
    );
}
