//! [`HttpTransport::close`]: ends every request and stream, and a
//! 2025-11-25 session with `DELETE`.

use http::{Method, StatusCode};
use mcp_types::routing::HttpRouting;

use super::{Exchange, HttpTransport};
use crate::body::{ERROR_BODY_LIMIT, read_prefix};
use crate::error::HttpError;
use crate::headers::{self, render_list};
use crate::parts::HeaderList;

impl HttpTransport {
    /// Closes the transport: every in-flight request and stream ends with
    /// [`HttpError::Closed`], and an open 2025-11-25 session is ended with
    /// `DELETE` (`405` and `404` are fine). Later calls fail with
    /// [`HttpError::Closed`].
    ///
    /// # Errors
    /// When the `DELETE` fails for another reason.
    pub async fn close(&self) -> Result<(), HttpError> {
        self.inner.registry.close();
        let Some(id) = self.inner.session.clear() else {
            return Ok(());
        };
        let mut headers = HeaderList::with_capacity(2);
        if let Some(version) = self.inner.session.version() {
            render_list(&HttpRouting::new(version), &mut headers)?;
        }
        headers.insert(headers::SESSION_ID, id);
        let mut spec = Exchange::without_body(Method::DELETE, headers);
        match self.inner.execute(&mut spec, None).await {
            Ok(mut response) => {
                let _ = read_prefix(&mut response.body, ERROR_BODY_LIMIT).await;
                Ok(())
            }
            Err(err)
                if matches!(
                    err.status(),
                    Some(StatusCode::METHOD_NOT_ALLOWED | StatusCode::NOT_FOUND)
                ) =>
            {
                Ok(())
            }
            Err(err) => Err(err),
        }
    }
}
