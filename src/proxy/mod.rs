//! `agui-lint proxy --to URL`: a reverse proxy in front of an AG-UI
//! server that checks the traffic as it passes.
//!
//! The client's connection is served by hyper ([`crate::serve`]); each
//! request is forwarded by a blocking `ureq` client on tokio's blocking
//! pool ([`upstream`]), which hands the response's head back at once and
//! its body on piece by piece as it is read, unchanged, before the piece
//! is checked ([`watch`]). ureq is the probe's client already: rustls, no
//! proxy, no redirects followed, no header of its own added.

mod session;
mod upstream;
mod watch;

use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agui_lint::Validator;
use hyper::body::Incoming;
use hyper::{Request, Response};

use crate::cli::{ProxyArgs, ProxyFormat};
use crate::serve::{self, Body};
use session::Session;
use upstream::Forward;

/// What every connection shares.
pub(crate) struct Proxy {
    /// The server's base URL, without a trailing `/`.
    target: String,
    agent: ureq::Agent,
    validator: Validator,
    format: ProxyFormat,
    quiet: bool,
    keep: usize,
    runs: AtomicUsize,
    session: Option<Mutex<Session>>,
    /// Printing is one line at a time across runs.
    out: Mutex<()>,
}

/// Runs the command: proxies until the process ends.
pub(crate) fn command(args: ProxyArgs) -> Result<ExitCode, String> {
    let parsed = url::Url::parse(&args.to).map_err(|e| format!("--to {}: {e}", args.to))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!("--to {}: an http or https URL", args.to));
    }
    let session = match &args.save {
        Some(dir) => Some(Mutex::new(Session::create(
            dir,
            args.save_secrets,
            args.quiet,
        )?)),
        None => None,
    };
    let config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .proxy(None)
        .user_agent(ureq::config::AutoHeaderValue::None)
        .accept(ureq::config::AutoHeaderValue::None)
        .accept_encoding(ureq::config::AutoHeaderValue::None)
        .allow_non_standard_methods(true)
        .timeout_connect(Some(Duration::from_secs(args.connect_timeout)))
        .build();
    let proxy = Arc::new(Proxy {
        target: args.to.trim_end_matches('/').to_owned(),
        agent: config.into(),
        validator: Validator::new().map_err(|e| e.to_string())?,
        format: args.format,
        quiet: args.quiet,
        keep: args.max_response_size,
        runs: AtomicUsize::new(0),
        session,
        out: Mutex::new(()),
    });
    if !args.quiet {
        crate::console::say(format_args!(
            "agui-lint proxy: forwarding to {}",
            agui_lint::unstable::secrets::mask_url(&proxy.target)
        ));
    }
    serve::serve("proxy", args.listen, move |request| {
        let proxy = Arc::clone(&proxy);
        async move { handle(proxy, request).await }
    })?;
    Ok(ExitCode::SUCCESS)
}

/// One request: forwarded, its response streamed back as it comes.
async fn handle(proxy: Arc<Proxy>, request: Request<Incoming>) -> Response<Body> {
    let run = proxy.runs.fetch_add(1, Ordering::Relaxed) + 1;
    let (parts, body) = request.into_parts();
    let body = match serve::read_body(body).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    let path = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    let forward = Forward {
        run,
        method: parts.method.as_str().to_owned(),
        url: format!("{}{path}", proxy.target),
        // What the console shows of the request: its secret query values
        // masked, as the saved archive's URL is.
        label: format!(
            "{} {}",
            parts.method,
            agui_lint::unstable::secrets::mask_url(&path)
        ),
        headers: parts
            .headers
            .iter()
            .filter(|(name, _)| upstream::forwarded(name.as_str()))
            .map(|(name, value)| (name.as_str().to_owned(), value.as_bytes().to_vec()))
            .collect(),
        body: body.to_vec(),
    };
    let (head_sender, head) = tokio::sync::oneshot::channel();
    let (pieces, stream) = Body::channel();
    let worker = Arc::clone(&proxy);
    tokio::task::spawn_blocking(move || upstream::exchange(&worker, forward, head_sender, pieces));
    match head.await {
        Ok(Ok((status, headers))) => {
            let mut response = Response::new(stream);
            *response.status_mut() =
                hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::BAD_GATEWAY);
            for (name, value) in headers {
                if let (Ok(name), Ok(value)) = (
                    hyper::header::HeaderName::from_bytes(name.as_bytes()),
                    hyper::header::HeaderValue::from_bytes(&value),
                ) {
                    response.headers_mut().append(name, value);
                }
            }
            response
        }
        Ok(Err(why)) => serve::text(
            502,
            &format!("agui-lint proxy: the server cannot be reached: {why}"),
        ),
        Err(_) => serve::text(502, "agui-lint proxy: the exchange failed"),
    }
}
