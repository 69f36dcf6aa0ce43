//! `agui-lint probe URL --suite`: the conformance kit over HTTP. The kit
//! plans each request from the responses so far; this sends them, one at a
//! time, with the probe's client, and saves each scenario's exchanges as
//! an HTTP Archive that `check` reads.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use agui_lint::unstable::kit::{self, Expected, Level, Outcome, Suite, UserScenario};
use agui_lint::Validator;

use super::{headers, http, summarize, Plan};
use crate::cli::{self, ProbeArgs};
use crate::settings_args;

/// `probe --suite`: the kit of `args` against the plan's endpoint,
/// reported per scenario and check; the exit code, as `check`'s.
pub fn command(plan: &Plan, args: &ProbeArgs) -> Result<ExitCode, String> {
    if !plan.requests.is_empty() || !plan.replays.is_empty() {
        return Err("--suite runs the kit's scenarios; --request and --replay send requests of their own (use one or the other)".into());
    }
    let format = match args.report.format {
        cli::Format::Human => kit::Format::Human,
        cli::Format::Json => kit::Format::Json,
        cli::Format::Junit => kit::Format::Junit,
        other => {
            return Err(format!(
                "--suite reports in human, json or junit, not {}",
                clap::ValueEnum::to_possible_value(&other)
                    .map_or_else(String::new, |v| v.get_name().to_owned())
            ))
        }
    };
    let expected = match &args.expected_failures {
        Some(path) => Expected::read(path).map_err(|e| e.to_string())?,
        None => Expected::default(),
    };
    let user = args
        .scenario_file
        .iter()
        .map(|path| UserScenario::read(path).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(path) = &args.expected_failures {
        expected
            .refuse_unknown_scenarios(&user)
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let options = kit::Options {
        // The built-ins run besides a scenario file; --scenario narrows them.
        scenarios: (!args.scenario.is_empty()).then(|| args.scenario.iter().map(|s| s.0).collect()),
        user,
        version: plan.version.map(str::to_owned),
        level: args.level.map(|level| match level {
            cli::LevelArg::Must => Level::Must,
            cli::LevelArg::Should => Level::Should,
        }),
    };
    let settings = settings_args::settings(&args.report).map_err(|e| e.to_string())?;
    let validator = Validator::new()
        .map_err(|e| e.to_string())?
        .with_settings(settings);
    let mut suite = kit::Suite::new(&validator, options);
    let again = run(plan, &mut suite)?;
    let outcome = Outcome::new(&suite.results(), &expected)
        .strict(args.report.strict)
        .again(again);
    let text = outcome.render(format);
    let mut out = match &args.report.output {
        Some(path) => Box::new(
            std::fs::File::create(path)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        ) as Box<dyn Write>,
        None => Box::new(std::io::stdout().lock()),
    };
    out.write_all(text.as_bytes())
        .map_err(|e| format!("cannot write the report: {e}"))?;
    Ok(ExitCode::from(u8::from(
        outcome.fails() && !args.report.exit_zero,
    )))
}

/// Runs `suite`'s scenarios against the plan's endpoint. A request that
/// gets no response is recorded as such (its check fails with what
/// happened) and the suite goes on; when the server stays gone, the kit
/// ends it and the rest is not exercised. The sessions are saved whatever
/// happened; with them, the command that sends each request again, by
/// scenario and request.
pub fn run(plan: &Plan, suite: &mut Suite) -> Result<kit::Again, String> {
    let (headers, secrets) = headers(plan)?;
    let client = http::Client::new(plan.timeouts, plan.max_response_bytes);
    let mut answered = false;
    while let Some(request) = suite.next_request() {
        let scenario = suite.current_scenario().unwrap_or("").to_owned();
        std::thread::sleep(std::time::Duration::from_millis(request.wait_before_ms));
        let to_send = kit::sent(&plan.url, &request, &headers);
        // The kit's headers are whole: the client's defaults give way.
        let (sent, received) = match client.post_until(
            &plan.url,
            &to_send.headers,
            request.body.clone(),
            request.cancel_after_events,
        ) {
            Ok(exchange) => exchange,
            // Nothing listens at the URL and nothing ever answered: the
            // kit's usage, not a finding about a server.
            Err(unreachable) if unreachable.never_connected && !answered => {
                return Err(format!("cannot reach {}: {}", plan.url, unreachable.why));
            }
            Err(unreachable) => (to_send, kit::unanswered(unreachable.why)),
        };
        answered |= received.status.is_some();
        if !plan.quiet {
            summarize(&format!("{scenario}: {}", request.label), &received);
        }
        suite.record(request, sent, received);
        if let Some(why) = suite.abandoned() {
            let _ = writeln!(std::io::stderr(), "probe: {why}; the rest is not exercised");
        }
    }
    match &plan.save {
        Some(dir) => save(dir, &plan.url, suite, &secrets),
        None => Ok(kit::Again::default()),
    }
}

/// Writes each scenario's exchanges to `DIR/SCENARIO.har`, and each
/// request's body to `DIR/SCENARIO-N.json`; the command that sends each
/// again (its own Content-Type and the kit's Accept; headers given with
/// `-H` are left for the user to add, as they may be secrets).
fn save(dir: &Path, url: &str, suite: &Suite, secrets: &[String]) -> Result<kit::Again, String> {
    let mut again = kit::Again::default();
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
        for (n, exchange) in scenario.exchanges().iter().enumerate() {
            let path = dir.join(format!("{name}-{}.json", n + 1));
            std::fs::write(&path, &exchange.sent.body).map_err(|e| failed(&path, e))?;
            let content_type = exchange
                .sent
                .headers
                .iter()
                .find(|(h, _)| h.eq_ignore_ascii_case("content-type"))
                .map_or("application/json", |(_, v)| v.as_str());
            again.insert(
                scenario.name(),
                n,
                format!(
                    "curl -sN {} -H {} -H 'Accept: text/event-stream' --data-binary @{}",
                    // Credentials in the URL are left for the user to
                    // add, as the headers given with -H are.
                    shell_quote(&agui_lint::unstable::secrets::mask_url(url)),
                    shell_quote(&format!("Content-Type: {content_type}")),
                    shell_quote(&path.display().to_string())
                ),
            );
        }
    }
    let _ = writeln!(
        std::io::stderr(),
        "probe: saved each scenario's session in {}",
        dir.display()
    );
    Ok(again)
}

/// `text` as one word of a POSIX shell.
fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:@=+,%".contains(&b))
    {
        return text.to_owned();
    }
    format!("'{}'", text.replace('\'', "'\\''"))
}
