//! The axum extractor.

use axum::extract::{FromRef, FromRequest, Request};
use axum::RequestExt;

use super::{Guard, Rejection, Validated};
use crate::types::RunAgentInput;

/// The request's body as a `RunAgentInput` that passed agui-lint's check;
/// a request that does not pass never reaches the handler (see
/// [`Rejection`] for the answers).
///
/// The [`Guard`] comes from the router's state (a `Guard`, or a state that
/// implements [`FromRef`] for one); a router without state uses
/// [`Guard::shared`]. Under [`Guard::layer`], the layer has already checked
/// the request and the extractor takes its result.
///
/// ```no_run
/// use agui_lint::server::ValidatedRunAgentInput;
/// use axum::{routing::post, Router};
///
/// async fn agent(ValidatedRunAgentInput(input): ValidatedRunAgentInput) -> String {
///     format!("{} messages", input.messages.len())
/// }
///
/// let app: Router = Router::new().route("/agent", post(agent));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ValidatedRunAgentInput(pub RunAgentInput);

impl<S> FromRequest<S> for ValidatedRunAgentInput
where
    Guard: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = Rejection;

    async fn from_request(mut request: Request, state: &S) -> Result<Self, Self::Rejection> {
        if let Some(validated) = request.extensions_mut().remove::<Validated>() {
            return Ok(ValidatedRunAgentInput(validated.input));
        }
        let guard = Guard::from_ref(state);
        guard.check_headers(request.headers())?;
        let path = request.uri().path().to_string();
        // Within axum's `DefaultBodyLimit` too, when the route sets one.
        let body = guard.read_body(request.into_limited_body()).await?;
        let validated = guard.check(&path, body).await?;
        // An extractor cannot reach the response, so the findings are
        // logged whatever `Warnings` says; the layer can send them back.
        guard.report_findings(&validated.findings, false);
        Ok(ValidatedRunAgentInput(validated.input))
    }
}

/// A router without state checks with the process-wide [`Guard::shared`].
impl FromRef<()> for Guard {
    fn from_ref(_: &()) -> Guard {
        Guard::shared()
    }
}
