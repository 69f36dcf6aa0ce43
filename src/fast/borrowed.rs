//! A RunAgentInput read straight from its bytes into borrowed structs,
//! refusing on the way everything the parse layer and the schema would
//! report but unknown keys: `null` in a key that is not an `any` slot,
//! repeated keys, wrong JSON types, unpaired surrogate escapes, and
//! numbers outside the interoperable range. A key no version defines for
//! its object is noted ([`Unknown`]) for [`super::unknown`] to report, as
//! the warning it is: receivers drop such keys, and a document that has
//! them is otherwise read like any other.
//!
//! The structs are flat: a message holds every key any role may carry, and
//! [`super::shape`] then checks the keys against the role. That keeps
//! reading a single pass without serde's buffering of internally tagged
//! enums (which cannot borrow), and each struct accepts only a JSON object
//! (serde's derive would also take an array of the fields in order, which
//! the schema refuses), hence the hand-written [`object!`] reader.
//!
//! The structs hold the keys of every protocol version (pre-1.0, 1.0 and
//! 1.1): [`super::shape`] then holds them to the version the document is
//! judged by, including where a version refuses `null` in an `any` slot.
//!
//! Strings borrow from the input unless they hold escapes. The `any` slots
//! (`state`, `forwardedProps`, part `metadata`, a resume `payload`) and the
//! open objects (activity `content`, the `metadata` of messages, tools,
//! tool calls and resume entries) are walked and dropped, remembering only
//! whether an `any` value was `null`; a tool's `parameters` is kept as its
//! source text, which is what its verdict is cached by.

use std::borrow::Cow;
use std::cell::Cell;
// foldhash: seeded per process, so keys a client chooses cannot collide at
// will, and several times faster than SipHash on short keys.
use foldhash::{HashSet, HashSetExt};
use std::fmt;
use std::hash::BuildHasher;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Number;

use crate::rules::verdict::is_interoperable;
use crate::spec::RESERVED_METADATA_KEY;

mod messages;

pub(super) use messages::{read_input, read_messages, Messages};

/// A JSON string, borrowed from the input when it has no escapes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Str<'a>(pub(super) Cow<'a, str>);

impl Str<'_> {
    /// The text.
    pub(super) fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for Str<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StrVisitor;
        impl<'de> Visitor<'de> for StrVisitor {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Borrowed(text)))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(text.to_owned())))
            }
            fn visit_string<E: de::Error>(self, text: String) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(text)))
            }
        }
        deserializer.deserialize_str(StrVisitor)
    }
}

/// A value of an `any` slot: read whole, checked as the full path checks
/// every value (keys unique, numbers interoperable), and not kept. Only
/// whether it was `null` is remembered: pre-1.0 admits `null` in these
/// slots, 1.x refuses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Any {
    /// The value was `null`.
    pub(super) null: bool,
}

impl Any {
    const VALUE: Any = Any { null: false };
}

/// An object open by key (`metadata`): read whole like an [`Any`], but
/// only a JSON object is taken, never `null`. Whether it holds the key
/// the protocol reserves (`ag-ui`) is remembered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Object {
    /// The object has the reserved key.
    pub(super) reserved: bool,
}

impl<'de> Deserialize<'de> for Object {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor;
        impl<'de> Visitor<'de> for ObjectVisitor {
            type Value = Object;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Object, A::Error> {
                let reserved = read_members(map)?;
                Ok(Object { reserved })
            }
        }
        deserializer.deserialize_map(ObjectVisitor)
    }
}

impl<'de> Deserialize<'de> for Any {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(AnyVisitor)
    }
}

struct AnyVisitor;

impl<'de> Visitor<'de> for AnyVisitor {
    type Value = Any;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Any, E> {
        Ok(Any::VALUE)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Any, E> {
        Ok(Any { null: true })
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Any, E> {
        interoperable(Number::from(n))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Any, E> {
        interoperable(Number::from(n))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Any, E> {
        // The parser never yields a NaN or an infinity; were it to, the
        // full path could not hold it in a `Value` either.
        Number::from_f64(n).map_or_else(|| Err(E::custom("not a finite number")), interoperable)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Any, E> {
        Ok(Any::VALUE)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Any, A::Error> {
        while seq.next_element::<Any>()?.is_some() {}
        Ok(Any::VALUE)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Any, A::Error> {
        read_members(map)?;
        Ok(Any::VALUE)
    }
}

fn interoperable<E: de::Error>(number: Number) -> Result<Any, E> {
    if is_interoperable(&number) {
        Ok(Any::VALUE)
    } else {
        Err(E::custom("a number the SDKs read differently"))
    }
}

/// Reads an object of `any` values, refusing a repeated key; says whether
/// the reserved metadata key is among its keys.
fn read_members<'de, A: MapAccess<'de>>(mut map: A) -> Result<bool, A::Error> {
    // Most objects are small: a list beats hashing until it is not.
    const LINEAR: usize = 16;
    let mut few: Vec<Str<'de>> = Vec::new();
    let mut many: HashSet<Str<'de>> = HashSet::new();
    let mut reserved = false;
    while let Some(key) = map.next_key::<Str<'de>>()? {
        reserved |= key.as_str() == RESERVED_METADATA_KEY;
        let repeated = if many.is_empty() && few.len() < LINEAR {
            let seen = few.contains(&key);
            few.push(key);
            seen
        } else {
            many.extend(few.drain(..));
            !many.insert(key)
        };
        if repeated {
            return Err(de::Error::custom("a repeated key"));
        }
        map.next_value::<Any>()?;
    }
    Ok(reserved)
}

/// The keys of an object that no version of the protocol defines for it
/// (`unknown-field` warnings): the first [`read_input`]'s `keep` of them,
/// and how many more there were. Their values are read as [`Any`], checked
/// as every value is, and dropped. Nothing is allocated for an object
/// without such keys.
#[derive(Debug, Default)]
pub(super) struct Unknown<'a>(Option<Box<UnknownKeys<'a>>>);

#[derive(Debug, Default)]
struct UnknownKeys<'a> {
    kept: Vec<Str<'a>>,
    more: usize,
    /// A seeded hash of every key met, which tells a repeated key. Two
    /// different keys with one hash are taken for a repeat too: the
    /// document then takes the full path, which is always right, and a
    /// client cannot aim at the seed.
    hashes: HashSet<u64>,
}

impl<'a> Unknown<'a> {
    /// Notes `key`; false when it was met before in this object.
    fn note(&mut self, key: Str<'a>) -> bool {
        let keys = self.0.get_or_insert_with(Box::default);
        if !keys.hashes.insert(KEY_HASHER.hash_one(key.as_str())) {
            return false;
        }
        if keys.kept.len() < KEPT_UNKNOWN.get() {
            keys.kept.push(key);
        } else {
            keys.more += 1;
        }
        true
    }

    /// Whether the object has no such key.
    pub(super) fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// The keys kept, in the order they were met.
    pub(super) fn kept(&self) -> &[Str<'a>] {
        self.0.as_ref().map_or(&[], |keys| &keys.kept)
    }

    /// How many more there were.
    pub(super) fn more(&self) -> usize {
        self.0.as_ref().map_or(0, |keys| keys.more)
    }
}

/// The seeded hasher of [`UnknownKeys::hashes`].
static KEY_HASHER: std::sync::LazyLock<foldhash::quality::RandomState> =
    std::sync::LazyLock::new(foldhash::quality::RandomState::default);

/// Defines a flat struct read from a JSON object only: each key of the
/// list at most once, each value read as its type (so a `null` is refused
/// unless the type takes it), and any other key noted in its
/// [`Unknown`], its value read as an [`Any`].
macro_rules! object {
    ($(#[$meta:meta])* $name:ident { $($(#[$field_meta:meta])* $field:ident: $ty:ty = $key:literal,)* }) => {
        $(#[$meta])*
        #[derive(Default)]
        pub(super) struct $name<'a> {
            $($(#[$field_meta])* pub(super) $field: Option<$ty>,)*
            /// The address of its first key's text when that key was
            /// borrowed from the input (no escapes), else 0: where the
            /// object is, for locating its findings ([`crate::locate::Anchors`]).
            pub(super) at: usize,
            /// The keys no version of the protocol defines here.
            pub(super) unknown: Unknown<'a>,
        }

        impl<'de> Deserialize<'de> for $name<'de> {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct StructVisitor;
                impl<'de> Visitor<'de> for StructVisitor {
                    type Value = $name<'de>;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str(concat!("a ", stringify!($name), " object"))
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                        let mut read = $name::default();
                        let mut first = true;
                        while let Some(key) = map.next_key::<Str<'de>>()? {
                            if first {
                                first = false;
                                if let Cow::Borrowed(text) = key.0 {
                                    read.at = text.as_ptr() as usize;
                                }
                            }
                            match key.as_str() {
                                $($key => {
                                    if read.$field.is_some() {
                                        return Err(de::Error::custom(concat!("repeated key '", $key, "'")));
                                    }
                                    read.$field = Some(map.next_value()?);
                                })*
                                _ => {
                                    if !read.unknown.note(key) {
                                        return Err(de::Error::custom("a repeated key"));
                                    }
                                    map.next_value::<Any>()?;
                                }
                            }
                        }
                        Ok(read)
                    }
                }
                deserializer.deserialize_map(StructVisitor)
            }
        }
    };
}

object! {
    /// The request body of a run.
    RunAgentInput {
        /// `threadId`.
        thread_id: Str<'a> = "threadId",
        /// `runId`.
        run_id: Str<'a> = "runId",
        /// `protocolVersion` (1.x).
        protocol_version: Str<'a> = "protocolVersion",
        /// `parentRunId`.
        parent_run_id: Str<'a> = "parentRunId",
        /// `state`.
        state: Any = "state",
        /// `messages`: held when few, else kept as their source text
        /// ([`Messages`]).
        messages: Messages<'a> = "messages",
        /// `tools`.
        tools: Vec<Tool<'a>> = "tools",
        /// `context`.
        context: Vec<Context<'a>> = "context",
        /// `forwardedProps`.
        forwarded_props: Any = "forwardedProps",
        /// `resume` (1.x).
        resume: Vec<ResumeEntry<'a>> = "resume",
    }
}

object! {
    /// An answer to an interrupt (1.x).
    ResumeEntry {
        /// `interruptId`.
        interrupt_id: Str<'a> = "interruptId",
        /// `status`.
        status: Str<'a> = "status",
        /// `payload`.
        payload: Any = "payload",
        /// `metadata`.
        metadata: Object = "metadata",
    }
}

object! {
    /// A message of any role: every key some role may carry.
    Message {
        /// `role`.
        role: Str<'a> = "role",
        /// `id`.
        id: Str<'a> = "id",
        /// `content`: text, parts or an object, depending on the role.
        content: Content<'a> = "content",
        /// `name`.
        name: Str<'a> = "name",
        /// `toolCalls`.
        tool_calls: Vec<ToolCall<'a>> = "toolCalls",
        /// `toolCallId`.
        tool_call_id: Str<'a> = "toolCallId",
        /// `error`.
        error: Str<'a> = "error",
        /// `encryptedValue`.
        encrypted_value: Str<'a> = "encryptedValue",
        /// `activityType`.
        activity_type: Str<'a> = "activityType",
        /// `encryptedValueType` (1.1).
        encrypted_value_type: Str<'a> = "encryptedValueType",
        /// `metadata` (1.x).
        metadata: Object = "metadata",
        /// `subagentRunId` (1.x).
        subagent_run_id: Str<'a> = "subagentRunId",
    }
}

object! {
    /// A tool call of an assistant message.
    ToolCall {
        /// `id`.
        id: Str<'a> = "id",
        /// `type`.
        kind: Str<'a> = "type",
        /// `function`.
        function: FunctionCall<'a> = "function",
        /// `encryptedValue`.
        encrypted_value: Str<'a> = "encryptedValue",
        /// `encryptedValueType` (1.1).
        encrypted_value_type: Str<'a> = "encryptedValueType",
        /// `metadata` (1.x).
        metadata: Object = "metadata",
    }
}

object! {
    /// The function a tool call names.
    FunctionCall {
        /// `name`.
        name: Str<'a> = "name",
        /// `arguments`.
        arguments: Str<'a> = "arguments",
    }
}

object! {
    /// A tool the client offers.
    Tool {
        /// `name`.
        name: Str<'a> = "name",
        /// `description`.
        description: Str<'a> = "description",
        /// `parameters`, as its source text.
        parameters: &'a RawValue = "parameters",
        /// `metadata` (1.x).
        metadata: Object = "metadata",
    }
}

object! {
    /// A piece of context.
    Context {
        /// `description`.
        description: Str<'a> = "description",
        /// `value`.
        value: Str<'a> = "value",
    }
}

object! {
    /// A content part of any type: every key some type may carry.
    Part {
        /// `type`.
        kind: Str<'a> = "type",
        /// `id` (1.x).
        id: Str<'a> = "id",
        /// `text`.
        text: Str<'a> = "text",
        /// `source`.
        source: Source<'a> = "source",
        /// `metadata`.
        metadata: Any = "metadata",
    }
}

object! {
    /// The source of a media part, of any type.
    Source {
        /// `type`.
        kind: Str<'a> = "type",
        /// `value`.
        value: Str<'a> = "value",
        /// `provider` (1.x, `file` sources).
        provider: Str<'a> = "provider",
        /// `mimeType`.
        mime_type: Str<'a> = "mimeType",
    }
}

/// A message's `content`, as whichever JSON type it is.
pub(super) enum Content<'a> {
    /// A string.
    Text(Str<'a>),
    /// An array of content parts.
    Parts(Vec<Part<'a>>),
    /// An object (of `any` values).
    Object,
}

impl<'de> Deserialize<'de> for Content<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor;
        impl<'de> Visitor<'de> for ContentVisitor {
            type Value = Content<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string, an array of content parts or an object")
            }
            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Str(Cow::Borrowed(text))))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Str(Cow::Owned(text.to_owned()))))
            }
            fn visit_string<E: de::Error>(self, text: String) -> Result<Self::Value, E> {
                Ok(Content::Text(Str(Cow::Owned(text))))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut parts = Vec::new();
                while let Some(part) = seq.next_element::<Part<'de>>()? {
                    parts.push(part);
                }
                Ok(Content::Parts(parts))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                read_members(map)?;
                Ok(Content::Object)
            }
        }
        deserializer.deserialize_any(ContentVisitor)
    }
}

thread_local! {
    /// How many unknown keys of one object [`Unknown`] keeps: more than a
    /// document reports are only counted. Set by every [`read_input`],
    /// and so the bound of the messages it leaves to be read later too.
    static KEPT_UNKNOWN: Cell<usize> = const { Cell::new(0) };
}
