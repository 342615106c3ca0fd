//! Wire types for the Model Context Protocol.
//!
//! This crate holds every message shape of the two protocol revisions a
//! client speaks, plus the `io.modelcontextprotocol/tasks` extension. It is
//! pure data: `serde` and `schemars`, no I/O, no runtime.
//!
//! * [`jsonrpc`]: the JSON-RPC 2.0 envelope, read leniently, written strictly.
//! * [`version`]: [`ProtocolVersion`] and the [`Era`] it belongs to.
//! * [`error`]: the open [`ErrorCode`] space and typed error data.
//! * [`method`]: marker traits tying a method name to its params and result.
//! * [`routing`]: the HTTP routing data the core hands a transport.

pub mod error;
pub mod jsonrpc;
pub mod method;
pub mod routing;
pub mod version;

pub use error::ErrorCode;
pub use jsonrpc::{Message, RequestId};
pub use method::{NotificationMethod, RequestMethod};
pub use version::{Era, ProtocolVersion};
