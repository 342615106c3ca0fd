//! The LLM-server pattern end to end: the client sends
//! `sampling/createMessage` to the demo server, which serves it with a
//! deterministic fake model, over stdio and HTTP in both eras.

use mcp_testkit::demo as common;

use common::{ALL, Server};
use mcp_client::CallOptions;
use mcp_client::mcp_types::common::Role;
use mcp_client::mcp_types::content::ContentBlock;
use mcp_client::mcp_types::sampling::{
    CreateMessageRequestParams, CreateMessageResult, SamplingMessage, StopReason,
};

fn ask(text: &str, max_tokens: u64) -> CreateMessageRequestParams {
    CreateMessageRequestParams::new(
        vec![SamplingMessage::new(Role::User, ContentBlock::text(text))],
        max_tokens,
    )
}

fn reply_text(r: &CreateMessageResult) -> String {
    r.content
        .blocks()
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_serves_create_message_in_every_era() {
    for via in ALL {
        let server = Server::start(via).await;
        let client = server.builder().connect().await.expect("connect");

        let reply = client
            .create_message(ask("the quick brown fox", 16), CallOptions::new())
            .await
            .expect("create_message");
        assert_eq!(reply_text(&reply), "Echo: the quick brown fox", "{via:?}");
        assert_eq!(reply.model, "demo-echo-model", "{via:?}");
        assert_eq!(reply.role, Role::Assistant, "{via:?}");
        assert_eq!(reply.stop_reason, Some(StopReason::EndTurn), "{via:?}");

        // maxTokens is honoured by the fake model.
        let cut = client
            .create_message(ask("one two three four", 3), CallOptions::new())
            .await
            .expect("create_message");
        assert_eq!(reply_text(&cut), "Echo: one two", "{via:?}");
        assert_eq!(cut.stop_reason, Some(StopReason::MaxTokens), "{via:?}");

        // The generic request API does the same without waiting.
        let params = serde_json::to_value(ask("later", 8)).expect("params");
        let handle = client.start_request("sampling/createMessage", Some(params));
        let later: CreateMessageResult = handle.result_as().await.expect("handle");
        assert_eq!(reply_text(&later), "Echo: later", "{via:?}");

        // A request the fake model cannot answer is the server's error.
        let none = CreateMessageRequestParams::new(Vec::new(), 8);
        let e = client
            .create_message(none, CallOptions::new())
            .await
            .expect_err("no user message");
        let remote = e.remote_error().expect("a JSON-RPC error");
        assert_eq!(
            remote.code,
            mcp_client::mcp_types::ErrorCode::INVALID_PARAMS,
            "{via:?}"
        );
        client.close().await;
    }
}
