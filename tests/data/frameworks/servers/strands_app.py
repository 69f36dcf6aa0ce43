"""ag-ui-strands (`StrandsAgent` + `add_strands_fastapi_endpoint`) behind
uvicorn, one endpoint per scenario. The Strands `Agent`'s model is
`ScriptedModel`, a `strands.models.Model` that streams Bedrock-Converse-shaped
events from a script.

Run: python strands_app.py PORT
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import uvicorn
from ag_ui_strands import StrandsAgent, StrandsAgentConfig, ToolBehavior, add_strands_fastapi_endpoint
from fastapi import FastAPI
from strands import Agent, tool
from strands.models.model import Model

Event = dict[str, Any]


def tool_result(messages: list) -> str | None:
    """The text of a toolResult in the newest message, if the model is called back."""
    if not messages:
        return None
    for block in messages[-1].get("content", []):
        if "toolResult" in block:
            return "".join(c.get("text", "") for c in block["toolResult"].get("content", []))
    return None


def text(*pieces: str) -> list[Event]:
    return [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockStart": {"start": {}}},
        *({"contentBlockDelta": {"delta": {"text": p}}} for p in pieces),
        {"contentBlockStop": {}},
        {"messageStop": {"stopReason": "end_turn"}},
    ]


def tool_call(call_id: str, name: str, *arg_pieces: str) -> list[Event]:
    return [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockStart": {"start": {"toolUse": {"toolUseId": call_id, "name": name}}}},
        *({"contentBlockDelta": {"delta": {"toolUse": {"input": p}}}} for p in arg_pieces),
        {"contentBlockStop": {}},
        {"messageStop": {"stopReason": "tool_use"}},
    ]


SCRIPTS: dict[str, Callable[[list], list[Event]]] = {
    "text": lambda m: text("Hello! ", "I am a scripted ", "Strands agent."),
    "frontend-tool": lambda m: (
        text(f"The user answered: {tool_result(m)}")
        if tool_result(m) is not None
        else tool_call("call_frontend_1", "confirm_booking", '{"hotel": "Alpenblick", ', '"nights": 2}')
    ),
    "backend-tool": lambda m: (
        text("It is ", f"{tool_result(m)} in Berlin.")
        if tool_result(m) is not None
        else tool_call("call_backend_1", "get_weather", '{"city": "Berlin"}')
    ),
    "state": lambda m: (
        text("Added the todo.")
        if tool_result(m) is not None
        else tool_call("call_state_1", "add_todo", '{"todo": "buy milk"}')
    ),
    "reasoning": lambda m: [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockStart": {"start": {}}},
        {"contentBlockDelta": {"delta": {"reasoningContent": {"text": "The user greets me; "}}}},
        {"contentBlockDelta": {"delta": {"reasoningContent": {"text": "I should greet back."}}}},
        {"contentBlockDelta": {"delta": {"reasoningContent": {"signature": "scripted-signature"}}}},
        {"contentBlockStop": {}},
        {"contentBlockStart": {"start": {}}},
        {"contentBlockDelta": {"delta": {"text": "Hi there!"}}},
        {"contentBlockStop": {}},
        {"messageStop": {"stopReason": "end_turn"}},
    ],
    "error": lambda m: [*text("Let me check ")[:3], {"raise": "scripted model failure"}],
    "tool-error": lambda m: (
        text("The tool failed.") if tool_result(m) is not None else tool_call("call_error_1", "explode", "{}")
    ),
    "interrupt": lambda m: (
        text(f"Done: {tool_result(m)}")
        if tool_result(m) is not None
        else tool_call("call_interrupt_1", "delete_file", '{"path": "/tmp/report.txt"}')
    ),
}


class ScriptedModel(Model):
    def __init__(self, script: Callable[[list], list[Event]]):
        self.script = script
        self.config: dict[str, Any] = {"model_id": "scripted"}

    def update_config(self, **model_config: Any) -> None:
        self.config.update(model_config)

    def get_config(self) -> Any:
        return self.config

    async def structured_output(self, output_model, prompt, system_prompt=None, **kwargs):
        raise NotImplementedError("no structured output in these scenarios")
        yield  # pragma: no cover

    async def stream(self, messages, tool_specs=None, system_prompt=None, **kwargs) -> AsyncIterator[Event]:
        for event in self.script(messages):
            if "raise" in event:
                raise RuntimeError(event["raise"])
            yield event
        yield {"metadata": {"usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2}, "metrics": {"latencyMs": 0}}}


@tool
def get_weather(city: str) -> str:
    """Current weather of a city."""
    return "sunny, 21 degrees"


@tool
def add_todo(todo: str) -> str:
    """Add a todo to the shared state."""
    return f"added {todo}"


@tool
def explode() -> str:
    """A tool that always fails."""
    raise RuntimeError("scripted tool failure")


@tool
def delete_file(path: str) -> str:
    """Delete a file, once the user approves."""
    return f"deleted {path}"


def todos_after(context) -> dict:
    todos = list((context.input_data.state or {}).get("todos") or [])
    return {"todos": [*todos, context.tool_input["todo"]]}


TOOLS = {"backend-tool": [get_weather], "state": [add_todo], "tool-error": [explode], "interrupt": [delete_file]}
CONFIGS = {
    "state": StrandsAgentConfig(tool_behaviors={"add_todo": ToolBehavior(state_from_result=todos_after)}),
    # interrupt_on_call: the run ends with the interrupt outcome before the tool runs.
    "interrupt": StrandsAgentConfig(tool_behaviors={"delete_file": ToolBehavior(interrupt_on_call=True)}),
}

app = FastAPI()
for name, script in SCRIPTS.items():
    core = Agent(model=ScriptedModel(script), tools=TOOLS.get(name, []), callback_handler=None)
    agent = StrandsAgent(core, name=name.replace("-", "_"), config=CONFIGS.get(name))
    add_strands_fastapi_endpoint(app, agent, f"/{name}")

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
