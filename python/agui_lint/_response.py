"""Checking the response stream of a request the ASGI guard let through: the
events an agent streams back (SSE, or JSON Lines), fed to a
:class:`agui_lint.StreamChecker` as the app sends them, paired with the
request they answer. The app's messages pass unchanged; what becomes of the
findings is the guard's ``responses`` setting (see :class:`ResponseStats`
and :class:`agui_lint.asgi.Guard`).
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional

from ._agui_lint import Diagnostic, Result, StreamChecker, Validator

#: What the guard does with response streams: not look (``"off"``), log and
#: count each finding (``"report"``), or also end the stream with a
#: ``RUN_ERROR`` at the first error (``"enforce"``, for development and tests).
RESPONSE_MODES = ("off", "report", "enforce")

#: What a ``"report"`` stream does when its check takes more than
#: :data:`CHECK_SHARE` of the stream's time: goes on being checked
#: (``"wait"``, the default: every byte is checked, and a stream faster than
#: its check is slowed to its pace), or leaves the check behind (``"stop"``:
#: the rest passes unchecked, and the stream is counted in
#: :attr:`ResponseStats.streams_outpaced`).
LAGGING = ("wait", "stop")

#: The share of a stream's time its ``"report"`` check may take under
#: ``lagging="stop"``, beyond :data:`CHECK_ALLOWANCE`: a check that takes
#: more (only an agent streaming faster than about fifty thousand events a
#: second makes it) stops.
CHECK_SHARE = 0.1

#: Seconds of checking a stream is allowed beyond its share: the first
#: records of a stream, a short stream and a large chunk now and then are
#: always checked.
CHECK_ALLOWANCE = 0.001

_LEVELS = {"error": logging.ERROR, "warning": logging.WARNING, "info": logging.INFO}

#: A callback a guard calls with each finding of a response stream and its
#: context (``path``, ``event``, ``thread_id``, ``run_id``).
FindingHook = Callable[[Diagnostic, Mapping[str, Any]], None]


@dataclass
class ResponseStats:
    """How a guard's response checks have gone, since it was made: for an app
    to export as metrics."""

    #: Response streams checked.
    streams: int = 0
    #: Response streams left unchecked by sampling.
    sampled_out: int = 0
    #: Events (records) checked.
    events: int = 0
    #: Error findings.
    errors: int = 0
    #: Warning findings (infos are logged, not counted).
    warnings: int = 0
    #: Streams with at least one error.
    streams_with_errors: int = 0
    #: Streams ``"enforce"`` ended with a ``RUN_ERROR``.
    streams_ended: int = 0
    #: Streams the app or the client left before their end; what their run
    #: left open is not reported.
    streams_abandoned: int = 0
    #: ``"report"`` streams whose check took more than :data:`CHECK_SHARE` of
    #: their time under ``lagging="stop"`` and stopped; the rest of each
    #: passed unchecked.
    streams_outpaced: int = 0


def framing_of_media(content_type: Optional[str]) -> Optional[str]:
    """The framing a ``Content-Type`` names, if it is an event stream:
    ``"sse"`` or ``"jsonl"``."""
    if not content_type:
        return None
    essence = content_type.split(";")[0].strip().lower()
    if essence == "text/event-stream":
        return "sse"
    if essence in (
        "application/jsonl",
        "application/x-ndjson",
        "application/jsonlines",
        "application/x-jsonlines",
    ):
        return "jsonl"
    return None


def framing_of(headers: List[Any]) -> Optional[str]:
    """The framing an ASGI response's ``content-type`` header names."""
    for name, value in headers:
        if bytes(name).lower() == b"content-type":
            return framing_of_media(bytes(value).decode("latin-1"))
    return None


class ResponseCheck:
    """The check of one response stream (made by the guard's middleware)."""

    def __init__(
        self,
        validator: Validator,
        framing: str,
        path: str,
        request: bytes,
        mode: str,
        stats: ResponseStats,
        logger: logging.Logger,
        on_finding: Optional[FindingHook],
        lagging: str = "wait",
    ) -> None:
        self.checker: Optional[StreamChecker] = StreamChecker(
            validator, format=framing, path=path, request=request
        )
        # Under "report" with lagging="stop": when the stream started, and
        # the time its check has taken since.
        self.budgeted = mode == "report" and lagging == "stop"
        self.started = time.perf_counter()
        self.spent = 0.0
        self.framing = framing
        self.mode = mode
        self.stats = stats
        self.logger = logger
        self.on_finding = on_finding
        self.errors = 0
        self.warnings = 0
        # The last bytes passed, to start an event of the guard's own at a
        # record boundary.
        self.tail = b"\n\n"
        self.closing: Optional[bytes] = None
        try:
            parsed = json.loads(request)
        except ValueError:
            parsed = None
        ids = parsed if isinstance(parsed, dict) else {}
        self.context: Dict[str, Any] = {
            "path": path,
            "thread_id": ids.get("threadId"),
            "run_id": ids.get("runId"),
        }

    @property
    def done(self) -> bool:
        """Whether the stream's check is over (ended, finished or left)."""
        return self.checker is None

    def feed(self, chunk: bytes) -> Optional[bytes]:
        """Feeds a chunk the app sent; under ``"enforce"``, returns the
        ``RUN_ERROR`` that ends the stream once an error was found."""
        if self.checker is None:
            return None
        if len(chunk) >= 2:
            self.tail = chunk[-2:]
        elif chunk:
            self.tail = self.tail[-1:] + chunk
        if not self.budgeted:
            self._report(self.checker.feed(chunk))
            return self._closing()
        began = time.perf_counter()
        self._report(self.checker.feed(chunk))
        now = time.perf_counter()
        self.spent += now - began
        if self.spent > CHECK_ALLOWANCE + CHECK_SHARE * (now - self.started):
            self._outpaced()
        return self._closing()

    def _outpaced(self) -> None:
        """The check took more than its share of the stream's time: it
        stops, counted and logged, and the rest passes unchecked."""
        checker, self.checker = self.checker, None
        events = checker.records if checker is not None else 0
        self.stats.events += events
        self.stats.streams_outpaced += 1
        self.logger.warning(
            "the response check took over %d%% of its stream's time and stopped after "
            "%d events; the rest of the stream passes unchecked",
            round(CHECK_SHARE * 100),
            events,
            extra={"agui_lint": dict(self.context, events=events)},
        )

    def finish(self) -> Optional[bytes]:
        """The app's body ended: what the stream's end finds, and the
        summary; under ``"enforce"``, the ``RUN_ERROR`` to end with."""
        checker = self.checker
        if checker is None:
            return None
        # Counted before the end, which consumes the checker.
        events = checker.records
        self._report(checker.finish())
        self._done(events)
        self.logger.info(
            "response stream checked: %d errors, %d warnings in %d events",
            self.errors,
            self.warnings,
            events,
            extra={
                "agui_lint": dict(
                    self.context, events=events, errors=self.errors, warnings=self.warnings
                )
            },
        )
        return self._closing()

    def abandon(self) -> None:
        """The stream was left before its end: counted, nothing reported."""
        if self.checker is None:
            return
        self.checker = None
        self.stats.streams_abandoned += 1

    def ended(self) -> None:
        """``"enforce"`` ended the stream at an error."""
        self.stats.streams_ended += 1
        if self.checker is not None:
            self._done(self.checker.records)

    def _done(self, events: int) -> None:
        self.checker = None
        self.stats.events += events
        if self.errors:
            self.stats.streams_with_errors += 1

    def _closing(self) -> Optional[bytes]:
        closing, self.closing = self.closing, None
        return closing

    def _report(self, documents: List[Result]) -> None:
        for document in documents:
            for finding in document.diagnostics:
                self._log(document, finding)
                if finding.severity == "error":
                    self.errors += 1
                    self.stats.errors += 1
                    if self.mode == "enforce" and self.closing is None:
                        self.closing = self._run_error(finding)
                elif finding.severity == "warning":
                    self.warnings += 1
                    self.stats.warnings += 1

    def _log(self, document: Result, d: Diagnostic) -> None:
        context = dict(
            self.context,
            rule=d.rule,
            severity=d.severity,
            pointer=d.pointer,
            event=document.record,
            line=d.line,
            column=d.column,
        )
        self.logger.log(
            _LEVELS.get(d.severity, logging.WARNING),
            "%s rule=%s pointer=%s event=%s",
            d.message,
            d.rule,
            d.pointer,
            document.record,
            extra={"agui_lint": context},
        )
        if self.on_finding is not None:
            self.on_finding(d, context)

    def _run_error(self, finding: Diagnostic) -> bytes:
        event = json.dumps(
            {
                "type": "RUN_ERROR",
                "message": f"agui-lint: {finding.rule} at {finding.pointer}: {finding.message}",
                "code": f"agui-lint/{finding.rule}",
            }
        )
        if self.framing == "jsonl":
            prefix = "" if self.tail.endswith(b"\n") else "\n"
            return f"{prefix}{event}\n".encode("utf-8")
        if self.tail in (b"\n\n", b"\r\r"):
            prefix = ""
        elif self.tail.endswith((b"\n", b"\r")):
            prefix = "\n"
        else:
            prefix = "\n\n"
        return f"{prefix}data: {event}\n\n".encode("utf-8")
