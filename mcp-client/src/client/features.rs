//! The server features: tools, prompts, resources, completion and legacy
//! resource subscriptions, typed with `mcp-types`.

use std::collections::BTreeMap;

use mcp_types::RequestMethod;
use mcp_types::completion::{CompleteRequestParams, CompleteResult};
use mcp_types::methods::{self, v2025_11_25};
use mcp_types::prompts::{GetPromptResult, ListPromptsResult, Prompt};
use mcp_types::resources::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource,
    ResourceTemplate,
};
use mcp_types::tools::{CallToolResult, ListToolsResult, Tool};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::client::request_handle::decoded_with;
use crate::client::{Client, unexpected};
use crate::driver::Outcome;
use crate::driver::{CallSpec, SpecKind};
use crate::error::{Error, ErrorKind};
use crate::options::CallOptions;
use mcp_core::ToolCall;

fn cursor_params(cursor: Option<&str>) -> Option<Value> {
    cursor.map(|c| json!({ "cursor": c }))
}

/// The spec of a `tools/call`: by tool name, its arguments serialized once
/// from the caller's borrow, with no params map built (`SpecKind::Tool`;
/// the call span reads the name from there).
fn tool_spec<A: Serialize + ?Sized>(
    name: &str,
    arguments: &A,
    opts: CallOptions,
) -> Result<CallSpec, Error> {
    Ok(CallSpec {
        method: methods::CallTool::METHOD.into(),
        params: None,
        opts,
        kind: SpecKind::Tool(ToolCall::new(name, arguments)?),
    })
}

/// A `tools/call` outcome read as its result (`CallToolResult::from_raw`:
/// serde's reading, cheaper for text blocks).
#[inline]
fn tool_result(outcome: Result<Outcome, Error>) -> Result<CallToolResult, Error> {
    decoded_with(methods::CallTool::METHOD, outcome, CallToolResult::from_raw)
}

impl Client {
    /// Every item of a paginated method, with these params on each page.
    pub(crate) async fn list_all_with<M: RequestMethod, T: DeserializeOwned>(
        &self,
        params: Option<Value>,
    ) -> Result<Vec<T>, Error> {
        let method = M::METHOD;
        let spec = CallSpec {
            method: method.into(),
            params: params.map(Box::new),
            opts: CallOptions::new(),
            kind: SpecKind::ListAll,
        };
        match self.run(spec).await? {
            Outcome::List(items) => items
                .iter()
                .map(|raw| serde_json::from_str(raw.get()).map_err(|e| Error::decode(method, e)))
                .collect(),
            other => Err(unexpected(method, &other)),
        }
    }

    /// One page of `tools/list`; pass the previous page's `next_cursor`.
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn list_tools(&self, cursor: Option<&str>) -> Result<ListToolsResult, Error> {
        self.request_json::<methods::ListTools>(cursor_params(cursor), CallOptions::new())
            .await
    }

    /// Every tool, across all pages (page cap and repeated-cursor guard
    /// from the builder's settings).
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>, Error> {
        self.list_all_with::<methods::ListTools, _>(None).await
    }

    /// One page of `prompts/list`.
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn list_prompts(&self, cursor: Option<&str>) -> Result<ListPromptsResult, Error> {
        self.request_json::<methods::ListPrompts>(cursor_params(cursor), CallOptions::new())
            .await
    }

    /// Every prompt, across all pages.
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn list_all_prompts(&self) -> Result<Vec<Prompt>, Error> {
        self.list_all_with::<methods::ListPrompts, _>(None).await
    }

    /// One page of `resources/list`.
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn list_resources(&self, cursor: Option<&str>) -> Result<ListResourcesResult, Error> {
        self.request_json::<methods::ListResources>(cursor_params(cursor), CallOptions::new())
            .await
    }

    /// Every resource, across all pages.
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn list_all_resources(&self) -> Result<Vec<Resource>, Error> {
        self.list_all_with::<methods::ListResources, _>(None).await
    }

    /// One page of `resources/templates/list`.
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn list_resource_templates(
        &self,
        cursor: Option<&str>,
    ) -> Result<ListResourceTemplatesResult, Error> {
        let params = cursor_params(cursor);
        self.request_json::<methods::ListResourceTemplates>(params, CallOptions::new())
            .await
    }

    /// Every resource template, across all pages.
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn list_all_resource_templates(&self) -> Result<Vec<ResourceTemplate>, Error> {
        self.list_all_with::<methods::ListResourceTemplates, _>(None)
            .await
    }

    /// Calls a tool. A tool that fails reports it in the result
    /// (`is_error`), not as an [`Error`].
    ///
    /// The arguments are anything serde writes as a JSON object (or
    /// `null`, for none): a `serde_json::Value` or `json!`, a borrow of
    /// one (serialized once when the call starts: nothing is cloned or
    /// kept), or a `Serialize` struct.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// let args = serde_json::json!({"text": "hello"});
    /// for _ in 0..3 {
    ///     client.call_tool("echo", &args).await?;
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// See [`Error`]; a usage error when the arguments are not an object.
    pub async fn call_tool<A: Serialize>(
        &self,
        name: &str,
        arguments: A,
    ) -> Result<CallToolResult, Error> {
        // Default options validate nothing: the call is the plain one,
        // without `call_tool_with`'s future (and its options) around it.
        // Its spec is made by the first poll, which starts it.
        let made = self.run_made(|| tool_spec(name, &arguments, CallOptions::new()));
        tool_result(made.await)
    }

    /// Calls a tool with per-request options (timeout, progress, `_meta`,
    /// headers, output validation).
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// use std::time::Duration;
    /// use mcp_client::CallOptions;
    /// let opts = CallOptions::new()
    ///     .with_timeout(Duration::from_secs(30))
    ///     .on_progress(|p| eprintln!("progress {}", p.progress));
    /// let result = client.call_tool_with("slow_count", serde_json::json!({"count": 3}), opts).await?;
    /// # let _ = result; Ok(()) }
    /// ```
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn call_tool_with<A: Serialize>(
        &self,
        name: &str,
        arguments: A,
        opts: CallOptions,
    ) -> Result<CallToolResult, Error> {
        #[cfg(feature = "output-schema")]
        let validate = opts.validates_output();
        // Started by its first poll, like `call_tool`'s: this future holds
        // the wait, and the options until then.
        let made = self.run_made(|| tool_spec(name, &arguments, opts));
        let result = tool_result(made.await)?;
        #[cfg(feature = "output-schema")]
        if validate {
            self.check_output(name, &result).await?;
        }
        Ok(result)
    }

    /// Calls a tool with serde arguments and decodes its
    /// `structuredContent` into `R`.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// #[derive(serde::Serialize)]
    /// struct Add { a: i64, b: i64 }
    /// #[derive(serde::Deserialize)]
    /// struct Sum { sum: i64 }
    /// let sum: Sum = client.call_tool_typed("add", &Add { a: 2, b: 3 }).await?;
    /// assert_eq!(sum.sum, 5);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// See [`Error`]; [`Error::is_tool_error`] when the tool reported an
    /// error; a protocol violation when `structuredContent` is absent or of
    /// another shape.
    pub async fn call_tool_typed<A: Serialize, R: DeserializeOwned>(
        &self,
        name: &str,
        arguments: &A,
    ) -> Result<R, Error> {
        let result = self.call_tool(name, arguments).await?;
        structured(name, result)
    }

    /// `prompts/get` with string arguments.
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<GetPromptResult, Error> {
        let mut params = json!({ "name": name });
        if !arguments.is_empty() {
            params["arguments"] = json!(arguments);
        }
        self.request_json::<methods::GetPrompt>(Some(params), CallOptions::new())
            .await
    }

    /// `resources/read`.
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, Error> {
        let params = json!({ "uri": uri });
        self.request_json::<methods::ReadResource>(Some(params), CallOptions::new())
            .await
    }

    /// `completion/complete`: suggestions for a prompt argument or a
    /// resource template variable.
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn complete(&self, params: CompleteRequestParams) -> Result<CompleteResult, Error> {
        self.request::<methods::Complete>(&params, CallOptions::new())
            .await
    }

    /// `resources/subscribe` (2025-11-25): updates arrive through
    /// [`NotificationHandler::on_resource_updated`](crate::NotificationHandler::on_resource_updated).
    /// In 2026-07-28 use [`Client::listen`]. When the server ends the HTTP
    /// session and the client starts a new one, the subscription is sent
    /// again in the new session.
    ///
    /// # Errors
    /// See [`Error`]; [`Error::is_retired_method`] in the modern era.
    pub async fn subscribe(&self, uri: &str) -> Result<(), Error> {
        let params = json!({ "uri": uri });
        self.request_ack::<v2025_11_25::Subscribe>(Some(params))
            .await
    }

    /// `resources/unsubscribe` (2025-11-25).
    ///
    /// # Errors
    /// See [`Error`].
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), Error> {
        let params = json!({ "uri": uri });
        self.request_ack::<v2025_11_25::Unsubscribe>(Some(params))
            .await
    }
}

/// Decodes the `structuredContent` of a tool result.
pub(crate) fn structured<R: DeserializeOwned>(
    tool: &str,
    result: CallToolResult,
) -> Result<R, Error> {
    if result.is_error == Some(true) {
        let message = result
            .content
            .iter()
            .filter_map(|c| c.as_text())
            .collect::<Vec<_>>()
            .join("\n");
        return Err(Error::new(ErrorKind::ToolError {
            tool: tool.to_owned(),
            message,
        }));
    }
    let fail = |reason: String| {
        Error::new(ErrorKind::StructuredContent {
            tool: tool.to_owned(),
            reason,
        })
    };
    let value = result
        .structured_content
        .ok_or_else(|| fail("the result has no structuredContent".into()))?;
    serde_json::from_value(value).map_err(|e| fail(e.to_string()))
}
