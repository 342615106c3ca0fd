//! Wire form of the main messages, built with the crate's constructors and
//! builders: pinned with insta snapshots and validated against the schema
//! `$defs` of their revision.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use std::collections::BTreeMap;

use common::SchemaSet;
use mcp_types::capabilities::{ClientCapabilities, ServerCapabilities, TasksCapability};
use mcp_types::common::{Implementation, PaginatedRequestParams, RequestParams};
use mcp_types::content::ContentBlock;
use mcp_types::elicitation::schema::{PrimitiveSchemaDefinition, RequestedSchema, StringSchema};
use mcp_types::elicitation::{
    ElicitRequestFormParams, ElicitRequestParams, ElicitResult, ElicitValue,
};
use mcp_types::error::UnsupportedProtocolVersionData;
use mcp_types::jsonrpc::{ErrorObject, ErrorResponse, Notification, Request, Response};
use mcp_types::lifecycle::{DiscoverResult, InitializeRequestParams, InitializeResult};
use mcp_types::meta::{HasMeta, Meta, TASKS_EXTENSION};
use mcp_types::methods::{ext_tasks, v2025_11_25 as v25, v2026_07_28 as v26};
use mcp_types::notifications::CancelledNotificationParams;
use mcp_types::results::{CacheScope, InputRequest, InputRequiredResult, InputResponse};
use mcp_types::subscriptions::{SubscriptionFilter, SubscriptionsListenRequestParams};
use mcp_types::tasks::ext::{CreateTaskResult, Task};
use mcp_types::tasks::legacy::{TaskAugmented, TaskMetadata};
use mcp_types::tasks::{TaskIdParams, TaskStatus};
use mcp_types::tools::{CallToolRequestParams, CallToolResult, ListToolsResult, Tool};
use mcp_types::{ErrorCode, Message, ProtocolVersion, RequestMethod};
use serde_json::{Value, json};

fn wire(m: Message) -> Value {
    serde_json::from_slice(&m.to_vec().unwrap()).unwrap()
}

fn client_info() -> Implementation {
    Implementation::new("example-client", "1.0.0")
}

/// The `_meta` every 2026-07-28 request carries.
fn modern_meta(caps: &ClientCapabilities) -> Meta {
    Meta::new()
        .with_protocol_version(&ProtocolVersion::V2026_07_28)
        .with_client_capabilities(caps)
        .with_client_info(&client_info())
}

fn request<M: RequestMethod>(id: i64, params: &M::Params) -> Value {
    wire(Message::Request(
        Request::typed::<M>(id.into(), params).unwrap(),
    ))
}

fn response<T: serde::Serialize>(id: i64, result: &T) -> Value {
    wire(Message::Response(
        Response::typed(id.into(), result).unwrap(),
    ))
}

/// Snapshots `value` and validates it against `$defs/<def>` of `schema`.
fn check(schema: &mut SchemaSet, def: &str, name: &str, value: &Value) {
    schema
        .validate(def, value)
        .unwrap_or_else(|e| panic!("{name} invalid as {def}: {e}"));
    insta::assert_json_snapshot!(name, value);
}

#[test]
fn legacy_wire_forms() {
    let mut s = SchemaSet::load("2025-11-25.json");
    let caps = ClientCapabilities::new()
        .with_roots_list_changed()
        .with_sampling()
        .with_elicitation_form()
        .with_tasks(TasksCapability::default().with_request("sampling/createMessage"));
    let init = InitializeRequestParams::new(ProtocolVersion::V2025_11_25, caps, client_info());
    check(
        &mut s,
        "InitializeRequest",
        "v2025_initialize_request",
        &request::<v25::Initialize>(0, &init),
    );

    let result = InitializeResult::new(
        ProtocolVersion::V2025_11_25,
        ServerCapabilities::new()
            .with_tools(true)
            .with_resources(true, false)
            .with_logging(),
        Implementation::new("example-server", "2.0.0"),
    );
    check(
        &mut s,
        "InitializeResult",
        "v2025_initialize_result",
        &serde_json::to_value(&result).unwrap(),
    );

    let initialized = Notification::typed::<v25::Initialized>(&Default::default()).unwrap();
    check(
        &mut s,
        "InitializedNotification",
        "v2025_initialized",
        &wire(Message::Notification(initialized)),
    );

    let call =
        TaskAugmented::new(CallToolRequestParams::new("render").with_argument("scene", "teapot"))
            .with_task(TaskMetadata::new(Some(60_000)));
    check(
        &mut s,
        "CallToolRequest",
        "v2025_call_tool_as_task",
        &request::<v25::CallToolAsTask>(3, &call),
    );

    let list = PaginatedRequestParams::new().with_cursor("c-2");
    check(
        &mut s,
        "ListToolsRequest",
        "v2025_list_tools_page_2",
        &request::<v25::ListTools>(4, &list),
    );

    let cancel = CancelledNotificationParams::new(3.into()).with_reason("user");
    let cancel = Notification::typed::<v25::Cancelled>(&cancel).unwrap();
    check(
        &mut s,
        "CancelledNotification",
        "v2025_cancelled",
        &wire(Message::Notification(cancel)),
    );

    let elicit = ElicitResult::accept(BTreeMap::from([(
        "name".to_owned(),
        ElicitValue::from("Ada"),
    )]));
    check(
        &mut s,
        "ElicitResult",
        "v2025_elicit_result",
        &serde_json::to_value(&elicit).unwrap(),
    );
}

#[test]
fn modern_wire_forms() {
    let mut s = SchemaSet::load("2026-07-28.json");
    let caps = ClientCapabilities::new()
        .with_elicitation_form()
        .with_extension(TASKS_EXTENSION, Default::default());
    let meta = modern_meta(&caps);

    let discover = RequestParams::new().with_meta(meta.clone());
    check(
        &mut s,
        "DiscoverRequest",
        "v2026_discover_request",
        &request::<v26::Discover>(1, &discover),
    );

    let mut discovered = DiscoverResult::new(
        vec![ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25],
        ServerCapabilities::new()
            .with_tools(false)
            .with_extension(TASKS_EXTENSION, Default::default()),
    )
    .with_cache(3_600_000, CacheScope::Public);
    discovered.meta = Meta::new().with_server_info(&Implementation::new("example-server", "2.0.0"));
    check(
        &mut s,
        "DiscoverResultResponse",
        "v2026_discover_response",
        &response(1, &discovered),
    );

    let call = CallToolRequestParams::new("get_weather")
        .with_argument("location", "Paris")
        .with_meta(meta.clone().with_progress_token("p-1"));
    check(
        &mut s,
        "CallToolRequest",
        "v2026_call_tool_request",
        &request::<v26::CallTool>(2, &call),
    );

    let tool = Tool::new(
        "get_weather",
        json!({"type": "object", "properties": {"location": {"type": "string", "x-mcp-header": "Location"}}})
            .as_object()
            .cloned()
            .unwrap(),
    )
    .with_description("Current weather");
    let tools = ListToolsResult::new(vec![tool]).with_cache(60_000, CacheScope::Private);
    check(
        &mut s,
        "ListToolsResultResponse",
        "v2026_list_tools_response",
        &response(3, &tools),
    );

    let form = RequestedSchema::new().with_field(
        "login",
        PrimitiveSchemaDefinition::String(StringSchema::new().with_title("Login")),
        true,
    );
    let ask = InputRequiredResult::new(BTreeMap::from([(
        "github_login".to_owned(),
        InputRequest::Elicit(ElicitRequestParams::Form(ElicitRequestFormParams::new(
            "Your GitHub login?",
            form,
        ))),
    )]))
    .with_request_state("opaque-state");
    check(
        &mut s,
        "CallToolResultResponse",
        "v2026_input_required_response",
        &response(2, &ask),
    );

    let answer = ElicitResult::accept(BTreeMap::from([(
        "login".to_owned(),
        ElicitValue::from("octocat"),
    )]));
    let retry = call.clone().with_input_responses(
        BTreeMap::from([("github_login".to_owned(), InputResponse::Elicit(answer))]),
        Some("opaque-state".to_owned()),
    );
    check(
        &mut s,
        "CallToolRequest",
        "v2026_call_tool_retry",
        &request::<v26::CallTool>(4, &retry),
    );

    let done = CallToolResult::new(vec![ContentBlock::text("18°C")])
        .with_structured_content(json!({"celsius": 18}));
    check(
        &mut s,
        "CallToolResultResponse",
        "v2026_call_tool_response",
        &response(4, &done),
    );

    let listen = SubscriptionsListenRequestParams::new(
        SubscriptionFilter::new()
            .with_tools_list_changed()
            .with_resource("file:///project/config.json"),
    )
    .with_meta(meta.clone());
    check(
        &mut s,
        "SubscriptionsListenRequest",
        "v2026_listen_request",
        &request::<v26::SubscriptionsListen>(5, &listen),
    );

    let error = ErrorObject::new(
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
    )
    .with_data(
        serde_json::to_value(UnsupportedProtocolVersionData::new(
            vec![ProtocolVersion::V2026_07_28],
            ProtocolVersion::parse("1900-01-01"),
        ))
        .unwrap(),
    );
    let error = wire(Message::Error(ErrorResponse {
        id: Some(6.into()),
        error,
    }));
    check(
        &mut s,
        "UnsupportedProtocolVersionError",
        "v2026_unsupported_version_error",
        &error,
    );
}

#[test]
fn tasks_extension_wire_forms() {
    let mut s = SchemaSet::load("ext-tasks.json");
    let mut task = Task::new("task-1", TaskStatus::Working, "2026-07-28T10:00:00Z", None);
    task.poll_interval_ms = Some(2_000);
    let created = CreateTaskResult::new(task);
    check(
        &mut s,
        "CreateTaskResult",
        "ext_tasks_create_task_result",
        &serde_json::to_value(&created).unwrap(),
    );

    let caps = ClientCapabilities::new().with_extension(TASKS_EXTENSION, Default::default());
    let get = TaskIdParams::new("task-1").with_meta(modern_meta(&caps));
    check(
        &mut s,
        "GetTaskRequest",
        "ext_tasks_get_request",
        &request::<ext_tasks::GetTask>(7, &get),
    );
}
