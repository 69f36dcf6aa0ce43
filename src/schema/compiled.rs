//! The compiled schema of every kind of every protocol version, each
//! compiled once: all of them when a validator is built, or each the first
//! time a document needs it (what the CLI does, since a capture of events
//! needs three of eighteen, and compiling the rest cost it a third of its
//! memory and the most of its start).

use std::sync::OnceLock;

use jsonschema::Draft;
use rayon::prelude::*;
use serde_json::Value;

use super::split::Split;
use crate::findings::Findings;
use crate::rules::receivers::Reading;
use crate::{Kind, Protocol};

/// Why a [`crate::Validator`] could not be built: one of agui-lint's own
/// schemas did not compile.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the built-in AG-UI {protocol} schema of kind '{kind}' does not compile: {message}")]
pub struct BuildError {
    protocol: Protocol,
    kind: Kind,
    message: String,
}

/// One kind's schema of one version, compiled, and the schema itself
/// (which explains the errors the compiled one finds).
pub(crate) struct CompiledSchema {
    pub(crate) schema: Value,
    pub(crate) validator: jsonschema::Validator,
    /// How its documents' arrays are checked item by item, compiled when
    /// a document first has findings.
    split: OnceLock<Split>,
}

impl CompiledSchema {
    /// The schema's findings on `value`, which it does not accept (see
    /// [`Split`]).
    pub(crate) fn check(&self, value: &Value, reading: Reading, out: &mut impl Findings) {
        self.split()
            .check(&self.schema, &self.validator, value, reading, out);
    }

    /// How its documents' arrays are checked item by item.
    pub(crate) fn split(&self) -> &Split {
        self.split.get_or_init(|| Split::of(&self.schema))
    }
}

/// What compiling one kind's schema of one version gave: `None` where the
/// version has no such kind.
type Compiled = Result<Option<CompiledSchema>, BuildError>;

/// The compiled schemas, each compiled at most once, however many threads
/// ask for it at the same time.
pub(crate) struct Schemas {
    /// By [`Protocol::index`], then by [`Kind::index`].
    cells: Vec<OnceLock<Compiled>>,
}

impl Schemas {
    /// No schema compiled yet.
    pub(crate) fn new() -> Schemas {
        let count = Protocol::ALL.len() * Kind::ALL.len();
        Schemas {
            cells: (0..count).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Compiles every schema now, in parallel, so that none is compiled
    /// while a document waits; the first that fails is the error.
    pub(crate) fn compile_all(&self) -> Result<(), BuildError> {
        let pairs: Vec<(Protocol, Kind)> = Protocol::ALL
            .into_iter()
            .flat_map(|protocol| Kind::ALL.into_iter().map(move |kind| (protocol, kind)))
            .collect();
        pairs.into_par_iter().try_for_each(|(protocol, kind)| {
            self.get(protocol, kind).map(drop).map_err(Clone::clone)
        })
    }

    /// The compiled schema of `kind` in `protocol`, compiled now if it
    /// was not before.
    pub(crate) fn get(
        &self,
        protocol: Protocol,
        kind: Kind,
    ) -> Result<Option<&CompiledSchema>, &BuildError> {
        let index = protocol.index() * Kind::ALL.len() + kind.index();
        self.cells[index]
            .get_or_init(|| compile(protocol, kind))
            .as_ref()
            .map(Option::as_ref)
    }
}

/// Generates and compiles the schema of `kind` in `protocol`.
fn compile(protocol: Protocol, kind: Kind) -> Compiled {
    let Some(schema) = super::generate(protocol, kind) else {
        return Ok(None);
    };
    // Our own schemas have no remote references; offline anyway, so that
    // nothing here can reach the network or disk.
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .offline()
        .build(&schema)
        .map(|validator| {
            Some(CompiledSchema {
                schema,
                validator,
                split: OnceLock::new(),
            })
        })
        .map_err(|e| BuildError {
            protocol,
            kind,
            message: e.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_compiles_once_and_on_demand_gives_the_same() {
        let all = Schemas::new();
        all.compile_all().expect("every built-in schema compiles");
        let on_demand = Schemas::new();
        for protocol in Protocol::ALL {
            for kind in Kind::ALL {
                let eager = all.get(protocol, kind).expect("compiled");
                let lazy = on_demand.get(protocol, kind).expect("compiled");
                assert_eq!(
                    eager.map(|c| &c.schema),
                    lazy.map(|c| &c.schema),
                    "{protocol} {kind}"
                );
                // Asked again, the same compiled schema, not a second one.
                let again = on_demand.get(protocol, kind).expect("compiled");
                assert_eq!(
                    lazy.map(std::ptr::from_ref),
                    again.map(std::ptr::from_ref),
                    "{protocol} {kind}"
                );
            }
        }
        assert!(
            all.get(Protocol::V1_1, Kind::Event)
                .expect("compiled")
                .is_some(),
            "1.1 has events"
        );
    }
}
