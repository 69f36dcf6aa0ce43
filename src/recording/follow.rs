//! A run's state followed as a receiver follows it, within a budget: a
//! snapshot replaces it, a delta is applied whole or not at all (a delta
//! that fails leaves the state as it was), and no patch may take it past
//! the budget's size or work (the same bounded patching the stream rules
//! use), so that a hostile capture cannot make a reader of it hold more.

use json_patch::PatchOperation;
use serde_json::Value;

use crate::rules::sequence::patch::{self, Budget, Refusal};

/// A state and the budget it is followed within.
#[derive(Debug)]
pub struct StateFollower {
    state: Value,
    size: u64,
    budget: Budget,
}

impl StateFollower {
    /// An empty state (`null`), held to `limit` bytes in memory.
    pub fn new(limit: u64) -> StateFollower {
        StateFollower {
            state: Value::Null,
            size: 0,
            budget: Budget::new(limit),
        }
    }

    /// The state now.
    pub fn state(&self) -> &Value {
        &self.state
    }

    /// Replaces the state with `value`; a value over the budget is not
    /// kept (the state becomes `null`) and says so.
    pub fn snapshot(&mut self, value: Value) -> Result<(), String> {
        let bytes = patch::measured(&value);
        self.budget.release(std::mem::take(&mut self.size));
        if self.budget.take(bytes, 0).is_err() {
            self.state = Value::Null;
            return Err(format!(
                "a state of about {} is over the {} the report follows",
                crate::text::size(bytes),
                crate::text::size(self.budget.meter.limit)
            ));
        }
        self.state = value;
        self.size = bytes;
        Ok(())
    }

    /// Applies the JSON Patch `delta`, whole or not at all; why not, when
    /// it does not apply or would go over the budget.
    pub fn delta(&mut self, delta: &Value) -> Result<(), String> {
        let operations: Vec<PatchOperation> =
            serde_json::from_value(delta.clone()).map_err(|e| format!("not a JSON Patch: {e}"))?;
        match self
            .budget
            .apply(&mut self.state, &mut self.size, &operations)
        {
            Ok(()) => Ok(()),
            Err(Refusal::Failed { operation, kind }) => {
                Err(format!("operation {operation} does not apply: {kind}"))
            }
            Err(Refusal::Over { operation, .. }) => Err(format!(
                "operation {operation} would take the state past the {} the report follows",
                crate::text::size(self.budget.meter.limit)
            )),
        }
    }
}

/// The memory `value` takes, counted up to `visits` values, and whether
/// it was counted whole: a cheap bound on how long its text is.
pub fn measure(value: &Value, visits: u64) -> (u64, bool) {
    patch::size_of(value, visits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn deltas_apply_whole_or_not_and_root_copies_stop_at_the_budget() {
        let mut follower = StateFollower::new(64 * 1024);
        follower
            .snapshot(json!({"a": "x".repeat(1000)}))
            .expect("fits");
        follower
            .delta(&json!([{"op": "add", "path": "/b", "value": 1}]))
            .expect("applies");
        let refused = follower.delta(&json!([
            {"op": "add", "path": "/c", "value": 2},
            {"op": "remove", "path": "/missing"}
        ]));
        assert!(refused.is_err());
        assert_eq!(follower.state().get("c"), None);
        let copies = (0..40)
            .map(|k| follower.delta(&json!([{"op": "copy", "from": "", "path": format!("/c{k}")}])))
            .filter(Result::is_err)
            .count();
        assert!(copies > 30, "{copies} refused");
        assert!(patch::measured(follower.state()) <= 64 * 1024);
    }
}
