//! What the client answers: the server's requests and 2026-07-28 input
//! requests go to the application's [handlers](crate::handlers), whose
//! output is checked before it is sent; progress the client reports;
//! callback tasks the client serves (2025-11-25).

pub(crate) mod form_defaults;
pub mod handlers;
pub(crate) mod output_check;
pub(crate) mod progress;
pub(crate) mod tasks;
