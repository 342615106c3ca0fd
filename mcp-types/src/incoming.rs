//! Typed views of what a server sends: its notifications (both revisions
//! and the tasks extension) and the requests it asks the client to serve
//! (2025-11-25 server requests, 2026-07-28 embedded input requests).
//!
//! A message is classified once, by its method, through the one method
//! table ([`methods::facts::METHODS`](crate::methods::facts::METHODS)):
//! [`ServerNotification::classify`] and [`ServerRequest::classify`] turn a
//! method name into a variant without parsing the params, which stay raw
//! in a [`Params`] until whoever needs them decodes them, once, with the
//! type the variant names. An unknown method is kept as data, never an
//! error. The only members read while classifying are the ones every
//! reader of the message needs first: the `uri` of
//! `notifications/resources/updated` and the `mode` of
//! `elicitation/create`.
//!
//! ```
//! use mcp_types::incoming::ServerNotification;
//! use mcp_types::Message;
//! let m = Message::from_slice(
//!     br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}"#,
//! ).unwrap();
//! let Message::Notification(n) = m else { unreachable!() };
//! match ServerNotification::classify(n) {
//!     ServerNotification::LoggingMessage(p) => assert_eq!(p.decode().unwrap().data, "hi"),
//!     other => panic!("{other:?}"),
//! }
//! ```

use std::fmt;
use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

/// Ties each kind of an incoming-method enum to its row of the method
/// table (in declaration order: `facts` indexes by the discriminant) and
/// gives the enum its lookups: `ALL`, `of`, `facts`, `method`.
macro_rules! kind_rows {
    ($kind:ident { $($variant:ident => $row:ident),+ $(,)? }) => {
        const KINDS: usize = [$(stringify!($variant)),+].len();

        /// Each kind's row of the method table, in declaration order.
        const ROWS: [($kind, &crate::methods::facts::MethodFacts); KINDS] =
            [$(($kind::$variant, &crate::methods::table::$row)),+];

        impl $kind {
            /// Every kind.
            pub const ALL: [$kind; KINDS] = [$($kind::$variant),+];

            /// The kind of a method name; `None` for a method a server does
            /// not send or this crate does not know.
            pub fn of(method: &str) -> Option<$kind> {
                ROWS.iter().find(|(_, f)| f.name == method).map(|(k, _)| *k)
            }

            /// The method's row of the method table.
            pub fn facts(self) -> &'static crate::methods::facts::MethodFacts {
                ROWS[self as usize].1
            }

            /// The method name on the wire.
            pub fn method(self) -> &'static str {
                self.facts().name
            }
        }
    };
}

mod notification;
mod request;

pub use notification::{NotificationKind, ResourceUpdated, ServerNotification};
pub use request::{Elicitation, ServerRequest, ServerRequestKind};

/// The params of a classified message, still raw: [`Params::decode`]
/// parses them into `T` (the type the variant holding them names) when
/// they are needed, so a message nobody reads is never parsed and one that
/// is read is parsed once.
///
/// ```
/// use mcp_types::incoming::Params;
/// use mcp_types::notifications::ProgressNotificationParams;
/// use serde_json::value::RawValue;
/// let raw = RawValue::from_string(r#"{"progressToken":1,"progress":2}"#.into()).unwrap();
/// let p: Params<ProgressNotificationParams> = Params::new(Some(raw));
/// assert_eq!(p.decode().unwrap().progress, 2.0);
/// assert_eq!(p.raw().map(|r| r.get()), Some(r#"{"progressToken":1,"progress":2}"#));
/// ```
pub struct Params<T> {
    raw: Option<Box<RawValue>>,
    of: PhantomData<fn() -> T>,
}

impl<T> Params<T> {
    /// Params as received (`None` when the message had none).
    pub fn new(raw: Option<Box<RawValue>>) -> Self {
        Params {
            raw,
            of: PhantomData,
        }
    }

    /// The params as received, if any.
    pub fn raw(&self) -> Option<&RawValue> {
        self.raw.as_deref()
    }

    /// The params as received, if any, by value.
    pub fn into_raw(self) -> Option<Box<RawValue>> {
        self.raw
    }
}

impl<T: DeserializeOwned> Params<T> {
    /// Parses the params as `T` (absent params read as `{}`).
    ///
    /// # Errors
    /// When the params do not have the shape of `T`.
    #[inline]
    pub fn decode(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.raw.as_deref().map_or("{}", RawValue::get))
    }
}

impl<T> Clone for Params<T> {
    fn clone(&self) -> Self {
        Params::new(self.raw.clone())
    }
}

impl<T> fmt::Debug for Params<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.raw {
            Some(raw) => f.write_str(raw.get()),
            None => f.write_str("(no params)"),
        }
    }
}
