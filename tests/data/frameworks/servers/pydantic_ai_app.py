"""pydantic-ai's AG-UI adapter (`AGUIAdapter.dispatch_request`) behind
uvicorn, one POST route per scenario, every model a scripted `FunctionModel`.

Run: python pydantic_ai_app.py PORT
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator

import uvicorn
from ag_ui.core import EventType, StateDeltaEvent, StateSnapshotEvent
from pydantic import BaseModel
from pydantic_ai import Agent, DeferredToolRequests, RunContext, ToolReturn
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart
from pydantic_ai.models.function import (
    AgentInfo,
    DeltaThinkingCalls,
    DeltaThinkingPart,
    DeltaToolCall,
    DeltaToolCalls,
    FunctionModel,
)
from pydantic_ai.ui import StateDeps
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route


def _tool_returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    """Tool results in the newest request, i.e. the model is being called back."""
    last = messages[-1]
    if not isinstance(last, ModelRequest):
        return []
    return [p for p in last.parts if isinstance(p, ToolReturnPart)]


# 1. Plain text, streamed in three deltas.
async def text_model(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    for piece in ("Hello! ", "I am a scripted ", "pydantic-ai agent."):
        yield piece


# 2. A frontend tool offered in RunAgentInput.tools: the model calls it, the
#    run ends, and the follow-up request carries the result.
async def frontend_tool_model(
    messages: list[ModelMessage], info: AgentInfo
) -> AsyncIterator[str | DeltaToolCalls]:
    returns = _tool_returns(messages)
    if returns:
        yield f"The user answered: {returns[0].model_response_str()}"
        return
    yield {0: DeltaToolCall(name="confirm_booking", tool_call_id="call_frontend_1")}
    yield {0: DeltaToolCall(json_args='{"hotel": "Alpenblick", ')}
    yield {0: DeltaToolCall(json_args='"nights": 2}')}


# 3. A backend tool the agent runs itself.
async def backend_tool_model(
    messages: list[ModelMessage], info: AgentInfo
) -> AsyncIterator[str | DeltaToolCalls]:
    returns = _tool_returns(messages)
    if returns:
        yield "It is "
        yield f"{returns[0].model_response_str()} in Berlin."
        return
    yield {0: DeltaToolCall(name="get_weather", tool_call_id="call_backend_1")}
    yield {0: DeltaToolCall(json_args='{"city": "Berlin"}')}


backend_agent = Agent(FunctionModel(stream_function=backend_tool_model))


@backend_agent.tool_plain
def get_weather(city: str) -> str:
    """Current weather of a city."""
    return "sunny, 21 degrees"


# 4. Shared state: the agent reads RunAgentInput.state through StateDeps and a
#    tool sends STATE_SNAPSHOT then STATE_DELTA as tool-return metadata.
class TodoState(BaseModel):
    todos: list[str] = []


async def state_model(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    if _tool_returns(messages):
        yield "Added the todo."
        return
    yield {0: DeltaToolCall(name="add_todo", tool_call_id="call_state_1")}
    yield {0: DeltaToolCall(json_args='{"todo": "buy milk"}')}


state_agent = Agent(FunctionModel(stream_function=state_model), deps_type=StateDeps[TodoState])


@state_agent.tool
def add_todo(ctx: RunContext[StateDeps[TodoState]], todo: str) -> ToolReturn:
    """Add a todo to the shared state."""
    before = list(ctx.deps.state.todos)
    ctx.deps.state.todos.append(todo)
    return ToolReturn(
        return_value=f"added {todo}",
        metadata=[
            StateSnapshotEvent(type=EventType.STATE_SNAPSHOT, snapshot={"todos": before}),
            StateDeltaEvent(
                type=EventType.STATE_DELTA,
                delta=[{"op": "add", "path": "/todos/-", "value": todo}],
            ),
        ],
    )


# 5. Reasoning: a thinking part before the answer.
async def reasoning_model(
    messages: list[ModelMessage], info: AgentInfo
) -> AsyncIterator[str | DeltaThinkingCalls]:
    yield {0: DeltaThinkingPart(content="The user greets me; ")}
    yield {0: DeltaThinkingPart(content="I should greet back.")}
    yield "Hi there!"


# 6. An error mid-run: the model streams some text, then raises.
async def error_model(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    yield "Let me check "
    raise RuntimeError("scripted model failure")


# 6b. An error raised by a backend tool.
async def tool_error_model(
    messages: list[ModelMessage], info: AgentInfo
) -> AsyncIterator[str | DeltaToolCalls]:
    yield {0: DeltaToolCall(name="explode", tool_call_id="call_error_1")}
    yield {0: DeltaToolCall(json_args="{}")}


tool_error_agent = Agent(FunctionModel(stream_function=tool_error_model))


@tool_error_agent.tool_plain
def explode() -> str:
    """A tool that always fails."""
    raise RuntimeError("scripted tool failure")


# 7. Human in the loop: a backend tool that needs the user's approval. The run
#    ends with the interrupt outcome; the next request resumes it.
async def interrupt_model(
    messages: list[ModelMessage], info: AgentInfo
) -> AsyncIterator[str | DeltaToolCalls]:
    returns = _tool_returns(messages)
    if returns:
        yield f"Done: {returns[0].model_response_str()}"
        return
    yield {0: DeltaToolCall(name="delete_file", tool_call_id="call_interrupt_1")}
    yield {0: DeltaToolCall(json_args='{"path": "/tmp/report.txt"}')}


interrupt_agent = Agent(FunctionModel(stream_function=interrupt_model), output_type=[str, DeferredToolRequests])


@interrupt_agent.tool_plain(requires_approval=True)
def delete_file(path: str) -> str:
    """Delete a file, once the user approves."""
    return f"deleted {path}"


AGENTS = {
    "text": (Agent(FunctionModel(stream_function=text_model)), None),
    "frontend-tool": (Agent(FunctionModel(stream_function=frontend_tool_model)), None),
    "backend-tool": (backend_agent, None),
    "state": (state_agent, lambda: StateDeps(TodoState())),
    "reasoning": (Agent(FunctionModel(stream_function=reasoning_model)), None),
    "error": (Agent(FunctionModel(stream_function=error_model)), None),
    "tool-error": (tool_error_agent, None),
    "interrupt": (interrupt_agent, None),
}


async def run(request: Request) -> Response:
    agent, deps = AGENTS[request.path_params["scenario"]]
    return await AGUIAdapter.dispatch_request(request, agent=agent, deps=deps() if deps else None)


app = Starlette(routes=[Route("/{scenario}", run, methods=["POST"])])

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
