"""Shared test data: the repository's fixtures and the official 1.0 SDKs'
real traffic (``tests/upstream/traffic-1.0/``). Missing data fails the
tests; nothing here skips."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

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
