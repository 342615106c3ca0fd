//! Conversions into [`Error`] from each lower layer: the core's usage and
//! request errors, the stdio and HTTP transports' errors, and an
//! [`ErrorKind`] (the setup errors of a transport configuration are in
//! `setup.rs`).

use mcp_core::{RequestError, UsageError};

use super::{Error, ErrorKind};

macro_rules! from_kind {
    ($($t:ty),*) => {$(
        impl From<$t> for Error {
            fn from(e: $t) -> Self {
                Error::new(ErrorKind::from(e))
            }
        }
    )*};
}

from_kind!(UsageError, RequestError, mcp_transport_stdio::SpawnError);
#[cfg(feature = "http")]
from_kind!(mcp_transport_http::HttpError);

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error::new(kind)
    }
}
