#!/usr/bin/env python3
"""Check the 1.1 schema fixtures under ./fixtures against ./schema.json.

Each fixture is fixtures/<Definition>/<valid|invalid>/<name>.json and is
validated against the upstream schema's $defs/<Definition> alone (JSON Schema
Draft 2020-12, via a `referencing` registry holding schema.json). Checks:

  * every name in fixtures-MANIFEST.txt (minus the .expect.json lines) has
    exactly one document, and there is no document the manifest does not name;
  * every document is pretty-printed with a 2-space indent and ends in a newline;
  * valid/ documents are accepted; valid event documents are also accepted by
    the schema root (the Event union);
  * invalid/ documents are rejected FOR THE REASON THEIR NAME SAYS: the errors
    must include each (keyword, instanceLocation, text) listed in EXPECT below,
    and every top-level error must sit at, or above, the first expected
    instanceLocation, so nothing unrelated fails alongside.

Needs only the standard library and `jsonschema` (which brings `referencing`).
Exits 0 when every verdict is right, 1 otherwise.
"""
import json
import pathlib
import sys

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

HERE = pathlib.Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
SCHEMA = json.loads((HERE / "schema.json").read_text(encoding="utf-8"))
MANIFEST = HERE / "fixtures-MANIFEST.txt"
REGISTRY = Registry().with_resource(SCHEMA["$id"], Resource.from_contents(SCHEMA))

# invalid fixture -> [(keyword, instanceLocation, text the message must contain or None), ...]
# The first entry is the primary rule (for a union, the union's own oneOf, as upstream's
# fixture README asks); later entries are the branch rule the name is about.
EXPECT = {
    "ActivitySnapshotEvent/invalid/content-not-an-object": [("type", "/content", "'object'")],
    "AgentCapabilities/invalid/custom-null": [("type", "/custom", "None")],
    "AgentCapabilities/invalid/fractional-max-iterations": [("type", "/execution/maxIterations", "'integer'")],
    "AgentCapabilities/invalid/metadata-null": [("type", "/identity/metadata", "None")],
    "AgentCapabilities/invalid/old-subagents-key": [("unevaluatedProperties", "/multiAgent", "'subAgents'")],
    "AgentCapabilities/invalid/streaming-not-boolean": [("type", "/transport/streaming", "'boolean'")],
    "CustomEvent/invalid/name-missing": [("required", "", "'name'")],
    "CustomEvent/invalid/value-missing": [("required", "", "'value'")],
    "ExecutionCapabilities/invalid/max-iterations-over-maximum": [("maximum", "/maxIterations", None)],
    "ExecutionCapabilities/invalid/negative-max-execution-time": [("minimum", "/maxExecutionTime", None)],
    "FileSource/invalid/reference-record": [("type", "/value", "'string'")],
    "FileSource/invalid/value-missing": [("required", "", "'value'")],
    "Interrupt/invalid/reason-missing": [("required", "", "'reason'")],
    "MessagesSnapshotEvent/invalid/assistant-tool-call-not-a-tool-call": [
        ("oneOf", "/messages/0", None), ("type", "/messages/0/toolCalls/0", "'object'")],
    "MessagesSnapshotEvent/invalid/message-metadata-null": [
        ("oneOf", "/messages/0", None), ("type", "/messages/0/metadata", "None")],
    "MessagesSnapshotEvent/invalid/messages-item-not-a-message": [
        ("oneOf", "/messages/0", None), ("type", "/messages/0", "'object'")],
    "MessagesSnapshotEvent/invalid/role-shaped-like-a-tool-message": [
        ("oneOf", "/messages/0", None), ("const", "/messages/0/role", "'tool'"),
        ("unevaluatedProperties", "/messages/0", "'toolCallId'")],
    "MessagesSnapshotEvent/invalid/role-shaped-like-an-activity-message": [
        ("oneOf", "/messages/0", None), ("const", "/messages/0/role", "'activity'"),
        ("unevaluatedProperties", "/messages/0", "'activityType'")],
    "MessagesSnapshotEvent/invalid/role-shaped-like-an-assistant-message": [
        ("oneOf", "/messages/0", None), ("const", "/messages/0/role", "'assistant'"),
        ("unevaluatedProperties", "/messages/0", "'toolCalls'")],
    "MessagesSnapshotEvent/invalid/unknown-role": [
        ("oneOf", "/messages/0", None), ("const", "/messages/0/role", "'user'")],
    "MultiAgentCapabilities/invalid/old-subagents-key": [("unevaluatedProperties", "", "'subAgents'")],
    "RawEvent/invalid/event-missing": [("required", "", "'event'")],
    "ReasoningEncryptedValueEvent/invalid/unknown-subtype": [("enum", "/subtype", None)],
    "ReasoningMessageStartEvent/invalid/role-missing": [("required", "", "'role'")],
    "ResumeEntry/invalid/unknown-status": [("enum", "/status", None)],
    "RunAgentInput/invalid/context-item-not-a-context": [("type", "/context/0", "'object'")],
    "RunAgentInput/invalid/messages-item-not-a-message": [
        ("oneOf", "/messages/0", None), ("type", "/messages/0", "'object'")],
    "RunAgentInput/invalid/messages-missing": [("required", "", "'messages'")],
    "RunAgentInput/invalid/resume-item-not-a-resume-entry": [("type", "/resume/0", "'object'")],
    "RunAgentInput/invalid/tools-item-not-a-tool": [("type", "/tools/0", "'object'")],
    "RunErrorEvent/invalid/usage-item-not-a-token-usage": [("type", "/usage/0", "'object'")],
    "RunFinishedEvent/invalid/outcome-cancelled-carrying-interrupts": [
        ("oneOf", "/outcome", None), ("unevaluatedProperties", "/outcome", "'interrupts'")],
    "RunFinishedEvent/invalid/outcome-interrupt-carrying-pending-tool-call-ids": [
        ("oneOf", "/outcome", None), ("unevaluatedProperties", "/outcome", "('pendingToolCallIds' was unexpected)")],
    "RunFinishedEvent/invalid/outcome-interrupt-item-not-an-interrupt": [
        ("oneOf", "/outcome", None), ("type", "/outcome/interrupts/0", "'object'")],
    "RunFinishedEvent/invalid/outcome-interrupt-with-no-interrupts": [
        ("oneOf", "/outcome", None), ("minItems", "/outcome/interrupts", None)],
    "RunFinishedEvent/invalid/outcome-null": [("oneOf", "/outcome", None), ("type", "/outcome", "None")],
    "RunFinishedEvent/invalid/outcome-success-carrying-interrupts": [
        ("oneOf", "/outcome", None), ("unevaluatedProperties", "/outcome", "'interrupts'")],
    "RunFinishedEvent/invalid/outcome-success-pending-tool-call-id-not-a-string": [
        ("oneOf", "/outcome", None), ("type", "/outcome/pendingToolCallIds/0", "'string'")],
    "RunFinishedEvent/invalid/usage-item-not-a-token-usage": [("type", "/usage/0", "'object'")],
    "RunFinishedEvent/invalid/usage-negative-cache-write-count": [("minimum", "/usage/0/cacheWriteInputTokens", None)],
    "RunFinishedEvent/invalid/usage-negative-token-count": [("minimum", "/usage/0/inputTokens", None)],
    "StateDeltaEvent/invalid/delta-not-an-array": [("type", "/delta", "'array'")],
    "StateDeltaEvent/invalid/patch-add-without-value": [("oneOf", "/delta/0", None), ("required", "/delta/0", "'value'")],
    "StateDeltaEvent/invalid/patch-copy-without-from": [("oneOf", "/delta/0", None), ("required", "/delta/0", "'from'")],
    "StateDeltaEvent/invalid/patch-move-without-from": [("oneOf", "/delta/0", None), ("required", "/delta/0", "'from'")],
    "StateDeltaEvent/invalid/patch-path-missing": [("oneOf", "/delta/0", None), ("required", "/delta/0", "'path'")],
    "StateDeltaEvent/invalid/patch-pointer-bad-tilde-escape": [("oneOf", "/delta/0", None), ("pattern", "/delta/0/path", "~2")],
    "StateDeltaEvent/invalid/patch-pointer-without-leading-slash": [("oneOf", "/delta/0", None), ("pattern", "/delta/0/path", None)],
    "StateDeltaEvent/invalid/patch-replace-without-value": [("oneOf", "/delta/0", None), ("required", "/delta/0", "'value'")],
    "StateDeltaEvent/invalid/patch-test-without-value": [("oneOf", "/delta/0", None), ("required", "/delta/0", "'value'")],
    "StateDeltaEvent/invalid/patch-unknown-op": [("oneOf", "/delta/0", None), ("const", "/delta/0/op", None)],
    "StateSnapshotEvent/invalid/snapshot-missing": [("required", "", "'snapshot'")],
    "SubagentErrorEvent/invalid/code-null": [("type", "/code", "None")],
    "SubagentFinishedEvent/invalid/outcome-null": [("oneOf", "/outcome", None), ("type", "/outcome", "None")],
    "SubagentFinishedEvent/invalid/outcome-success-carrying-interrupt-ids": [
        ("oneOf", "/outcome", None), ("unevaluatedProperties", "/outcome", "'interruptIds'")],
    "SubagentFinishedEvent/invalid/outcome-suspended-interrupt-id-not-a-string": [
        ("oneOf", "/outcome", None), ("type", "/outcome/interruptIds/0", "'string'")],
    "SubagentInfo/invalid/name-missing": [("required", "", "'name'")],
    "SubagentStartedEvent/invalid/description-null": [("type", "/description", "None")],
    "SubagentStartedEvent/invalid/name-missing": [("required", "", "'name'")],
    "TextMessageContentEvent/invalid/delta-missing": [("required", "", "'delta'")],
    "TextMessageContentEvent/invalid/delta-not-a-string": [("type", "/delta", "'string'")],
    "TextMessageContentEvent/invalid/metadata-null": [("type", "/metadata", "None")],
    "TextMessageContentEvent/invalid/subagent-run-id-null": [("type", "/subagentRunId", "None")],
    "TextMessageEndEvent/invalid/raw-event-null": [("not", "/rawEvent", None)],
    "TextMessageEndEvent/invalid/timestamp-above-safe-integer": [("maximum", "/timestamp", None)],
    "TextMessageEndEvent/invalid/timestamp-below-safe-integer": [("minimum", "/timestamp", None)],
    "TextMessageEndEvent/invalid/timestamp-float": [("type", "/timestamp", "'integer'")],
    "TextMessageEndEvent/invalid/unknown-property": [("unevaluatedProperties", "", "'finishReason'")],
    "Tool/invalid/name-missing": [("required", "", "'name'")],
    "ToolCallChunkEvent/invalid/parent-message-id-null": [("type", "/parentMessageId", "None")],
    "ToolCallResultEvent/invalid/content-object": [("oneOf", "/content", None), ("type", "/content", "'array'")],
    "ToolCallResultEvent/invalid/content-part-unknown-type": [
        ("oneOf", "/content", None), ("oneOf", "/content/0", None), ("const", "/content/0/type", "'text'")],
    "ToolCallResultEvent/invalid/role-not-tool": [("const", "/role", "'tool'")],
    "ToolCallStartEvent/invalid/parent-message-id-null": [("type", "/parentMessageId", "None")],
    "ToolMessage/invalid/content-object": [("oneOf", "/content", None), ("type", "/content", "'array'")],
    "ToolMessage/invalid/content-part-unknown-type": [
        ("oneOf", "/content", None), ("oneOf", "/content/0", None), ("const", "/content/0/type", "'text'")],
    "ToolMessage/invalid/tool-call-id-missing": [("required", "", "'toolCallId'")],
    "UserMessage/invalid/content-missing": [("required", "", "'content'")],
    "UserMessage/invalid/content-number": [("oneOf", "/content", None), ("type", "/content", "'string'")],
    "UserMessage/invalid/content-part-not-an-object": [
        ("oneOf", "/content", None), ("oneOf", "/content/0", None), ("type", "/content/0", "'object'")],
    "UserMessage/invalid/file-source-value-missing": [
        ("oneOf", "/content", None), ("oneOf", "/content/0/source", None), ("required", "/content/0/source", "'value'")],
    "UserMessage/invalid/legacy-binary-part": [
        ("oneOf", "/content", None), ("oneOf", "/content/0", None), ("const", "/content/0/type", "'image'"),
        ("unevaluatedProperties", "/content/0", "'data'")],
    "UserMessage/invalid/part-shaped-like-media-with-unknown-type": [
        ("oneOf", "/content", None), ("oneOf", "/content/0", None), ("const", "/content/0/type", "'image'")],
    "UserMessage/invalid/part-shaped-like-text-with-unknown-type": [
        ("oneOf", "/content", None), ("oneOf", "/content/0", None), ("const", "/content/0/type", "'text'")],
}


def pointer(error):
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in error.absolute_path)


def tree(errors):
    for e in errors:
        yield e
        yield from tree(e.context)


def at_or_above(loc, target):
    return loc == target or target.startswith(loc + "/") or loc == ""


def validator(ref):
    return Draft202012Validator({"$ref": SCHEMA["$id"] + ref}, registry=REGISTRY)


def main():
    failures = []
    names = [l.strip() for l in MANIFEST.read_text(encoding="utf-8").splitlines()
             if l.strip() and not l.startswith("#") and not l.strip().endswith(".expect.json")]
    on_disk = sorted(str(p.relative_to(FIXTURES)).replace("\\", "/") for p in FIXTURES.rglob("*.json"))
    for n in sorted(set(names) - set(on_disk)):
        failures.append(f"{n}: named in the manifest but missing")
    for n in sorted(set(on_disk) - set(names)):
        failures.append(f"{n}: on disk but not in the manifest")
    if len(names) != len(set(names)):
        failures.append("manifest names a fixture twice")

    root = validator("")
    counts = {"valid": 0, "invalid": 0}
    for name in on_disk:
        key = name[:-len(".json")]
        definition, verdict = key.split("/")[0:2]
        text = (FIXTURES / name).read_text(encoding="utf-8")
        try:
            doc = json.loads(text)
        except ValueError as e:
            failures.append(f"{key}: not JSON: {e}")
            continue
        if text != json.dumps(doc, indent=2, ensure_ascii=False) + "\n":
            failures.append(f"{key}: not pretty-printed with a 2-space indent and a trailing newline")
        if definition not in SCHEMA["$defs"]:
            failures.append(f"{key}: no $defs/{definition} in the schema")
            continue
        errors = list(validator("#/$defs/" + definition).iter_errors(doc))
        counts[verdict] = counts.get(verdict, 0) + 1
        if verdict == "valid":
            for e in errors:
                failures.append(f"{key}: rejected at {pointer(e)!r}: {e.message}")
            if definition.endswith("Event"):
                for e in root.iter_errors(doc):
                    failures.append(f"{key}: rejected by the schema root at {pointer(e)!r}: {e.message}")
            continue
        if verdict != "invalid":
            failures.append(f"{key}: folder is neither valid nor invalid")
            continue
        if not errors:
            failures.append(f"{key}: accepted, but should be rejected")
            continue
        expected = EXPECT.get(key)
        if not expected:
            failures.append(f"{key}: no expected reason recorded in EXPECT")
            continue
        everything = list(tree(errors))
        for kw, loc, text_ in expected:
            if not any(e.validator == kw and pointer(e) == loc and (text_ is None or text_ in e.message)
                       for e in everything):
                failures.append(f"{key}: no {kw!r} error at {loc!r}" + (f" mentioning {text_}" if text_ else ""))
        primary = expected[0][1]
        for e in errors:
            if not at_or_above(pointer(e), primary):
                failures.append(f"{key}: unrelated error at {pointer(e)!r}: {e.message}")
    for k in sorted(set(EXPECT) - {n[:-5] for n in on_disk if "/invalid/" in n}):
        failures.append(f"{k}: in EXPECT but no such invalid fixture")

    for f in failures:
        print("FAIL", f)
    total = counts["valid"] + counts["invalid"]
    print(f"{total} fixtures ({counts['valid']} valid, {counts['invalid']} invalid); "
          f"manifest names {len(names)}; {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
