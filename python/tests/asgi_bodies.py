"""A request body read whole by an ASGI wrapper and handed on to the app it
wraps, for tests that look at (or act on) what the kit sends."""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Dict, Tuple

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
