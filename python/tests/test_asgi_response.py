"""The ASGI guard on the response side: the middleware checks the event
stream a FastAPI app answers with (``StreamingResponse``, sse-starlette's
``EventSourceResponse``), as the app sends
it, paired with the request it answers, passing every byte through
(``responses="report"``) or ending the stream with a ``RUN_ERROR`` at the
first error (``responses="enforce"``). The streams are the official 1.0
server's real answer to the official client's request, the official
``EventEncoder``'s output, and broken versions of them."""

from __future__ import annotations

import json
import logging
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple

from ag_ui.core import (
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder
from fastapi import FastAPI
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.testclient import TestClient

from agui_lint.asgi import Guard, GuardMiddleware, ResponseStats
from conftest import TRAFFIC

JSON = {"content-type": "application/json"}
REQUEST = (TRAFFIC / "chat.request.json").read_bytes()
ANSWER = (TRAFFIC / "chat.response.sse").read_bytes()


def chunks_of(body: bytes, size: int) -> List[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


def app_answering(guard: Guard, chunks: List[bytes], media_type: str = "text/event-stream") -> FastAPI:
    app = FastAPI()
    app.add_middleware(GuardMiddleware, guard=guard, paths=["/agent"])

    @app.post("/agent")
    def agent() -> Any:
        def stream() -> Iterator[bytes]:
            yield from chunks

        if media_type == "application/json":
            return JSONResponse({"not": "a stream"})
        return StreamingResponse(stream(), media_type=media_type)

    return app


def post(app: FastAPI, body: bytes = REQUEST) -> bytes:
    with TestClient(app) as client:
        response = client.post("/agent", content=body, headers=JSON)
        assert response.status_code == 200, response.text
        return response.content


def response_records(caplog: Any) -> List[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "agui_lint.response"]


def rules_of(caplog: Any) -> List[str]:
    return [r.agui_lint["rule"] for r in response_records(caplog) if "rule" in r.agui_lint]


def broken_answer() -> bytes:
    """The official server's answer with its TEXT_MESSAGE_START dropped:
    every delta and the end are for a message never opened."""
    events = [e for e in ANSWER.split(b"\n\n") if e.strip()]
    kept = [e for e in events if b'"TEXT_MESSAGE_START"' not in e]
    assert len(kept) == len(events) - 1
    return b"".join(e + b"\n\n" for e in kept)


def test_the_official_servers_answer_passes_unchanged_with_only_a_summary(caplog: Any) -> None:
    caplog.set_level(logging.INFO, logger="agui_lint")
    for size in (1, 13, 4096):
        caplog.clear()
        guard = Guard(responses="enforce")
        received = post(app_answering(guard, chunks_of(ANSWER, size)))
        assert received == ANSWER, f"chunks of {size}"
        assert rules_of(caplog) == []
        summary = response_records(caplog)[-1]
        assert summary.agui_lint["events"] == 11
        assert summary.agui_lint["run_id"] == json.loads(REQUEST)["runId"]
        assert guard.response_stats == ResponseStats(streams=1, events=11)


def test_report_logs_each_finding_with_its_context_and_passes_every_byte(caplog: Any) -> None:
    caplog.set_level(logging.INFO, logger="agui_lint")
    broken = broken_answer()
    seen: List[Tuple[str, Mapping[str, Any]]] = []
    guard = Guard(responses="report", on_finding=lambda d, context: seen.append((d.rule, context)))
    received = post(app_answering(guard, chunks_of(broken, 7)))
    assert received == broken
    rules = rules_of(caplog)
    assert rules and set(rules) == {"event-without-start"}, rules
    first = next(r for r in response_records(caplog) if "rule" in r.agui_lint)
    assert first.levelno == logging.ERROR
    assert first.agui_lint["pointer"] == "/messageId"
    assert first.agui_lint["event"] == 2
    assert first.agui_lint["thread_id"] == json.loads(REQUEST)["threadId"]
    assert [rule for rule, _ in seen] == rules
    stats = guard.response_stats
    assert (stats.streams, stats.errors, stats.streams_with_errors) == (1, len(rules), 1)


def encoded(events: List[Any]) -> List[bytes]:
    encoder = EventEncoder()
    return [encoder.encode(e).encode("utf-8") for e in events]


def test_enforce_ends_an_encoder_stream_with_a_run_error_naming_the_rule(caplog: Any) -> None:
    # A tool call started inside a text message that is never ended, then
    # the run finishes with both open.
    chunks = encoded(
        [
            RunStartedEvent(thread_id="t", run_id="r"),
            TextMessageStartEvent(message_id="m", role="assistant"),
            TextMessageContentEvent(message_id="m", delta="hi"),
            ToolCallStartEvent(tool_call_id="c", tool_call_name="lookup"),
            ToolCallEndEvent(tool_call_id="c"),
            ToolCallEndEvent(tool_call_id="c"),
            TextMessageEndEvent(message_id="m"),
            RunFinishedEvent(thread_id="t", run_id="r"),
        ]
    )
    request = json.dumps({"threadId": "t", "runId": "r", "state": {}, "messages": [],
                          "tools": [], "context": [], "forwardedProps": {}}).encode()
    guard = Guard(responses="enforce")
    text = post(app_answering(guard, chunks), request).decode("utf-8")
    events = [json.loads(e[len("data: "):]) for e in text.split("\n\n") if e.strip()]
    assert events[-1]["type"] == "RUN_ERROR"
    assert events[-1]["code"] == "agui-lint/event-without-start"
    assert "RUN_FINISHED" not in [e["type"] for e in events]
    assert text.endswith("\n\n")
    assert guard.response_stats.streams_ended == 1
    # Report passes the same stream whole.
    report = Guard(responses="report")
    assert post(app_answering(report, chunks), request) == b"".join(chunks)


def test_json_lines_answers_are_checked_as_json_lines(caplog: Any) -> None:
    caplog.set_level(logging.INFO, logger="agui_lint")
    lines = b"".join(
        json.dumps(json.loads(e[len(b"data: "):])).encode() + b"\n"
        for e in broken_answer().split(b"\n\n")
        if e.strip()
    )
    guard = Guard(responses="enforce")
    received = post(app_answering(guard, chunks_of(lines, 5), "application/x-ndjson"))
    last = json.loads(received.splitlines()[-1])
    assert last["code"] == "agui-lint/event-without-start"
    # What passed is the app's own bytes (a line cut short is ended first).
    passed = received[: received.rindex(b"\n", 0, len(received) - 1)]
    assert lines.startswith(passed.rstrip(b"\n"))


def test_the_request_is_paired_with_its_answer(caplog: Any) -> None:
    caplog.set_level(logging.INFO, logger="agui_lint")
    request = json.loads(REQUEST)
    request["protocolVersion"] = "1.0"
    # The answer's RUN_STARTED declares 1.1, newer than the request (and than
    # @ag-ui/client 1.0.0 speaks): warnings.
    newer = ANSWER.replace(b'"protocolVersion":"1.0"', b'"protocolVersion":"1.1"', 1)
    guard = Guard(responses="report")
    received = post(app_answering(guard, chunks_of(newer, 64)), json.dumps(request).encode())
    assert received == newer
    assert sorted(rules_of(caplog)) == ["client-older-than-stream", "protocol-version-mismatch"]
    assert guard.response_stats.warnings == 2
    # A request declaring a newer minor answered with the server's own
    # version, as the spec has it: silent.
    caplog.clear()
    request["protocolVersion"] = "1.2"
    quiet = Guard(responses="report")
    post(app_answering(quiet, chunks_of(ANSWER, 64)), json.dumps(request).encode())
    assert rules_of(caplog) == []
    assert quiet.response_stats.warnings == 0


def test_off_other_media_and_unsampled_streams_pass_unchecked(caplog: Any) -> None:
    caplog.set_level(logging.INFO, logger="agui_lint")
    broken = broken_answer()
    off = Guard()
    assert post(app_answering(off, [broken])) == broken
    assert off.response_stats == ResponseStats()
    report = Guard(responses="report")
    post(app_answering(report, [broken], "application/json"))
    assert report.response_stats == ResponseStats()
    sampled = Guard(responses="report", response_sampling=3)
    app = app_answering(sampled, [broken])
    for _ in range(6):
        assert post(app) == broken
    stats: Dict[str, int] = vars(sampled.response_stats)
    assert (stats["streams"], stats["sampled_out"]) == (2, 4)


def test_the_fastapi_example_checks_both_directions(caplog: Any) -> None:
    import importlib.util

    path = TRAFFIC.parents[2] / "python" / "examples" / "fastapi_server.py"
    spec = importlib.util.spec_from_file_location("fastapi_server", path)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    caplog.set_level(logging.INFO, logger="agui_lint")
    with TestClient(example.app) as client:
        answered = client.post("/agent", content=REQUEST, headers=JSON)
        assert answered.status_code == 200
        assert answered.text.startswith("data: ")
        refused = client.post("/agent", content=b'{"thread_id": "t"}', headers=JSON)
        assert refused.status_code == 422
    assert rules_of(caplog) == []
    summary = response_records(caplog)[-1]
    assert summary.agui_lint["events"] == 5 and summary.agui_lint["errors"] == 0
    assert example.guard.response_stats.streams == 1


def event_source_app(guard: Guard, events: List[Any], sep: Optional[str] = None) -> FastAPI:
    """An agent answering with sse-starlette's ``EventSourceResponse``,
    which frames events with CRLF unless told ``sep`` and names each with
    an ``event:`` line."""
    from sse_starlette.sse import EventSourceResponse

    app = FastAPI()
    app.add_middleware(GuardMiddleware, guard=guard, paths=["/agent"])

    @app.post("/agent")
    async def agent() -> Any:
        async def stream() -> Any:
            for event in events:
                yield {
                    "event": event.type.value,
                    "data": event.model_dump_json(by_alias=True, exclude_none=True),
                }

        return EventSourceResponse(stream(), sep=sep)

    return app


def test_sse_starlettes_event_source_response_is_checked_and_passed_unchanged(
    caplog: Any,
) -> None:
    caplog.set_level(logging.INFO, logger="agui_lint")
    ids = json.loads(REQUEST)
    started = RunStartedEvent(thread_id=ids["threadId"], run_id=ids["runId"], protocol_version="1.0")
    finished = RunFinishedEvent(thread_id=ids["threadId"], run_id=ids["runId"])
    correct = [
        started,
        TextMessageStartEvent(message_id="m1", role="assistant"),
        TextMessageContentEvent(message_id="m1", delta="hello"),
        TextMessageEndEvent(message_id="m1"),
        finished,
    ]
    guard = Guard(responses="report")
    received = post(event_source_app(guard, correct))
    assert b"\r\n" in received and b"event: RUN_STARTED" in received
    # sse-starlette's default CRLF framing: @ag-ui/client 1.0.0 splits events
    # on \n\n only and fails the run, so the guard reports it (bytes unchanged).
    assert rules_of(caplog) == ["sse-carriage-return"]
    assert guard.response_stats.streams == 1 and guard.response_stats.events == 5
    caplog.clear()
    guard = Guard(responses="report")
    received = post(event_source_app(guard, correct, sep="\n"))
    assert b"\r\n" not in received and b"event: RUN_STARTED" in received
    assert rules_of(caplog) == []
    assert guard.response_stats == ResponseStats(streams=1, events=5)

    # A tool call left open: reported, and the bytes still pass as sent.
    caplog.clear()
    broken = [started, ToolCallStartEvent(tool_call_id="c1", tool_call_name="search"), finished]
    unguarded = post(event_source_app(Guard(responses="off"), broken, sep="\n"))
    guard = Guard(responses="report")
    received = post(event_source_app(guard, broken, sep="\n"))
    assert received == unguarded
    assert rules_of(caplog) == ["run-finished-while-open"]
    assert guard.response_stats.streams_with_errors == 1


def long_stream(messages: int) -> Tuple[bytes, int]:
    """The official server's answer's run, then ``messages`` more text
    messages and a content event after its message ended (the error, near
    the end); its bytes and its number of events."""
    ids = json.loads(REQUEST)
    encoder = EventEncoder()
    events: List[Any] = [
        RunStartedEvent(thread_id=ids["threadId"], run_id=ids["runId"], protocol_version="1.0")
    ]
    for n in range(messages):
        events.append(TextMessageStartEvent(message_id=f"m{n}", role="assistant"))
        events.extend(TextMessageContentEvent(message_id=f"m{n}", delta="word ") for _ in range(8))
        events.append(TextMessageEndEvent(message_id=f"m{n}"))
    events.append(TextMessageContentEvent(message_id="m0", delta="late"))
    events.append(RunFinishedEvent(thread_id=ids["threadId"], run_id=ids["runId"]))
    return b"".join(encoder.encode(e).encode("utf-8") for e in events), len(events)


def test_report_checks_a_long_stream_chunk_by_chunk_as_a_whole_check_would(
    caplog: Any,
) -> None:
    import agui_lint

    caplog.set_level(logging.INFO, logger="agui_lint")
    body, count = long_stream(3_000)
    assert len(body) > 2 * (1 << 20)
    guard = Guard(responses="report")
    received = post(app_answering(guard, chunks_of(body, 997)))
    assert received == body
    whole = agui_lint.Validator().check_stream(body, request=REQUEST)
    expected = [d.rule for document in whole.documents for d in document.diagnostics]
    assert rules_of(caplog) == expected == ["event-without-start"]
    assert guard.response_stats == ResponseStats(streams=1, events=count, errors=1,
                                                 streams_with_errors=1)


def check_of(lagging: str) -> Any:
    """A ``"report"`` check of one stream, as the middleware makes it."""
    import agui_lint
    from agui_lint._response import ResponseCheck

    stats = ResponseStats(streams=1)
    logger = logging.getLogger("agui_lint.response")
    return ResponseCheck(agui_lint.Validator(), "sse", "/agent", REQUEST, "report", stats, logger,
                         None, lagging), stats


def test_with_lagging_stop_a_check_slower_than_its_stream_stops(caplog: Any) -> None:
    caplog.set_level(logging.INFO, logger="agui_lint")
    body, count = long_stream(3_000)
    # Fed back to back, as an agent with every event ready sends them: the
    # check is nearly all of the stream's time.
    check, stats = check_of("stop")
    for chunk in chunks_of(body, 100):
        check.feed(chunk)
    check.finish()
    assert (stats.streams_outpaced, stats.errors) == (1, 0), stats
    assert 0 < stats.events < count, stats
    warned = [r for r in response_records(caplog) if "stopped" in r.getMessage()]
    assert len(warned) == 1 and warned[0].levelno == logging.WARNING
    assert warned[0].agui_lint["run_id"] == json.loads(REQUEST)["runId"]
    # The default checks every byte, however fast the stream.
    caplog.clear()
    check, stats = check_of("wait")
    for chunk in chunks_of(body, 100):
        check.feed(chunk)
    check.finish()
    assert (stats.streams_outpaced, stats.events, stats.errors) == (0, count, 1), stats


def test_with_lagging_stop_a_paced_stream_is_checked_whole(caplog: Any) -> None:
    import time

    caplog.set_level(logging.INFO, logger="agui_lint")
    # Far longer than the check's allowance (1 ms of checking), paced as an
    # agent backed by a model is, far slower than the check.
    body, count = long_stream(3_000)
    check, stats = check_of("stop")
    # Chunks small against the pause between them: each is checked in a few
    # percent of the pause on a loaded machine, well inside the tenth.
    for chunk in chunks_of(body, 8 * 1024):
        check.feed(chunk)
        time.sleep(0.005)
    # The check took past its first millisecond: a stream it kept up with
    # only because of the pacing.
    assert check.spent > 0.001
    check.finish()
    assert (stats.streams_outpaced, stats.events, stats.errors) == (0, count, 1), stats
    assert rules_of(caplog) == ["event-without-start"]
    assert Guard(responses="report", response_lagging="stop").response_lagging == "stop"
