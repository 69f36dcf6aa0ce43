//! The unknown keys the structs read (`unknown-field` warnings), reported
//! as the full path reports them: the same pointer, message and help (the
//! known keys of the version judging, from its schema), and past the
//! document's limit only counted.
//!
//! The full path reports them with the schema's findings, before the
//! rules' ones: the input's own, its tools', context's and resume
//! entries' first, then each message's as it is read, before that
//! message's rule findings. Within the limit both paths report the same
//! set; past it, a document whose messages carry both unknown keys and
//! rule findings may keep a different share of each (the counts in
//! `too-many-findings` add up to the same total).

use super::borrowed::{Message, RunAgentInput, Unknown};
use crate::findings::Findings;
use crate::rules::UNKNOWN_FIELD;
use crate::schema::{known_keys, unknown_field, Holder};
use crate::Protocol;

/// Reports the unknown keys of `unknown`, those of the object at `at`
/// (made only when reported), a `holder` of the schema of `protocol`.
fn report(
    unknown: &Unknown<'_>,
    protocol: Protocol,
    holder: Holder<'_>,
    at: impl Fn() -> String,
    out: &mut impl Findings,
) {
    if unknown.is_empty() {
        return;
    }
    for key in unknown.kept() {
        out.add(&UNKNOWN_FIELD, |_| {
            unknown_field(protocol, &at(), key.as_str(), known_keys(protocol, holder))
        });
    }
    out.add_unbuilt(&UNKNOWN_FIELD, unknown.more());
}

/// Reports the unknown keys of `input` and of its tools, context and
/// resume entries (its messages are reported as they are read).
pub(super) fn report_input(input: &RunAgentInput<'_>, protocol: Protocol, out: &mut impl Findings) {
    report(&input.unknown, protocol, Holder::Input, String::new, out);
    let tools = input.tools.iter().flatten().map(|t| &t.unknown);
    report_list("tools", Holder::Tool, tools, protocol, out);
    let context = input.context.iter().flatten().map(|c| &c.unknown);
    report_list("context", Holder::Context, context, protocol, out);
    let resume = input.resume.iter().flatten().map(|r| &r.unknown);
    report_list("resume", Holder::ResumeEntry, resume, protocol, out);
}

/// Reports the unknown keys of each item of the input's list `list`.
fn report_list<'u, 'a: 'u>(
    list: &str,
    holder: Holder<'_>,
    items: impl Iterator<Item = &'u Unknown<'a>>,
    protocol: Protocol,
    out: &mut impl Findings,
) {
    for (index, unknown) in items.enumerate() {
        report(
            unknown,
            protocol,
            holder,
            || format!("/{list}/{index}"),
            out,
        );
    }
}

/// Reports the unknown keys of `message`, message `index`, and of its
/// tool calls.
pub(super) fn report_message(
    index: usize,
    message: &Message<'_>,
    protocol: Protocol,
    out: &mut impl Findings,
) {
    let role = message.role.as_ref().map_or("", |r| r.as_str());
    let at = || format!("/messages/{index}");
    report(&message.unknown, protocol, Holder::Message(role), at, out);
    for (position, call) in message.tool_calls.iter().flatten().enumerate() {
        let call_at = || format!("/messages/{index}/toolCalls/{position}");
        report(&call.unknown, protocol, Holder::ToolCall, call_at, out);
        if let Some(function) = &call.function {
            let function_at = || format!("/messages/{index}/toolCalls/{position}/function");
            report(
                &function.unknown,
                protocol,
                Holder::Function,
                function_at,
                out,
            );
        }
    }
}
