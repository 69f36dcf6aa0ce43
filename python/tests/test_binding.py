"""The binding over the Rust library: verdicts, every kind, streams,
settings, the registry, the JSON document, and use from many threads."""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List

import pytest

import agui_lint
from conftest import FIXTURES, REPO, TRAFFIC, body_of, traffic_requests

RULE_NAMES = {rule.name for rule in agui_lint.rules()}


def rule_of(fixture: Path) -> str:
    """The rule an invalid fixture is named after: the longest rule name its
    file name starts with."""
    names = [n for n in RULE_NAMES if fixture.stem == n or fixture.stem.startswith(n + "-")]
    assert names, f"{fixture.name} is named after no rule"
    return max(names, key=len)


def test_the_official_clients_requests_are_valid_and_judged_as_1_0(validator):
    for path in traffic_requests():
        result = validator.check_run_agent_input(path.read_bytes())
        assert result.valid, (path.name, result.diagnostics)
        assert result.errors == 0
        assert result.protocol == "1.0"
        assert result.kind == "run-agent-input"


def test_bytes_str_bytearray_and_memoryview_get_one_verdict(validator, bad_bodies):
    body = bad_bodies["tool-result-without-call"]
    expected = validator.check_run_agent_input(body).to_json()
    for form in (body, body.decode("utf-8"), bytearray(body), memoryview(body)):
        assert validator.check_run_agent_input(form).to_json() == expected
    with pytest.raises(TypeError, match="bytes or str"):
        validator.check_run_agent_input(42)


@pytest.mark.parametrize(
    "rule", ["tool-result-without-call", "missing-field", "null-for-optional", "invalid-json"]
)
def test_bad_bodies_are_refused_with_located_findings(validator, bad_bodies, rule):
    result = validator.check_run_agent_input(bad_bodies[rule])
    assert not result.valid
    assert not result
    assert result.errors >= 1
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert rule in {d.rule for d in errors}, result.diagnostics
    finding = next(d for d in errors if d.rule == rule)
    assert isinstance(finding.message, str) and finding.message
    assert isinstance(finding.pointer, str)
    assert finding.line == 1 and finding.column >= 1
    as_dict = finding.to_dict()
    assert as_dict["rule"] == rule and as_dict["line"] == finding.line
    assert json.loads(finding.to_json())["pointer"] == finding.pointer


def test_orphan_tool_result_points_at_the_call_id(validator, bad_bodies):
    result = validator.check_run_agent_input(bad_bodies["tool-result-without-call"])
    finding = next(d for d in result.diagnostics if d.rule == "tool-result-without-call")
    assert finding.pointer.endswith("/toolCallId")
    assert "call_nobody_made" in finding.message


def test_snake_case_key_is_a_warning_with_the_intended_key(validator, bad_bodies):
    result = validator.check_run_agent_input(bad_bodies["missing-field"])
    unknown = [d for d in result.diagnostics if d.rule == "unknown-field"]
    assert unknown and unknown[0].severity == "warning"
    assert unknown[0].pointer == "/thread_id"
    assert "threadId" in (unknown[0].help or "") + unknown[0].message
    assert result.warnings >= 1


def test_related_places_are_reported(validator):
    body = b'{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user","content":"a"},{"id":"m","role":"user","content":"b"}]}'
    result = validator.check_run_agent_input(body)
    finding = next(d for d in result.diagnostics if d.rule == "duplicate-message-id")
    assert finding.related, finding
    related = finding.related[0]
    assert related.pointer.startswith("/messages/0")
    assert related.line == 1 and related.column >= 1
    assert related.to_dict()["pointer"] == related.pointer


def kind_dirs() -> List[Path]:
    """The folders of fixtures/1.1 named after a kind; every kind has one.

    The others (auto/, streams/, conformance/) hold documents checked in
    other ways.
    """
    kinds = set(agui_lint.kinds())
    dirs = [d for d in sorted((FIXTURES / "1.1").iterdir()) if d.is_dir() and d.name in kinds]
    assert {d.name for d in dirs} == kinds, "a kind without fixtures"
    return dirs


@pytest.mark.parametrize("kind_dir", kind_dirs(), ids=lambda d: d.name)
def test_every_kind_valid_and_invalid_fixtures(validator, kind_dir):
    valid = sorted((kind_dir / "valid").glob("*.json"))
    invalid = sorted((kind_dir / "invalid").glob("*.json"))
    assert valid or invalid, f"no fixtures for {kind_dir.name}"
    for path in valid:
        result = validator.validate(kind_dir.name, path.read_bytes())
        assert result.valid, (path, result.diagnostics)
        assert result.kind == kind_dir.name
    for path in invalid:
        result = seen_by(validator, path).validate(kind_dir.name, path.read_bytes())
        assert rule_of(path) in {d.rule for d in result.diagnostics}, (path, result.diagnostics)


def seen_by(validator: agui_lint.Validator, fixture: Path) -> agui_lint.Validator:
    """The validator a fixture is checked with: one seen through the official
    client a ``client-<rule>-<profile>`` fixture names, else ``validator``."""
    if not fixture.stem.startswith("client-"):
        return validator
    return agui_lint.Validator(protocol="1.1", client=fixture.stem.rsplit("-", 1)[1])


def test_a_client_profile_is_a_setting_and_a_wrong_one_is_refused():
    fixture = FIXTURES / "1.1" / "run-agent-input" / "invalid" / "client-flattens-content-0.0.39.json"
    seen = agui_lint.Validator(client="0.0.39").check_run_agent_input(fixture.read_bytes())
    assert [d.rule for d in seen.diagnostics] == ["client-flattens-content"]
    plain = agui_lint.Validator().check_run_agent_input(fixture.read_bytes())
    assert len(plain.diagnostics) == 0, plain.to_json()
    # Any version is judged as its era's profile: 0.0.38 flattens as 0.0.39 does.
    older = agui_lint.Validator(client="0.0.38").check_run_agent_input(fixture.read_bytes())
    assert [d.rule for d in older.diagnostics] == ["client-flattens-content"]
    with pytest.raises(ValueError, match="is not a version of @ag-ui/client"):
        agui_lint.Validator(client="latest")


def test_kind_auto_tells_the_kind_and_unknown_kinds_are_refused(validator):
    result = validator.validate("auto", b'{"id":"m","role":"user","content":"hi"}')
    assert result.valid and result.kind == "message"
    with pytest.raises(ValueError, match="unknown kind"):
        validator.validate("mesage", b"{}")


def test_streams_sse_and_jsonl(validator):
    sse = validator.check_stream((TRAFFIC / "chat.response.sse").read_bytes(), format="sse")
    assert sse.valid, sse.to_json()
    assert len(sse) == len(sse.documents) >= 3
    assert [d.record for d in sse.documents] == list(range(1, len(sse) + 1))
    assert all(d.kind == "event" for d in sse.documents)
    for path in sorted(TRAFFIC.glob("events-*.jsonl")):
        stream = validator.check_stream(path.read_bytes(), format="jsonl")
        assert stream.valid, (path.name, stream.to_json())
        assert all(d.protocol == "1.0" for d in stream.documents)


def test_a_broken_stream_is_judged_as_one_stream(validator):
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hi"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    jsonl = "\n".join(json.dumps(e) for e in events) + "\n"
    stream = validator.check_stream(jsonl, format="jsonl")
    assert not stream.valid and stream.errors >= 1
    bad = stream.documents[1]
    assert bad.record == 2 and not bad.valid
    document = json.loads(stream.to_json())
    assert document["summary"]["documents"] == 3
    assert document["documents"][1]["record"] == 2
    assert json.loads(bad.to_json("run.jsonl"))["documents"][0]["record"] == 2
    sse = "".join(f"data: {json.dumps(e)}\n\n" for e in events)
    assert not validator.check_stream(sse).valid
    with pytest.raises(ValueError, match="stream format"):
        validator.check_stream(jsonl, format="xml")


def test_a_stream_fed_in_chunks_finds_what_the_whole_stream_finds(validator):
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hi"},
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
    ]
    sse = "".join(f"data: {json.dumps(e)}\r\n\r\n" for e in events).encode()
    whole = validator.check_stream(sse, format="sse")
    expected = [(d.record, [f.rule for f in d.diagnostics]) for d in whole.documents if d.diagnostics]
    # Two records' findings, and the stream's framing (CRLF, which
    # @ag-ui/client 1.0.0 cannot split), watched across the chunks too.
    assert len(expected) == 3 and expected[-1] == (None, ["sse-carriage-return"])
    for size in (1, 7, 64, len(sse)):
        checker = agui_lint.StreamChecker(validator, format="auto")
        found = []
        for at in range(0, len(sse), size):
            found += checker.feed(sse[at : at + size])
        assert checker.records == 3
        found += checker.finish()
        assert checker.records == 3  # kept once finished
        assert [(d.record, [f.rule for f in d.diagnostics]) for d in found] == expected
        with pytest.raises(RuntimeError, match="finished"):
            checker.feed(b"data: {}\n\n")


def test_a_binary_capture_is_judged_as_its_json_twin_whole_or_in_chunks(validator):
    binary = (REPO / "tests" / "data" / "proto" / "captures" / "fixtures-1.1-invalid" / "step-started-twice.aguipb").read_bytes()
    twin = (FIXTURES / "1.1" / "streams" / "invalid" / "step-started-twice.jsonl").read_bytes()

    def rules(documents):
        return sorted(f.rule for d in documents for f in d.diagnostics)

    expected = rules(validator.check_stream(twin, format="jsonl").documents)
    assert "step-started-twice" in expected
    assert rules(validator.check_stream(binary, format="proto").documents) == expected
    assert rules(validator.check_stream(binary, format="auto").documents) == expected  # a zero first byte
    checker = agui_lint.StreamChecker(validator, format="proto")
    found = []
    for at in range(0, len(binary), 5):
        found += checker.feed(binary[at : at + 5])
    found += checker.finish()
    assert rules(found) == expected
    cut = validator.check_stream(binary[:-3], format="proto")
    assert "proto-frame-truncated" in rules(cut.documents)


def test_a_finished_checker_counts_the_record_only_the_end_made_final(validator):
    lines = b'{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}\n{"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}'
    checker = agui_lint.StreamChecker(validator, format="jsonl")
    assert checker.feed(lines) == []
    assert checker.records == 1  # the last line may go on
    assert checker.finish() == []
    assert checker.records == 2


def test_a_stream_checker_pairs_the_stream_with_its_request(validator):
    request = {
        "threadId": "t", "runId": "r", "state": {}, "tools": [], "context": [],
        "forwardedProps": {},
        "messages": [{"id": "a", "role": "assistant", "toolCalls": [
            {"id": "call-1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}],
    }
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "call-1", "content": "ok"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    jsonl = "".join(json.dumps(e) + "\n" for e in events)
    alone = agui_lint.StreamChecker(validator, format="jsonl")
    assert alone.feed(jsonl) + alone.finish()
    paired = agui_lint.StreamChecker(validator, format="jsonl", request=json.dumps(request))
    assert paired.feed(jsonl) + paired.finish() == []
    with pytest.raises(ValueError, match="not JSON"):
        agui_lint.StreamChecker(validator, request="{")
    with pytest.raises(ValueError, match="stream format"):
        agui_lint.StreamChecker(validator, format="har")


def test_to_json_is_the_documented_document(validator, bad_bodies):
    result = validator.check_run_agent_input(bad_bodies["tool-result-without-call"])
    document = json.loads(result.to_json("/agent"))
    assert document["tool"] == "agui-lint"
    assert document["version"] == agui_lint.__version__
    (only,) = document["documents"]
    assert only["path"] == "/agent" and only["record"] is None
    assert only["kind"] == "run-agent-input" and only["protocol"] == "1.0"
    assert only["valid"] is False
    assert [d["rule"] for d in only["diagnostics"]] == [d.rule for d in result.diagnostics]
    assert document["summary"]["errors"] == result.errors
    assert json.loads(result.to_json())["documents"][0]["path"] == "-"


@pytest.mark.parametrize("rule", ["tool-result-without-call", "null-for-optional", "invalid-json"])
def test_to_json_is_byte_for_byte_what_the_cli_prints(
    validator, bad_bodies, tmp_path, rule, agui_lint_cli
):
    path = tmp_path / "request.json"
    path.write_bytes(bad_bodies[rule])
    run = subprocess.run(
        [str(agui_lint_cli), "check", "--format", "json", "--kind", "run-agent-input", str(path)],
        capture_output=True,
        check=False,
    )
    assert run.returncode == 1, run.stderr
    assert run.stdout.decode("utf-8") == validator.check_run_agent_input(path.read_bytes()).to_json(
        str(path)
    )


def test_settings_select_ignore_severity_and_mask(bad_bodies):
    body = bad_bodies["tool-result-without-call"]
    assert agui_lint.Validator(ignore=["tool-result-without-call"]).check_run_agent_input(body).valid
    only = agui_lint.Validator(select=["unknown-field"]).check_run_agent_input(body)
    assert only.valid and only.diagnostics == []
    softened = agui_lint.Validator(severity={"tool-result-without-call": "warning"})
    result = softened.check_run_agent_input(body)
    assert result.valid and result.warnings == 1
    masked = agui_lint.Validator(mask_values=True).check_run_agent_input(body)
    assert all("call_nobody_made" not in d.message for d in masked.diagnostics)
    with pytest.raises(ValueError, match="unknown rule"):
        agui_lint.Validator(select=["tool-result-without-cal"])
    with pytest.raises(ValueError, match="severity"):
        agui_lint.Validator(severity={"missing-field": "fatal"})


def test_protocol_setting_judges_undeclared_documents_only(chat_request):
    undeclared = dict(chat_request)
    del undeclared["protocolVersion"]
    assert agui_lint.Validator().check_run_agent_input(body_of(undeclared)).protocol == "1.1"
    assert agui_lint.Validator(protocol="1.0").check_run_agent_input(body_of(undeclared)).protocol == "1.0"
    assert agui_lint.Validator(protocol="0").check_run_agent_input(body_of(chat_request)).protocol == "1.0"
    with pytest.raises(ValueError):
        agui_lint.Validator(protocol="2")
    assert agui_lint.PROTOCOLS == ["1.1", "1.0", "0"]


def test_config_file(tmp_path, bad_bodies):
    config = tmp_path / "agui-lint.toml"
    config.write_text('protocol = "1.0"\nignore = ["tool-result-without-call"]\n')
    validator = agui_lint.Validator(config=config)
    assert validator.check_run_agent_input(bad_bodies["tool-result-without-call"]).valid
    assert validator.check_run_agent_input(b'{"threadId":"t","runId":"r","messages":[]}').protocol == "1.0"
    assert agui_lint.Validator(config=str(config), protocol="1.1").check_run_agent_input(
        b'{"threadId":"t","runId":"r","messages":[]}'
    ).protocol == "1.1"
    config.write_text('ignore = ["no-such-rule"]\n')
    with pytest.raises(ValueError, match="no-such-rule"):
        agui_lint.Validator(config=config)
    with pytest.raises(ValueError):
        agui_lint.Validator(config=tmp_path / "missing.toml")


def test_rules_registry_with_docs():
    rules = agui_lint.rules()
    names = [r.name for r in rules]
    assert len(names) == len(set(names)) >= 20
    for name in ("tool-result-without-call", "null-for-optional", "unknown-field", "invalid-json"):
        assert name in names
    for rule in rules:
        assert rule.severity in ("error", "warning", "info")
        assert rule.summary and rule.docs
        assert rule.protocols and set(rule.protocols) <= set(agui_lint.PROTOCOLS)
    retired = next(r for r in rules if r.name == "retired-shape")
    assert "0" not in retired.protocols


def test_one_validator_from_many_threads(validator, bad_bodies):
    bodies: Dict[str, bytes] = dict(bad_bodies)
    for path in traffic_requests():
        bodies[path.name] = path.read_bytes()
    expected = {name: validator.check_run_agent_input(body).to_json() for name, body in bodies.items()}
    work = [name for name in sorted(bodies) for _ in range(40)]

    def check(name: str) -> bool:
        return validator.check_run_agent_input(bodies[name]).to_json() == expected[name]

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(check, work))
    assert len(outcomes) == len(work) and all(outcomes)


def test_validators_are_built_in_threads_too():
    with ThreadPoolExecutor(max_workers=4) as pool:
        built = list(pool.map(lambda _: agui_lint.Validator(protocol="1.0"), range(8)))
    assert all(v.check_run_agent_input(b'{"threadId":"t","runId":"r","messages":[]}').protocol == "1.0" for v in built)


def test_the_python_package_is_typed():
    package = Path(agui_lint.__file__).parent
    assert (package / "py.typed").is_file()
    assert (package / "_agui_lint.pyi").is_file()
    for name in agui_lint.__all__:
        assert getattr(agui_lint, name) is not None
    for item in (agui_lint.Validator, agui_lint.Result, agui_lint.Diagnostic, agui_lint.rules):
        assert item.__doc__


def test_check_run_agent_input_is_validate_of_the_kind(validator, bad_bodies):
    for body in bad_bodies.values():
        assert (
            validator.check_run_agent_input(body).to_json()
            == validator.validate("run-agent-input", body).to_json()
        )


def test_the_package_docstring_examples_hold():
    import doctest

    failed, attempted = doctest.testmod(agui_lint, verbose=False)
    assert attempted >= 2 and failed == 0


def test_the_stream_checkers_of_one_validator_share_one_state_total():
    shared = agui_lint.Validator(max_state_size=1 << 20, max_total_state_size=1 << 20)
    state = {f"key-{i:05}": "v" for i in range(3000)}
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "STATE_SNAPSHOT", "snapshot": state},
        {"type": "STEP_STARTED", "stepName": "s"},
    ]
    jsonl = "".join(json.dumps(e) + "\n" for e in events)

    def over(results):
        return [d.message for r in results for d in r.diagnostics if d.rule == "state-over-budget"]

    # Two streams open at once fit the total; a third does not, until one
    # of the two ends and gives its share back.
    a = agui_lint.StreamChecker(shared, format="jsonl")
    b = agui_lint.StreamChecker(shared, format="jsonl")
    c = agui_lint.StreamChecker(shared, format="jsonl")
    assert over(a.feed(jsonl)) == []
    assert over(b.feed(jsonl)) == []
    (message,) = over(c.feed(jsonl))
    assert "streams checked at once may hold in all" in message
    a.finish()
    assert over(c.feed(json.dumps(events[1]) + "\n" + json.dumps(events[2]) + "\n")) == []
    # Each stream alone fits its own limit.
    alone = agui_lint.StreamChecker(agui_lint.Validator(max_state_size=1 << 20), format="jsonl")
    assert over(alone.feed(jsonl)) == []
