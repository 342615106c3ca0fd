//! Tool behaviour, shared by both eras (the era-specific parts live in
//! [`crate::interact::CallCtx`]).

use serde_json::{Value, json};

use mcp_types::{Era, ErrorCode};

use crate::catalog::FILLER_TOOLS;
use crate::dispatch::{Frame, notification};
use crate::interact::{CallCtx, ToolError, check_capability};
use crate::server::Event;
use crate::support::{RpcError, now_millis};

/// Largest result `big` produces.
const MAX_BIG: u64 = 64 * 1024 * 1024;

/// The resource whose reading needs an elicitation round.
pub(crate) const SECRET: &str = "demo://secret";

/// Where `authorize` sends the user.
const AUTH_URL: &str = "https://auth.example.invalid/authorize?client=demo";

/// Work that may ask the client for input.
pub(crate) enum Job {
    /// `tools/call`.
    Tool { name: String, args: Value },
    /// `resources/read` of [`SECRET`].
    Secret,
}

impl Job {
    /// What a `requestState` is bound to.
    pub(crate) fn key(&self) -> String {
        match self {
            Job::Tool { name, .. } => format!("tools/call {name}"),
            Job::Secret => format!("resources/read {SECRET}"),
        }
    }

    pub(crate) async fn run(&self, ctx: &mut CallCtx) -> Result<Value, ToolError> {
        match self {
            Job::Tool { name, args } => call(ctx, name, args).await,
            Job::Secret => read_secret(ctx).await,
        }
    }
}

/// Reads [`SECRET`]: asks for a passphrase first.
pub(crate) async fn read_secret(ctx: &mut CallCtx) -> Result<Value, ToolError> {
    let answer = ctx
        .ask(
            "passphrase",
            "elicitation/create",
            form("Passphrase for demo://secret?", "passphrase", "string"),
        )
        .await?;
    let text = match accepted(&answer, "passphrase") {
        Ok(Value::String(p)) => format!("The secret, unlocked with {p:?}, is 42."),
        Ok(_) => "locked (the passphrase must be a string)".to_owned(),
        Err(action) => format!("locked ({action})"),
    };
    Ok(json!({ "contents": [{ "uri": SECRET, "mimeType": "text/plain", "text": text }] }))
}

/// A text result.
pub(crate) fn text_result(text: impl Into<String>) -> Value {
    json!({ "content": [{ "type": "text", "text": text.into() }] })
}

/// A tool execution error (`isError: true`).
pub(crate) fn tool_error(text: impl Into<String>) -> Value {
    json!({ "content": [{ "type": "text", "text": text.into() }], "isError": true })
}

fn int_arg(args: &Value, key: &str, default: u64, max: u64) -> Result<u64, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => match v.as_u64() {
            Some(n) if n <= max => Ok(n),
            _ => Err(format!("argument {key:?} must be an integer in 0..={max}")),
        },
    }
}

fn bool_arg(args: &Value, key: &str) -> bool {
    args.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// Runs tool `name` with `args`.
pub(crate) async fn call(ctx: &mut CallCtx, name: &str, args: &Value) -> Result<Value, ToolError> {
    match run(ctx, name, args).await {
        Err(ArgError(msg)) => Ok(tool_error(msg)),
        Ok(r) => r,
    }
}

struct ArgError(String);

impl From<String> for ArgError {
    fn from(s: String) -> Self {
        ArgError(s)
    }
}

fn str_arg<'a>(args: &'a Value, key: &str) -> Result<&'a str, ArgError> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| ArgError(format!("missing string argument {key:?}")))
}

async fn run(
    ctx: &mut CallCtx,
    name: &str,
    args: &Value,
) -> Result<Result<Value, ToolError>, ArgError> {
    Ok(match name {
        "echo" => Ok(text_result(str_arg(args, "text")?)),
        "add" => {
            let (Some(a), Some(b)) = (
                args.get("a").and_then(Value::as_f64),
                args.get("b").and_then(Value::as_f64),
            ) else {
                return Err(ArgError("arguments a and b must be numbers".into()));
            };
            let sum = a + b;
            Ok(json!({
                "content": [{ "type": "text", "text": json!({ "sum": sum }).to_string() }],
                "structuredContent": { "sum": sum }
            }))
        }
        "slow_count" => {
            let count = int_arg(args, "count", 5, 10_000)?;
            let delay = int_arg(args, "delay_ms", 100, 60_000)?;
            slow_count(ctx, count, delay).await
        }
        "ask_name" => ask_name(ctx).await,
        "interview" => interview(ctx).await,
        "summarize" => {
            let text = str_arg(args, "text")?.to_owned();
            summarize(ctx, &text).await
        }
        "list_roots" => list_roots(ctx).await,
        "long_task" => {
            let steps = int_arg(args, "steps", 3, 1000)?.max(1);
            let step_ms = int_arg(args, "step_ms", 100, 60_000)?;
            long_task(
                ctx,
                steps,
                step_ms,
                bool_arg(args, "confirm"),
                bool_arg(args, "fail"),
            )
            .await
        }
        "big" => {
            let n = int_arg(args, "bytes", 0, MAX_BIG)?;
            let n = usize::try_from(n).map_err(|_| ArgError("too big".into()))?;
            const PATTERN: &str = "abcdefghijklmnopqrstuvwxyz0123456789";
            let mut text = PATTERN.repeat(n / PATTERN.len() + 1);
            text.truncate(n);
            Ok(text_result(text))
        }
        "regional" => {
            let region = str_arg(args, "region")?;
            let query = str_arg(args, "query")?;
            let priority = match args.get("priority") {
                None | Some(Value::Null) => String::new(),
                Some(p) => format!(" (priority {p})"),
            };
            Ok(text_result(format!("ran {query:?} in {region}{priority}")))
        }
        "trigger" => trigger(ctx, args)?,
        "callback_task" => crate::callbacks::callback_task(ctx, args).await,
        "authorize" => authorize(ctx, bool_arg(args, "via_error")).await,
        "fail" => {
            let message = args
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("this tool always fails");
            Ok(tool_error(message))
        }
        other => match other
            .strip_prefix("filler_")
            .and_then(|n| n.parse::<usize>().ok())
        {
            Some(n) if (1..=FILLER_TOOLS).contains(&n) && other.len() == 9 => {
                Ok(text_result(format!("{other} called")))
            }
            _ => Err(ToolError::Rpc(RpcError::invalid_params(format!(
                "Unknown tool: {other}"
            )))),
        },
    })
}

fn action(answer: &Value) -> &str {
    answer
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or("missing")
}

/// URL-mode elicitation. Legacy: `elicitationId` and
/// `notifications/elicitation/complete`, or with `via_error` a `-32042`
/// error first (the retry succeeds). Modern: an `input_required` round.
async fn authorize(ctx: &mut CallCtx, via_error: bool) -> Result<Value, ToolError> {
    let message = "Sign in to the demo service";
    if ctx.era == Era::Modern {
        let params = json!({ "mode": "url", "message": message, "url": AUTH_URL });
        let answer = ctx.ask("authorize", "elicitation/create", params).await?;
        return Ok(match action(&answer) {
            "accept" => text_result("authorized"),
            other => text_result(format!("not authorized ({other})")),
        });
    }
    let eid = ctx.server.fresh_id();
    if via_error {
        let Some(session) = ctx.session().cloned() else {
            return Err(ToolError::Rpc(RpcError::internal("no session")));
        };
        check_capability(
            &session.client_capabilities(),
            "elicitation/create",
            &json!({ "mode": "url" }),
        )?;
        if session.mark_url_done() {
            return Ok(text_result("authorized"));
        }
        // Pretend the user completes the flow out of band shortly.
        let outbound = session.outbound.clone();
        let done = notification(
            "notifications/elicitation/complete",
            json!({ "elicitationId": eid }),
        );
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            let _ = outbound.send(Frame::Notice(done));
        });
        let elicitation =
            json!({ "mode": "url", "elicitationId": eid, "url": AUTH_URL, "message": message });
        return Err(ToolError::Rpc(
            RpcError::new(
                ErrorCode::URL_ELICITATION_REQUIRED,
                "This request requires authorization",
            )
            .with_data(json!({ "elicitations": [elicitation] })),
        ));
    }
    let params =
        json!({ "mode": "url", "message": message, "url": AUTH_URL, "elicitationId": eid });
    let answer = ctx.ask("authorize", "elicitation/create", params).await?;
    Ok(match action(&answer) {
        "accept" => {
            ctx.notify(
                "notifications/elicitation/complete",
                json!({ "elicitationId": eid }),
            );
            text_result("authorized")
        }
        other => text_result(format!("not authorized ({other})")),
    })
}

async fn slow_count(ctx: &mut CallCtx, count: u64, delay: u64) -> Result<Value, ToolError> {
    for i in 1..=count {
        ctx.sleep(delay).await?;
        ctx.progress(i, Some(count), &format!("step {i} of {count}"));
        ctx.log("debug", json!({ "tick": i }));
        ctx.log("info", json!(format!("counted {i}")));
    }
    Ok(text_result(format!("counted to {count}")))
}

fn form(message: &str, field: &str, ty: &str) -> Value {
    json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": { field: { "type": ty, "title": field } },
            "required": [field]
        }
    })
}

/// The accepted value of `field`, or the action taken instead.
fn accepted(answer: &Value, field: &str) -> Result<Value, String> {
    let action = answer
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or("missing");
    if action != "accept" {
        return Err(action.to_owned());
    }
    answer
        .get("content")
        .and_then(|c| c.get(field))
        .cloned()
        .ok_or_else(|| "accept without content".to_owned())
}

async fn ask_name(ctx: &mut CallCtx) -> Result<Value, ToolError> {
    let answer = ctx
        .ask(
            "name",
            "elicitation/create",
            form("What is your name?", "name", "string"),
        )
        .await?;
    Ok(match accepted(&answer, "name") {
        Ok(Value::String(name)) => text_result(format!("Hello, {name}!")),
        Ok(other) => tool_error(format!("name must be a string, got {other}")),
        Err(action) => text_result(format!("No name given ({action})")),
    })
}

async fn interview(ctx: &mut CallCtx) -> Result<Value, ToolError> {
    let first = ctx
        .ask(
            "name",
            "elicitation/create",
            form("What is your name?", "name", "string"),
        )
        .await?;
    let name = match accepted(&first, "name") {
        Ok(Value::String(n)) => n,
        _ => return Ok(text_result("Interview declined")),
    };
    let prompt = format!("Hello {name}, what is your favourite colour?");
    let second = ctx
        .ask(
            "colour",
            "elicitation/create",
            form(&prompt, "colour", "string"),
        )
        .await?;
    Ok(match accepted(&second, "colour") {
        Ok(Value::String(colour)) => text_result(format!("{name} likes {colour}")),
        _ => text_result(format!("{name} keeps their favourite colour secret")),
    })
}

async fn summarize(ctx: &mut CallCtx, text: &str) -> Result<Value, ToolError> {
    let params = json!({
        "messages": [{
            "role": "user",
            "content": { "type": "text", "text": format!("Summarize in one line: {text}") }
        }],
        "systemPrompt": "You are a concise summarizer.",
        "maxTokens": 100
    });
    let answer = ctx.ask("summary", "sampling/createMessage", params).await?;
    let content = answer.get("content");
    let block = match content {
        Some(Value::Array(blocks)) => blocks.first(),
        other => other,
    };
    Ok(
        match block.and_then(|b| b.get("text")).and_then(Value::as_str) {
            Some(s) => text_result(format!("Summary: {s}")),
            None => tool_error("the sampling result carried no text"),
        },
    )
}

async fn list_roots(ctx: &mut CallCtx) -> Result<Value, ToolError> {
    let answer = ctx.ask("roots", "roots/list", json!({})).await?;
    let uris: Vec<&str> = answer
        .get("roots")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|r| r.get("uri")?.as_str()).collect())
        .unwrap_or_default();
    Ok(text_result(format!(
        "{} roots: {}",
        uris.len(),
        uris.join(", ")
    )))
}

async fn long_task(
    ctx: &mut CallCtx,
    steps: u64,
    step_ms: u64,
    confirm: bool,
    fail: bool,
) -> Result<Value, ToolError> {
    for i in 1..=steps {
        ctx.sleep(step_ms).await?;
        ctx.progress(i, Some(steps), &format!("step {i} of {steps}"));
        if confirm && i == steps.div_ceil(2) {
            let answer = ctx
                .ask(
                    "confirm",
                    "elicitation/create",
                    form("Continue the long task?", "confirm", "boolean"),
                )
                .await?;
            if accepted(&answer, "confirm") != Ok(Value::Bool(true)) {
                return Ok(tool_error("long_task stopped: not confirmed"));
            }
        }
    }
    if fail {
        return Err(ToolError::Rpc(RpcError::internal(
            "long_task failed as requested",
        )));
    }
    Ok(json!({
        "content": [{ "type": "text", "text": format!("long_task finished {steps} steps") }],
        "structuredContent": { "steps": steps }
    }))
}

fn trigger(ctx: &CallCtx, args: &Value) -> Result<Result<Value, ToolError>, ArgError> {
    let event = str_arg(args, "event")?;
    let server = &ctx.server;
    match event {
        "tools_list_changed" => server.publish(Event::ToolsListChanged),
        "prompts_list_changed" => server.publish(Event::PromptsListChanged),
        "resources_list_changed" => server.publish(Event::ResourcesListChanged),
        "resource_updated" => {
            let uri = str_arg(args, "uri")?;
            let item = uri
                .strip_prefix("demo://item/")
                .and_then(|id| id.parse::<u64>().ok());
            match item {
                Some(id) => {
                    let value = args
                        .get("value")
                        .and_then(Value::as_str)
                        .map_or_else(|| format!("updated at {}", now_millis()), str::to_owned);
                    server.set_item(id, value);
                }
                None => server.publish(Event::ResourceUpdated(uri.to_owned())),
            }
        }
        other => return Err(ArgError(format!("unknown event {other:?}"))),
    }
    Ok(Ok(text_result(format!("triggered {event}"))))
}
