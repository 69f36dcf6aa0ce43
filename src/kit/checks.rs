//! The checks of the conformance kit: what each one requires of a server,
//! how strongly, and the sentences of the 1.1 text that level rests on
//! (quoted, and held to the vendored text by `tests/kit_quotes.rs`); a
//! check no sentence requires is advice. And the verdict a scenario
//! reached on it.

use serde::Serialize;

/// How strongly the protocol requires what a check checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    /// A requirement (MUST, MUST NOT, REQUIRED): a failure fails the run.
    Must,
    /// A recommendation (SHOULD, SHOULD NOT): a failure is a warning, and
    /// fails the run only when asked to (`--strict`).
    Should,
    /// No sentence of the spec requires it; what the TypeScript SDK's
    /// servers do. Shown, never failing.
    Advice,
}

impl Level {
    /// `MUST`, `SHOULD` or `ADVICE`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::Advice => "ADVICE",
        }
    }

    /// Whether a check at this level is judged in a run asked for
    /// `asked`: a MUST run judges only the MUSTs, any other everything.
    pub fn within(self, asked: Level) -> bool {
        self == Level::Must || asked != Level::Must
    }

    /// Whether a failure at this level fails the run (`strict`: SHOULD
    /// failures too).
    pub fn fails(self, strict: bool) -> bool {
        match self {
            Level::Must => true,
            Level::Should => strict,
            Level::Advice => false,
        }
    }
}

/// A passage of the 1.1 text a check rests on, quoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Quote {
    /// The page, under `https://docs.ag-ui.com/spec/1.1/` (and the vendored
    /// `tests/upstream/1.1/prose/PAGE.mdx`).
    pub page: &'static str,
    /// The anchor of the section that holds it (empty before the page's
    /// first heading).
    pub anchor: &'static str,
    /// The passage, as the page says it (emphasis and link targets left
    /// out, code spans kept).
    pub text: &'static str,
}

impl Quote {
    /// Where the passage is published.
    pub fn url(&self) -> String {
        match self.anchor {
            "" => format!("{SPEC}{}", self.page),
            anchor => format!("{SPEC}{}#{anchor}", self.page),
        }
    }
}

/// Where the 1.1 prose the checks quote is published.
pub const SPEC: &str = "https://docs.ag-ui.com/spec/1.1/";

/// One check: a stable kebab-case id, its level, what it requires, and
/// the passages of the 1.1 text that requirement rests on (the first
/// states the level; none for advice).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Check {
    /// The id, stable once released (expected-failure files name it).
    pub id: &'static str,
    /// How strongly it is required.
    pub level: Level,
    /// The page of the 1.1 prose its first passage is on (under
    /// `https://docs.ag-ui.com/spec/1.1/`).
    pub page: &'static str,
    /// What a server must do to pass, in one sentence.
    pub requires: &'static str,
    /// The passages it rests on, the one with its level first.
    pub rests_on: &'static [Quote],
    /// What would exercise it when the agent did not act as its scenario
    /// needs (empty when nothing the user does would).
    pub exercised_by: &'static str,
}

impl Check {
    /// The link to the first passage it rests on, or to its page.
    pub fn url(&self) -> String {
        self.rests_on
            .first()
            .map_or_else(|| format!("{SPEC}{}", self.page), Quote::url)
    }
}

const fn quote(page: &'static str, anchor: &'static str, text: &'static str) -> Quote {
    Quote { page, anchor, text }
}

const SSE_BINDING: Quote = quote(
    "basic/transports",
    "standard-bindings",
    "An implementation that speaks HTTP MUST support the SSE binding; the protobuf binding is OPTIONAL.",
);
const STREAM_BEGINS: Quote = quote(
    "events/lifecycle",
    "the-run",
    "A stream MUST begin with `RUN_STARTED` or `RUN_ERROR`.",
);
const COMPLETE_HISTORY: Quote = quote(
    "basic/run-input",
    "messages",
    "A producer MUST treat it as the complete history it is being shown — the protocol has no side channel through which earlier turns arrive.",
);
const DELTAS_AGAINST_INPUT: Quote = quote(
    "basic/run-input",
    "state",
    "A producer that emits state deltas MUST compute them against this value until its own first snapshot replaces it.",
);
const INPUT_ASYMMETRY: Quote = quote(
    "basic/processing",
    "outgoing-material",
    "A producer receiving a run input MUST apply the same asymmetry to it: unrecognised material does not make the input invalid, a malformed known field does.",
);
const REJECTED_BEFORE_START: Quote = quote(
    "basic/transports/http-sse",
    "errors",
    "Input rejected before the run starts — malformed JSON, failed validation, refused auth — is an HTTP error status with no event stream.",
);
const FRONTEND_ANSWERS: Quote = quote(
    "events/tool-calls",
    "frontend-tools",
    "A thread that continues MUST answer every one of them first: the next run's `messages` carry a tool message per call, keyed by `toolCallId`",
);

/// A valid request is served.
pub const RUN_SERVED: Check = Check {
    id: "run-served",
    level: Level::Must,
    page: "events/lifecycle",
    requires: "A valid request is answered with an event stream that starts with RUN_STARTED (or RUN_ERROR) and closes the run with RUN_FINISHED or RUN_ERROR.",
    rests_on: &[
        STREAM_BEGINS,
        SSE_BINDING,
        quote(
            "basic/transports/http-sse",
            "response",
            "The producer closes the response body after the last run's terminal event.",
        ),
    ],    exercised_by: "",
};

/// The stream checker finds no error.
pub const STREAM_CONFORMS: Check = Check {
    id: "stream-conforms",
    level: Level::Must,
    page: "basic",
    requires:
        "Every event stream has no error finding of the stream checker, paired with its request.",
    rests_on: &[quote(
        "basic",
        "",
        "All implementations MUST support the event model and the event patterns.",
    )],
    exercised_by: "",
};

/// What the official client does otherwise than the stream says.
pub const STREAM_AS_RECEIVED: Check = Check {
    id: "stream-as-received",
    level: Level::Advice,
    page: "basic/processing",
    requires: "Every event stream has no warning finding of the stream checker, paired with its request: nothing the official client drops, strips or acts on otherwise than the stream says (arguments that do not parse when a call ends, a call whose arguments only a later snapshot gives, a snapshot that contradicts or blanks what the run streamed).",
    rests_on: &[],    exercised_by: "",
};

/// The run's ids are the request's.
pub const IDS_ECHOED: Check = Check {
    id: "ids-echoed",
    level: Level::Must,
    page: "basic/run-input",
    requires: "RUN_STARTED and RUN_FINISHED carry the threadId and runId the request sent.",
    rests_on: &[quote(
        "basic/run-input",
        "identity",
        "Every run on the stream carries the input's `threadId` on its boundary events — `RUN_STARTED` and `RUN_FINISHED`, the two that carry identity — and each run's two boundary events MUST agree on their `runId`. The requested run echoes this input's `runId`",
    )],    exercised_by: "",
};

/// No id of the thread is opened again.
pub const IDS_UNIQUE_ACROSS_RUNS: Check = Check {
    id: "ids-unique-across-runs",
    level: Level::Must,
    page: "basic",
    requires: "A later run of a thread opens no message or tool call under an id the thread already has.",
    rests_on: &[quote(
        "basic",
        "identifiers",
        "`messageId` identifies a message. It crosses run boundaries — a snapshot in a later run MAY restate a message by its id — so it MUST be unique within its thread.",
    )],    exercised_by: "",
};

/// The history taken back.
pub const HISTORY_TAKEN_BACK: Check = Check {
    id: "history-taken-back",
    level: Level::Must,
    page: "basic/run-input",
    requires: "A request carrying the history the server streamed, as the official client rebuilds it, is served.",
    rests_on: &[COMPLETE_HISTORY, SSE_BINDING],    exercised_by: "",
};

/// A snapshot restates carried messages as they were.
pub const SNAPSHOT_KEEPS_HISTORY: Check = Check {
    id: "snapshot-keeps-history",
    level: Level::Must,
    page: "events/lifecycle",
    requires: "A MESSAGES_SNAPSHOT restating a message the request carried restates its role and content unchanged.",
    rests_on: &[quote(
        "events/lifecycle",
        "several-runs-on-one-stream",
        "A producer restating history — a replayed thread whose material the consumer's input already carried — MUST restate it as snapshots: `MESSAGES_SNAPSHOT` reconciles by id and `STATE_SNAPSHOT` replaces, so a restatement the consumer already holds is idempotent.",
    )],    exercised_by: "a server that restates the history in a MESSAGES_SNAPSHOT (nothing to change if yours does not)",
};

/// A frontend tool's result taken back.
pub const TOOL_RESULT_TAKEN_BACK: Check = Check {
    id: "tool-result-taken-back",
    level: Level::Must,
    page: "events/tool-calls",
    requires: "The request carrying a client-side tool's result, after the call the server streamed, is served.",
    rests_on: &[COMPLETE_HISTORY, FRONTEND_ANSWERS],    exercised_by: "an agent that calls the tool it is offered: prompt it to call agui_lint_get_weather, or give a scenario file (--scenario-file) a tool and a prompt your agent acts on, with \"needs\": [\"TOOL_CALL_START\"]",
};

/// Several results of one run taken back.
pub const PARALLEL_CALLS_TAKEN_BACK: Check = Check {
    id: "parallel-calls-taken-back",
    level: Level::Must,
    page: "events/tool-calls",
    requires: "The request carrying the results of several calls of one run is served.",
    rests_on: &[COMPLETE_HISTORY, FRONTEND_ANSWERS],
    exercised_by:
        "an agent that calls two offered tools in one run, or a scenario file whose step needs them",
};

/// Deltas against the request's state.
pub const STATE_DELTAS_APPLY: Check = Check {
    id: "state-deltas-apply",
    level: Level::Must,
    page: "basic/run-input",
    requires: "STATE_DELTA patches apply to the state the request sent until the run's own snapshot replaces it.",
    rests_on: &[DELTAS_AGAINST_INPUT],    exercised_by: "an agent that changes the state it is sent with STATE_DELTA, or a scenario file whose request asks yours to",
};

/// Deltas against the state the last run left.
pub const STATE_CONTINUITY: Check = Check {
    id: "state-continuity",
    level: Level::Must,
    page: "basic/run-input",
    requires:
        "The next run's deltas apply to the state the previous run left, which its request carries.",
    rests_on: &[DELTAS_AGAINST_INPUT],    exercised_by: "an agent that changes the state it is sent, or a scenario file whose two steps carry \"{{state}}\"",
};

/// A resume answering every interrupt is taken.
pub const RESUME_ACCEPTED: Check = Check {
    id: "resume-accepted",
    level: Level::Must,
    page: "basic/patterns/interrupt-resume",
    requires: "A request whose resume answers every interrupt of the previous run is served, and the run does not raise an answered interrupt again.",
    rests_on: &[
        SSE_BINDING,
        quote(
            "basic/patterns/interrupt-resume",
            "resuming",
            "A producer receiving resume entries treats them as the answers it stopped for.",
        ),
    ],    exercised_by: "an agent that ends a 1.1 run with the interrupt outcome when asked for approval, or a scenario file whose second step answers \"{{interruptId}}\"",
};

/// An unknown resume entry does not fail the run.
pub const UNKNOWN_RESUME_HANDLED: Check = Check {
    id: "unknown-resume-handled",
    level: Level::Should,
    page: "basic/patterns/interrupt-resume",
    requires: "A run whose resume names an interrupt the server never raised proceeds without the entry: it is neither rejected nor failed over it.",
    rests_on: &[quote(
        "basic/patterns/interrupt-resume",
        "resuming",
        "An unrecognised entry — one naming an interrupt the producer did not raise: the run SHOULD proceed without the entry, and the producer SHOULD surface a warning rather than fail a run over an answer it never asked for.",
    )],    exercised_by: "",
};

/// The next run after a cancelled one is served.
pub const SERVED_AFTER_CANCEL: Check = Check {
    id: "served-after-cancel",
    level: Level::Must,
    page: "basic/transports",
    requires: "After the client closes the connection mid-run, the server serves the next run.",
    rests_on: &[
        SSE_BINDING,
        quote(
            "basic/transports",
            "truncation",
            "re-running is a new run with a new `runId`.",
        ),
    ],
    exercised_by: "",
};

/// `RUN_STARTED` declares a version.
pub const VERSION_DECLARED: Check = Check {
    id: "version-declared",
    level: Level::Must,
    page: "basic/versioning",
    requires: "A request declaring protocolVersion 1.0 gets a RUN_STARTED that declares the server's own version.",
    rests_on: &[quote(
        "basic/versioning",
        "version-negotiation",
        "An implementation of this version MUST send its declaration, except where the consumer knows its peer predates the field and omits it rather than hand an unknown input member to an old parser.",
    )],    exercised_by: "",
};

/// A newer minor is served.
pub const NEWER_MINOR_SERVED: Check = Check {
    id: "newer-minor-served",
    level: Level::Must,
    page: "basic/versioning",
    requires: "A request declaring a newer minor version (1.2) is served, not rejected.",
    rests_on: &[quote(
        "basic/versioning",
        "version-negotiation",
        "A producer meeting a newer minor of a line it implements MUST serve the run — additions are safe, by the rules above — answer with its own version, and SHOULD warn.",
    )],    exercised_by: "",
};

/// A body that is not JSON is rejected.
pub const INVALID_JSON_REJECTED: Check = Check {
    id: "invalid-json-rejected",
    level: Level::Must,
    page: "basic/processing",
    requires: "A body that is not JSON is rejected before any run starts, with a 4xx and a body saying why (or a stream opening with RUN_ERROR): never a 5xx or a run.",
    rests_on: &[INPUT_ASYMMETRY, REJECTED_BEFORE_START],    exercised_by: "",
};

/// A body without the camelCase ids is rejected.
pub const SNAKE_CASE_REJECTED: Check = Check {
    id: "snake-case-rejected",
    level: Level::Must,
    page: "basic/run-input",
    requires: "A body whose ids are snake_case keys (thread_id, run_id), and so has no threadId or runId, is rejected before any run starts, with a 4xx and a body.",
    rests_on: &[
        quote(
            "basic/run-input",
            "identity",
            "`threadId` names the conversation and `runId` names the run this input requests; both are REQUIRED.",
        ),
        INPUT_ASYMMETRY,
        REJECTED_BEFORE_START,
    ],    exercised_by: "",
};

/// A body sent as another media type is rejected (advice).
pub const WRONG_CONTENT_TYPE_REJECTED: Check = Check {
    id: "wrong-content-type-rejected",
    level: Level::Advice,
    page: "basic/transports/http-sse",
    requires: "A request whose Content-Type is not application/json is answered with a 4xx and a body, as the TypeScript SDK's servers answer it (the 1.1 text requires the Content-Type of the client only).",
    rests_on: &[],    exercised_by: "",
};

/// A user scenario's expectations are met.
pub const EXPECTATION_MET: Check = Check {
    id: "expectation-met",
    level: Level::Must,
    page: "basic",
    requires: "A user scenario's step gets what its file expects (the file is the requirement).",
    rests_on: &[],
    exercised_by: "",
};

/// Every check, in report order.
pub const ALL: &[Check] = &[
    RUN_SERVED,
    STREAM_CONFORMS,
    STREAM_AS_RECEIVED,
    IDS_ECHOED,
    IDS_UNIQUE_ACROSS_RUNS,
    HISTORY_TAKEN_BACK,
    SNAPSHOT_KEEPS_HISTORY,
    TOOL_RESULT_TAKEN_BACK,
    PARALLEL_CALLS_TAKEN_BACK,
    STATE_DELTAS_APPLY,
    STATE_CONTINUITY,
    RESUME_ACCEPTED,
    UNKNOWN_RESUME_HANDLED,
    SERVED_AFTER_CANCEL,
    VERSION_DECLARED,
    NEWER_MINOR_SERVED,
    INVALID_JSON_REJECTED,
    SNAKE_CASE_REJECTED,
    WRONG_CONTENT_TYPE_REJECTED,
    EXPECTATION_MET,
];

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
    /// It failed for a cause another check of the scenario reports (a run
    /// cut short fails `run-served` and shows in `stream-conforms`):
    /// reported once, under that check, this one pointing to it.
    SameCause {
        /// The check the cause is reported under.
        check: &'static str,
        /// What this check found.
        why: String,
    },
}

impl Verdict {
    /// `passed`, `failed`, `not exercised` or `same cause`.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Failed(_) => "failed",
            Verdict::NotExercised(_) => "not exercised",
            Verdict::SameCause { .. } => "same cause",
        }
    }

    /// The reason, when there is one.
    pub fn why(&self) -> Option<&str> {
        match self {
            Verdict::Passed => None,
            Verdict::Failed(why) | Verdict::NotExercised(why) | Verdict::SameCause { why, .. } => {
                Some(why)
            }
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

/// One scenario's verdicts.
#[derive(Debug, Clone)]
pub struct ScenarioResult {
    /// The scenario's name.
    pub scenario: String,
    /// Each check it judged, in report order.
    pub judged: Vec<Judged>,
    /// Every check the scenario has, whatever the level asked (an
    /// expected failure a `--level must` run leaves out is not stale).
    pub checks: Vec<&'static str>,
    /// How many of its requests were served a run.
    pub runs: usize,
    /// The agent's failures among those runs (`RUN_ERROR 'quota'`), in
    /// order.
    pub agent_errors: Vec<String>,
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

    #[test]
    fn the_hint_names_the_kits_own_tool() {
        assert!(TOOL_RESULT_TAKEN_BACK
            .exercised_by
            .contains(super::super::requests::WEATHER_TOOL));
    }
}
