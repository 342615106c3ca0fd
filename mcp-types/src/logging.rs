//! Logging: levels, `notifications/message`, and the 2025-11-25
//! `logging/setLevel` request (2026-07-28 uses the
//! `io.modelcontextprotocol/logLevel` request `_meta` key instead).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::macros::open_enum;
use crate::meta::Meta;

open_enum! {
    /// Syslog severity levels (RFC 5424).
    pub enum LoggingLevel {
        /// Detailed debugging.
        Debug = "debug",
        /// Informational.
        Info = "info",
        /// Normal but significant.
        Notice = "notice",
        /// Warning.
        Warning = "warning",
        /// Error.
        Error = "error",
        /// Critical.
        Critical = "critical",
        /// Action must be taken immediately.
        Alert = "alert",
        /// System is unusable.
        Emergency = "emergency",
    }
}

impl LoggingLevel {
    /// Severity rank, 0 (debug) to 7 (emergency); `None` for unknown levels.
    pub fn severity(&self) -> Option<u8> {
        Some(match self {
            LoggingLevel::Debug => 0,
            LoggingLevel::Info => 1,
            LoggingLevel::Notice => 2,
            LoggingLevel::Warning => 3,
            LoggingLevel::Error => 4,
            LoggingLevel::Critical => 5,
            LoggingLevel::Alert => 6,
            LoggingLevel::Emergency => 7,
            LoggingLevel::Unknown(_) => return None,
        })
    }
}

/// Params of `logging/setLevel` (2025-11-25).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct SetLevelRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// The lowest level the client wants.
    pub level: LoggingLevel,
}

impl SetLevelRequestParams {
    /// Set the level to `level`.
    pub fn new(level: LoggingLevel) -> Self {
        SetLevelRequestParams {
            meta: Meta::new(),
            level,
        }
    }
}

/// Params of `notifications/message`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[non_exhaustive]
pub struct LoggingMessageNotificationParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// Severity.
    pub level: LoggingLevel,
    /// The logger name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// Any JSON value (untrusted).
    pub data: Value,
}

impl LoggingMessageNotificationParams {
    /// A log message.
    pub fn new(level: LoggingLevel, data: Value) -> Self {
        LoggingMessageNotificationParams {
            meta: Meta::new(),
            level,
            logger: None,
            data,
        }
    }
}
