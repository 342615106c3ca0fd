//! The HTTP transport's types as the rest of the crate names them: the real
//! ones with the `http` feature, [`Infallible`](std::convert::Infallible)
//! without it. Code that only carries them along (the HTTP failure behind
//! an [`Error`](crate::Error), the driver's last HTTP failure, a pending
//! call's cause) then compiles unchanged in both builds, and without
//! `http` the compiler knows no such value can exist.

/// The HTTP transport's error.
#[cfg(feature = "http")]
pub(crate) use mcp_transport_http::HttpError;

/// No HTTP transport, no HTTP error: a value of this type cannot exist.
#[cfg(not(feature = "http"))]
pub(crate) type HttpError = std::convert::Infallible;
