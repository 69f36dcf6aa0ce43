"""Guarding the AG-UI endpoint of an ASGI app (Starlette, FastAPI).

An AG-UI run is a POST whose body is a ``RunAgentInput``. A :class:`Guard`
(a shared :class:`agui_lint.Validator`, a body limit and what becomes of
warnings) checks that body before the handler runs, two ways:

- **A FastAPI dependency**: ``Depends(guard)`` on the endpoint, with
  ``guard.install(app)`` once, which answers the guard's rejections.
- **An ASGI middleware**, :class:`GuardMiddleware`, for Starlette and
  FastAPI alike: a rejected request never reaches the app; an accepted one
  reaches it with its body untouched.

Either way the handler gets the original bytes, so ``input_data:
RunAgentInput`` (the official ``ag-ui-protocol`` model) still works behind
the guard. The answers are the Rust guard's (``agui_lint::server``):

========================================================  ======  ==========================================
the request                                               status  body
========================================================  ======  ==========================================
a valid ``RunAgentInput`` (warnings allowed)              the handler's
JSON that is not a valid ``RunAgentInput``, or not JSON   422     the ``agui-lint check --format json`` document
a ``Content-Type`` other than JSON                        415     ``{"tool", "version", "error"}``
a ``Content-Encoding`` other than ``identity``            415     ``{"tool", "version", "error"}``
a body over the limit (2 MiB unless told otherwise)       413     ``{"tool", "version", "error"}``
a body not received in time (middleware; 10 s)            408     ``{"tool", "version", "error"}``
a check not done in time (2 s), or no room to start it    503     ``{"tool", "version", "error", "rule"}``
========================================================  ======  ==========================================

No request can take the app down: a body larger than a few kilobytes is
checked in a worker thread (the binding releases the GIL), so the event
loop keeps serving, at most ``check_concurrency`` at a time (by default
half the cores) and within ``check_timeout``, past which the answer is
``503`` with the rule ``check-timed-out``; every check is itself linear in
the body and bounded, and reports at most 100 findings. The middleware
reads the body within ``body_timeout``; a server should also bound how long
a client may take to send its headers (uvicorn's ``--timeout-keep-alive``
covers idle connections, a proxy in front covers the rest).

Findings that do not block a request (warnings and infos) go to the
``agui_lint`` logger, or, with ``warnings="header"`` and the middleware, to
the ``agui-lint-warnings`` response header (a JSON array of findings) and
``agui-lint-warning-count``.

With ``responses="report"`` (or ``"enforce"``), the middleware also checks
the response each guarded request is answered with, as the app sends it: a
successful ``text/event-stream`` or JSON Lines response (Starlette's
``StreamingResponse``, or any response sent as ``http.response.body``
messages) goes through :class:`agui_lint.StreamChecker`, paired with the
request (its tool calls, its declared version, its state). The messages
pass unchanged. Each finding goes to the ``agui_lint.response`` logger
(errors at ERROR, warnings at WARNING) with the finding as structured
``extra`` (``record.agui_lint``: rule, severity, pointer, event, line,
column, path, thread_id, run_id), and to ``on_finding`` if given; a summary
is logged at the stream's end, and :attr:`Guard.response_stats` counts.
``"enforce"`` (development and tests) also ends the stream at the first
error: a ``RUN_ERROR`` event of the guard's own, ``"code":
"agui-lint/<rule>"``, follows the chunk that completed the record after the
faulty one, and what the app sends afterwards is dropped.
``response_sampling=N`` checks one stream in N. The check runs on the event
loop, a chunk at a time (about 2 µs an event): an agent that streams faster
than that is slowed to the check's pace, unless ``response_lagging="stop"``,
under which a ``"report"`` check that takes more than a tenth of its
stream's time (and a millisecond) stops (the rest passes unchecked, counted in
``streams_outpaced``).
"""

from __future__ import annotations

import inspect
import json
import logging
import os
from dataclasses import dataclass
from typing import (
    Any,
    Callable,
    Iterable,
    List,
    Literal,
    Optional,
    Sequence,
    Tuple,
)

try:
    import anyio
    import anyio.to_thread
    from starlette.requests import Request
    from starlette.responses import Response
except ModuleNotFoundError as missing:
    # The guard is an optional part of the package: say which extra brings
    # what it needs rather than leave a bare "No module named 'starlette'".
    _package = (missing.name or "starlette").partition(".")[0]
    raise ModuleNotFoundError(
        f"agui_lint.asgi needs Starlette (missing: {_package}); "
        "install it with: pip install 'agui-lint[asgi]'",
        name=_package,
    ) from missing

from ._agui_lint import Diagnostic, Result, Validator
from ._rejection import (
    Rejection,
    _ASGIApp,
    _ASGIMessage,
    _Receive,
    _Scope,
    _Send,
)
from ._response import (
    LAGGING,
    RESPONSE_MODES,
    FindingHook,
    ResponseCheck,
    ResponseStats,
    framing_of,
)

__all__ = [
    "DEFAULT_BODY_LIMIT",
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_CHECK_TIMEOUT",
    "DEFAULT_MAX_FINDINGS",
    "WARNINGS_HEADER",
    "WARNING_COUNT_HEADER",
    "Guard",
    "GuardMiddleware",
    "Rejection",
    "ResponseStats",
    "Validated",
]

#: The largest body a :class:`Guard` reads unless told otherwise: 2 MiB, as
#: the Rust guard.
DEFAULT_BODY_LIMIT = 2 * 1024 * 1024

#: How long the middleware waits for a body unless told otherwise, in
#: seconds.
DEFAULT_BODY_TIMEOUT = 10.0

#: How long a check may take unless told otherwise, in seconds; past it the
#: request is answered 503.
DEFAULT_CHECK_TIMEOUT = 2.0

#: The most findings a document reports in a guard's answer.
DEFAULT_MAX_FINDINGS = 100

# Bodies up to this size are checked on the event loop: their check costs
# microseconds, less than a thread hand-over.
_INLINE_CHECK_BYTES = 16 * 1024

#: The response header that carries the findings that did not block the
#: request, under ``warnings="header"``: a JSON array of findings, in the
#: shape of the CLI's JSON output.
WARNINGS_HEADER = "agui-lint-warnings"

#: The response header that says how many findings did not block the
#: request, also when not all of them fit in :data:`WARNINGS_HEADER`.
WARNING_COUNT_HEADER = "agui-lint-warning-count"

# Servers and proxies refuse long header sections: findings past this are
# counted, not listed (as the Rust guard does).
_WARNINGS_HEADER_BYTES = 4096

#: The key of the request's state (``request.state.agui_lint``) and of the
#: ASGI scope's ``state`` dict under which an accepted request's
#: :class:`Validated` is kept.
STATE_KEY = "agui_lint"



@dataclass(frozen=True)
class Validated:
    """A request body that passed the check: the bytes as received and the
    check's ``result`` (valid; its findings are warnings and infos)."""

    body: bytes
    result: Result

    @property
    def findings(self) -> List[Diagnostic]:
        """The findings that did not block the request, in position order."""
        return self.result.diagnostics


def _is_json(content_type: Optional[str]) -> bool:
    """``application/json`` or ``application/*+json``, with any parameters."""
    if content_type is None:
        return False
    essence = content_type.split(";", 1)[0].strip().lower()
    kind, _, subtype = essence.partition("/")
    return kind == "application" and (
        subtype == "json" or (len(subtype) > 5 and subtype.endswith("+json"))
    )


_shared: Optional[Validator] = None


def _shared_validator() -> Validator:
    """The validator of guards built without one, made on first use."""
    global _shared
    if _shared is None:
        _shared = Validator(max_findings=DEFAULT_MAX_FINDINGS)
    return _shared


def _default_check_concurrency() -> int:
    """Half the cores, at least one: a burst of large bodies leaves the
    event loop a core to serve other requests with."""
    return max(1, (os.cpu_count() or 1) // 2)


class Guard:
    """The check of an AG-UI endpoint's requests.

    ``validator`` decides which rules report, how seriously and whether
    values are masked (a process-wide default one when ``None``; either
    way a document reports at most ``max_findings``, 100 by default);
    ``body_limit`` is the largest body read, in bytes; ``warnings`` is
    ``"log"`` (the ``agui_lint`` logger, or ``logger``) or ``"header"``
    (the response headers, which only :class:`GuardMiddleware` can write;
    the dependency alone logs). ``body_timeout`` (the middleware),
    ``check_timeout`` and ``check_concurrency`` bound what one request can
    hold (see the module's notes). ``responses`` (``"off"``, ``"report"``,
    ``"enforce"``), ``response_sampling``, ``response_lagging`` (``"wait"``,
    ``"stop"``) and ``on_finding`` say what
    :class:`GuardMiddleware` does with the response streams it passes (see
    the module's notes); :attr:`response_stats` counts them. Cheap to
    share; thread-safe.

    As a FastAPI dependency, ``Depends(guard)`` gives the handler a
    :class:`Validated`; call :meth:`install` on the app once so that its
    rejections are answered.
    """

    def __init__(
        self,
        validator: Optional[Validator] = None,
        *,
        body_limit: int = DEFAULT_BODY_LIMIT,
        warnings: Literal["log", "header"] = "log",
        logger: Optional[logging.Logger] = None,
        body_timeout: float = DEFAULT_BODY_TIMEOUT,
        check_timeout: float = DEFAULT_CHECK_TIMEOUT,
        check_concurrency: Optional[int] = None,
        max_findings: int = DEFAULT_MAX_FINDINGS,
        responses: Literal["off", "report", "enforce"] = "off",
        response_sampling: int = 1,
        on_finding: Optional[FindingHook] = None,
        response_lagging: Literal["wait", "stop"] = "wait",
    ) -> None:
        if warnings not in ("log", "header"):
            raise ValueError(f"warnings must be 'log' or 'header', not {warnings!r}")
        if body_limit < 0:
            raise ValueError("body_limit must not be negative")
        if body_timeout < 0 or check_timeout < 0:
            raise ValueError("timeouts must not be negative")
        if check_concurrency is not None and check_concurrency < 1:
            raise ValueError("check_concurrency must be at least 1")
        if responses not in RESPONSE_MODES:
            raise ValueError(f"responses must be one of {RESPONSE_MODES}, not {responses!r}")
        if response_sampling < 1:
            raise ValueError("response_sampling must be at least 1")
        if response_lagging not in LAGGING:
            raise ValueError(f"response_lagging must be one of {LAGGING}, not {response_lagging!r}")
        validator = validator if validator is not None else _shared_validator()
        if validator.max_findings > max_findings:
            validator = validator.with_limits(max_findings=max_findings)
        self.validator = validator
        self.body_limit = body_limit
        self.warnings = warnings
        self.logger = logger if logger is not None else logging.getLogger("agui_lint")
        self.body_timeout = body_timeout
        self.check_timeout = check_timeout
        self.check_concurrency = (
            check_concurrency if check_concurrency is not None else _default_check_concurrency()
        )
        self.responses = responses
        self.response_sampling = response_sampling
        self.response_lagging = response_lagging
        self.on_finding = on_finding
        #: How the response checks have gone (streams, events, errors ...).
        self.response_stats = ResponseStats()
        self._responses_seen = 0
        # Made on first use, inside the app's event loop.
        self._limiter: Optional[anyio.CapacityLimiter] = None

    def check_headers(
        self,
        content_type: Optional[str],
        content_length: Optional[str],
        content_encoding: Optional[str] = None,
    ) -> None:
        """Refuses a body not declared as JSON (415), one sent with a
        content encoding (415: the guard checks bodies as sent, and does not
        expand a compressed one whose size it cannot bound beforehand), and
        one whose declared length is over the limit (413) before it is
        read."""
        if not _is_json(content_type):
            raise Rejection.unsupported_media_type(content_type)
        if content_encoding is not None and any(
            part.strip() and part.strip().lower() != "identity" for part in content_encoding.split(",")
        ):
            raise Rejection.unsupported_encoding(content_encoding)
        if content_length is not None:
            try:
                declared = int(content_length.strip())
            except ValueError:
                return
            if declared > self.body_limit:
                raise Rejection.payload_too_large(self.body_limit)

    def check_body(self, body: bytes, path: str = "-") -> Validated:
        """Checks a request's body: the :class:`Validated` body, or the
        :class:`Rejection` (413 over the limit, 422 with findings) raised.
        ``path`` names the document of a 422 answer (the request's path)."""
        if len(body) > self.body_limit:
            raise Rejection.payload_too_large(self.body_limit)
        result = self.validator.check_run_agent_input(body)
        if not result.valid:
            raise Rejection.invalid(result, path)
        return Validated(body, result)

    async def check(self, body: bytes, path: str = "-") -> Validated:
        """:meth:`check_body` without holding the event loop: a body larger
        than a few kilobytes is checked in a worker thread, at most
        ``check_concurrency`` at a time, within ``check_timeout`` seconds
        (waiting for room included); past it :meth:`Rejection.timed_out`
        (503) is raised, while the check, bounded as every check is, runs to
        its end in its thread, still holding its place."""
        if len(body) <= _INLINE_CHECK_BYTES:
            return self.check_body(body, path)
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.check_concurrency)
        with anyio.move_on_after(self.check_timeout) as scope:
            return await _in_thread(self.check_body, body, path, limiter=self._limiter)
        assert scope.cancelled_caught
        raise Rejection.timed_out(self.check_timeout)

    def check_request(
        self,
        content_type: Optional[str],
        content_length: Optional[str],
        body: bytes,
        path: str,
        content_encoding: Optional[str] = None,
    ) -> Validated:
        """:meth:`check_headers`, then :meth:`check_body` (on the calling
        thread; :meth:`check` moves large bodies off an event loop)."""
        self.check_headers(content_type, content_length, content_encoding)
        return self.check_body(body, path)

    def log_findings(self, findings: Sequence[Diagnostic]) -> None:
        """Logs findings that did not block a request: warnings at WARNING,
        infos at INFO, each with ``rule``, ``pointer``, ``line`` and
        ``column`` as record attributes and in the text."""
        for d in findings:
            level = logging.INFO if d.severity == "info" else logging.WARNING
            self.logger.log(
                level,
                "%s rule=%s pointer=%s line=%s column=%s",
                d.message,
                d.rule,
                d.pointer,
                d.line,
                d.column,
                extra={"rule": d.rule, "pointer": d.pointer, "line": d.line, "column": d.column},
            )

    def response_check(
        self, start: Mapping[str, Any], request: bytes, path: str
    ) -> Optional[ResponseCheck]:
        """The check of the response whose ``http.response.start`` message is
        ``start``, answering ``request``: ``None`` when responses are not
        checked, the response is not a successful event stream, or sampling
        leaves it out."""
        if self.responses == "off" or not 200 <= int(start.get("status", 200)) < 300:
            return None
        framing = framing_of(list(start.get("headers", ())))
        if framing is None:
            return None
        seen = self._responses_seen
        self._responses_seen += 1
        if seen % self.response_sampling:
            self.response_stats.sampled_out += 1
            return None
        self.response_stats.streams += 1
        return ResponseCheck(
            self.validator,
            framing,
            path,
            request,
            self.responses,
            self.response_stats,
            self.logger.getChild("response"),
            self.on_finding,
            self.response_lagging,
        )

    @staticmethod
    def warnings_headers(findings: Sequence[Diagnostic]) -> List[Tuple[bytes, bytes]]:
        """The :data:`WARNINGS_HEADER` and :data:`WARNING_COUNT_HEADER`
        headers for ``findings``: as many as fit, as a JSON array in ASCII."""
        listed: List[str] = []
        length = 2
        for d in findings:
            # The Rust library writes the finding; made ASCII for a header.
            item = json.dumps(json.loads(d.to_json()), ensure_ascii=True, separators=(",", ":"))
            if length + len(item) + 1 > _WARNINGS_HEADER_BYTES:
                break
            listed.append(item)
            length += len(item) + 1
        value = "[" + ",".join(listed) + "]"
        return [
            (WARNINGS_HEADER.encode("ascii"), value.encode("ascii")),
            (WARNING_COUNT_HEADER.encode("ascii"), str(len(findings)).encode("ascii")),
        ]

    async def __call__(self, request: Request) -> Validated:
        """The FastAPI dependency: the request's :class:`Validated` body, or
        a :class:`Rejection` raised (answered once :meth:`install` ran).

        FastAPI reads a JSON body before it runs dependencies, and answers
        broken JSON itself; :meth:`install` makes that answer the guard's
        422 on the routes this guard protects.
        """
        self.check_headers(
            request.headers.get("content-type"),
            request.headers.get("content-length"),
            request.headers.get("content-encoding"),
        )
        validated = await self.check(await request.body(), request.url.path)
        self.log_findings(validated.findings)
        request.state.agui_lint = validated
        return validated

    def install(self, app: Any) -> None:
        """Makes ``app`` answer the guard's rejections: a handler for
        :class:`Rejection` and, on a FastAPI app, for the broken JSON that
        FastAPI refuses before the guard runs on a route it protects (other
        validation errors keep the app's own handler)."""
        app.add_exception_handler(Rejection, _answer_rejection)
        # FastAPI reads the body of a route before its dependencies run: the
        # deadline on reading it is kept by a middleware of the guard's own.
        app.add_middleware(_BodyDeadline, guard=self, app_routes=app)
        try:
            from fastapi.exception_handlers import request_validation_exception_handler
            from fastapi.exceptions import RequestValidationError
        except ImportError:
            return
        previous = app.exception_handlers.get(
            RequestValidationError, request_validation_exception_handler
        )

        async def answer_validation_error(request: Request, exc: Exception) -> Response:
            if _is_broken_json(exc) and self._protects(request.scope.get("route")):
                try:
                    self.check_headers(
                        request.headers.get("content-type"),
                        request.headers.get("content-length"),
                        request.headers.get("content-encoding"),
                    )
                    await self.check(await request.body(), request.url.path)
                except Rejection as rejection:
                    return rejection.response()
            answer = previous(request, exc)
            if inspect.isawaitable(answer):
                answer = await answer
            return answer

        app.add_exception_handler(RequestValidationError, answer_validation_error)

    def _protects(self, route: Any) -> bool:
        """Whether ``route`` (a FastAPI route) depends on this guard."""
        pending = [getattr(route, "dependant", None)]
        while pending:
            dependant = pending.pop()
            if dependant is None:
                continue
            if getattr(dependant, "call", None) is self:
                return True
            pending.extend(getattr(dependant, "dependencies", ()))
        return False


class _BodyDeadline:
    """Bounds how long the body of a request to a route the guard protects
    may take to arrive: past ``guard.body_timeout`` reading it raises
    :meth:`Rejection.body_timeout` (408), which the app answers. Other
    routes are passed through untouched."""

    def __init__(self, app: _ASGIApp, guard: Guard, app_routes: Any) -> None:
        self.app = app
        self.guard = guard
        self.routes = app_routes

    def _protected(self, scope: _Scope) -> bool:
        from starlette.routing import Match

        for route in getattr(self.routes, "routes", ()):
            match, _ = route.matches(scope)
            if match == Match.FULL:
                return self.guard._protects(route)
        return False

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope["type"] != "http" or not self._protected(scope):
            await self.app(scope, receive, send)
            return
        deadline = anyio.current_time() + self.guard.body_timeout
        timeout = self.guard.body_timeout
        done = False

        async def bounded() -> _ASGIMessage:
            nonlocal done
            if done:
                return await receive()
            with anyio.move_on_after(max(0.0, deadline - anyio.current_time())) as scope_:
                message = await receive()
            if scope_.cancelled_caught:
                raise Rejection.body_timeout(timeout)
            if message["type"] != "http.request" or not message.get("more_body", False):
                done = True
            return message

        await self.app(scope, bounded, send)


def _is_broken_json(exc: Any) -> bool:
    errors = getattr(exc, "errors", None)
    return callable(errors) and any(e.get("type") == "json_invalid" for e in errors())


async def _answer_rejection(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Rejection)
    return exc.response()


class GuardMiddleware:
    """ASGI middleware that checks the body of the AG-UI endpoint before the
    app sees the request.

    ``paths`` are the endpoint paths guarded (every path when ``None``),
    ``methods`` the methods (POST). A rejected request is answered here; an
    accepted one reaches the app with the same body, and its
    :class:`Validated` in ``request.state.agui_lint``. With the guard's
    ``warnings="header"``, the findings that did not block it are added to
    the response's headers; else they are logged.

    >>> app.add_middleware(GuardMiddleware, guard=Guard(), paths=["/agent"])  # doctest: +SKIP
    """

    def __init__(
        self,
        app: _ASGIApp,
        guard: Optional[Guard] = None,
        paths: Optional[Iterable[str]] = None,
        methods: Iterable[str] = ("POST",),
    ) -> None:
        self.app = app
        self.guard = guard if guard is not None else Guard()
        self.paths = None if paths is None else frozenset(paths)
        self.methods = frozenset(m.upper() for m in methods)

    def _guards(self, scope: _Scope) -> bool:
        return (
            scope["type"] == "http"
            and scope.get("method", "") in self.methods
            and (self.paths is None or scope.get("path") in self.paths)
        )

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        """Checks a guarded request, then hands it on or answers it."""
        if not self._guards(scope):
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        guard = self.guard
        try:
            guard.check_headers(
                headers.get("content-type"),
                headers.get("content-length"),
                headers.get("content-encoding"),
            )
            body = None
            with anyio.move_on_after(guard.body_timeout) as reading:
                body = await _read_body(receive, guard.body_limit)
            if reading.cancelled_caught:
                raise Rejection.body_timeout(guard.body_timeout)
            if body is None:
                return  # The client went away.
            validated = await guard.check(body, scope.get("path", "-"))
        except Rejection as rejection:
            await rejection.send(send)
            return
        scope.setdefault("state", {})[STATE_KEY] = validated

        findings = validated.findings
        extra: List[Tuple[bytes, bytes]] = []
        if findings and guard.warnings == "header":
            extra = guard.warnings_headers(findings)
        elif findings:
            guard.log_findings(findings)

        replayed = False

        async def replay() -> _ASGIMessage:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        check: Optional[ResponseCheck] = None
        ended = False
        path = scope.get("path", "-")

        async def send_checked(message: _ASGIMessage) -> None:
            nonlocal check, ended
            if ended:
                return  # "enforce" ended the stream: the app's rest is dropped.
            kind = message["type"]
            if kind == "http.response.start":
                if extra:
                    message = dict(message)
                    message["headers"] = list(message.get("headers", [])) + extra
                check = guard.response_check(message, body, path)
            elif kind == "http.response.body" and check is not None and not check.done:
                chunk = bytes(message.get("body", b""))
                closing = check.feed(chunk)
                if closing is None and not message.get("more_body", False):
                    closing = check.finish()
                if closing is not None:
                    check.ended()
                    ended = True
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                    await send({"type": "http.response.body", "body": closing, "more_body": False})
                    return
            await send(message)

        try:
            await self.app(scope, replay, send_checked)
        finally:
            if check is not None:
                check.abandon()


async def _in_thread(function: Callable[..., Any], *args: Any, limiter: Any) -> Any:
    """Runs ``function(*args)`` in a worker thread that an expired deadline
    leaves running (it cannot be stopped, and is bounded) rather than
    waiting for: ``abandon_on_cancel`` since anyio 4.1, ``cancellable``
    before."""
    run_sync: Any = anyio.to_thread.run_sync
    parameters = inspect.signature(run_sync).parameters
    flag = "abandon_on_cancel" if "abandon_on_cancel" in parameters else "cancellable"
    return await run_sync(function, *args, limiter=limiter, **{flag: True})


def _headers(scope: _Scope) -> dict:
    """The request's headers by lower-case name (the first of repeated ones)."""
    found: dict = {}
    for name, value in scope.get("headers", ()):
        found.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return found


async def _read_body(receive: _Receive, limit: int) -> Optional[bytes]:
    """The whole body, or ``None`` when the client disconnected; a body over
    ``limit`` is refused (413) as soon as it grows past it."""
    chunks: List[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise Rejection.payload_too_large(limit)
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)
