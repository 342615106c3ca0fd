//! Notifications shared by both revisions: progress and cancellation.
//! (List-changed notifications carry only
//! [`NotificationParams`](crate::common::NotificationParams); logging,
//! resource updates, subscriptions and tasks have their own modules.)

use serde::{Deserialize, Serialize};

use crate::jsonrpc::RequestId;
use crate::meta::{Meta, ProgressToken};

/// Params of `notifications/progress`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ProgressNotificationParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// The token from the request's `_meta.progressToken`.
    pub progress_token: ProgressToken,
    /// Progress so far; increases with every notification.
    pub progress: f64,
    /// Total, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// A human-readable message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl ProgressNotificationParams {
    /// Progress for `token`.
    pub fn new(token: ProgressToken, progress: f64) -> Self {
        ProgressNotificationParams {
            meta: Meta::new(),
            progress_token: token,
            progress,
            total: None,
            message: None,
        }
    }

    /// Sets the total.
    #[must_use]
    pub fn with_total(mut self, total: f64) -> Self {
        self.total = Some(total);
        self
    }

    /// Sets the message.
    #[must_use]
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }
}

/// Params of `notifications/cancelled`.
///
/// `requestId` is required in 2026-07-28; 2025-11-25 leaves it optional
/// (it is absent only for task cancellation, which uses `tasks/cancel`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CancelledNotificationParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
    pub meta: Meta,
    /// The request to cancel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// Why, for logs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl CancelledNotificationParams {
    /// Cancel `request_id`.
    pub fn new(request_id: RequestId) -> Self {
        CancelledNotificationParams {
            meta: Meta::new(),
            request_id: Some(request_id),
            reason: None,
        }
    }

    /// Sets the reason.
    #[must_use]
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }
}
