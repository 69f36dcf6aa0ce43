"""The conformance kit for agent servers, in a server's own tests.

Each scenario is a scripted conversation of one or more runs (a text turn,
multi-turn history, client-side tools, state, interrupts, cancellation,
version negotiation, bad requests), judged by checks within and across its
requests. The kit itself is agui-lint's (Rust); this module sends its
requests to an ASGI app in process, through httpx's ASGI transport, with
no network and no server to start::

    import pytest
    from agui_lint.kit import SCENARIOS, run_asgi
    from myapp import app

    @pytest.mark.parametrize("scenario", SCENARIOS)
    def test_agui_conformance(scenario):
        report = run_asgi(app, "/agent", scenarios=[scenario])
        assert report.ok, report.text

A scenario that needs the agent to act (call a tool, interrupt) where the
agent did not is *not exercised*, never passed. Requests with
``cancel_after_events`` (the cancellation scenario) are sent straight to
the app as ASGI, which is told the client disconnected once that many
events have come.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ._agui_lint import Kit, scenario_names

__all__ = ["SCENARIOS", "Kit", "KitReport", "run", "run_asgi", "run_asgi_async"]

#: The built-in scenarios, in the order the kit runs them.
SCENARIOS: List[str] = list(scenario_names())

Headers = List[Tuple[str, str]]
#: What a transport returns: status (``None`` when no response came),
#: headers, the body read, and whether it was read to its end.
Response = Tuple[Optional[int], Headers, bytes, bool]
PathLike = Union[str, "os.PathLike[str]"]


@dataclass
class KitReport:
    """A run of the kit, judged."""

    #: Whether the run passes: no MUST failure (nor SHOULD, when strict) the
    #: expected failures do not list, and none they list that now passes.
    ok: bool
    #: The human report: one line per scenario and check.
    text: str
    #: The JSON report, parsed.
    json: Dict[str, Any]
    #: The JUnit XML report.
    junit: str
    #: ``(scenario, check, level, verdict, why)`` for every check judged.
    results: List[Tuple[str, str, str, str, Optional[str]]]

    def verdict(self, scenario: str, check: str) -> str:
        """The verdict of ``check`` in ``scenario`` (``passed``, ``failed``,
        ``not-exercised``, ``same-cause``, ``expected-failure``,
        ``fixed-but-listed``)."""
        for row in self.results:
            if row[0] == scenario and row[1] == check:
                return row[3]
        raise KeyError(f"{scenario}/{check} was not judged")


def _kit(
    url: str,
    scenarios: Optional[Sequence[str]],
    scenario_files: Optional[Sequence[PathLike]],
    version: Optional[str],
    level: Optional[str],
    expected_failures: Optional[PathLike],
    strict: bool = False,
) -> Kit:
    return Kit(
        url=url,
        scenarios=list(scenarios) if scenarios is not None else None,
        scenario_files=[os.fspath(p) for p in scenario_files] if scenario_files else None,
        version=version,
        level=level,
        expected_failures=os.fspath(expected_failures) if expected_failures is not None else None,
        strict=strict,
    )


def _report(kit: Kit) -> KitReport:
    return KitReport(
        ok=not kit.fails(),
        text=kit.report("human"),
        json=json.loads(kit.report("json")),
        junit=kit.report("junit"),
        results=kit.results(),
    )


async def drive(kit: Kit, send: Callable[[Dict[str, Any]], Awaitable[Response]]) -> KitReport:
    """Runs ``kit`` with ``send``, an async function that sends one request
    (the dict ``Kit.next_request()`` gives) and returns its response."""
    answered = False
    while True:
        request = kit.next_request()
        if request is None:
            break
        if request["wait_before_ms"]:
            await asyncio.sleep(request["wait_before_ms"] / 1000)
        try:
            status, headers, body, complete = await send(request)
        except Exception as error:  # noqa: BLE001 - a server that dies is a finding, not the kit's end
            if not answered and _never_connected(error):
                raise
            kit.record_unanswered(f"{type(error).__name__}: {error}".rstrip(": "))
            continue
        answered = True
        kit.record(status, headers, body, complete)
    return _report(kit)


def _never_connected(error: BaseException) -> bool:
    """Whether ``error`` says nothing listens at the address (the kit's
    usage, raised), rather than a server that took the request and died."""
    try:
        import httpx
    except ImportError:  # pragma: no cover - the kit's drivers all use httpx
        return isinstance(error, ConnectionRefusedError)
    return isinstance(error, (httpx.ConnectError, ConnectionRefusedError))


class _EventCounter:
    """Counts the Server-Sent Events a body dispatches, fed its chunks as
    they come; each byte is looked at once (LF, CRLF or CR line ends)."""

    def __init__(self) -> None:
        self.events = 0
        self._partial = b""
        self._data = False
        self._after_cr = False

    def feed(self, chunk: bytes) -> int:
        if not chunk:
            return self.events
        if self._after_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        self._after_cr = False
        text = self._partial + chunk
        end = max(text.rfind(b"\n"), text.rfind(b"\r"))
        if end < 0:
            self._partial = text
            return self.events
        self._after_cr = text[end : end + 1] == b"\r"
        self._partial = text[end + 1 :]
        for line in text[: end + 1].replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")[:-1]:
            if not line:
                if self._data:
                    self.events += 1
                self._data = False
            elif line.startswith(b"data"):
                self._data = True
        return self.events


async def _asgi_cancelled(app: Any, path: str, request: Dict[str, Any]) -> Response:
    """Sends ``request`` to ``app`` as ASGI and disconnects once
    ``cancel_after_events`` events have come, as a browser closing the
    connection does; the app gets ``http.disconnect`` and, if it has not
    ended a second later, is cancelled."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(k.lower().encode(), v.encode()) for k, v in request["headers"]],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    disconnected = asyncio.Event()
    body_sent = False
    status: Optional[int] = None
    headers: Headers = []
    body = bytearray()
    complete = False

    async def receive() -> Dict[str, Any]:
        nonlocal body_sent
        if not body_sent:
            body_sent = True
            return {"type": "http.request", "body": request["body"], "more_body": False}
        await disconnected.wait()
        return {"type": "http.disconnect"}

    counter = _EventCounter()

    async def send(message: Dict[str, Any]) -> None:
        nonlocal status, headers, complete
        if disconnected.is_set():
            raise OSError("the client closed the connection")
        if message["type"] == "http.response.start":
            status = message["status"]
            headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in message.get("headers", [])]
        elif message["type"] == "http.response.body":
            chunk = message.get("body", b"")
            body.extend(chunk)
            if not message.get("more_body", False):
                complete = True
            if counter.feed(chunk) >= request["cancel_after_events"]:
                disconnected.set()

    task = asyncio.ensure_future(app(scope, receive, send))
    waiter = asyncio.ensure_future(disconnected.wait())
    await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    if not task.done():
        try:
            await asyncio.wait_for(asyncio.shield(task), 1.0)
        except asyncio.TimeoutError:
            task.cancel()
        except Exception:  # noqa: BLE001 - the app's failure after a disconnect is its own
            pass
    waiter.cancel()
    if task.done() and not task.cancelled():
        task.exception()  # retrieved: an app raising on disconnect is not the kit's failure
    return status, headers, bytes(body), complete and not disconnected.is_set()


async def run_asgi_async(
    app: Any,
    path: str = "/",
    *,
    scenarios: Optional[Sequence[str]] = None,
    scenario_files: Optional[Sequence[PathLike]] = None,
    version: Optional[str] = "1.0",
    level: Optional[str] = None,
    expected_failures: Optional[PathLike] = None,
    headers: Optional[Dict[str, str]] = None,
    strict: bool = False,
) -> KitReport:
    """Runs the kit against the ASGI ``app``'s endpoint at ``path`` in
    process (httpx's ASGI transport); for async tests."""
    import httpx

    extra = list((headers or {}).items())
    kit = _kit("http://testserver" + path, scenarios, scenario_files, version, level, expected_failures, strict)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:

        async def send(request: Dict[str, Any]) -> Response:
            sent = _merge(request["headers"], extra)
            if request["cancel_after_events"] is not None:
                return await _asgi_cancelled(app, path, dict(request, headers=sent))
            response = await client.post(path, content=request["body"], headers=sent)
            return response.status_code, list(response.headers.items()), response.content, True

        return await drive(kit, send)


def run_asgi(app: Any, path: str = "/", **options: Any) -> KitReport:
    """:func:`run_asgi_async` for synchronous tests (it runs its own event
    loop, so call it where none is running)."""
    return asyncio.run(run_asgi_async(app, path, **options))


def run(
    url: str,
    *,
    scenarios: Optional[Sequence[str]] = None,
    scenario_files: Optional[Sequence[PathLike]] = None,
    version: Optional[str] = "1.0",
    level: Optional[str] = None,
    expected_failures: Optional[PathLike] = None,
    headers: Optional[Dict[str, str]] = None,
    strict: bool = False,
    timeout: float = 60.0,
) -> KitReport:
    """Runs the kit against a live endpoint at ``url`` with httpx (the CLI's
    ``agui-lint probe URL --suite`` does the same from a shell)."""
    import httpx

    extra = list((headers or {}).items())
    kit = _kit(url, scenarios, scenario_files, version, level, expected_failures, strict)

    async def main() -> KitReport:
        async with httpx.AsyncClient(timeout=timeout) as client:

            async def send(request: Dict[str, Any]) -> Response:
                sent = _merge(request["headers"], extra)
                async with client.stream("POST", url, content=request["body"], headers=sent) as response:
                    body = bytearray()
                    limit = request["cancel_after_events"]
                    counter = _EventCounter()
                    async for chunk in response.aiter_raw():
                        body.extend(chunk)
                        if limit is not None and counter.feed(chunk) >= limit:
                            return response.status_code, list(response.headers.items()), bytes(body), False
                    return response.status_code, list(response.headers.items()), bytes(body), True

            return await drive(kit, send)

    return asyncio.run(main())


def _merge(kit_headers: Headers, extra: Headers) -> Headers:
    """The kit's headers with ``extra`` added, the kit's winning (a
    scenario's wrong Content-Type is sent on purpose)."""
    names = {name.lower() for name, _ in kit_headers}
    return list(kit_headers) + [(n, v) for n, v in extra if n.lower() not in names]
