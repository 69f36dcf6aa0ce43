"""agui-lint's pytest plugin: assert an AG-UI exchange in one line.

Installed with the package (the ``pytest11`` entry point ``agui_lint``), it
gives tests a fixture (``agui_exchange``) and an assertion helper that check an exchange, the
``RunAgentInput`` sent and the event stream answered, as ``agui-lint check``
does, the stream paired with its request (its tool calls, its declared
version, its state). A failing exchange fails the test with the CLI's human
report of it: each finding with its place, its source line and help.

.. code-block:: python

    from fastapi.testclient import TestClient

    def test_my_agent(agui_exchange):
        request = {"threadId": "t", "runId": "r", "messages": [], "tools": [],
                   "context": [], "state": {}, "forwardedProps": {}}
        response = TestClient(app).post("/agent", json=request)
        agui_exchange.assert_exchange(request, response)

    @pytest.mark.agui_lint(protocol="1.0", strict=True)   # warnings fail too
    def test_my_agent_strictly(agui_exchange): ...

The response may be a response object with ``content`` (FastAPI's and
Starlette's ``TestClient``, ``httpx``, after ``await response.aread()`` for
a streamed one), the body as ``bytes`` or ``str``, an iterable of chunks,
or a list of event dicts (as ``ag-ui-protocol``'s models dumped with
``by_alias=True``, or as ``@ag-ui/client`` hands them). The request may be
``None``, a dict, or the body's ``bytes`` or ``str``. Warnings fail only
with ``strict=True``.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, Mapping, Optional, Tuple

import pytest

from ._agui_lint import StreamResult, Validator
from ._response import framing_of_media

__all__ = ["Exchanges", "assert_exchange", "check_exchange"]

_VALIDATORS: Dict[str, Validator] = {}


def _validator(protocol: str) -> Validator:
    """One validator per protocol setting, built once a session."""
    found = _VALIDATORS.get(protocol)
    if found is None:
        found = _VALIDATORS[protocol] = Validator(protocol=protocol)
    return found


def _response_body(response: Any) -> Tuple[bytes, str]:
    """The response's bytes, and how its events are framed."""
    if isinstance(response, (bytes, bytearray, memoryview)):
        return bytes(response), "auto"
    if isinstance(response, str):
        return response.encode("utf-8"), "auto"
    content = getattr(response, "content", None)
    if isinstance(content, (bytes, bytearray)):
        headers = getattr(response, "headers", None) or {}
        framing = framing_of_media(headers.get("content-type")) or "auto"
        return bytes(content), framing
    if isinstance(response, Iterable):
        items = list(response)
        if all(isinstance(item, Mapping) for item in items):
            lines = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items)
            return lines.encode("utf-8"), "jsonl"
        chunks = [item.encode("utf-8") if isinstance(item, str) else bytes(item) for item in items]
        return b"".join(chunks), "auto"
    raise TypeError(
        f"an AG-UI response is bytes, str, a response with .content, chunks or event dicts, "
        f"not {type(response).__name__}"
    )


def _request_body(request: Any) -> Optional[bytes]:
    if request is None:
        return None
    if isinstance(request, (bytes, bytearray, memoryview)):
        return bytes(request)
    if isinstance(request, str):
        return request.encode("utf-8")
    if isinstance(request, Mapping):
        return json.dumps(request, ensure_ascii=False).encode("utf-8")
    content = getattr(request, "content", None)
    if isinstance(content, (bytes, bytearray)):
        return bytes(content)
    raise TypeError(f"an AG-UI request is a dict, bytes or str, not {type(request).__name__}")


def check_exchange(
    request: Any,
    response: Any,
    *,
    protocol: str = "auto",
    validator: Optional[Validator] = None,
) -> StreamResult:
    """Checks ``response``, the event stream answering ``request`` (see the
    module for what each may be), paired with it."""
    validator = validator if validator is not None else _validator(protocol)
    body, framing = _response_body(response)
    sent = _request_body(request)
    return validator.check_stream(body, format=framing, path="response", request=sent)


def assert_exchange(
    request: Any,
    response: Any,
    *,
    protocol: str = "auto",
    strict: bool = False,
    validator: Optional[Validator] = None,
) -> StreamResult:
    """Fails (``AssertionError``, with the CLI's report) unless the exchange
    is conformant: the request a valid ``RunAgentInput`` and the stream
    without error, and with ``strict`` without warnings either. Returns the
    stream's result for further checks."""
    __tracebackhide__ = True
    validator = validator if validator is not None else _validator(protocol)
    sent = _request_body(request)
    if sent is not None:
        checked = validator.check_run_agent_input(sent)
        if checked.errors or (strict and checked.warnings):
            raise AssertionError(
                "the AG-UI request is not a valid RunAgentInput:\n"
                + checked.to_text("request", source=sent)
            )
    result = check_exchange(sent, response, validator=validator)
    if result.errors or (strict and result.warnings):
        raise AssertionError("the AG-UI exchange is not conformant:\n" + result.to_text())
    return result


class Exchanges:
    """What the ``agui_exchange`` fixture gives a test: :func:`check_exchange`
    and :func:`assert_exchange` with the protocol and strictness of the
    test's ``agui_lint`` marker (``@pytest.mark.agui_lint(protocol="1.0",
    strict=True)``), if it has one."""

    def __init__(self, protocol: str = "auto", strict: bool = False) -> None:
        self.protocol = protocol
        self.strict = strict

    def check_exchange(self, request: Any, response: Any) -> StreamResult:
        """:func:`check_exchange` with this test's protocol."""
        return check_exchange(request, response, protocol=self.protocol)

    def assert_exchange(
        self, request: Any, response: Any, *, strict: Optional[bool] = None
    ) -> StreamResult:
        """:func:`assert_exchange` with this test's protocol and strictness."""
        __tracebackhide__ = True
        return assert_exchange(
            request,
            response,
            protocol=self.protocol,
            strict=self.strict if strict is None else strict,
        )


def pytest_configure(config: Any) -> None:
    config.addinivalue_line(
        "markers",
        "agui_lint(protocol='auto', strict=False): how the agui_exchange fixture judges "
        "exchanges (the version undeclared documents are judged by; whether warnings fail)",
    )


@pytest.fixture
def agui_exchange(request: Any) -> Exchanges:
    """Checks AG-UI exchanges: ``agui_exchange.assert_exchange(request, response)``."""
    marker = request.node.get_closest_marker("agui_lint")
    options = dict(marker.kwargs) if marker is not None else {}
    return Exchanges(
        protocol=str(options.get("protocol", "auto")),
        strict=bool(options.get("strict", False)),
    )
