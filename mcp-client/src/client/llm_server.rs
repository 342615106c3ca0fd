//! The LLM-server pattern: the client sends `sampling/createMessage` to a
//! server that serves a model. It is the inverse of host sampling.
//!
//! In host sampling ([`ClientBuilder::sampling`](crate::ClientBuilder::sampling))
//! the *server* asks and the *client* runs the model: the request travels
//! server to client (2025-11-25) or as an input request inside an
//! `input_required` result (2026-07-28), and the client answers through its
//! [`SamplingHandler`](crate::SamplingHandler). In the LLM-server pattern
//! the roles flip: a server fronts a model, and the client asks it with an
//! ordinary request whose shape is the sampling request's,
//! [`CreateMessageRequestParams`] in, [`CreateMessageResult`] out.
//!
//! Neither revision lists `sampling/createMessage` among the requests a
//! client sends (2025-11-25 `ClientRequest` and 2026-07-28 `ClientRequest`
//! do not include it), so this is an extension both peers agree on, sent
//! with the generic request path ([`Client::request_as`] under the hood):
//! no capability is checked, and a server that does not serve it answers
//! `-32601` (method not found). [`Client::create_message`] is the typed
//! helper; [`Client::start_request`] sends it without waiting.

use mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};

use crate::client::Client;
use crate::error::Error;
use crate::options::CallOptions;

/// The method of both sampling directions.
const CREATE_MESSAGE: &str =
    <mcp_types::methods::v2026_07_28::CreateMessage as mcp_types::RequestMethod>::METHOD;

impl Client {
    /// Asks the server to run a model: sends `sampling/createMessage` to
    /// the server (the LLM-server pattern, the inverse of host sampling;
    /// see [`llm_server`](crate::llm_server) for the details and the
    /// spec's position) and decodes its [`CreateMessageResult`].
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// use mcp_client::CallOptions;
    /// use mcp_client::mcp_types::content::ContentBlock;
    /// use mcp_client::mcp_types::common::Role;
    /// use mcp_client::mcp_types::sampling::{CreateMessageRequestParams, SamplingMessage};
    /// let params = CreateMessageRequestParams::new(
    ///     vec![SamplingMessage::new(Role::User, ContentBlock::text("Say hi"))],
    ///     64,
    /// );
    /// let reply = client.create_message(params, CallOptions::new()).await?;
    /// println!("{} said {:?}", reply.model, reply.content);
    ///
    /// // The same request, started now and collected later:
    /// let params = CreateMessageRequestParams::new(
    ///     vec![SamplingMessage::new(Role::User, ContentBlock::text("Again"))],
    ///     64,
    /// );
    /// let value = serde_json::to_value(&params).expect("params serialize");
    /// let handle = client.start_request("sampling/createMessage", Some(value));
    /// let reply: mcp_client::mcp_types::sampling::CreateMessageResult =
    ///     handle.result_as().await?;
    /// # let _ = reply; Ok(()) }
    /// ```
    ///
    /// # Errors
    /// See [`Error`]: [`Error::remote_error`] with `-32601` when the server
    /// does not serve models; a result that is not a `CreateMessageResult`
    /// is a protocol violation.
    pub async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        opts: CallOptions,
    ) -> Result<CreateMessageResult, Error> {
        let value = serde_json::to_value(&params).map_err(mcp_core::UsageError::from)?;
        self.request_as(CREATE_MESSAGE, Some(value), opts).await
    }
}
