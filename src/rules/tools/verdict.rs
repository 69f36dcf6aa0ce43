//! What the fast path needs to know about a tool's `parameters`, judged
//! from its source text once per distinct text and kept.

// foldhash: seeded per process, so keys a client chooses cannot collide at
// will, and several times faster than SipHash on short keys.
use foldhash::{HashMap, HashMapExt};
use std::sync::{Arc, LazyLock, RwLock};

use serde_json::Value;

use super::parameters::{check_parameters, with_arguments};

/// What the fast path needs to know about a tool's `parameters`, read
/// from its source text: whether the full path would report anything in
/// it, how deep it nests, and the validator for arguments of calls.
pub(crate) struct ParametersVerdict {
    /// No finding of any rule falls inside the text: no repeated key, no
    /// unpaired surrogate escape, no non-interoperable number, no finding
    /// of this module within the schema budget it was judged with.
    pub(crate) clean: bool,
    /// How many arrays and objects nest in the text (0 for a scalar).
    pub(crate) depth: usize,
    /// The schema budget the verdict was reached with.
    budget: usize,
    /// The schema's entry in the cache of compiled schemas, when the text
    /// is clean: its arguments validator made the first time calls are
    /// checked (a tool no message calls never needs one). Shared with the
    /// cache, which holds the same entries.
    entry: Option<std::sync::Arc<super::cache::Compiled>>,
}

impl ParametersVerdict {
    /// The schema budget the verdict was reached with.
    pub(super) fn budget(&self) -> usize {
        self.budget
    }

    /// The compiled schema that arguments of calls to the tool are
    /// checked against, when the text is clean.
    pub(in crate::rules) fn compiled(&self) -> Option<std::sync::Arc<super::cache::Compiled>> {
        self.entry.clone().map(with_arguments)
    }
}

/// Judges the `parameters` whose source text is `text` (see
/// [`ParametersVerdict`]), as the full path would within `budget`.
pub(super) fn judge_text(text: &str, budget: usize) -> ParametersVerdict {
    let mut verdict = ParametersVerdict {
        clean: false,
        depth: 0,
        budget,
        entry: None,
    };
    let Ok(parsed) = crate::parse::parse(text.as_bytes()) else {
        return verdict;
    };
    verdict.depth = depth_of(&parsed.value);
    let mut findings = Vec::new();
    let entry = check_parameters(&parsed.value, "", budget, &mut findings);
    verdict.clean = findings.is_empty()
        && parsed.repeated_keys.is_empty()
        && parsed.lone_surrogates.is_empty()
        && crate::rules::interop::all_interoperable(&parsed.value);
    if verdict.clean {
        verdict.entry = entry;
    }
    verdict
}

/// How many arrays and objects nest in `value`, without recursion.
fn depth_of(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0_usize)];
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(members) => Box::new(members.values()),
            _ => continue,
        };
        deepest = deepest.max(depth + 1);
        stack.extend(children.map(|v| (v, depth + 1)));
    }
    deepest
}

/// Verdicts on `parameters` source texts, for the fast path: keyed by the
/// text itself, which is what a server sending the same tools on every
/// request repeats byte for byte.
static BY_TEXT: LazyLock<RwLock<HashMap<Box<str>, Arc<ParametersVerdict>>>> =
    LazyLock::new(|| RwLock::new(HashMap::new()));

/// The verdict on the `parameters` whose source text is `text`, judged
/// within `budget` on first sight (or when last judged with another
/// budget).
pub(crate) fn verdict_by_text(text: &str, budget: usize) -> Arc<ParametersVerdict> {
    if let Ok(cache) = BY_TEXT.read() {
        if let Some(found) = cache.get(text).filter(|v| v.budget() == budget) {
            return found.clone();
        }
    }
    let fresh = Arc::new(judge_text(text, budget));
    if let Ok(mut cache) = BY_TEXT.write() {
        if cache.len() >= super::cache::CAPACITY {
            cache.clear();
        }
        cache.insert(text.into(), fresh.clone());
    }
    fresh
}
