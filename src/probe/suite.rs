//! `agui-lint probe URL --suite`: the conformance kit over HTTP. The kit
//! plans each request from the responses so far; this sends them, one at a
//! time, with the probe's client, and saves each scenario's exchanges as
//! an HTTP Archive that `check` reads.

use std::io::Write as _;
use std::path::Path;

use agui_lint::unstable::kit::{self, Suite};

use super::{headers, http, summarize, Plan};

/// Runs `options`' scenarios against the plan's endpoint.
pub fn run(plan: &Plan, suite: &mut Suite) -> Result<(), String> {
    let (headers, secrets) = headers(plan)?;
    let client = http::Client::new(plan.timeouts, plan.max_response_bytes);
    while let Some(request) = suite.next_request() {
        let scenario = suite.current_scenario().unwrap_or("").to_owned();
        std::thread::sleep(std::time::Duration::from_millis(request.wait_before_ms));
        let to_send = kit::sent(&plan.url, &request, &headers);
        // The kit's headers are whole: the client's defaults give way.
        let (sent, received) = client
            .post_until(
                &plan.url,
                &to_send.headers,
                request.body.clone(),
                request.cancel_after_events,
            )
            .map_err(|e| format!("cannot reach {}: {}", plan.url, e.0))?;
        if !plan.quiet {
            summarize(&format!("{scenario}: {}", request.label), &received);
        }
        suite.record(request, sent, received);
    }
    if let Some(dir) = &plan.save {
        save(dir, suite, &secrets)?;
    }
    Ok(())
}

/// Writes each scenario's exchanges to `DIR/SCENARIO.har`.
fn save(dir: &Path, suite: &Suite, secrets: &[String]) -> Result<(), String> {
    let failed = |path: &Path, e: std::io::Error| format!("cannot write {}: {e}", path.display());
    std::fs::create_dir_all(dir).map_err(|e| failed(dir, e))?;
    for scenario in suite.scenarios() {
        if scenario.exchanges().is_empty() {
            continue;
        }
        let exchanges: Vec<_> = scenario
            .exchanges()
            .iter()
            .map(|e| (e.sent.clone(), e.received.clone()))
            .collect();
        let har = agui_lint::unstable::input::har_write::archive(&exchanges, secrets);
        let name: String = scenario
            .name()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let path = dir.join(format!("{name}.har"));
        std::fs::write(&path, har).map_err(|e| failed(&path, e))?;
    }
    let _ = writeln!(
        std::io::stderr(),
        "probe: saved each scenario's session in {}",
        dir.display()
    );
    Ok(())
}
