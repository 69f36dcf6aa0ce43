//! The conformance kit for agent servers: scripted conversations of one
//! or more runs (the built-in scenarios, and users' own from files), each
//! judged by checks within and across its requests.
//!
//! The kit does no I/O. A driver asks it for the next request
//! ([`Suite::next_request`]), sends it however it can (the CLI over HTTP,
//! the Python binding to an ASGI app in process), and hands back what came
//! ([`Suite::record`]); the kit plans the next request from the responses
//! so far, and judges each scenario once it has ended ([`Suite::results`]).
//! So one kit runs over any transport, blocking or async.

mod around;
mod checks;
mod chunks;
mod conversation;
mod exchange;
mod expected;
mod judge;
mod report;
mod requests;
mod scenarios;
mod streamed;
mod user;

pub use checks::{
    by_id as check_by_id, Check, Judged, Level, ScenarioResult, Verdict, ALL as CHECKS,
};
pub use exchange::{received, sent, unanswered, Exchange, NotActed, Request};
pub use expected::{Expected, ExpectedError, Status};
pub use report::{Again, Format, Outcome};
pub use requests::{
    first_request, fresh_id, next as next_input, tool, with_tool_results, TIME_TOOL, WEATHER_TOOL,
};
pub use scenarios::BuiltIn;
pub use streamed::{Call, Ending, Streamed};
pub use user::{UserScenario, UserScenarioError};

use crate::input::har_write::{Received, Sent};
use crate::Validator;

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The built-in scenarios to run, by name; `None`, every one (users'
    /// scenarios are run besides them, not instead); `Some` of an empty
    /// list, none (users' scenarios alone).
    pub scenarios: Option<Vec<BuiltIn>>,
    /// Users' scenarios, run after the built-in ones.
    pub user: Vec<UserScenario>,
    /// What first requests declare as `protocolVersion` (`None`: nothing,
    /// as before 1.0).
    pub version: Option<String>,
    /// Only the checks of this level and stronger (`Level::Must`: only
    /// the MUSTs; any other: every check, advice included).
    pub level: Option<Level>,
}

/// A scenario in a suite.
#[derive(Debug, Clone)]
enum Script {
    BuiltIn(BuiltIn),
    User(UserScenario),
}

/// One scenario of a suite and its exchanges so far.
#[derive(Debug, Clone)]
pub struct ScenarioRun {
    script: Script,
    /// The thread the scenario's requests share.
    thread: String,
    exchanges: Vec<Exchange>,
}

impl ScenarioRun {
    /// The scenario's name.
    pub fn name(&self) -> &str {
        match &self.script {
            Script::BuiltIn(scenario) => scenario.name(),
            Script::User(scenario) => &scenario.name,
        }
    }

    /// The exchanges so far, in order.
    pub fn exchanges(&self) -> &[Exchange] {
        &self.exchanges
    }
}

/// The scenarios of one run of the kit, in order, and where it is.
#[derive(Clone)]
pub struct Suite {
    validator: Validator,
    scenarios: Vec<ScenarioRun>,
    version: Option<String>,
    level: Level,
    /// The scenario the next request belongs to.
    current: usize,
    /// Why the suite stopped before its end (the server stopped
    /// answering), when it did.
    abandoned: Option<String>,
    /// How many requests have been recorded, which of them was the last
    /// the server answered, and how many since got no response.
    recorded: usize,
    last_answered: usize,
    unanswered: usize,
}

/// How many requests in a row may get no response before the server is
/// taken to be gone: one is a request the server died on (a finding of
/// that request's check); a second, sent to a server that did not come
/// back, says the rest cannot be judged.
const UNANSWERED_IN_A_ROW: usize = 2;

impl Suite {
    /// A suite of `options`' scenarios, judged by `validator`.
    pub fn new(validator: &Validator, options: Options) -> Suite {
        let level = options.level.unwrap_or(Level::Should);
        let mut scripts: Vec<Script> = options
            .scenarios
            .unwrap_or_else(|| BuiltIn::ALL.to_vec())
            .into_iter()
            .map(Script::BuiltIn)
            .collect();
        scripts.extend(options.user.into_iter().map(Script::User));
        // A scenario none of whose checks is at the level asked is not run.
        scripts.retain(|script| match script {
            Script::BuiltIn(scenario) => scenario.checks().iter().any(|c| c.level.within(level)),
            Script::User(_) => true,
        });
        Suite {
            validator: validator.clone(),
            scenarios: scripts
                .into_iter()
                .map(|script| ScenarioRun {
                    script,
                    thread: fresh_id("thread"),
                    exchanges: Vec::new(),
                })
                .collect(),
            version: options.version,
            level,
            current: 0,
            abandoned: None,
            recorded: 0,
            last_answered: 0,
            unanswered: 0,
        }
    }

    /// The next request to send, or `None` when every scenario has ended.
    pub fn next_request(&mut self) -> Option<Request> {
        if self.abandoned.is_some() {
            return None;
        }
        while let Some(run) = self.scenarios.get(self.current) {
            // A scenario stops at its first timeout: what it would send
            // next waits on an answer that did not come, and a server that
            // does not answer would otherwise hold every later request for
            // the whole timeout.
            if run.exchanges.last().is_some_and(|e| timed_out(&e.received)) {
                self.current += 1;
                continue;
            }
            let planned = match &run.script {
                Script::BuiltIn(scenario) => {
                    scenario.plan(&run.thread, self.version.as_deref(), &run.exchanges)
                }
                Script::User(scenario) => scenario.plan(&run.thread, &run.exchanges),
            };
            if planned.is_some() {
                return planned;
            }
            self.current += 1;
        }
        None
    }

    /// The name of the scenario the last request returned by
    /// [`Self::next_request`] belongs to.
    pub fn current_scenario(&self) -> Option<&str> {
        self.scenarios.get(self.current).map(ScenarioRun::name)
    }

    /// Records the answer to `request`, the last one
    /// [`Self::next_request`] returned: `sent` as it went out, `received`
    /// as it came back.
    /// A request that got no response at all ([`unanswered`]) fails its
    /// check; when the next gets none either, the server is gone and the
    /// suite ends ([`Self::abandoned`]).
    pub fn record(&mut self, request: Request, sent: Sent, received: Received) {
        self.recorded += 1;
        if received.status.is_some() {
            (self.last_answered, self.unanswered) = (self.recorded, 0);
        } else {
            self.unanswered += 1;
            if self.unanswered >= UNANSWERED_IN_A_ROW && self.abandoned.is_none() {
                self.abandoned = Some(match self.last_answered {
                    0 => "the server answered no request".to_owned(),
                    n => format!("the server stopped answering after request {n} of the suite"),
                });
            }
        }
        if let Some(run) = self.scenarios.get_mut(self.current) {
            let limit = self.validator.limits().state_limit();
            run.exchanges
                .push(Exchange::within(request, sent, received, limit));
        }
    }

    /// Why the suite ended before its end ("the server stopped answering
    /// after request 12 of the suite"), when it did: no further request
    /// is planned, every check of a scenario that sent none is not
    /// exercised saying why, and the exchanges so far are judged as they
    /// are.
    pub fn abandoned(&self) -> Option<&str> {
        self.abandoned.as_deref()
    }

    /// The scenarios, with their exchanges.
    pub fn scenarios(&self) -> &[ScenarioRun] {
        &self.scenarios
    }

    /// Every scenario's verdicts, at the level asked.
    pub fn results(&self) -> Vec<ScenarioResult> {
        self.scenarios
            .iter()
            .map(|run| {
                let mut judged = match &run.script {
                    Script::BuiltIn(scenario) => scenario.judge(&self.validator, &run.exchanges),
                    Script::User(scenario) => scenario.judge(&self.validator, &run.exchanges),
                };
                // Once the server is gone, what a scenario could not do
                // says so.
                if let Some(gone) = &self.abandoned {
                    for judged in &mut judged {
                        if run.exchanges.is_empty() {
                            judged.verdict = Verdict::NotExercised(gone.clone());
                        } else if let Verdict::NotExercised(why) = &judged.verdict {
                            judged.verdict = Verdict::NotExercised(format!("{why} ({gone})"));
                        }
                    }
                }
                let checks = judged.iter().map(|j| j.check.id).collect();
                let served: Vec<&Exchange> = run
                    .exchanges
                    .iter()
                    .filter(|e| e.served().is_ok())
                    .collect();
                ScenarioResult {
                    runs: served.len(),
                    agent_errors: served.iter().filter_map(|e| e.agent_error()).collect(),
                    scenario: run.name().to_owned(),
                    judged: judged
                        .into_iter()
                        .filter(|j| j.check.level.within(self.level))
                        .collect(),
                    checks,
                }
            })
            .collect()
    }
}

/// Whether a response ended at a timeout of the driver's.
fn timed_out(received: &Received) -> bool {
    use crate::input::har::DeliveryEnd;
    matches!(
        received.delivery.end,
        DeliveryEnd::FirstByteTimeout | DeliveryEnd::IdleTimeout | DeliveryEnd::TotalTimeout
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::har::DeliveryEnd;

    #[test]
    fn a_scenario_stops_at_its_first_timeout_and_the_suite_goes_on() {
        let validator = Validator::new().expect("validator");
        let options = Options {
            scenarios: Some(vec![BuiltIn::MultiTurn, BuiltIn::Text]),
            ..Options::default()
        };
        let mut suite = Suite::new(&validator, options);
        let first = suite.next_request().expect("a first turn");
        assert_eq!(suite.current_scenario(), Some("multi-turn"));
        let sent = sent("http://127.0.0.1:1/agent", &first, &[]);
        let mut timed_out = received(None, Vec::new(), Vec::new(), false);
        timed_out.delivery.end = DeliveryEnd::FirstByteTimeout;
        suite.record(first, sent, timed_out);
        // The second turn waits on an answer that did not come: the suite
        // moves to the next scenario, not yet ended (one unanswered).
        assert!(suite.next_request().is_some());
        assert_eq!(suite.current_scenario(), Some("text"));
        assert_eq!(suite.abandoned(), None);
        let results = suite.results();
        let multi = &results[0];
        assert!(multi.judged.iter().any(|j| j.check.id == "run-served"
            && matches!(&j.verdict, Verdict::Failed(why) if why.contains("no response came"))));
    }
}
