//! Wire types for the Model Context Protocol.
//!
//! This crate holds every message shape of the two protocol revisions a
//! client speaks, plus the `io.modelcontextprotocol/tasks` extension. It is
//! pure data: `serde` and `schemars` (and `bytes`/`memchr` to keep a result
//! unparsed until it is decoded), no I/O, no runtime.
//!
//! # Manual
//!
//! ## Module map
//!
//! | module | what it holds |
//! | --- | --- |
//! | [`jsonrpc`] | the JSON-RPC 2.0 envelope ([`Message`]), payloads kept raw; typed helpers `Request::typed`, `params_as`, `result_as` |
//! | [`raw`] | [`raw::RawJson`], a result kept as the bytes that arrived until its one parse, and [`raw::object_members`], a walk over an object's members that skips their values |
//! | [`version`] | [`ProtocolVersion`] and its [`Era`] |
//! | [`error`] | the open [`ErrorCode`] space, typed error data, [`error::KnownError`] |
//! | [`method`], [`methods`] | marker traits, one marker type per method per revision, and [`methods::facts`]: every fact about a method (capability gates, pagination field, `Mcp-Name` param, schema definitions, idempotence, eras) in one table |
//! | [`routing`] | what the core hands an HTTP transport per message |
//! | [`meta`] | [`meta::Meta`] (`_meta` objects), every reserved key in [`meta::keys`], and [`meta::HasMeta`] to fill `_meta` generically |
//! | [`common`] | `Implementation`, `Icon`, `Role`, `Annotations`, request/notification/pagination params |
//! | [`capabilities`] | `ClientCapabilities`, `ServerCapabilities` (with `extensions` and legacy `tasks`) |
//! | [`lifecycle`] | `initialize` (legacy) and `server/discover` (modern) |
//! | [`results`] | `resultType`, [`results::ResultHeader`], [`results::decode_result`], caching fields, `InputRequiredResult`, input requests and responses |
//! | [`tools`], [`resources`], [`prompts`], [`completion`] | server features |
//! | [`content`] | every content block, unknown types kept as data |
//! | [`sampling`], [`elicitation`], [`roots`] | client features |
//! | [`logging`], [`notifications`], [`subscriptions`] | logging, progress, cancellation, `subscriptions/listen` |
//! | [`tasks`] | [`tasks::legacy`] (2025-11-25 core tasks) and [`tasks::ext`] (the 2026-07-28 extension) |
//! | [`incoming`] | typed views of what a server sends, classified once by method: [`incoming::ServerNotification`], [`incoming::ServerRequest`] |
//! | [`pagination`], [`caching`] | traits over list results ([`pagination::Paginated`]) and cacheable results ([`caching::Cacheable`]) |
//!
//! ## Decoding a response
//!
//! Send a request with a marker (`methods::v2026_07_28::CallTool`), keep the
//! marker with the pending request, and decode the raw result with
//! [`results::decode_result`]`::<M::Result>`: it reads `resultType` first
//! (`complete`, `input_required`, `task`, or unknown kept as data), so no
//! untagged union is ever tried. 2025-11-25 results have no `resultType`
//! and read as `complete`.
//!
//! ## Revision differences made explicit
//!
//! * **Lifecycle**: `initialize` / `notifications/initialized` exist only in
//!   [`methods::v2025_11_25`]; `server/discover` only in
//!   [`methods::v2026_07_28`]. 2026-07-28 requests carry
//!   `_meta["io.modelcontextprotocol/protocolVersion"]` and
//!   `clientCapabilities` (see [`meta::Meta`]); the core fills them.
//! * **Server-to-client requests** (2025-11-25) become **input requests**
//!   embedded in an [`results::InputRequiredResult`] (2026-07-28), answered
//!   with [`results::InputResponses`] plus the echoed `requestState` on a
//!   retry.
//! * **Tasks**: [`tasks::legacy`] (`params.task`, `{task: {...}}`,
//!   `tasks/result`, `tasks/list`, `ttl`) versus [`tasks::ext`] (flat
//!   `resultType: "task"`, `tasks/update`, `ttlMs`, [`tasks::ext::DetailedTask`]).
//! * **Subscriptions**: `resources/subscribe` (legacy) versus
//!   `subscriptions/listen` with a [`subscriptions::SubscriptionFilter`]
//!   (modern).
//! * **URL elicitation**: [`elicitation::LegacyElicitRequestUrlParams`]
//!   (with `elicitationId`, `notifications/elicitation/complete`, `-32042`)
//!   versus [`elicitation::ElicitRequestUrlParams`].
//! * **Error codes**: `-32020`/`-32021`/`-32022` are modern; `-32042` and
//!   `-32002` legacy (see [`ErrorCode`]).
//! * **Caching** (`ttlMs`, `cacheScope`) and `resultType` are optional fields
//!   of the shared result types: present in 2026-07-28, absent in 2025-11-25.
//!
//! ## Reading and writing
//!
//! Reads are lenient: unknown fields are ignored, unknown enum strings,
//! content types, input-request methods and result types are kept as data.
//! Writes are strict: absent optionals are omitted, never `null` (except the
//! spec's nullable `ttl`/`ttlMs`). Opaque JSON (tool schemas, structured
//! content, `_meta`) keeps the key order it arrived with.

mod macros;
mod read_str;

pub mod caching;
pub mod capabilities;
pub mod common;
pub mod completion;
pub mod content;
pub mod elicitation;
pub mod error;
pub mod fault;
pub mod incoming;
pub mod jsonrpc;
pub mod lifecycle;
pub mod logging;
pub mod meta;
pub mod method;
pub mod methods;
pub mod notifications;
pub mod pagination;
pub mod prompts;
pub mod raw;
pub mod redact;
pub mod resources;
pub mod results;
pub mod roots;
pub mod routing;
pub mod sampling;
pub mod skills;
pub mod subscriptions;
pub mod tasks;
pub mod tools;
pub mod version;

/// The `schemars` this crate derives its JSON Schemas with: name it as
/// `mcp_types::schemars` so your own `JsonSchema` types (tool arguments,
/// structured results) use the same version.
///
/// ```
/// use mcp_types::schemars::{self, JsonSchema};
/// #[derive(JsonSchema)]
/// #[schemars(crate = "mcp_types::schemars")]
/// struct Args { city: String }
/// let schema = schemars::schema_for!(Args);
/// assert_eq!(schema.get("type"), Some(&serde_json::json!("object")));
/// ```
pub use schemars;

pub use error::ErrorCode;
pub use jsonrpc::{Message, RequestId};
pub use meta::Meta;
pub use method::{NotificationMethod, RequestMethod};
pub use version::{Era, ProtocolVersion};
