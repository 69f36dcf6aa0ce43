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
    /// `415 Unsupported Media Type`: the body has a `Content-Encoding`
    /// the guard does not check through.
    UnsupportedEncoding {
        /// The encoding sent.
        encoding: String,
    },
    /// `408 Request Timeout`: the body did not arrive in time.
    BodyTimeout {
        /// How long the guard waited.
        timeout: std::time::Duration,
    },
    /// `503 Service Unavailable`: the check did not finish (or start) in
    /// time; the rule `check-timed-out`.
    TimedOut {
        /// The check's budget.
        timeout: std::time::Duration,
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
            Rejection::UnsupportedMediaType { .. } | Rejection::UnsupportedEncoding { .. } => {
                StatusCode::UNSUPPORTED_MEDIA_TYPE
            }
            Rejection::BodyTimeout { .. } => StatusCode::REQUEST_TIMEOUT,
            Rejection::TimedOut { .. } => StatusCode::SERVICE_UNAVAILABLE,
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
            Rejection::TimedOut { .. } => {
                let error = serde_json::json!({
                    "tool": "agui-lint",
                    "version": env!("CARGO_PKG_VERSION"),
                    "error": self.to_string(),
                    "rule": crate::rules::CHECK_TIMED_OUT.name,
                });
                format!("{error}\n")
            }
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
                write!(f, "the body is over the limit of {}", crate::text::size(*limit as u64))
            }
            Rejection::UnsupportedEncoding { encoding } => write!(
                f,
                "the body is sent with Content-Encoding '{encoding}'; agui-lint checks bodies as sent, so decompress them before the guard"
            ),
            Rejection::BodyTimeout { timeout } => write!(
                f,
                "the body did not arrive within {} s",
                timeout.as_secs_f64()
            ),
            Rejection::TimedOut { timeout } => write!(
                f,
                "the request could not be checked within {} s; try again",
                timeout.as_secs_f64()
            ),
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
