//! `agui-lint probe URL`: talks to a live AG-UI endpoint as the official
//! client does and records the session as an HTTP Archive, which the caller
//! then checks as `check` checks any archive (the request, the exchange's
//! transport, the events paired with their request). What the probe
//! measured that a HAR has no field for (how the body arrived) goes into
//! each entry's `_aguiLint` member, so a saved session checks the same
//! later.

mod http;
mod replay;
pub mod scenario;
pub mod suite;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agui_lint::unstable::input::har::DeliveryEnd;
use agui_lint::unstable::input::sse::SseFramer;

pub use http::Timeouts;
pub use scenario::Scenario;

/// What to send, where, and how.
pub struct Plan {
    /// The endpoint.
    pub url: String,
    /// Headers to send, `Name: value` each.
    pub headers: Vec<String>,
    /// The environment variable holding a bearer token.
    pub token_env: Option<String>,
    /// Names of `headers` whose values are secrets too (`--secret-header`),
    /// beside those whose names say so.
    pub secret_headers: Vec<String>,
    /// RunAgentInput files to send instead of the scenarios.
    pub requests: Vec<PathBuf>,
    /// Captures whose requests to send instead of the scenarios.
    pub replays: Vec<PathBuf>,
    /// The built-in scenarios to run (every one when empty).
    pub scenarios: Vec<Scenario>,
    /// The version the built-in requests declare, `None` for none.
    pub version: Option<&'static str>,
    /// The timeouts of each exchange.
    pub timeouts: Timeouts,
    /// Where to write the session, if anywhere.
    pub save: Option<PathBuf>,
    /// Whether to keep quiet about each exchange on standard error.
    pub quiet: bool,
    /// The most of each response's body recorded and checked; the rest is
    /// read and counted (`response-not-captured`).
    pub max_response_bytes: usize,
}

/// A recorded session: its archive and the name it is reported under.
pub struct Session {
    /// `DIR/session.har` when saved, else the URL.
    pub name: PathBuf,
    /// The archive's text.
    pub har: Arc<[u8]>,
}

/// One request to send: its body, and what it is for the summary.
struct Planned {
    label: String,
    body: Vec<u8>,
    /// The scenario whose follow-up this request may have.
    follows: Option<serde_json::Value>,
}

/// Runs the plan's exchanges and records them.
pub fn record(plan: &Plan) -> Result<Session, String> {
    let url =
        url::Url::parse(&plan.url).map_err(|e| format!("'{}' is not a URL: {e}", plan.url))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("'{}' is not an http:// or https:// URL", plan.url));
    }
    let (headers, secrets) = headers(plan)?;
    let planned = planned(plan)?;
    let client = http::Client::new(plan.timeouts, plan.max_response_bytes);
    let mut exchanges = Vec::new();
    for request in planned {
        let (sent, received) = client
            .post(&plan.url, &headers, request.body)
            .map_err(|e| format!("cannot reach {}: {}", plan.url, e.why))?;
        if !plan.quiet {
            summarize(&request.label, &received);
        }
        let next = request
            .follows
            .as_ref()
            .filter(|_| received.delivery.end == DeliveryEnd::Complete)
            .and_then(|first| scenario::follow_up(first, &received.body));
        exchanges.push((sent, received));
        if let Some(next) = next {
            let body = serde_json::to_vec(&next).map_err(|e| e.to_string())?;
            let (sent, received) = client
                .post(&plan.url, &headers, body)
                .map_err(|e| format!("cannot reach {}: {}", plan.url, e.why))?;
            if !plan.quiet {
                summarize(
                    "client-side tool, follow-up with the tool's result",
                    &received,
                );
            }
            exchanges.push((sent, received));
        }
    }
    let har: Arc<[u8]> =
        agui_lint::unstable::input::har_write::archive(&exchanges, &secrets).into();
    let name = match &plan.save {
        Some(dir) => save(dir, &exchanges, &har)?,
        None => PathBuf::from(&plan.url),
    };
    Ok(Session { name, har })
}

/// Header names and values, in the order sent.
pub(crate) type Headers = Vec<(String, String)>;

/// The headers to send (`-H` and the token's), and the secrets never to
/// write or show.
pub(crate) fn headers(plan: &Plan) -> Result<(Headers, Vec<String>), String> {
    let mut headers = Vec::new();
    for text in &plan.headers {
        let (name, value) = text
            .split_once(':')
            .filter(|(name, _)| !name.trim().is_empty())
            .ok_or_else(|| format!("-H '{text}' is not 'Name: value'"))?;
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    // A header named secret by the user: its value is masked wherever it
    // is saved or printed.
    let mut secrets: Vec<String> = headers
        .iter()
        .filter(|(name, _)| {
            plan.secret_headers
                .iter()
                .any(|n| n.eq_ignore_ascii_case(name))
        })
        .map(|(_, value)| value.clone())
        .filter(|value| !value.is_empty())
        .collect();
    if let Some(variable) = &plan.token_env {
        let token = std::env::var(variable)
            .ok()
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                format!("the environment variable {variable} (--token-env) is not set")
            })?;
        headers.push(("Authorization".to_string(), format!("Bearer {token}")));
        secrets.push(token);
    }
    Ok((headers, secrets))
}

/// The requests to send, in order.
fn planned(plan: &Plan) -> Result<Vec<Planned>, String> {
    let mut planned = Vec::new();
    for path in &plan.requests {
        planned.push(Planned {
            label: path.display().to_string(),
            body: replay::request_file(path)?,
            follows: None,
        });
    }
    for path in &plan.replays {
        for (n, body) in replay::capture(path)?.into_iter().enumerate() {
            planned.push(Planned {
                label: format!("{} request {}", path.display(), n + 1),
                body,
                follows: None,
            });
        }
    }
    if !planned.is_empty() {
        return Ok(planned);
    }
    let scenarios = if plan.scenarios.is_empty() {
        vec![Scenario::Text, Scenario::Tool]
    } else {
        plan.scenarios.clone()
    };
    for scenario in scenarios {
        let request = scenario::request(scenario, plan.version);
        planned.push(Planned {
            label: scenario.name().to_string(),
            body: serde_json::to_vec(&request).map_err(|e| e.to_string())?,
            follows: (scenario == Scenario::Tool).then_some(request),
        });
    }
    Ok(planned)
}

/// One line on standard error saying how an exchange went.
pub(crate) fn summarize(label: &str, received: &http::Received) {
    let delivery = &received.delivery;
    let line = match received.status {
        None => format!("probe: {label}: no response"),
        Some(status) => {
            let media_type = received
                .headers
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case("content-type"))
                .map_or("no Content-Type", |(_, value)| value.as_str());
            let events = SseFramer::read(received.body.as_slice()).count();
            let mut line = format!(
                "probe: {label}: HTTP {status} {media_type}, {events} events, {} bytes in {} ms",
                received.body.len() as u64 + delivery.dropped_bytes.unwrap_or(0),
                received.total_ms
            );
            if let Some(dropped) = delivery.dropped_bytes {
                line.push_str(&format!(
                    " ({dropped} bytes past the first {} not recorded)",
                    received.body.len()
                ));
            }
            if let Some(first) = delivery.first_event_ms {
                line.push_str(&format!(", first event after {first} ms"));
            }
            line.push_str(&format!(", longest gap {} ms", delivery.longest_gap_ms));
            line
        }
    };
    let end = match delivery.end {
        DeliveryEnd::Complete => "",
        DeliveryEnd::FirstByteTimeout => " (first-byte timeout)",
        DeliveryEnd::IdleTimeout => " (cut at the idle timeout)",
        DeliveryEnd::TotalTimeout => " (cut at the total timeout)",
        DeliveryEnd::ConnectionLost => " (connection lost)",
    };
    let _ = writeln!(std::io::stderr(), "{line}{end}");
}

/// Writes the session into `dir`: `session.har`, and each exchange's
/// request and raw response beside it; returns the archive's path.
fn save(
    dir: &Path,
    exchanges: &[(http::Sent, http::Received)],
    har: &[u8],
) -> Result<PathBuf, String> {
    let failed = |path: &Path, e: std::io::Error| format!("cannot write {}: {e}", path.display());
    std::fs::create_dir_all(dir).map_err(|e| failed(dir, e))?;
    for (n, (sent, received)) in exchanges.iter().enumerate() {
        let request = dir.join(format!("exchange-{}.request.json", n + 1));
        std::fs::write(&request, &sent.body).map_err(|e| failed(&request, e))?;
        let response = dir.join(format!("exchange-{}.response.raw", n + 1));
        std::fs::write(&response, &received.body).map_err(|e| failed(&response, e))?;
    }
    let path = dir.join("session.har");
    std::fs::write(&path, har).map_err(|e| failed(&path, e))?;
    Ok(path)
}
