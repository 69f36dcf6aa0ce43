//! The tower layer, for services that do not use axum's extractors.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::http::{HeaderName, Request, Response};
use bytes::Bytes;
use http_body::Body;
use tower::{Layer, Service};

use super::{CheckedBody, Guard, WARNINGS_HEADER, WARNING_COUNT_HEADER};

/// A [`Layer`] that checks each request with a [`Guard`] before the inner
/// service sees it; made by [`Guard::layer`].
///
/// A request that does not pass is answered by the layer (see
/// [`super::Rejection`]). One that passes reaches the inner service with
/// its body intact and a [`super::Validated`] in its extensions; under
/// [`super::Warnings::Header`] the layer adds the findings that did not
/// block it to the response.
///
/// With [`Guard::with_responses`], the response's body is checked as it
/// streams (a [`CheckedBody`], which passes its bytes on unchanged).
///
/// Works with any request body that can be rebuilt from bytes (axum's
/// `Body`, `http_body_util::Full<Bytes>`) and any response body that can be
/// made from bytes.
///
/// ```no_run
/// use agui_lint::server::Guard;
/// use axum::{routing::post, Router};
///
/// let app: Router = Router::new()
///     .route("/agent", post(|| async { "checked" }))
///     .route_layer(Guard::shared().layer());
/// ```
#[derive(Debug, Clone)]
pub struct GuardLayer {
    guard: Guard,
}

impl GuardLayer {
    /// The layer checking with `guard`.
    pub fn new(guard: Guard) -> Self {
        GuardLayer { guard }
    }
}

impl<S> Layer<S> for GuardLayer {
    type Service = GuardService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        GuardService {
            inner,
            guard: self.guard.clone(),
        }
    }
}

/// The service of a [`GuardLayer`]: checks, then calls `S`.
#[derive(Debug, Clone)]
pub struct GuardService<S> {
    inner: S,
    guard: Guard,
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl<S, B, ResBody> Service<Request<B>> for GuardService<S>
where
    S: Service<Request<B>, Response = Response<ResBody>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    B: Body + From<Bytes> + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
    ResBody: Body + From<Bytes>,
{
    type Response = Response<CheckedBody<ResBody>>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        // The service that was polled ready is the one to call; a clone
        // takes its place for the next request.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let guard = self.guard.clone();
        Box::pin(async move {
            let (mut parts, body) = request.into_parts();
            let path = parts.uri.path().to_string();
            let checked = async {
                guard.check_headers(&parts.headers)?;
                let bytes = guard.read_body(body).await?;
                let validated = guard.check(parts.uri.path(), bytes.clone()).await?;
                Ok::<_, super::Rejection>((bytes, validated))
            }
            .await;
            let (bytes, validated) = match checked {
                Ok(checked) => checked,
                Err(rejection) => return Ok(rejection.to_response()),
            };
            let headers = guard.report_findings(&validated.findings, true);
            parts.extensions.insert(validated);
            let response = inner
                .call(Request::from_parts(parts, B::from(bytes.clone())))
                .await?;
            let mut response = guard.check_response(response, &path, &bytes);
            if let Some((list, count)) = headers {
                let response_headers = response.headers_mut();
                response_headers.insert(HeaderName::from_static(WARNINGS_HEADER), list);
                response_headers.insert(HeaderName::from_static(WARNING_COUNT_HEADER), count);
            }
            Ok(response)
        })
    }
}
