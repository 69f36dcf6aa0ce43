//! A runnable AG-UI endpoint guarded by agui-lint:
//!
//! ```sh
//! cargo run --example server --features axum            # http://127.0.0.1:3000/agent
//! cargo run --example server --features axum -- 8080    # or PORT=8080
//! ```
//!
//! `POST /agent` with a valid `RunAgentInput` is answered with a short
//! Server-Sent Events stream of AG-UI events (`RUN_STARTED`, a text message,
//! `RUN_FINISHED`); any other body is refused before the agent runs (422
//! with agui-lint's findings as JSON, 415 for a body that is not JSON, 413
//! for one over the limit). Warnings do not block a request: they are
//! printed on standard error through a `tracing` subscriber ([`logger`]).
//! The agent's answer is checked too, as it streams
//! (`ResponseMode::Report`): its findings, and a summary at the stream's
//! end, are logged under `agui_lint::response`, and its bytes pass as the
//! agent wrote them.
//! `tests/server.rs` serves [`router`] itself.

use std::convert::Infallible;

use agui_lint::server::{Guard, ResponseMode, ValidatedRunAgentInput};
use agui_lint::types::RunAgentInput;
use agui_lint::{BuildError, Validator};
use axum::response::sse::{Event, Sse};
use axum::routing::post;
use axum::Router;
use futures_util::stream::{self, Stream};
use serde_json::{json, Value};
use tracing_subscriber::fmt::MakeWriter;

/// The guard of the endpoint: one validator for every request, the default
/// 2 MiB body limit, warnings logged through `tracing`, and the agent's
/// response streams checked and their findings logged. A server that logs
/// its findings would add `.with_settings(Settings::default().mask_values(true))`
/// to keep request values out of its logs.
pub fn guard() -> Result<Guard, BuildError> {
    Ok(Guard::new(Validator::new()?).with_responses(ResponseMode::Report))
}

/// The example's log: agui-lint's warnings (target `agui_lint`, with the
/// `rule`, `pointer`, `line` and `column` fields) and anything else at INFO
/// and above, one line each, written to `writer` (standard error in
/// `main`). Without a subscriber, `tracing` drops every event.
pub fn logger<W>(writer: W) -> impl tracing::Subscriber + Send + Sync
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    tracing_subscriber::fmt()
        .with_writer(writer)
        .with_max_level(tracing::Level::INFO)
        .with_ansi(false)
        .finish()
}

/// The endpoint: `POST /agent`, checked by `guard` both ways: the layer
/// checks the request (the extractor takes its result) and, when `guard`
/// says so, the response stream.
pub fn router(guard: Guard) -> Router {
    Router::new()
        .route("/agent", post(agent))
        .route_layer(guard.layer())
        .with_state(guard)
}

/// The agent: runs only on input that passed the check.
async fn agent(
    ValidatedRunAgentInput(input): ValidatedRunAgentInput,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let events = reply(&input).into_iter().map(|event| {
        let kind = event["type"].as_str().unwrap_or_default().to_string();
        Ok(Event::default().event(kind).data(event.to_string()))
    });
    Sse::new(stream::iter(events))
}

/// The events answering `input`: one run with the input's ids and version,
/// saying one short message.
pub fn reply(input: &RunAgentInput) -> Vec<Value> {
    let (thread_id, run_id) = (&input.thread_id, &input.run_id);
    let message_id = format!("{run_id}-reply");
    let text = format!(
        "agui-lint checked your input: {} messages, {} tools",
        input.messages.len(),
        input.tools.as_ref().map_or(0, Vec::len)
    );
    let mut started = json!({"type": "RUN_STARTED", "threadId": thread_id, "runId": run_id});
    // A 1.x agent declares the version it speaks, its own, never an echo
    // of the request's (spec/1.1/basic/versioning.mdx, "Version
    // negotiation"): 1.1, or 1.0 to a consumer that declared 1.0 (a
    // downgrade it may select: this reply is 1.0 as well). A consumer that
    // declared nothing predates versions and is sent no declaration.
    if let Some(version) = &input.protocol_version {
        let own = if version == "1.0" { "1.0" } else { "1.1" };
        started["protocolVersion"] = json!(own);
    }
    vec![
        started,
        json!({"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": text}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": message_id}),
        json!({"type": "RUN_FINISHED", "threadId": thread_id, "runId": run_id}),
    ]
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing::subscriber::set_global_default(logger(std::io::stderr))?;
    let port: u16 = match std::env::args()
        .nth(1)
        .or_else(|| std::env::var("PORT").ok())
    {
        Some(port) => port.parse().map_err(|_| format!("not a port: {port}"))?,
        None => 3000,
    };
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!(
        "AG-UI endpoint on http://{}/agent (POST a RunAgentInput)",
        listener.local_addr()?
    );
    serve(listener, router(guard()?)).await
}

/// How long a client may take to send a request's headers. The guard
/// bounds the body (`Guard::with_body_timeout`); the server must bound the
/// headers, or a client sending one byte a second holds a connection, and
/// its memory, for as long as it likes.
pub const HEADER_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Serves `app` on `listener` over HTTP/1.1, each connection with a header
/// read timeout (`axum::serve` has none to set).
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
) -> Result<(), Box<dyn std::error::Error>> {
    loop {
        let (stream, _) = listener.accept().await?;
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT);
            // A client that goes away or times out ends its connection
            // only.
            let _ = builder
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}
