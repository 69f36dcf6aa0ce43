//! `proto/ag_ui.proto`, the definitions agui-lint decodes AG-UI's binary
//! transport with: every wire number is the one upstream froze
//! (`tests/upstream/1.1/proto-freeze.txt`), and the Rust code generated from
//! it is the code committed (`src/input/proto/wire.rs`, prost-build's
//! messages, and `src/input/proto/known.rs`, the table of known fields the
//! unknown-field check walks). `AGUI_LINT_WRITE_PROTO=1` rewrites both.
//!
//! protox compiles the file, so neither this test nor a build needs `protoc`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The compiled definitions.
fn descriptors() -> prost_types::FileDescriptorSet {
    protox::compile([root().join("proto/ag_ui.proto")], [root().join("proto")])
        .expect("proto/ag_ui.proto compiles")
}

/// The compiled `ag_ui` file (the set also holds what it imports).
fn ag_ui_file() -> prost_types::FileDescriptorProto {
    descriptors()
        .file
        .into_iter()
        .find(|f| f.package.as_deref() == Some("ag_ui"))
        .expect("the ag_ui file")
}

/// The messages that stand for JSON values (google/protobuf/struct.proto's,
/// declared in our file): not AG-UI's, so not in the freeze.
const JSON_MESSAGES: [&str; 4] = ["Struct", "StructEntry", "Value", "ListValue"];

/// Every numbered slot of the file as the freeze names it:
/// `Message.field`, `Message.oneof.field`, `Enum.VALUE`, `Outer.Inner.field`.
fn slots() -> BTreeMap<String, i32> {
    let file = ag_ui_file();
    let mut slots = BTreeMap::new();
    fn message(prefix: &str, m: &prost_types::DescriptorProto, slots: &mut BTreeMap<String, i32>) {
        let name = format!("{prefix}{}", m.name());
        if JSON_MESSAGES.contains(&m.name()) {
            return;
        }
        for field in &m.field {
            let oneof = field
                .oneof_index
                .filter(|_| !field.proto3_optional())
                .and_then(|i| m.oneof_decl.get(i as usize))
                .map(|o| format!("{}.", o.name()))
                .unwrap_or_default();
            slots.insert(format!("{name}.{oneof}{}", field.name()), field.number());
        }
        for nested in &m.nested_type {
            message(&format!("{name}."), nested, slots);
        }
    }
    for m in &file.message_type {
        message("", m, &mut slots);
    }
    for e in &file.enum_type {
        if e.name() == "NullValue" {
            continue;
        }
        for value in &e.value {
            slots.insert(format!("{}.{}", e.name(), value.name()), value.number());
        }
    }
    slots
}

/// The freeze's slots.
fn freeze() -> BTreeMap<String, i32> {
    let text = std::fs::read_to_string(root().join("tests/upstream/1.1/proto-freeze.txt"))
        .expect("the vendored freeze");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (slot, number) = l.split_once(" = ").expect("slot = number");
            (slot.to_string(), number.parse().expect("a number"))
        })
        .collect()
}

#[test]
fn every_slot_has_its_frozen_number_and_every_frozen_slot_is_declared() {
    let ours = slots();
    let frozen = freeze();
    assert!(
        frozen.len() > 250,
        "the freeze holds {} slots",
        frozen.len()
    );
    for (slot, number) in &frozen {
        assert_eq!(
            ours.get(slot),
            Some(number),
            "{slot}: frozen as {number}, declared as {:?}",
            ours.get(slot)
        );
    }
    for slot in ours.keys() {
        assert!(frozen.contains_key(slot), "{slot} is not in the freeze");
    }
}

/// What prost-build makes of the file, as committed.
fn generated_messages() -> String {
    let out = std::env::temp_dir().join(format!("agui-lint-proto-{}", std::process::id()));
    std::fs::create_dir_all(&out).expect("a temporary folder");
    // Strings are read as bytes, so that broken UTF-8 is decoded as the
    // official decoder decodes it (U+FFFD) and said to be, not refused.
    let mut set = descriptors();
    fn strings_as_bytes(m: &mut prost_types::DescriptorProto) {
        for field in &mut m.field {
            if field.r#type() == prost_types::field_descriptor_proto::Type::String {
                field.set_type(prost_types::field_descriptor_proto::Type::Bytes);
            }
        }
        for nested in &mut m.nested_type {
            strings_as_bytes(nested);
        }
    }
    for file in &mut set.file {
        file.message_type.iter_mut().for_each(strings_as_bytes);
    }
    // `Bytes`, so that a decoded string is a slice of its frame, not a copy.
    // The rare large events boxed, so that the oneof every frame decodes
    // into is the size of a common one.
    prost_build::Config::new()
        .bytes(["."])
        .boxed(".ag_ui.Event.event.run_started")
        .boxed(".ag_ui.Event.event.run_finished")
        .boxed(".ag_ui.Event.event.messages_snapshot")
        .out_dir(&out)
        .compile_fds(set)
        .expect("prost-build");
    let code = std::fs::read_to_string(out.join("ag_ui.rs")).expect("ag_ui.rs");
    let _ = std::fs::remove_dir_all(&out);
    format!(
        "// @generated by prost-build from proto/ag_ui.proto, its strings read as\n\
         // bytes (tests/proto_definitions.rs says why); do not edit.\n\
         // Regenerate: AGUI_LINT_WRITE_PROTO=1 cargo test --test proto_definitions\n\n{code}"
    )
}

/// A message of the file: its full name, its short name, and its fields
/// (number, name, the message a field holds).
type Gathered = (String, String, Vec<(i32, String, Option<String>)>);

/// The table of known fields: each message of the file, its fields'
/// numbers and names, and the message a field holds.
fn generated_fields() -> String {
    let file = ag_ui_file();
    // Full name (`.ag_ui.ToolCall.Function`) -> (short name, fields).
    let mut messages: Vec<Gathered> = Vec::new();
    fn gather(prefix: &str, m: &prost_types::DescriptorProto, out: &mut Vec<Gathered>) {
        let full = format!("{prefix}.{}", m.name());
        let short = full.trim_start_matches(".ag_ui.").to_string();
        let fields =
            m.field
                .iter()
                .map(|f| {
                    let child = f.type_name.clone().filter(|_| {
                        f.r#type() == prost_types::field_descriptor_proto::Type::Message
                    });
                    (f.number(), f.name().to_string(), child)
                })
                .collect();
        out.push((full.clone(), short, fields));
        for nested in &m.nested_type {
            gather(&full, nested, out);
        }
    }
    for m in &file.message_type {
        gather(".ag_ui", m, &mut messages);
    }
    messages.sort_by(|a, b| a.1.cmp(&b.1));
    let index: BTreeMap<&str, usize> = messages
        .iter()
        .enumerate()
        .map(|(i, (full, _, _))| (full.as_str(), i))
        .collect();
    let mut code = String::from(
        "// @generated by tests/proto_definitions.rs from proto/ag_ui.proto; do not edit.\n\
         // Regenerate: AGUI_LINT_WRITE_PROTO=1 cargo test --test proto_definitions\n\n\
         //! Every message of the binary transport with its known fields, for\n\
         //! finding the fields a frame carries that AG-UI does not define.\n\n\
         use super::table::{Field, Message};\n\n",
    );
    let event = index.get(".ag_ui.Event").expect("the Event message");
    let _ = writeln!(
        code,
        "/// `Event`, the message each frame holds.\npub(crate) const EVENT: usize = {event};"
    );
    code.push_str(
        "\n/// The messages, by the indexes above.\npub(crate) static MESSAGES: &[Message] = &[\n",
    );
    for (_, short, fields) in &messages {
        let _ = writeln!(
            code,
            "    Message {{\n        name: {short:?},\n        fields: &["
        );
        let mut sorted = fields.clone();
        sorted.sort_by_key(|f| f.0);
        for (number, name, child) in sorted {
            let child = match child.as_deref().and_then(|c| index.get(c)) {
                Some(i) => format!("Some({i})"),
                None => "None".to_string(),
            };
            let _ = writeln!(
                code,
                "            Field {{ number: {number}, name: {name:?}, message: {child} }},"
            );
        }
        code.push_str("        ],\n    },\n");
    }
    code.push_str("];\n");
    code
}

/// `code` as `cargo fmt` leaves it, so that the committed files pass
/// `cargo fmt --check` and compare equal to what is generated.
fn formatted(code: &str) -> String {
    use std::io::Write as _;
    let mut rustfmt = std::process::Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("rustfmt, which CI installs with the toolchain");
    rustfmt
        .stdin
        .take()
        .expect("stdin")
        .write_all(code.as_bytes())
        .expect("write to rustfmt");
    let output = rustfmt.wait_with_output().expect("rustfmt runs");
    assert!(output.status.success(), "rustfmt failed");
    String::from_utf8(output.stdout).expect("UTF-8")
}

fn holds(path: &Path, expected: &str) {
    let expected = formatted(expected);
    if std::env::var_os("AGUI_LINT_WRITE_PROTO").is_some() {
        std::fs::write(path, &expected).expect("write");
        return;
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == expected,
        "{} is not what proto/ag_ui.proto generates: run AGUI_LINT_WRITE_PROTO=1 cargo test --test proto_definitions",
        path.display()
    );
}

#[test]
fn the_committed_rust_code_is_what_the_definitions_generate() {
    holds(
        &root().join("src/input/proto/wire.rs"),
        &generated_messages(),
    );
    holds(
        &root().join("src/input/proto/known.rs"),
        &generated_fields(),
    );
}
