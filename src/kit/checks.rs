//! The checks of the conformance kit: what each one requires of a server,
//! how strongly (the 1.x prose's MUST or SHOULD) and where that is
//! written, and the verdict a scenario reached on it.

use serde::Serialize;

/// How strongly the protocol requires what a check checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    /// A requirement (MUST, MUST NOT).
    Must,
    /// A recommendation (SHOULD, SHOULD NOT).
    Should,
}

impl Level {
    /// `MUST` or `SHOULD`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
        }
    }
}

/// One check: a stable kebab-case id, its level, the page of the 1.x
/// prose it comes from, and what it requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Check {
    /// The id, stable once released (expected-failure files name it).
    pub id: &'static str,
    /// How strongly it is required.
    pub level: Level,
    /// The page of the 1.1 prose that requires it (under
    /// `https://docs.ag-ui.com/spec/1.1/`).
    pub page: &'static str,
    /// What a server must do to pass, in one sentence.
    pub requires: &'static str,
}

macro_rules! checks {
    ($($name:ident = $id:literal, $level:ident, $page:literal, $requires:literal;)*) => {
        $(
            #[doc = $requires]
            pub const $name: Check = Check {
                id: $id,
                level: Level::$level,
                page: $page,
                requires: $requires,
            };
        )*
        /// Every check, in report order.
        pub const ALL: &[Check] = &[$($name),*];
    };
}

checks! {
    RUN_SERVED = "run-served", Must, "events/lifecycle",
        "A valid request is answered with an event stream that starts with RUN_STARTED and ends the run with RUN_FINISHED.";
    STREAM_CONFORMS = "stream-conforms", Must, "basic/processing",
        "Every event stream has no error finding of the stream checker, paired with its request.";
    IDS_ECHOED = "ids-echoed", Must, "basic/run-input",
        "RUN_STARTED and RUN_FINISHED carry the threadId and runId the request sent.";
    IDS_UNIQUE_ACROSS_RUNS = "ids-unique-across-runs", Must, "basic",
        "A later run of a thread opens no message or tool call under an id the thread already has.";
    HISTORY_TAKEN_BACK = "history-taken-back", Must, "basic/run-input",
        "A request carrying the history the server streamed, as the official client rebuilds it, is served.";
    SNAPSHOT_KEEPS_HISTORY = "snapshot-keeps-history", Should, "events/state",
        "A MESSAGES_SNAPSHOT restating a message the request carried restates its role and content unchanged.";
    TOOL_RESULT_TAKEN_BACK = "tool-result-taken-back", Must, "events/tool-calls",
        "The request carrying a client-side tool's result, after the call the server streamed, is served.";
    PARALLEL_CALLS_TAKEN_BACK = "parallel-calls-taken-back", Must, "events/tool-calls",
        "The request carrying the results of several calls of one run is served.";
    STATE_DELTAS_APPLY = "state-deltas-apply", Must, "basic/run-input",
        "STATE_DELTA patches apply to the state the request sent until the run's own snapshot replaces it.";
    STATE_CONTINUITY = "state-continuity", Must, "basic/run-input",
        "The next run's deltas apply to the state the previous run left, which its request carries.";
    RESUME_ACCEPTED = "resume-accepted", Must, "basic/patterns/interrupt-resume",
        "A request whose resume answers every interrupt of the previous run is served, and the run does not raise an answered interrupt again.";
    UNKNOWN_RESUME_HANDLED = "unknown-resume-handled", Must, "basic/patterns/interrupt-resume",
        "A resume entry naming an interrupt the server never raised is rejected (4xx or RUN_ERROR) or the run proceeds without it; never a 5xx or a broken stream.";
    SERVED_AFTER_CANCEL = "served-after-cancel", Must, "events/lifecycle",
        "After the client closes the connection mid-run, the server serves the next run.";
    VERSION_DECLARED = "version-declared", Must, "basic/versioning",
        "A request declaring protocolVersion 1.0 gets a RUN_STARTED that declares the server's own version.";
    NEWER_MINOR_SERVED = "newer-minor-served", Must, "basic/versioning",
        "A request declaring a newer minor version (1.2) is served, not rejected.";
    INVALID_JSON_REJECTED = "invalid-json-rejected", Must, "basic/run-input",
        "A body that is not JSON is answered with a 4xx and a body saying why: never a 5xx or a stream that runs.";
    SNAKE_CASE_REJECTED = "snake-case-rejected", Should, "basic/run-input",
        "A body with snake_case keys (thread_id, run_id) is answered with a 4xx and a body, as the TypeScript SDK's servers answer it.";
    WRONG_CONTENT_TYPE_REJECTED = "wrong-content-type-rejected", Should, "basic/run-input",
        "A request whose Content-Type is not application/json is answered with a 4xx and a body.";
    EXPECTATION_MET = "expectation-met", Must, "basic",
        "A user scenario's step gets what its file expects.";
}

/// The check `id`, if there is one.
pub fn by_id(id: &str) -> Option<Check> {
    ALL.iter().copied().find(|c| c.id == id)
}

/// What a scenario found about one check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", content = "why", rename_all = "kebab-case")]
pub enum Verdict {
    /// The server did what the check requires.
    Passed,
    /// It did not, and why.
    Failed(String),
    /// The scenario could not judge it (the agent did not act as the
    /// scenario needs, or an earlier step failed), and why. Never a pass.
    NotExercised(String),
}

impl Verdict {
    /// `passed`, `failed` or `not exercised`.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Failed(_) => "failed",
            Verdict::NotExercised(_) => "not exercised",
        }
    }

    /// The reason, when there is one.
    pub fn why(&self) -> Option<&str> {
        match self {
            Verdict::Passed => None,
            Verdict::Failed(why) | Verdict::NotExercised(why) => Some(why),
        }
    }
}

/// One check's verdict in one scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judged {
    /// The check.
    pub check: Check,
    /// The verdict.
    pub verdict: Verdict,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_ids_are_unique_kebab_case_and_found() {
        let mut seen = std::collections::HashSet::new();
        for check in ALL {
            assert!(seen.insert(check.id), "{} twice", check.id);
            assert!(check
                .id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'-'));
            assert_eq!(by_id(check.id), Some(*check));
        }
        assert_eq!(by_id("no-such-check"), None);
    }
}
