//! The rows of [`METHODS`]: one per method name, each fact written once.
//! The marker types point at these rows; `tests/method_facts.rs` holds them
//! against the schemas (every method of each schema has a row with its
//! definitions and senders, and every row's definitions exist).

use super::facts::{
    DIRECTORY_READ_CAPABILITY, EraFacts, MethodFacts, SKILLS_CAPABILITY, SKILLS_EXTENSION,
    SchemaDoc, Sender, TASKS_CAPABILITY, TASKS_EXTENSION,
};

/// A request in `doc` with its message and result definitions.
const fn req(
    doc: SchemaDoc,
    sender: Sender,
    message: &'static str,
    result: &'static str,
) -> EraFacts {
    EraFacts::new(sender).schema(doc, message, Some(result))
}

/// A client request with its message and result definitions (the document
/// is set per era by [`MethodFacts::both`], or is 2025-11-25).
const fn client(message: &'static str, result: &'static str) -> EraFacts {
    req(SchemaDoc::Legacy, Sender::Client, message, result)
}

/// A notification in `doc`.
const fn note(doc: SchemaDoc, sender: Sender, message: &'static str) -> EraFacts {
    EraFacts::new(sender).schema(doc, message, None)
}

/// A 2026-07-28 request of the tasks extension.
const fn task_ext(message: &'static str, result: &'static str) -> EraFacts {
    req(SchemaDoc::Tasks, Sender::Client, message, result)
        .extension(TASKS_EXTENSION)
        .server_cap(TASKS_CAPABILITY)
}

/// A request of the skills extension (in no schema this crate carries).
const fn skills(capability: &'static str) -> EraFacts {
    EraFacts::new(Sender::Client)
        .extension(SKILLS_EXTENSION)
        .server_cap(capability)
}

const L: SchemaDoc = SchemaDoc::Legacy;
const M: SchemaDoc = SchemaDoc::Modern;
const DISCOVER_INSTEAD: &str = "server/discover (optional; no handshake)";

pub(crate) const INITIALIZE: MethodFacts = MethodFacts::request("initialize")
    .legacy(client("InitializeRequest", "InitializeResult"))
    .replaced_by(DISCOVER_INSTEAD);
pub(crate) const PING: MethodFacts = MethodFacts::request("ping")
    .legacy(req(L, Sender::Both, "PingRequest", "EmptyResult"))
    .idempotent()
    .replaced_by("nothing: liveness is the transport's concern");
pub(crate) const DISCOVER: MethodFacts = MethodFacts::request("server/discover")
    .modern(req(M, Sender::Client, "DiscoverRequest", "DiscoverResult"))
    .idempotent()
    .cacheable();
pub(crate) const RESOURCES_LIST: MethodFacts = MethodFacts::request("resources/list")
    .both(client("ListResourcesRequest", "ListResourcesResult").server_cap("resources"))
    .page("resources")
    .idempotent()
    .cacheable();
pub(crate) const RESOURCE_TEMPLATES_LIST: MethodFacts =
    MethodFacts::request("resources/templates/list")
        .both(
            client(
                "ListResourceTemplatesRequest",
                "ListResourceTemplatesResult",
            )
            .server_cap("resources"),
        )
        .page("resourceTemplates")
        .idempotent()
        .cacheable();
pub(crate) const RESOURCES_READ: MethodFacts = MethodFacts::request("resources/read")
    .legacy(client("ReadResourceRequest", "ReadResourceResult").server_cap("resources"))
    .modern(
        req(
            M,
            Sender::Client,
            "ReadResourceRequest",
            "ReadResourceResult",
        )
        .server_cap("resources")
        .input_required(),
    )
    .name_param("uri")
    .idempotent()
    .cacheable();
pub(crate) const RESOURCES_SUBSCRIBE: MethodFacts = MethodFacts::request("resources/subscribe")
    .legacy(client("SubscribeRequest", "EmptyResult").server_cap("resources.subscribe"))
    .idempotent()
    .replaced_by("subscriptions/listen with resourceSubscriptions");
pub(crate) const RESOURCES_UNSUBSCRIBE: MethodFacts = MethodFacts::request("resources/unsubscribe")
    .legacy(client("UnsubscribeRequest", "EmptyResult").server_cap("resources.subscribe"))
    .idempotent()
    .replaced_by("subscriptions/listen with resourceSubscriptions");
pub(crate) const SUBSCRIPTIONS_LISTEN: MethodFacts = MethodFacts::request("subscriptions/listen")
    .modern(req(
        M,
        Sender::Client,
        "SubscriptionsListenRequest",
        "SubscriptionsListenResult",
    ));
pub(crate) const PROMPTS_LIST: MethodFacts = MethodFacts::request("prompts/list")
    .both(client("ListPromptsRequest", "ListPromptsResult").server_cap("prompts"))
    .page("prompts")
    .idempotent()
    .cacheable();
pub(crate) const PROMPTS_GET: MethodFacts = MethodFacts::request("prompts/get")
    .legacy(client("GetPromptRequest", "GetPromptResult").server_cap("prompts"))
    .modern(
        req(M, Sender::Client, "GetPromptRequest", "GetPromptResult")
            .server_cap("prompts")
            .input_required(),
    )
    .name_param("name")
    .idempotent();
pub(crate) const TOOLS_LIST: MethodFacts = MethodFacts::request("tools/list")
    .both(client("ListToolsRequest", "ListToolsResult").server_cap("tools"))
    .page("tools")
    .idempotent()
    .cacheable();
pub(crate) const TOOLS_CALL: MethodFacts = MethodFacts::request("tools/call")
    .legacy(
        client("CallToolRequest", "CallToolResult")
            .server_cap("tools")
            .task_cap("tasks.requests.tools.call"),
    )
    .modern(
        req(M, Sender::Client, "CallToolRequest", "CallToolResult")
            .server_cap("tools")
            .task_cap(TASKS_CAPABILITY)
            .input_required(),
    )
    .name_param("name");
pub(crate) const COMPLETE: MethodFacts = MethodFacts::request("completion/complete")
    .both(client("CompleteRequest", "CompleteResult").server_cap("completions"))
    .idempotent();
pub(crate) const SET_LEVEL: MethodFacts = MethodFacts::request("logging/setLevel")
    .legacy(client("SetLevelRequest", "EmptyResult").server_cap("logging"))
    .idempotent()
    .replaced_by("the per-request io.modelcontextprotocol/logLevel _meta");
pub(crate) const TASKS_GET: MethodFacts = MethodFacts::request("tasks/get")
    .legacy(
        req(L, Sender::Both, "GetTaskRequest", "GetTaskResult")
            .server_cap("tasks")
            .client_cap("tasks"),
    )
    .modern(task_ext("GetTaskRequest", "GetTaskResult"))
    .name_param("taskId")
    .idempotent();
pub(crate) const TASKS_RESULT: MethodFacts = MethodFacts::request("tasks/result")
    .legacy(
        req(
            L,
            Sender::Both,
            "GetTaskPayloadRequest",
            "GetTaskPayloadResult",
        )
        .server_cap("tasks")
        .client_cap("tasks"),
    )
    .idempotent()
    .replaced_by("tasks/get, whose completed task carries the result");
pub(crate) const TASKS_LIST: MethodFacts = MethodFacts::request("tasks/list")
    .legacy(
        req(L, Sender::Both, "ListTasksRequest", "ListTasksResult")
            .server_cap("tasks.list")
            .client_cap("tasks.list"),
    )
    .page("tasks")
    .idempotent()
    .replaced_by("keeping the task ids you created (there is no listing)");
pub(crate) const TASKS_CANCEL: MethodFacts = MethodFacts::request("tasks/cancel")
    .legacy(
        req(L, Sender::Both, "CancelTaskRequest", "CancelTaskResult")
            .server_cap("tasks.cancel")
            .client_cap("tasks.cancel"),
    )
    .modern(task_ext("CancelTaskRequest", "CancelTaskResult"))
    .name_param("taskId")
    .idempotent();
pub(crate) const TASKS_UPDATE: MethodFacts = MethodFacts::request("tasks/update")
    .modern(task_ext("UpdateTaskRequest", "UpdateTaskResult"))
    .name_param("taskId");
pub(crate) const CREATE_MESSAGE: MethodFacts = MethodFacts::request("sampling/createMessage")
    .legacy(
        req(
            L,
            Sender::Server,
            "CreateMessageRequest",
            "CreateMessageResult",
        )
        .client_cap("sampling")
        .task_cap("tasks.requests.sampling.createMessage"),
    )
    .modern(
        req(
            M,
            Sender::Embedded,
            "CreateMessageRequest",
            "CreateMessageResult",
        )
        .client_cap("sampling"),
    );
pub(crate) const ELICIT: MethodFacts = MethodFacts::request("elicitation/create")
    .legacy(
        req(L, Sender::Server, "ElicitRequest", "ElicitResult")
            .client_cap("elicitation")
            .task_cap("tasks.requests.elicitation.create"),
    )
    .modern(req(M, Sender::Embedded, "ElicitRequest", "ElicitResult").client_cap("elicitation"));
pub(crate) const ROOTS_LIST: MethodFacts = MethodFacts::request("roots/list")
    .legacy(req(L, Sender::Server, "ListRootsRequest", "ListRootsResult").client_cap("roots"))
    .modern(req(M, Sender::Embedded, "ListRootsRequest", "ListRootsResult").client_cap("roots"))
    .idempotent();
pub(crate) const SKILLS_LIST: MethodFacts = MethodFacts::request("skills/list")
    .both(skills(SKILLS_CAPABILITY))
    .page("skills")
    .idempotent()
    .cacheable();
pub(crate) const SKILLS_GET: MethodFacts = MethodFacts::request("skills/get")
    .both(skills(SKILLS_CAPABILITY))
    .name_param("uri")
    .idempotent()
    .cacheable();
pub(crate) const DIRECTORY_READ: MethodFacts = MethodFacts::request("resources/directory/read")
    .both(skills(DIRECTORY_READ_CAPABILITY))
    .page("resources")
    .name_param("uri")
    .idempotent()
    .cacheable();

pub(crate) const INITIALIZED: MethodFacts = MethodFacts::notification("notifications/initialized")
    .legacy(note(L, Sender::Client, "InitializedNotification"))
    .replaced_by(DISCOVER_INSTEAD);
pub(crate) const CANCELLED: MethodFacts = MethodFacts::notification("notifications/cancelled")
    .both(note(L, Sender::Both, "CancelledNotification"));
pub(crate) const PROGRESS: MethodFacts = MethodFacts::notification("notifications/progress")
    .legacy(note(L, Sender::Both, "ProgressNotification"))
    .modern(note(M, Sender::Server, "ProgressNotification"));
pub(crate) const ROOTS_LIST_CHANGED: MethodFacts =
    MethodFacts::notification("notifications/roots/list_changed")
        .legacy(note(L, Sender::Client, "RootsListChangedNotification"))
        .replaced_by("roots delivered through input_required");
pub(crate) const LEGACY_TASK_STATUS: MethodFacts =
    MethodFacts::notification("notifications/tasks/status")
        .legacy(note(L, Sender::Both, "TaskStatusNotification"))
        .replaced_by("notifications/tasks, which only a server sends (tasks extension)");
pub(crate) const TASK_STATUS: MethodFacts = MethodFacts::notification("notifications/tasks")
    .modern(
        note(SchemaDoc::Tasks, Sender::Server, "TaskStatusNotification").extension(TASKS_EXTENSION),
    );
pub(crate) const LOGGING_MESSAGE: MethodFacts = MethodFacts::notification("notifications/message")
    .both(note(L, Sender::Server, "LoggingMessageNotification"));
pub(crate) const RESOURCE_LIST_CHANGED: MethodFacts =
    MethodFacts::notification("notifications/resources/list_changed")
        .both(note(L, Sender::Server, "ResourceListChangedNotification"))
        .invalidates(&[
            "resources/list",
            "resources/templates/list",
            "skills/list",
            "skills/get",
            "resources/directory/read",
        ]);
pub(crate) const RESOURCE_UPDATED: MethodFacts =
    MethodFacts::notification("notifications/resources/updated")
        .both(note(L, Sender::Server, "ResourceUpdatedNotification"))
        .invalidates(&["resources/read", "skills/get"]);
pub(crate) const PROMPT_LIST_CHANGED: MethodFacts =
    MethodFacts::notification("notifications/prompts/list_changed")
        .both(note(L, Sender::Server, "PromptListChangedNotification"))
        .invalidates(&["prompts/list"]);
pub(crate) const TOOL_LIST_CHANGED: MethodFacts =
    MethodFacts::notification("notifications/tools/list_changed")
        .both(note(L, Sender::Server, "ToolListChangedNotification"))
        .invalidates(&["tools/list"]);
pub(crate) const ELICITATION_COMPLETE: MethodFacts = MethodFacts::notification(
    "notifications/elicitation/complete",
)
.legacy(note(L, Sender::Server, "ElicitationCompleteNotification"));
pub(crate) const SUBSCRIPTIONS_ACKNOWLEDGED: MethodFacts =
    MethodFacts::notification("notifications/subscriptions/acknowledged").modern(note(
        M,
        Sender::Server,
        "SubscriptionsAcknowledgedNotification",
    ));

/// Every method of both revisions and of the tasks and skills extensions,
/// one row per name.
pub const METHODS: &[MethodFacts] = &[
    INITIALIZE,
    PING,
    DISCOVER,
    RESOURCES_LIST,
    RESOURCE_TEMPLATES_LIST,
    RESOURCES_READ,
    RESOURCES_SUBSCRIBE,
    RESOURCES_UNSUBSCRIBE,
    SUBSCRIPTIONS_LISTEN,
    PROMPTS_LIST,
    PROMPTS_GET,
    TOOLS_LIST,
    TOOLS_CALL,
    COMPLETE,
    SET_LEVEL,
    TASKS_GET,
    TASKS_RESULT,
    TASKS_LIST,
    TASKS_CANCEL,
    TASKS_UPDATE,
    CREATE_MESSAGE,
    ELICIT,
    ROOTS_LIST,
    SKILLS_LIST,
    SKILLS_GET,
    DIRECTORY_READ,
    INITIALIZED,
    CANCELLED,
    PROGRESS,
    ROOTS_LIST_CHANGED,
    LEGACY_TASK_STATUS,
    TASK_STATUS,
    LOGGING_MESSAGE,
    RESOURCE_LIST_CHANGED,
    RESOURCE_UPDATED,
    PROMPT_LIST_CHANGED,
    TOOL_LIST_CHANGED,
    ELICITATION_COMPLETE,
    SUBSCRIPTIONS_ACKNOWLEDGED,
];
