//! Marker types tying each method of each revision to its params and result
//! types (see [`RequestMethod`](crate::RequestMethod) and
//! [`NotificationMethod`](crate::NotificationMethod)).
//!
//! * [`v2025_11_25`]: the legacy revision, including server-to-client
//!   requests and the core tasks.
//! * [`v2026_07_28`]: the modern revision, including the embedded input
//!   requests of multi-round-trip results.
//! * [`ext_tasks`]: the tasks extension on 2026-07-28.
//! * [`ext_skills`]: the skills extension (SEP-2640), both revisions.
//! * [`facts`]: what is known about each method (capability gates,
//!   pagination, `Mcp-Name`, schema definitions, idempotence, eras), one
//!   row per method name; every marker points at its row
//!   ([`facts::KnownMethod`]).
//!
//! The markers of methods that are the same in both revisions are declared
//! once and also named at this module's root, so code that works in either
//! era names `mcp_types::methods::CallTool` or `methods::ListTools`.
//!
//! Shapes that are the same in both revisions share one type; where they
//! differ the markers point at different types (for example
//! `v2025_11_25::CallTool` takes [`TaskAugmented`](crate::tasks::legacy::TaskAugmented)
//! params, and `v2025_11_25::Elicit` the legacy URL-mode params).
//!
//! ```
//! use mcp_types::methods::{v2025_11_25, v2026_07_28};
//! use mcp_types::RequestMethod;
//! assert_eq!(v2026_07_28::CallTool::METHOD, "tools/call");
//! assert_eq!(<v2025_11_25::Initialize as RequestMethod>::METHOD, "initialize");
//! ```

/// Declares a request marker: its row of [`facts::METHODS`] (the name
/// comes from the row), params and result types.
macro_rules! request {
    ($(#[$m:meta])* $name:ident = $row:ident, $params:ty => $result:ty) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $crate::method::RequestMethod for $name {
            const METHOD: &'static str = $crate::methods::table::$row.name;
            type Params = $params;
            type Result = $result;
        }

        impl $crate::methods::facts::KnownMethod for $name {
            const FACTS: &'static $crate::methods::facts::MethodFacts =
                &$crate::methods::table::$row;
        }
    };
}

/// Declares a notification marker: its row and params type.
macro_rules! notification {
    ($(#[$m:meta])* $name:ident = $row:ident, $params:ty) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $crate::method::NotificationMethod for $name {
            const METHOD: &'static str = $crate::methods::table::$row.name;
            type Params = $params;
        }

        impl $crate::methods::facts::KnownMethod for $name {
            const FACTS: &'static $crate::methods::facts::MethodFacts =
                &$crate::methods::table::$row;
        }
    };
}

mod both_eras;
pub mod ext_skills;
pub mod ext_tasks;
pub mod facts;
pub(crate) mod table;
pub mod v2025_11_25;
pub mod v2026_07_28;

pub use both_eras::*;
