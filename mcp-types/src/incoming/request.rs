//! Requests a server asks the client to serve: [`ServerRequestKind`] (a
//! method name's row of the method table) and [`ServerRequest`] (a
//! request classified by it, params raw). The same view serves a
//! 2025-11-25 server request and a 2026-07-28 input request embedded in
//! an `input_required` result.

use serde_json::value::RawValue;

use super::Params;
use crate::common::{PaginatedRequestParams, RequestParams};
use crate::elicitation::{ElicitationMode, LegacyElicitRequestParams};
use crate::sampling::CreateMessageRequestParams;
use crate::tasks::TaskIdParams;

/// A request a server may ask the client to serve, by method.
///
/// ```
/// use mcp_types::incoming::ServerRequestKind;
/// assert_eq!(ServerRequestKind::of("roots/list"), Some(ServerRequestKind::ListRoots));
/// assert_eq!(ServerRequestKind::ListRoots.method(), "roots/list");
/// assert_eq!(ServerRequestKind::of("tools/call"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ServerRequestKind {
    /// `ping` (2025-11-25).
    Ping,
    /// `sampling/createMessage`.
    CreateMessage,
    /// `elicitation/create`.
    Elicit,
    /// `roots/list`.
    ListRoots,
    /// `tasks/get`, for a task the client serves (2025-11-25).
    GetTask,
    /// `tasks/result` (2025-11-25).
    GetTaskPayload,
    /// `tasks/list` (2025-11-25).
    ListTasks,
    /// `tasks/cancel` (2025-11-25).
    CancelTask,
}

kind_rows!(ServerRequestKind {
    Ping => PING,
    CreateMessage => CREATE_MESSAGE,
    Elicit => ELICIT,
    ListRoots => ROOTS_LIST,
    GetTask => TASKS_GET,
    GetTaskPayload => TASKS_RESULT,
    ListTasks => TASKS_LIST,
    CancelTask => TASKS_CANCEL,
});

/// `elicitation/create`: its `mode`, read when it was classified (every
/// reader tells a form from a URL first), and its params.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Elicitation {
    /// The mode; form when `mode` is absent (or the params are not an
    /// object with a string `mode`).
    pub mode: ElicitationMode,
    /// The params, raw (the 2025-11-25 shape, whose URL mode also carries
    /// `elicitationId`).
    pub params: Params<LegacyElicitRequestParams>,
}

impl Elicitation {
    fn read(raw: Option<Box<RawValue>>) -> Elicitation {
        #[derive(serde::Deserialize)]
        struct Mode {
            #[serde(default)]
            mode: Option<String>,
        }
        let mode = raw
            .as_deref()
            .and_then(|p| serde_json::from_str::<Mode>(p.get()).ok())
            .and_then(|m| m.mode)
            .map_or(ElicitationMode::Form, |m| ElicitationMode::parse(&m));
        Elicitation {
            mode,
            params: Params::new(raw),
        }
    }
}

/// A request a server asks the client to serve, classified by method (see
/// [`ServerRequest::classify`]); the params stay raw.
///
/// ```
/// use mcp_types::elicitation::ElicitationMode;
/// use mcp_types::incoming::ServerRequest;
/// use serde_json::value::RawValue;
/// let params = RawValue::from_string(r#"{"mode":"url","message":"m","url":"https://e.x"}"#.into()).ok();
/// match ServerRequest::classify("elicitation/create".into(), params) {
///     ServerRequest::Elicit(e) => assert_eq!(e.mode, ElicitationMode::Url),
///     other => panic!("{other:?}"),
/// }
/// let r = ServerRequest::classify("x/custom".into(), None);
/// assert_eq!((r.kind(), r.method()), (None, "x/custom"));
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ServerRequest {
    /// `ping`.
    Ping(Params<RequestParams>),
    /// `sampling/createMessage` (a 2025-11-25 one may carry `task`).
    CreateMessage(Params<CreateMessageRequestParams>),
    /// `elicitation/create`.
    Elicit(Elicitation),
    /// `roots/list`.
    ListRoots(Params<RequestParams>),
    /// `tasks/get`.
    GetTask(Params<TaskIdParams>),
    /// `tasks/result`.
    GetTaskPayload(Params<TaskIdParams>),
    /// `tasks/list`.
    ListTasks(Params<PaginatedRequestParams>),
    /// `tasks/cancel`.
    CancelTask(Params<TaskIdParams>),
    /// Any other method (a server request nobody serves is answered with
    /// `-32601`).
    Unknown {
        /// The method as received.
        method: String,
        /// The params as received.
        params: Option<Box<RawValue>>,
    },
}

impl ServerRequest {
    /// Classifies a request by its method. Nothing is parsed but the
    /// `mode` of `elicitation/create`; an unknown method is kept as
    /// [`ServerRequest::Unknown`].
    pub fn classify(method: String, params: Option<Box<RawValue>>) -> ServerRequest {
        use ServerRequest as R;
        use ServerRequestKind as K;
        let Some(kind) = ServerRequestKind::of(&method) else {
            return R::Unknown { method, params };
        };
        let p = params;
        match kind {
            K::Ping => R::Ping(Params::new(p)),
            K::CreateMessage => R::CreateMessage(Params::new(p)),
            K::Elicit => R::Elicit(Elicitation::read(p)),
            K::ListRoots => R::ListRoots(Params::new(p)),
            K::GetTask => R::GetTask(Params::new(p)),
            K::GetTaskPayload => R::GetTaskPayload(Params::new(p)),
            K::ListTasks => R::ListTasks(Params::new(p)),
            K::CancelTask => R::CancelTask(Params::new(p)),
        }
    }

    /// The kind; `None` for [`ServerRequest::Unknown`].
    pub fn kind(&self) -> Option<ServerRequestKind> {
        use ServerRequest as R;
        use ServerRequestKind as K;
        Some(match self {
            R::Ping(_) => K::Ping,
            R::CreateMessage(_) => K::CreateMessage,
            R::Elicit(_) => K::Elicit,
            R::ListRoots(_) => K::ListRoots,
            R::GetTask(_) => K::GetTask,
            R::GetTaskPayload(_) => K::GetTaskPayload,
            R::ListTasks(_) => K::ListTasks,
            R::CancelTask(_) => K::CancelTask,
            R::Unknown { .. } => return None,
        })
    }

    /// The method name as received.
    pub fn method(&self) -> &str {
        match (self, self.kind()) {
            (ServerRequest::Unknown { method, .. }, _) => method,
            (_, kind) => kind.map_or("", ServerRequestKind::method),
        }
    }

    /// The params as received, if any.
    pub fn raw(&self) -> Option<&RawValue> {
        use ServerRequest as R;
        match self {
            R::Ping(p) | R::ListRoots(p) => p.raw(),
            R::CreateMessage(p) => p.raw(),
            R::Elicit(e) => e.params.raw(),
            R::GetTask(p) | R::GetTaskPayload(p) | R::CancelTask(p) => p.raw(),
            R::ListTasks(p) => p.raw(),
            R::Unknown { params, .. } => params.as_deref(),
        }
    }

    /// The method and the params as received.
    pub fn into_parts(self) -> (String, Option<Box<RawValue>>) {
        use ServerRequest as R;
        let method = self.method().to_owned();
        let params = match self {
            R::Ping(p) | R::ListRoots(p) => p.into_raw(),
            R::CreateMessage(p) => p.into_raw(),
            R::Elicit(e) => e.params.into_raw(),
            R::GetTask(p) | R::GetTaskPayload(p) | R::CancelTask(p) => p.into_raw(),
            R::ListTasks(p) => p.into_raw(),
            R::Unknown { method, params } => return (method, params),
        };
        (method, params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::facts::{Kind, METHODS};
    use crate::version::Era;

    fn raw(s: &str) -> Option<Box<RawValue>> {
        RawValue::from_string(s.to_owned()).ok()
    }

    #[test]
    fn every_kind_is_its_own_row_and_comes_back_from_its_name() {
        for (i, kind) in ServerRequestKind::ALL.into_iter().enumerate() {
            assert_eq!(kind as usize, i);
            assert_eq!(ServerRequestKind::of(kind.method()), Some(kind));
            assert_eq!(kind.facts().kind, Kind::Request);
            let r = ServerRequest::classify(kind.method().to_owned(), raw("{}"));
            assert_eq!(r.kind(), Some(kind), "{}", kind.method());
            assert_eq!(r.method(), kind.method());
            assert_eq!(r.raw().map(RawValue::get), Some("{}"));
            let (method, params) = r.into_parts();
            assert_eq!(method, kind.method());
            assert_eq!(params.as_deref().map(RawValue::get), Some("{}"));
        }
    }

    #[test]
    fn every_request_a_server_sends_has_a_kind() {
        for row in METHODS.iter().filter(|m| m.kind == Kind::Request) {
            let by_server = [Era::Legacy, Era::Modern]
                .into_iter()
                .filter_map(|era| row.era(era))
                .any(|e| e.sender.server_sends());
            assert_eq!(
                ServerRequestKind::of(row.name).is_some(),
                by_server,
                "{}",
                row.name
            );
        }
    }

    #[test]
    fn an_elicitation_is_told_apart_by_its_mode() {
        let mode = |p: Option<Box<RawValue>>| match ServerRequest::classify(
            "elicitation/create".into(),
            p,
        ) {
            ServerRequest::Elicit(e) => e.mode,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            mode(raw(r#"{"mode":"url","url":"u"}"#)),
            ElicitationMode::Url
        );
        assert_eq!(mode(raw(r#"{"mode":"form"}"#)), ElicitationMode::Form);
        assert_eq!(mode(raw(r#"{"message":"m"}"#)), ElicitationMode::Form);
        assert_eq!(mode(None), ElicitationMode::Form);
        assert_eq!(mode(raw("[1]")), ElicitationMode::Form);
        assert_eq!(
            mode(raw(r#"{"mode":"voice"}"#)),
            ElicitationMode::Unknown("voice".into())
        );
    }

    #[test]
    fn unknown_methods_are_kept_with_their_params() {
        let r = ServerRequest::classify("x/custom".into(), raw(r#"{"a":1}"#));
        assert_eq!(r.kind(), None);
        let (method, params) = r.into_parts();
        assert_eq!(method, "x/custom");
        assert_eq!(params.as_deref().map(RawValue::get), Some(r#"{"a":1}"#));
    }
}
