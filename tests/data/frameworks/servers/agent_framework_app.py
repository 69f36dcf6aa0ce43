"""agent-framework-ag-ui (`add_agent_framework_fastapi_endpoint`) behind
uvicorn, one endpoint per scenario. The `Agent`'s chat client is
`ScriptedChatClient` (`FunctionInvocationLayer` over `BaseChatClient`), which
streams scripted `ChatResponseUpdate`s the way a provider client does:
text deltas, a function call whose arguments arrive in fragments, reasoning
text.

This adapter pins ag-ui-protocol<0.2, so it runs in its own venv
(requirements-agent-framework.txt).

Run: python agent_framework_app.py PORT
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

import uvicorn
from agent_framework import Agent, BaseChatClient, ChatResponseUpdate, Content, Message, tool
from agent_framework._tools import FunctionInvocationLayer
from agent_framework_ag_ui import add_agent_framework_fastapi_endpoint, state_update
from fastapi import FastAPI

Step = list[Content] | str  # one update's contents, or "raise:<message>"


def tool_result(messages: Sequence[Message]) -> str | None:
    if not messages:
        return None
    for content in messages[-1].contents:
        if content.type == "function_result":
            return str(content.result)
    return None


def text(*pieces: str) -> list[Step]:
    return [[Content.from_text(p)] for p in pieces]


def call(call_id: str, name: str, *arg_pieces: str) -> list[Step]:
    first = [[Content.from_function_call(call_id=call_id, name=name, arguments=arg_pieces[0])]]
    rest = [[Content.from_function_call(call_id=call_id, name="", arguments=a)] for a in arg_pieces[1:]]
    return first + rest


SCRIPTS: dict[str, Callable[[Sequence[Message]], list[Step]]] = {
    "text": lambda m: text("Hello! ", "I am a scripted ", "Agent Framework agent."),
    "frontend-tool": lambda m: (
        text(f"The user answered: {tool_result(m)}")
        if tool_result(m) is not None
        else call("call_frontend_1", "confirm_booking", '{"hotel": "Alpenblick", ', '"nights": 2}')
    ),
    "backend-tool": lambda m: (
        text("It is ", f"{tool_result(m)} in Berlin.")
        if tool_result(m) is not None
        else call("call_backend_1", "get_weather", '{"city": "Berlin"}')
    ),
    "state": lambda m: (
        text("Added the todo.") if tool_result(m) is not None else call("call_state_1", "add_todo", '{"todo": "buy milk"}')
    ),
    "reasoning": lambda m: [
        [Content.from_text_reasoning(text="The user greets me; ")],
        [Content.from_text_reasoning(text="I should greet back.")],
        *text("Hi there!"),
    ],
    "error": lambda m: [*text("Let me check "), "raise:scripted model failure"],
    "tool-error": lambda m: (
        text("The tool failed.") if tool_result(m) is not None else call("call_error_1", "explode", "{}")
    ),
}


class ScriptedChatClient(FunctionInvocationLayer, BaseChatClient):
    OTEL_PROVIDER_NAME = "scripted"

    def __init__(self, script: Callable[[Sequence[Message]], list[Step]], **kwargs: Any):
        super().__init__(**kwargs)
        self.script = script

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Mapping[str, Any], **kwargs):
        steps = self.script(messages)

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            for step in steps:
                if isinstance(step, str):
                    raise RuntimeError(step.removeprefix("raise:"))
                yield ChatResponseUpdate(role="assistant", contents=step, model="scripted")

        if stream:
            return self._build_response_stream(updates())

        async def whole():
            return self._finalize_response_updates([u async for u in updates()])

        return whole()


@tool
def get_weather(city: str) -> str:
    """Current weather of a city."""
    return "sunny, 21 degrees"


@tool
def add_todo(todo: str) -> Content:
    """Add a todo to the shared state."""
    return state_update(f"added {todo}", state={"todos": [todo]})


@tool
def explode() -> str:
    """A tool that always fails."""
    raise RuntimeError("scripted tool failure")


TOOLS = {"backend-tool": [get_weather], "state": [add_todo], "tool-error": [explode]}

app = FastAPI()
for name, script in SCRIPTS.items():
    agent = Agent(
        client=ScriptedChatClient(script),
        name=name.replace("-", "_"),
        instructions="You are a scripted test agent.",
        tools=TOOLS.get(name, []),
    )
    add_agent_framework_fastapi_endpoint(
        app,
        agent,
        f"/{name}",
        state_schema={"todos": {"type": "array", "items": {"type": "string"}}} if name == "state" else None,
        single_user=True,  # a local test server: no authorization scope
    )

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
