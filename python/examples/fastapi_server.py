"""A runnable AG-UI endpoint on FastAPI, guarded by agui-lint both ways:

    pip install './python[asgi]' fastapi uvicorn ag-ui-protocol==1.0.0   # from the clone's root
    uvicorn fastapi_server:app --port 8000       # from python/examples/

(agui-lint is not on PyPI yet: ``./python`` builds it from the clone, as
``python/README.md`` says.)

``POST /agent`` with a valid ``RunAgentInput`` is answered with a short
Server-Sent Events stream made by the official ``EventEncoder``
(``RUN_STARTED``, a text message, ``RUN_FINISHED``); any other body is
refused before the agent runs (422 with agui-lint's findings, 415, 413).
The agent's answer is checked as it streams (``responses="report"``): its
findings, and a summary at the stream's end, go to the
``agui_lint.response`` logger, and its bytes pass as the agent wrote them.
``python/tests/test_asgi_response.py`` drives this app.
"""

from __future__ import annotations

import logging
from typing import Iterator

from ag_ui.core import (
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from ag_ui.encoder import EventEncoder
from fastapi import FastAPI
from fastapi.responses import StreamingResponse

from agui_lint.asgi import Guard, GuardMiddleware

logging.basicConfig(level=logging.INFO)

#: The guard: requests checked before the agent runs, responses as they
#: stream (one in every ``response_sampling`` in production).
guard = Guard(responses="report")

app = FastAPI()
app.add_middleware(GuardMiddleware, guard=guard, paths=["/agent"])


def reply(input_data: RunAgentInput, encoder: EventEncoder) -> Iterator[str]:
    """One run with the input's ids, saying one short message."""
    message_id = f"{input_data.run_id}-reply"
    text = f"agui-lint checked your input: {len(input_data.messages)} messages"
    for event in (
        # A 1.x producer declares the version it speaks (ag-ui-protocol
        # 1.0.0 speaks 1.0); agui-lint reports a run that does not.
        RunStartedEvent(
            thread_id=input_data.thread_id, run_id=input_data.run_id, protocol_version="1.0"
        ),
        TextMessageStartEvent(message_id=message_id, role="assistant"),
        TextMessageContentEvent(message_id=message_id, delta=text),
        TextMessageEndEvent(message_id=message_id),
        RunFinishedEvent(thread_id=input_data.thread_id, run_id=input_data.run_id),
    ):
        yield encoder.encode(event)


@app.post("/agent")
async def agent(input_data: RunAgentInput) -> StreamingResponse:
    encoder = EventEncoder()
    return StreamingResponse(reply(input_data, encoder), media_type=encoder.get_content_type())
