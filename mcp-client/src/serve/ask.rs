//! What a server asks the client's handlers for, whichever revision it came
//! in: built by variant from the typed views `mcp_types` decodes (a
//! 2025-11-25 server request, a 2026-07-28 input request), so serving
//! never matches a method name.

use mcp_types::elicitation::{ElicitRequestFormParams, ElicitRequestParams};
use mcp_types::incoming::LegacyServerRequest;
use mcp_types::jsonrpc::ErrorObject;
use mcp_types::results::InputRequest;
use mcp_types::sampling::CreateMessageRequestParams;

use crate::handlers::{HandlerError, UrlElicitation};

/// One request a registered handler may serve.
#[derive(Debug)]
pub(crate) enum Ask {
    /// `sampling/createMessage`.
    Sampling(CreateMessageRequestParams),
    /// Form-mode `elicitation/create`.
    Form(ElicitRequestFormParams),
    /// URL-mode `elicitation/create`.
    Url(UrlElicitation),
    /// `roots/list`.
    Roots,
}

impl Ask {
    /// What a 2025-11-25 server request asks; `None` for what no handler
    /// serves (`ping` and `tasks/*` are the core's, unknown methods nobody's).
    pub(crate) fn from_legacy(request: LegacyServerRequest) -> Option<Ask> {
        use LegacyServerRequest as L;
        match request {
            L::CreateMessage(p) => Some(Ask::Sampling(p.params)),
            L::Elicit(p) => match p.params {
                ElicitRequestParams::Form(form) => Some(Ask::Form(form)),
                ElicitRequestParams::Url(u) => Some(Ask::Url(UrlElicitation {
                    message: u.message,
                    url: u.url,
                    elicitation_id: Some(u.elicitation_id),
                })),
                _ => None,
            },
            L::ListRoots(_) => Some(Ask::Roots),
            _ => None,
        }
    }

    /// What a 2026-07-28 input request asks; `None` for an unknown method.
    pub(crate) fn from_input(request: InputRequest) -> Option<Ask> {
        match request {
            InputRequest::CreateMessage(p) => Some(Ask::Sampling(p)),
            InputRequest::Elicit(ElicitRequestParams::Form(form)) => Some(Ask::Form(form)),
            InputRequest::Elicit(ElicitRequestParams::Url(u)) => Some(Ask::Url(UrlElicitation {
                message: u.message,
                url: u.url,
                elicitation_id: None,
            })),
            InputRequest::ListRoots(_) => Some(Ask::Roots),
            _ => None,
        }
    }
}

/// The `-32602` answer to a known method whose params have the wrong shape.
pub(crate) fn malformed(method: &str, e: &serde_json::Error) -> ErrorObject {
    HandlerError::invalid_params(format!("malformed {method} params: {e}")).into_error_object()
}
