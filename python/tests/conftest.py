"""Shared test data: the repository's fixtures and the official 1.0 SDKs'
real traffic (``tests/upstream/traffic-1.0/``). Missing data fails the
tests; nothing here skips."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest
import uvicorn

import agui_lint

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"
TRAFFIC = REPO / "tests" / "upstream" / "traffic-1.0"


def _require(path: Path) -> Path:
    if not path.exists():
        pytest.fail(f"test data missing: {path}")
    return path


def traffic_requests() -> List[Path]:
    """The official client's captured requests; at least three."""
    found = sorted(_require(TRAFFIC).glob("*.request.json"))
    assert len(found) >= 3, f"only {len(found)} requests in {TRAFFIC}"
    return found


@pytest.fixture(scope="session")
def agui_lint_cli() -> Path:
    """The CLI built by `cargo test` or `cargo build` at the root."""
    candidates = [os.environ.get("AGUI_LINT_BIN")] + [
        str(REPO / "target" / profile / "agui-lint") for profile in ("debug", "release")
    ]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    pytest.fail("no agui-lint binary: run `cargo build` at the root, or set AGUI_LINT_BIN")


@pytest.fixture(scope="session")
def validator() -> agui_lint.Validator:
    return agui_lint.Validator()


@pytest.fixture(scope="session")
def chat_request() -> Dict[str, Any]:
    """The official client's chat request, as a dict to derive bodies from."""
    return json.loads(_require(TRAFFIC / "chat.request.json").read_bytes())


def body_of(document: Any) -> bytes:
    return json.dumps(document).encode("utf-8")


@pytest.fixture()
def bad_bodies(chat_request: Dict[str, Any]) -> Dict[str, bytes]:
    """Bodies pydantic accepts or FastAPI cannot parse, each with the rule
    agui-lint refuses it by, keyed by that rule."""
    orphan = json.loads(json.dumps(chat_request))
    orphan["messages"].append(
        {"id": "tool-9", "role": "tool", "toolCallId": "call_nobody_made", "content": "42"}
    )
    snake = json.loads(json.dumps(chat_request))
    snake["thread_id"] = snake.pop("threadId")
    null = json.loads(json.dumps(chat_request))
    null["parentRunId"] = None
    return {
        "tool-result-without-call": body_of(orphan),
        "missing-field": body_of(snake),
        "null-for-optional": body_of(null),
        "invalid-json": body_of(chat_request)[:-7],
    }


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A skipped test is a failed one: every test's data is in the
    repository, and CI must not pass on tests that did not run."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped, which this suite does not allow: {report.longrepr}"


@pytest.fixture
def served(request: Any) -> Iterator[str]:
    """Serves the app (a function making one) the test is parametrised
    with on 127.0.0.1 with uvicorn, on a free port; its `/agent` URL."""
    app = request.param()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/agent"
    server.should_exit = True
    thread.join(timeout=20)
    sock.close()
