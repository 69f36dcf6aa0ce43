//! A `tracing` subscriber for the server tests: records the events logged
//! under one target, each as a line of text (its level, then every field
//! as ` name=value`).

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

/// Records the events logged under its target, as text.
pub struct Recorder {
    records: Arc<Mutex<Vec<String>>>,
    target: &'static str,
}

impl Recorder {
    /// A recorder of the events under `target` (exactly), into `records`.
    pub fn new(records: Arc<Mutex<Vec<String>>>, target: &'static str) -> Self {
        Recorder { records, target }
    }
}

impl tracing::Subscriber for Recorder {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        metadata.target() == self.target
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        struct Fields(String);
        impl tracing::field::Visit for Fields {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                let _ = write!(self.0, " {}={value:?}", field.name());
            }
        }
        let mut fields = Fields(event.metadata().level().to_string());
        event.record(&mut fields);
        self.records.lock().expect("records").push(fields.0);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}
