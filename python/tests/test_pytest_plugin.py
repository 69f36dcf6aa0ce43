"""The pytest plugin: an AG-UI exchange asserted in one line, on a FastAPI
app whose agent streams the official ``EventEncoder``'s output, correct and
broken; event dicts as the official models dump them; the fixture and its
marker in a test session of their own (pytester)."""

from __future__ import annotations

import json
from typing import Any, List

import pytest
from ag_ui.core import (
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from ag_ui.encoder import EventEncoder
from fastapi import FastAPI
from fastapi.responses import StreamingResponse
from fastapi.testclient import TestClient

from agui_lint.pytest_plugin import assert_exchange, check_exchange

REQUEST = {
    "threadId": "t",
    "runId": "r",
    "state": {},
    "messages": [{"id": "u1", "role": "user", "content": "hi"}],
    "tools": [],
    "context": [],
    "forwardedProps": {},
}


def correct_events() -> List[Any]:
    return [
        RunStartedEvent(thread_id="t", run_id="r"),
        TextMessageStartEvent(message_id="m", role="assistant"),
        TextMessageContentEvent(message_id="m", delta="hello"),
        TextMessageEndEvent(message_id="m"),
        RunFinishedEvent(thread_id="t", run_id="r"),
    ]


def broken_events() -> List[Any]:
    """A content event after its message ended, and no RUN_FINISHED."""
    events = correct_events()[:-1]
    events.append(TextMessageContentEvent(message_id="m", delta="late"))
    return events


def app_streaming(events: List[Any]) -> FastAPI:
    app = FastAPI()
    encoder = EventEncoder()

    @app.post("/agent")
    def agent() -> StreamingResponse:
        return StreamingResponse(
            (encoder.encode(e) for e in events), media_type=encoder.get_content_type()
        )

    return app


def exchange(events: List[Any]) -> Any:
    with TestClient(app_streaming(events)) as client:
        return client.post("/agent", json=REQUEST)


def test_a_correct_exchange_passes() -> None:
    result = assert_exchange(REQUEST, exchange(correct_events()))
    assert result.valid and result.errors == 0 and len(result) == 5


def test_a_broken_exchange_fails_with_the_clis_report() -> None:
    with pytest.raises(AssertionError) as failure:
        assert_exchange(REQUEST, exchange(broken_events()))
    report = str(failure.value)
    assert "error[event-without-start]" in report, report
    assert "error[stream-truncated]" in report, report
    assert "TEXT_MESSAGE_CONTENT for text message 'm', which is not open" in report
    # The human format's help and place.
    assert "help: " in report and "response:" in report


def test_event_dicts_as_the_official_models_dump_them() -> None:
    dicts = [e.model_dump(by_alias=True, exclude_none=True, mode="json") for e in correct_events()]
    assert_exchange(REQUEST, dicts)
    broken = [e.model_dump(by_alias=True, exclude_none=True, mode="json") for e in broken_events()]
    assert check_exchange(REQUEST, broken).errors == 2


def test_warnings_fail_only_when_strict() -> None:
    # The request declares 1.0, the run 1.1, newer than the request and than
    # @ag-ui/client 1.0.0 speaks: two warnings.
    request = dict(REQUEST, protocolVersion="1.0")
    events = correct_events()
    events[0] = RunStartedEvent(thread_id="t", run_id="r")
    response = exchange(events)
    stream = response.content.replace(b'"runId":"r"}', b'"runId":"r","protocolVersion":"1.1"}', 1)
    result = assert_exchange(request, stream)
    assert result.warnings == 2
    with pytest.raises(AssertionError, match=r"warning\[protocol-version-mismatch\]"):
        assert_exchange(request, stream, strict=True)


def test_an_invalid_request_fails_before_its_stream_is_read() -> None:
    request = dict(REQUEST)
    request["thread_id"] = request.pop("threadId")
    with pytest.raises(AssertionError) as failure:
        assert_exchange(request, exchange(correct_events()))
    # The CLI's human report, with the request's line and a caret, not JSON.
    report = str(failure.value)
    assert "request:1:" in report and "error[missing-field]" in report, report
    assert "^" in report and '"diagnostics"' not in report, report


def test_the_fixture_and_its_marker_in_a_session_of_their_own(pytester: Any) -> None:
    encoder = EventEncoder()
    good = "".join(encoder.encode(e) for e in correct_events())
    bad = "".join(encoder.encode(e) for e in broken_events())
    pytester.makepyfile(
        test_agent=f"""
import pytest

REQUEST = {json.dumps(json.dumps(REQUEST))}

def test_good(agui_exchange):
    agui_exchange.assert_exchange(REQUEST, {good!r})

def test_bad(agui_exchange):
    agui_exchange.assert_exchange(REQUEST, {bad!r})

@pytest.mark.agui_lint(protocol="1.0", strict=True)
def test_marker(agui_exchange):
    assert (agui_exchange.protocol, agui_exchange.strict) == ("1.0", True)
"""
    )
    outcome = pytester.runpytest("-p", "no:cacheprovider")
    outcome.assert_outcomes(passed=2, failed=1)
    outcome.stdout.fnmatch_lines(["*error[[]event-without-start[]]*"])
