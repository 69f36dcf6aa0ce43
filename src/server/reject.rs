//! Why a request was refused, and the answer that says so.

use std::fmt;

use axum::http::{header::CONTENT_TYPE, HeaderValue, Response, StatusCode};
use axum::response::IntoResponse;
use bytes::Bytes;

use crate::render;
use crate::Report;

/// Why a request did not reach the handler. Answered as JSON: a 422 with
/// the document `agui-lint check --format json` prints, anything else with
/// `{"tool": "agui-lint", "version": ..., "error": "..."}`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Rejection {
    /// `422 Unprocessable Entity`: the body is not a valid `RunAgentInput`
    /// (or not JSON at all).
    Invalid {
        /// The request's path, the `path` of the answer's document.
        path: String,
        /// The findings.
        report: Report,
    },
    /// `415 Unsupported Media Type`: the `Content-Type` is not JSON.
    UnsupportedMediaType {
        /// The content type sent, if any.
        found: Option<String>,
    },
    /// `413 Payload Too Large`: the body is over the limit.
    PayloadTooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// `400 Bad Request`: the body could not be read to its end.
    UnreadableBody(String),
    /// `500 Internal Server Error`: there is no validator to check with.
    Unavailable(String),
}

impl Rejection {
    /// The status the request is answered with.
    pub fn status(&self) -> StatusCode {
        match self {
            Rejection::Invalid { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            Rejection::UnsupportedMediaType { .. } => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Rejection::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Rejection::UnreadableBody(_) => StatusCode::BAD_REQUEST,
            Rejection::Unavailable(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The findings, for a body that is not a valid `RunAgentInput`.
    pub fn report(&self) -> Option<&Report> {
        match self {
            Rejection::Invalid { report, .. } => Some(report),
            _ => None,
        }
    }

    /// The JSON body of the answer.
    pub fn body(&self) -> String {
        match self {
            Rejection::Invalid { path, report } => render::document_json(path, None, report),
            other => {
                let error = serde_json::json!({
                    "tool": "agui-lint",
                    "version": env!("CARGO_PKG_VERSION"),
                    "error": other.to_string(),
                });
                format!("{error}\n")
            }
        }
    }

    /// The answer, with any body type that can be made from bytes (such as
    /// axum's `Body` or `http_body_util::Full<Bytes>`).
    pub fn to_response<B: From<Bytes>>(&self) -> Response<B> {
        let mut response = Response::new(B::from(Bytes::from(self.body())));
        *response.status_mut() = self.status();
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        response
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejection::Invalid { report, .. } => write!(
                f,
                "the body is not a valid RunAgentInput ({} error{})",
                report.count(crate::Severity::Error),
                if report.count(crate::Severity::Error) == 1 {
                    ""
                } else {
                    "s"
                }
            ),
            Rejection::UnsupportedMediaType { found: Some(found) } => write!(
                f,
                "the body must be JSON (Content-Type: application/json), not '{found}'"
            ),
            Rejection::UnsupportedMediaType { found: None } => {
                write!(f, "the body must be JSON (Content-Type: application/json)")
            }
            Rejection::PayloadTooLarge { limit } => {
                write!(f, "the body is over the limit of {limit} bytes")
            }
            Rejection::UnreadableBody(reason) => write!(f, "the body could not be read: {reason}"),
            Rejection::Unavailable(reason) => {
                write!(f, "agui-lint cannot check requests: {reason}")
            }
        }
    }
}

impl std::error::Error for Rejection {}

impl IntoResponse for Rejection {
    fn into_response(self) -> axum::response::Response {
        self.to_response()
    }
}
