"""The answers a guard gives a request it refuses: :class:`Rejection`, with
the Rust guard's JSON bodies. Imported through :mod:`agui_lint.asgi`, which
says which extra brings Starlette when it is missing."""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable, List, MutableMapping, Optional, Tuple

from starlette.exceptions import HTTPException
from starlette.responses import Response

from ._agui_lint import Result, __version__

_ASGIMessage = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[_ASGIMessage]]
_Send = Callable[[_ASGIMessage], Awaitable[None]]
_Scope = MutableMapping[str, Any]
_ASGIApp = Callable[[_Scope, _Receive, _Send], Awaitable[None]]


class Rejection(HTTPException):
    """Why a request did not reach the handler, and the answer that says so.

    ``status`` is 422 (not a valid ``RunAgentInput``, ``result`` says why),
    415 (not JSON, or encoded), 413 (over the body limit), 408 (the body
    did not arrive in time) or 503 (not checked in time); ``body`` is the
    JSON answer. A FastAPI app answers it once :meth:`Guard.install` ran.
    (An ``HTTPException``, so that FastAPI lets it through when it is
    raised while the body is read.)
    """

    def __init__(self, status: int, body: bytes, result: Optional[Result] = None) -> None:
        self.status = status
        self.body = body
        self.result = result
        super().__init__(
            status,
            f"agui-lint refused the request ({status}); "
            "Guard.install(app) makes the app answer it",
        )

    @classmethod
    def invalid(cls, result: Result, path: str) -> Rejection:
        """A 422 carrying the ``--format json`` document of ``result``."""
        return cls(422, result.to_json(path).encode("utf-8"), result)

    @classmethod
    def unsupported_media_type(cls, found: Optional[str]) -> Rejection:
        """A 415 for a body that is not declared as JSON."""
        if found is None:
            message = "the body must be JSON (Content-Type: application/json)"
        else:
            message = f"the body must be JSON (Content-Type: application/json), not '{found}'"
        return cls(415, _error_document(message))

    @classmethod
    def payload_too_large(cls, limit: int) -> Rejection:
        """A 413 for a body over ``limit`` bytes."""
        return cls(413, _error_document(f"the body is over the limit of {_size(limit)}"))

    @classmethod
    def unsupported_encoding(cls, encoding: str) -> Rejection:
        """A 415 for a body sent with a ``Content-Encoding``."""
        return cls(
            415,
            _error_document(
                f"the body is sent with Content-Encoding '{encoding}'; agui-lint checks "
                "bodies as sent, so decompress them before the guard"
            ),
        )

    @classmethod
    def body_timeout(cls, timeout: float) -> Rejection:
        """A 408 for a body that did not arrive within ``timeout`` seconds."""
        return cls(408, _error_document(f"the body did not arrive within {timeout:g} s"))

    @classmethod
    def timed_out(cls, timeout: float) -> Rejection:
        """A 503 for a check not done within ``timeout`` seconds."""
        return cls(
            503,
            _error_document(
                f"the request could not be checked within {timeout:g} s; try again",
                rule="check-timed-out",
            ),
        )

    @property
    def response_headers(self) -> List[Tuple[bytes, bytes]]:
        """The answer's headers, as ASGI sends them."""
        return [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(self.body)).encode("ascii")),
        ]

    def response(self) -> Response:
        """The answer as a Starlette response."""
        return Response(self.body, status_code=self.status, media_type="application/json")

    async def send(self, send: _Send) -> None:
        """Sends the answer through a raw ASGI ``send``."""
        await send(
            {"type": "http.response.start", "status": self.status, "headers": self.response_headers}
        )
        await send({"type": "http.response.body", "body": self.body})


def _error_document(message: str, rule: Optional[str] = None) -> bytes:
    """The Rust guard's body for a refusal that is not about findings."""
    document = {"tool": "agui-lint", "version": __version__, "error": message}
    if rule is not None:
        document["rule"] = rule
    return (json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def _size(size: int) -> str:
    """``size`` bytes as the Rust guard writes it: ``512 bytes``, ``2 MiB``."""
    if size < 1024:
        return f"{size} byte{'' if size == 1 else 's'}"
    value = size / 1024
    units = ["KiB", "MiB", "GiB", "TiB"]
    unit = 0
    while value >= 1024 and unit + 1 < len(units):
        value /= 1024
        unit += 1
    text = f"{value:.1f}"
    if text.endswith(".0"):
        text = text[:-2]
    return f"{text} {units[unit]}"
