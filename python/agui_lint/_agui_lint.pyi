"""Type stubs of the compiled module ``agui_lint._agui_lint``, re-exported
by ``agui_lint``."""

from os import PathLike
from typing import Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Union

__version__: str
#: The protocol versions agui-lint judges by, newest first.
PROTOCOLS: List[str]

Body = Union[bytes, bytearray, memoryview, str]
SeverityName = Literal["error", "warning", "info"]

class Related:
    """Another place involved in a finding."""

    @property
    def pointer(self) -> str:
        """JSON pointer of the other place."""
    @property
    def message(self) -> str:
        """What the other place has to do with the finding."""
    @property
    def record(self) -> Optional[int]:
        """The record holding the other place, when it is another record."""
    @property
    def line(self) -> Optional[int]:
        """1-based line of the other place, when known."""
    @property
    def column(self) -> Optional[int]:
        """1-based column of the other place, when known."""
    def to_dict(self) -> Dict[str, object]:
        """The place with the keys of the CLI's JSON output."""

class Diagnostic:
    """One finding in one document."""

    @property
    def rule(self) -> str:
        """The rule's stable kebab-case name, e.g. ``tool-result-without-call``."""
    @property
    def severity(self) -> SeverityName:
        """How serious the finding is."""
    @property
    def message(self) -> str:
        """One sentence saying what is wrong."""
    @property
    def pointer(self) -> str:
        """JSON pointer (RFC 6901) of the offending node; ``""`` is the root."""
    @property
    def line(self) -> Optional[int]:
        """1-based line of the node, when known."""
    @property
    def column(self) -> Optional[int]:
        """1-based column (in characters) of the node, when known."""
    @property
    def help(self) -> Optional[str]:
        """Advice on how to fix it."""
    @property
    def related(self) -> List[Related]:
        """Other places involved."""
    def to_json(self) -> str:
        """The finding as the CLI's JSON output writes it (compact)."""
    def to_dict(self) -> Dict[str, object]:
        """The finding with the keys of the CLI's JSON output."""

class Result:
    """What a check found in one document."""

    @property
    def valid(self) -> bool:
        """``True`` when no error is left (warnings and infos allowed)."""
    @property
    def protocol(self) -> str:
        """The protocol version that judged the document (``"1.1"``, ``"1.0"``, ``"0"``)."""
    @property
    def kind(self) -> Optional[str]:
        """The kind the document was checked as, when it could be told."""
    @property
    def record(self) -> Optional[int]:
        """The 1-based record of a stream; ``None`` for a document checked alone."""
    @property
    def diagnostics(self) -> List[Diagnostic]:
        """Every finding, in position order."""
    @property
    def errors(self) -> int:
        """How many findings are errors."""
    @property
    def warnings(self) -> int:
        """How many findings are warnings."""
    @property
    def infos(self) -> int:
        """How many findings are infos."""
    def to_json(self, path: str = "-") -> str:
        """The document ``agui-lint check --format json`` prints for this document."""
    def to_text(self, path: str = "-", source: Optional[bytes] = None, color: bool = False) -> str:
        """What ``agui-lint check`` prints for this document (the human format),
        shown under ``path``; with ``source``, its bytes, each finding shows its
        source line and a caret."""
    def __bool__(self) -> bool:
        """``valid``."""

class StreamResult:
    """What a check found in a captured stream."""

    @property
    def valid(self) -> bool:
        """``True`` when no record has an error left."""
    @property
    def documents(self) -> List[Result]:
        """One result per record, in stream order."""
    @property
    def errors(self) -> int:
        """How many findings are errors, over every record."""
    @property
    def warnings(self) -> int:
        """How many findings are warnings, over every record."""
    @property
    def infos(self) -> int:
        """How many findings are infos, over every record."""
    def to_json(self) -> str:
        """The document ``agui-lint check --format json`` prints for the capture."""
    def to_text(self, color: bool = False) -> str:
        """What ``agui-lint check`` prints for the capture (the human format)."""
    def __len__(self) -> int:
        """How many records were checked."""

class Rule:
    """A rule of the registry."""

    @property
    def name(self) -> str:
        """The stable kebab-case name."""
    @property
    def severity(self) -> SeverityName:
        """The default severity."""
    @property
    def summary(self) -> str:
        """One line saying what the rule reports."""
    @property
    def docs(self) -> str:
        """The Markdown documentation ``agui-lint rule NAME`` prints."""
    @property
    def protocols(self) -> List[str]:
        """The protocol versions whose documents the rule judges."""

class Validator:
    """The compiled schemas and the settings that decide which rules report.

    Build it once and share it: thread-safe, and the GIL is released while
    it checks.
    """

    def __init__(
        self,
        protocol: str = "auto",
        select: Optional[Sequence[str]] = None,
        ignore: Optional[Sequence[str]] = None,
        severity: Optional[Mapping[str, SeverityName]] = None,
        mask_values: bool = False,
        config: Optional[Union[str, "PathLike[str]"]] = None,
        max_findings: Optional[int] = None,
        max_document_size: Optional[int] = None,
        max_state_size: Optional[int] = None,
        max_total_state_size: Optional[int] = None,
        client: Optional[str] = None,
    ) -> None: ...
    def with_limits(
        self,
        max_findings: Optional[int] = None,
        max_document_size: Optional[int] = None,
        max_state_size: Optional[int] = None,
        max_total_state_size: Optional[int] = None,
    ) -> "Validator":
        """This validator with other bounds, its other settings kept and its
        compiled schemas shared."""
    @property
    def max_findings(self) -> int:
        """The most findings a document reports."""
    def check_run_agent_input(self, body: Body) -> Result:
        """Checks a ``RunAgentInput``, the body of the request that starts a run."""
    def validate(self, kind: str, body: Body) -> Result:
        """Checks ``body`` as a document of ``kind`` (see :func:`kinds`), or ``"auto"``."""
    def check_stream(
        self,
        body: Body,
        format: Literal["sse", "jsonl", "har", "proto", "auto"] = "sse",
        kind: str = "auto",
        path: str = "-",
        request: Optional[Body] = None,
    ) -> StreamResult:
        """Checks a captured event stream, every record and the events together;
        ``request``, the ``RunAgentInput`` it answers, pairs the two."""

class StreamChecker:
    """One event stream checked as its bytes come, in chunks split anywhere.

    ``feed`` each chunk as it arrives and ``finish`` at the end; each returns
    the records it made final that have findings. ``request``, the JSON text
    of the ``RunAgentInput`` the stream answers, pairs the two.
    """

    def __init__(
        self,
        validator: Validator,
        format: Literal["sse", "jsonl", "proto", "auto"] = "sse",
        kind: str = "auto",
        path: str = "-",
        request: Optional[Body] = None,
    ) -> None: ...
    def feed(self, chunk: Body) -> List[Result]:
        """Feeds the next chunk; returns the records it made final that have findings."""
    def finish(self) -> List[Result]:
        """Ends the stream; returns the records left that have findings."""
    @property
    def records(self) -> int:
        """How many records (events, lines) have been checked so far; once
        finished, how many the stream held."""

def rules() -> List[Rule]:
    """Every rule agui-lint can report, in documentation order."""

def kinds() -> List[str]:
    """The names of the kinds of document ``Validator.validate`` checks."""

class Kit:
    """One run of the conformance kit for agent servers, driven by the
    caller (``agui_lint.kit`` drives it for ASGI apps and URLs).

    ``next_request`` gives the next request to send, or ``None`` when every
    scenario has ended; ``record`` hands back its response; ``report``,
    ``fails`` and ``results`` judge.
    """

    def __init__(
        self,
        url: str = "http://testserver/",
        scenarios: Optional[Sequence[str]] = None,
        scenario_files: Optional[Sequence[str]] = None,
        version: Optional[str] = "1.0",
        level: Optional[Literal["must", "should"]] = None,
        expected_failures: Optional[str] = None,
        strict: bool = False,
    ) -> None: ...
    def next_request(self) -> Optional[Dict[str, object]]:
        """The next request: ``scenario``, ``label``, ``headers`` (a list of
        ``(name, value)``), ``body`` (bytes), ``cancel_after_events`` (close
        the connection after that many events, or ``None``) and
        ``wait_before_ms``."""
    def record(
        self,
        status: Optional[int],
        headers: Sequence[Tuple[str, str]],
        body: bytes,
        complete: bool = True,
    ) -> None:
        """Records the response to the last request."""
    def record_unanswered(self, why: str) -> None:
        """Records that the last request got no response at all (the app
        raised, the connection was refused, reset or closed first); a
        second in a row ends the suite."""
    def abandoned(self) -> Optional[str]:
        """Why the suite ended before its end (the server stopped
        answering), or ``None``."""
    def report(self, format: Literal["human", "json", "junit"] = "human") -> str:
        """The report, one line (or test case) per scenario and check."""
    def fails(self) -> bool:
        """Whether a MUST check failed (a SHOULD one too when ``strict``)
        that the expected failures do not list, or one they list passed."""
    def results(self) -> List[Tuple[str, str, str, str, Optional[str]]]:
        """``(scenario, check, level, verdict, why)`` for every check judged."""

def scenario_names() -> List[str]:
    """The kit's built-in scenarios, in the order run."""
