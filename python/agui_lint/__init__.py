"""agui-lint: JSON Schema and conformance validation for the AG-UI protocol.

Every check runs in the Rust library ``agui-lint``; this package binds it:

>>> import agui_lint
>>> validator = agui_lint.Validator()
>>> result = validator.check_run_agent_input(b'{"threadId": "t", "runId": "r", "messages": []}')
>>> result.valid, result.protocol
(True, '1.1')

``agui_lint.asgi`` guards an AG-UI endpoint of a Starlette or FastAPI app.
"""

from ._agui_lint import (
    PROTOCOLS,
    Diagnostic,
    Related,
    Result,
    Rule,
    StreamChecker,
    StreamResult,
    Validator,
    __version__,
    kinds,
    rules,
)

__all__ = [
    "PROTOCOLS",
    "Diagnostic",
    "Related",
    "Result",
    "Rule",
    "StreamChecker",
    "StreamResult",
    "Validator",
    "__version__",
    "kinds",
    "rules",
]
