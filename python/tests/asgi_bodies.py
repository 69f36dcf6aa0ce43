"""A request body read whole by an ASGI wrapper and handed on to the app it
wraps, for tests that look at (or act on) what the kit sends."""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Dict, List, Tuple

Receive = Callable[[], Awaitable[Dict[str, Any]]]


async def read_body(receive: Receive) -> Tuple[bytes, Receive]:
    """The whole body ``receive`` gives, and a ``receive`` that gives it
    again (then what the original gives after it: a disconnect)."""
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    given = False

    async def again() -> Dict[str, Any]:
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return body, again


def recording(app: Any, bodies: List[bytes]) -> Any:
    """``app``, with each request body it is sent kept in ``bodies``."""

    async def recorded(scope: Dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        body, again = await read_body(receive)
        bodies.append(body)
        await app(scope, again, send)

    return recorded
