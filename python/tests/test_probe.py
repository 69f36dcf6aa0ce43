"""`agui-lint probe URL` against FastAPI apps served by uvicorn on
127.0.0.1: the example app (official ``EventEncoder``, guarded both ways)
is clean; an app whose agent leaves a tool call open, and one framing its
stream with CRLF, are reported; the saved session checks the same."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path
from typing import Any, Iterator, List, Tuple

import pytest
from ag_ui.core import RunAgentInput, RunFinishedEvent, RunStartedEvent, ToolCallStartEvent
from ag_ui.encoder import EventEncoder
from fastapi import FastAPI
from fastapi.responses import StreamingResponse

from conftest import REPO


def example_app() -> FastAPI:
    path = REPO / "python" / "examples" / "fastapi_server.py"
    spec = importlib.util.spec_from_file_location("fastapi_server_probed", path)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return example.app


def broken_app() -> FastAPI:
    """An agent whose tool call is never ended, encoded by the official
    encoder."""
    app = FastAPI()

    @app.post("/agent")
    async def agent(input_data: RunAgentInput) -> StreamingResponse:
        encoder = EventEncoder()

        def stream() -> Iterator[str]:
            ids = {"thread_id": input_data.thread_id, "run_id": input_data.run_id}
            yield encoder.encode(RunStartedEvent(**ids, protocol_version="1.0"))
            yield encoder.encode(ToolCallStartEvent(tool_call_id="c1", tool_call_name="search"))
            yield encoder.encode(RunFinishedEvent(**ids))

        return StreamingResponse(stream(), media_type=encoder.get_content_type())

    return app


def crlf_app() -> FastAPI:
    """A correct run framed with CRLF line endings."""
    app = FastAPI()

    @app.post("/agent")
    async def agent(input_data: RunAgentInput) -> StreamingResponse:
        encoder = EventEncoder()
        ids = {"thread_id": input_data.thread_id, "run_id": input_data.run_id}
        events = [RunStartedEvent(**ids, protocol_version="1.0"), RunFinishedEvent(**ids)]
        text = [encoder.encode(e).replace("\n", "\r\n") for e in events]
        return StreamingResponse(iter(text), media_type="text/event-stream")

    return app


def probe(cli: Path, *args: str) -> Tuple[int, Any, str]:
    """Runs `agui-lint probe ARGS --format json`: its exit code, report and
    standard error."""
    done = subprocess.run(
        [str(cli), "probe", *args, "--format", "json"], capture_output=True, timeout=120
    )
    return done.returncode, json.loads(done.stdout), done.stderr.decode()


def rules(report: Any) -> List[str]:
    """Every finding's rule, in report order."""
    return [d["rule"] for doc in report["documents"] for d in doc["diagnostics"]]


@pytest.mark.parametrize("served", [example_app], indirect=True)
def test_the_fastapi_example_is_clean(served: str, agui_lint_cli: Path) -> None:
    code, report, stderr = probe(agui_lint_cli, served, "--strict")
    assert rules(report) == [], stderr
    assert code == 0
    # Two runs (a text turn, a turn offering a tool): a request and five
    # events each.
    assert report["summary"]["documents"] == 12
    assert "HTTP 200 text/event-stream" in stderr


@pytest.mark.parametrize("served", [broken_app], indirect=True)
def test_an_open_tool_call_is_reported_and_saved_identically(
    served: str, agui_lint_cli: Path, tmp_path: Path
) -> None:
    save = tmp_path / "session"
    code, report, _ = probe(agui_lint_cli, served, "--scenario", "text", "--save", str(save))
    assert rules(report) == ["run-finished-while-open"]
    assert code == 1
    checked = subprocess.run(
        [str(agui_lint_cli), "check", str(save / "session.har"), "--format", "json"],
        capture_output=True,
        timeout=60,
    )
    assert json.loads(checked.stdout) == report
    assert checked.returncode == code


@pytest.mark.parametrize("served", [crlf_app], indirect=True)
def test_crlf_framing_of_two_events_is_an_error(served: str, agui_lint_cli: Path) -> None:
    # @ag-ui/client 1.0.0, the default view, splits events on \n\n only:
    # the two events reach it as one block that fails to parse.
    code, report, _ = probe(agui_lint_cli, served, "--scenario", "text")
    assert rules(report) == ["sse-carriage-return"]
    assert code == 1
