//! What is known about each method, in one place: who sends it in each
//! era, which capability gates it, whether it paginates and on which
//! field, which param gives the `Mcp-Name` header, its schema definitions,
//! whether it is idempotent and whether its result may be cached.
//!
//! Every fact is written once, in the rows of [`METHODS`]; each marker type
//! of [`methods`](super) points at its row through [`KnownMethod::FACTS`],
//! and [`lookup`] finds a row by method name for code that only has the
//! string (a request built by name, a message off the wire).
//!
//! ```
//! use mcp_types::Era;
//! use mcp_types::methods::facts::{self, KnownMethod};
//! use mcp_types::methods::v2025_11_25;
//!
//! let call = facts::lookup("tools/call").unwrap();
//! assert_eq!(call.mcp_name_param, Some("name"));
//! assert_eq!(call.server_capability(Era::Legacy, false), Some("tools"));
//! assert_eq!(call.server_capability(Era::Legacy, true), Some("tasks.requests.tools.call"));
//! assert!(call.allows_input_required(Era::Modern));
//! assert!(!call.idempotent);
//!
//! let list = v2025_11_25::ListTools::FACTS;
//! assert_eq!(list.page_field, Some("tools"));
//! assert_eq!(facts::lookup("tasks/list").unwrap().modern_replacement.is_some(), true);
//! ```
//!
//! Capability paths are dot-separated paths into the capabilities object
//! (`resources.subscribe`); under `extensions.` the rest is one extension id
//! (which itself contains dots), optionally followed by `.setting` after the
//! id's `/name` segment (`extensions.io.modelcontextprotocol/skills.directoryRead`
//! means that setting must be `true`).

use crate::version::Era;

pub use super::table::METHODS;

/// Whether a method is a request (answered) or a notification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A request: it has an id and gets a response.
    Request,
    /// A notification: no id, no response.
    Notification,
}

/// Who sends a method in one era.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sender {
    /// Only the client.
    Client,
    /// Only the server.
    Server,
    /// Either side.
    Both,
    /// 2026-07-28: not a JSON-RPC message of its own but an input request
    /// a server embeds in an `input_required` result; the client answers it
    /// in the retry's `inputResponses`.
    Embedded,
}

impl Sender {
    /// Whether the client sends this method.
    pub const fn client_sends(self) -> bool {
        matches!(self, Sender::Client | Sender::Both)
    }

    /// Whether the server sends (or embeds) this method.
    pub const fn server_sends(self) -> bool {
        matches!(self, Sender::Server | Sender::Both | Sender::Embedded)
    }
}

/// The schema document a method's definitions are in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SchemaDoc {
    /// The 2025-11-25 `schema.json`.
    Legacy,
    /// The 2026-07-28 `schema.json`.
    Modern,
    /// The `io.modelcontextprotocol/tasks` extension's schema (2026-07-28).
    Tasks,
}

/// The extension id of the tasks extension (2026-07-28).
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// The extension id of the skills extension (SEP-2640, both eras).
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";
/// The server capability path of the skills extension.
pub const SKILLS_CAPABILITY: &str = "extensions.io.modelcontextprotocol/skills";
/// The server capability path of `resources/directory/read`: the skills
/// extension declared with `directoryRead: true`.
pub const DIRECTORY_READ_CAPABILITY: &str =
    "extensions.io.modelcontextprotocol/skills.directoryRead";
/// The server capability path of the tasks extension.
pub const TASKS_CAPABILITY: &str = "extensions.io.modelcontextprotocol/tasks";

/// What a method is in one era.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct EraFacts {
    /// Who sends it.
    pub sender: Sender,
    /// The extension that defines it in this era, if any.
    pub extension: Option<&'static str>,
    /// The schema document holding its definitions (`None`: the method is
    /// in no schema this crate carries, as the skills extension's).
    pub schema: Option<SchemaDoc>,
    /// The definition of the whole message (`CallToolRequest`).
    pub message_definition: Option<&'static str>,
    /// The definition of a complete result (`CallToolResult`); `None` for
    /// notifications.
    pub result_definition: Option<&'static str>,
    /// The server capability the client must have seen before sending it.
    pub server_capability: Option<&'static str>,
    /// The client capability a server needs before sending (or embedding)
    /// it; the client refuses a request it did not declare.
    pub client_capability: Option<&'static str>,
    /// 2025-11-25: the receiver's capability that allows a `task` in the
    /// params (task augmentation, `tasks.requests.tools.call`).
    /// 2026-07-28: the client capability (its tasks extension declaration)
    /// that lets the server answer with a task.
    pub task_capability: Option<&'static str>,
    /// 2026-07-28: the result may be an `InputRequiredResult`.
    pub input_required: bool,
}

impl EraFacts {
    /// Facts for a sender, in no schema, gated by nothing.
    pub(super) const fn new(sender: Sender) -> Self {
        EraFacts {
            sender,
            extension: None,
            schema: None,
            message_definition: None,
            result_definition: None,
            server_capability: None,
            client_capability: None,
            task_capability: None,
            input_required: false,
        }
    }

    /// Sets the schema document and definitions.
    pub(super) const fn schema(
        mut self,
        doc: SchemaDoc,
        message: &'static str,
        result: Option<&'static str>,
    ) -> Self {
        self.schema = Some(doc);
        self.message_definition = Some(message);
        self.result_definition = result;
        self
    }

    /// Sets the extension.
    pub(super) const fn extension(mut self, id: &'static str) -> Self {
        self.extension = Some(id);
        self
    }

    /// Sets the server capability.
    pub(super) const fn server_cap(mut self, path: &'static str) -> Self {
        self.server_capability = Some(path);
        self
    }

    /// Sets the client capability.
    pub(super) const fn client_cap(mut self, path: &'static str) -> Self {
        self.client_capability = Some(path);
        self
    }

    /// Sets the task capability.
    pub(super) const fn task_cap(mut self, path: &'static str) -> Self {
        self.task_capability = Some(path);
        self
    }

    /// Marks the result as possibly `input_required`.
    pub(super) const fn input_required(mut self) -> Self {
        self.input_required = true;
        self
    }
}

/// Everything known about one method name. One row of [`METHODS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct MethodFacts {
    /// The method name on the wire.
    pub name: &'static str,
    /// Request or notification.
    pub kind: Kind,
    /// What it is in 2025-11-25; `None` when that revision lacks it.
    pub legacy: Option<EraFacts>,
    /// What it is in 2026-07-28; `None` when that revision lacks it.
    pub modern: Option<EraFacts>,
    /// The array member of the result holding a page's items, for methods
    /// that paginate (`tools` of `tools/list`).
    pub page_field: Option<&'static str>,
    /// The string param whose value is the `Mcp-Name` header of a
    /// 2026-07-28 HTTP request (`name` of `tools/call`).
    pub mcp_name_param: Option<&'static str>,
    /// Sending it twice leaves the server as sending it once: a client may
    /// retry it after a lost response without asking the user.
    pub idempotent: bool,
    /// 2026-07-28: its result may carry `ttlMs`/`cacheScope` and be served
    /// from the client's result cache.
    pub cacheable: bool,
    /// Notifications: the cached methods whose results it makes stale
    /// (`notifications/resources/updated`: only the entries of its `uri`).
    pub invalidates: &'static [&'static str],
    /// A legacy method removed in 2026-07-28: what to use instead.
    pub modern_replacement: Option<&'static str>,
}

impl MethodFacts {
    /// A request row with no era yet.
    pub(super) const fn request(name: &'static str) -> Self {
        MethodFacts::new(name, Kind::Request)
    }

    /// A notification row with no era yet.
    pub(super) const fn notification(name: &'static str) -> Self {
        MethodFacts::new(name, Kind::Notification)
    }

    const fn new(name: &'static str, kind: Kind) -> Self {
        MethodFacts {
            name,
            kind,
            legacy: None,
            modern: None,
            page_field: None,
            mcp_name_param: None,
            idempotent: false,
            cacheable: false,
            invalidates: &[],
            modern_replacement: None,
        }
    }

    /// Sets the 2025-11-25 facts.
    pub(super) const fn legacy(mut self, facts: EraFacts) -> Self {
        self.legacy = Some(facts);
        self
    }

    /// Sets the 2026-07-28 facts.
    pub(super) const fn modern(mut self, facts: EraFacts) -> Self {
        self.modern = Some(facts);
        self
    }

    /// Sets the same facts for both eras, each naming its own revision's
    /// schema document (the definitions keep their names across them).
    pub(super) const fn both(self, facts: EraFacts) -> Self {
        let (mut legacy, mut modern) = (facts, facts);
        if facts.schema.is_some() {
            legacy.schema = Some(SchemaDoc::Legacy);
            modern.schema = Some(SchemaDoc::Modern);
        }
        self.legacy(legacy).modern(modern)
    }

    /// Sets the page field.
    pub(super) const fn page(mut self, field: &'static str) -> Self {
        self.page_field = Some(field);
        self
    }

    /// Sets the `Mcp-Name` param.
    pub(super) const fn name_param(mut self, param: &'static str) -> Self {
        self.mcp_name_param = Some(param);
        self
    }

    /// Marks the method idempotent.
    pub(super) const fn idempotent(mut self) -> Self {
        self.idempotent = true;
        self
    }

    /// Marks the result cacheable (2026-07-28).
    pub(super) const fn cacheable(mut self) -> Self {
        self.cacheable = true;
        self
    }

    /// Sets the cached methods this notification makes stale.
    pub(super) const fn invalidates(mut self, methods: &'static [&'static str]) -> Self {
        self.invalidates = methods;
        self
    }

    /// Sets the 2026-07-28 replacement of a removed method.
    pub(super) const fn replaced_by(mut self, replacement: &'static str) -> Self {
        self.modern_replacement = Some(replacement);
        self
    }

    /// What the method is in `era`, if that era has it.
    pub fn era(&self, era: Era) -> Option<&EraFacts> {
        match era {
            Era::Legacy => self.legacy.as_ref(),
            Era::Modern => self.modern.as_ref(),
        }
    }

    /// Whether `era` has the method.
    pub fn in_era(&self, era: Era) -> bool {
        self.era(era).is_some()
    }

    /// The server capability a client request needs in `era`: with
    /// `with_task`, a 2025-11-25 request carrying `params.task` needs the
    /// task capability instead (`tasks.requests.tools.call`).
    pub fn server_capability(&self, era: Era, with_task: bool) -> Option<&'static str> {
        let facts = self.era(era)?;
        match (era, with_task, facts.task_capability) {
            (Era::Legacy, true, Some(task)) if facts.sender.client_sends() => Some(task),
            _ => facts.server_capability,
        }
    }

    /// The client capability a server request (or embedded input request)
    /// needs in `era`: with `with_task`, a 2025-11-25 request carrying
    /// `params.task` needs the task capability instead
    /// (`tasks.requests.sampling.createMessage`).
    pub fn client_capability(&self, era: Era, with_task: bool) -> Option<&'static str> {
        let facts = self.era(era)?;
        match (era, with_task, facts.task_capability) {
            (Era::Legacy, true, Some(task)) if facts.sender == Sender::Server => Some(task),
            _ => facts.client_capability,
        }
    }

    /// Whether the result may be `input_required` in `era`.
    pub fn allows_input_required(&self, era: Era) -> bool {
        self.era(era).is_some_and(|f| f.input_required)
    }

    /// Whether the method exists in `era` only.
    pub fn only_in(&self, era: Era) -> bool {
        let other = match era {
            Era::Legacy => Era::Modern,
            Era::Modern => Era::Legacy,
        };
        self.in_era(era) && !self.in_era(other)
    }
}

/// A method marker type and its row of [`METHODS`]. Every marker of
/// [`methods`](super) implements it.
///
/// ```
/// use mcp_types::methods::facts::KnownMethod;
/// use mcp_types::methods::v2026_07_28::ListPrompts;
/// assert_eq!(ListPrompts::FACTS.page_field, Some("prompts"));
/// ```
pub trait KnownMethod {
    /// The method's row.
    const FACTS: &'static MethodFacts;
}

/// The row of a method name, if the method is known.
///
/// ```
/// use mcp_types::methods::facts::lookup;
/// assert_eq!(lookup("resources/templates/list").unwrap().page_field, Some("resourceTemplates"));
/// assert!(lookup("tools/frobnicate").is_none());
/// ```
pub fn lookup(method: &str) -> Option<&'static MethodFacts> {
    METHODS.iter().find(|m| m.name == method)
}

/// The page field of a paginated method.
pub fn page_field(method: &str) -> Option<&'static str> {
    lookup(method)?.page_field
}

/// The param giving a request's `Mcp-Name` header (2026-07-28).
pub fn mcp_name_param(method: &str) -> Option<&'static str> {
    lookup(method)?.mcp_name_param
}

/// Whether a method's result may be `input_required` (2026-07-28).
pub fn allows_input_required(method: &str) -> bool {
    lookup(method).is_some_and(|m| m.allows_input_required(Era::Modern))
}

/// The replacement of a method 2026-07-28 removed, if it was removed.
pub fn modern_replacement(method: &str) -> Option<&'static str> {
    lookup(method)?.modern_replacement
}

/// Whether a method's results may be cached (2026-07-28).
pub fn is_cacheable(method: &str) -> bool {
    lookup(method).is_some_and(|m| m.cacheable)
}
