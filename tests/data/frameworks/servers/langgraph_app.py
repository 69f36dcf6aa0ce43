"""ag-ui-langgraph (`LangGraphAgent` + `add_langgraph_fastapi_endpoint`)
behind uvicorn, one endpoint per scenario. Each graph's chat model is
`ScriptedChatModel`, a `BaseChatModel` subclass that streams scripted chunks
(text, tool-call chunks, thinking blocks) the way a provider integration does.

Run: python langgraph_app.py PORT
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Annotated, Any

import uvicorn
from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from fastapi import FastAPI
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import InjectedState, ToolNode
from langgraph.types import Command, interrupt

Chunk = dict[str, Any]  # keyword arguments of one AIMessageChunk, or {"raise": message}


class ScriptedChatModel(BaseChatModel):
    """Streams the chunks `script(messages)` returns; nothing is random."""

    script: Callable[[list[BaseMessage]], list[Chunk]]

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedChatModel":
        return self

    def _chunks(self, messages: list[BaseMessage]) -> Iterator[ChatGenerationChunk]:
        for kwargs in self.script(messages):
            if "raise" in kwargs:
                raise RuntimeError(kwargs["raise"])
            yield ChatGenerationChunk(message=AIMessageChunk(**kwargs))

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        merged = None
        for chunk in self._chunks(messages):
            merged = chunk if merged is None else merged + chunk
        message = AIMessage(**{k: v for k, v in merged.message.model_dump().items() if k in ("content", "tool_calls", "id")})
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _astream(self, messages, stop=None, run_manager=None, **kwargs) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._chunks(messages):
            if run_manager:
                await run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk


def text(*pieces: str) -> list[Chunk]:
    return [{"content": p} for p in pieces]


def tool_call(call_id: str, name: str, *arg_pieces: str) -> list[Chunk]:
    first = {"content": "", "tool_call_chunks": [{"id": call_id, "name": name, "args": "", "index": 0}]}
    rest = [{"content": "", "tool_call_chunks": [{"id": None, "name": None, "args": a, "index": 0}]} for a in arg_pieces]
    return [first, *rest]


def answered(messages: list[BaseMessage]) -> ToolMessage | None:
    return messages[-1] if messages and isinstance(messages[-1], ToolMessage) else None


SCRIPTS: dict[str, Callable[[list[BaseMessage]], list[Chunk]]] = {
    "text": lambda m: text("Hello! ", "I am a scripted ", "LangGraph agent."),
    "frontend-tool": lambda m: (
        text(f"The user answered: {answered(m).content}")
        if answered(m)
        else tool_call("call_frontend_1", "confirm_booking", '{"hotel": "Alpenblick", ', '"nights": 2}')
    ),
    "backend-tool": lambda m: (
        text("It is ", f"{answered(m).content} in Berlin.")
        if answered(m)
        else tool_call("call_backend_1", "get_weather", '{"city": "Berlin"}')
    ),
    "state": lambda m: (
        text("Added the todo.") if answered(m) else tool_call("call_state_1", "add_todo", '{"todo": "buy milk"}')
    ),
    "reasoning": lambda m: [
        {"content": [{"type": "thinking", "thinking": "The user greets me; ", "index": 0}]},
        {"content": [{"type": "thinking", "thinking": "I should greet back.", "index": 0}]},
        {"content": [{"type": "text", "text": "Hi there!", "index": 1}]},
    ],
    "error": lambda m: [*text("Let me check "), {"raise": "scripted model failure"}],
    "tool-error": lambda m: tool_call("call_error_1", "explode", "{}"),
    "interrupt": lambda m: (
        text(f"Done: {answered(m).content}")
        if answered(m)
        else tool_call("call_interrupt_1", "delete_file", '{"path": "/tmp/report.txt"}')
    ),
}


class AgentState(MessagesState):
    tools: list  # the frontend tools, filled in by ag-ui-langgraph from RunAgentInput.tools
    todos: list[str]


@tool
def get_weather(city: str) -> str:
    """Current weather of a city."""
    return "sunny, 21 degrees"


@tool
def add_todo(todo: str, state: Annotated[dict, InjectedState], tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Add a todo to the shared state."""
    return Command(
        update={
            "todos": [*(state.get("todos") or []), todo],
            "messages": [ToolMessage(content=f"added {todo}", tool_call_id=tool_call_id)],
        }
    )


@tool
def explode() -> str:
    """A tool that always fails."""
    raise RuntimeError("scripted tool failure")


@tool
def delete_file(path: str) -> str:
    """Delete a file, once the user approves (a LangGraph interrupt)."""
    answer = interrupt({"question": f"Delete {path}?", "path": path})
    return f"deleted {path}" if answer.get("approved") else "the user declined"


BACKEND_TOOLS = [get_weather, add_todo, explode, delete_file]


def build_graph(scenario: str):
    model = ScriptedChatModel(script=SCRIPTS[scenario])

    async def chat(state: AgentState, config) -> dict:
        response = await model.bind_tools([*BACKEND_TOOLS, *(state.get("tools") or [])]).ainvoke(state["messages"], config)
        return {"messages": [response]}

    def route(state: AgentState) -> str:
        last = state["messages"][-1]
        backend = {t.name for t in BACKEND_TOOLS}
        if isinstance(last, AIMessage) and any(c["name"] in backend for c in last.tool_calls):
            return "tools"
        return END  # no call, or a frontend tool the client runs

    # handle_tool_errors=False: a failing tool fails the run instead of
    # becoming an error ToolMessage.
    tools = ToolNode(BACKEND_TOOLS, handle_tool_errors=False)

    graph = StateGraph(AgentState)
    graph.add_node("chat", chat)
    graph.add_node("tools", tools)
    graph.add_edge(START, "chat")
    graph.add_conditional_edges("chat", route, ["tools", END])
    graph.add_edge("tools", "chat")
    return graph.compile(checkpointer=MemorySaver())


app = FastAPI()
for name in SCRIPTS:
    add_langgraph_fastapi_endpoint(
        app,
        # emit_raw_events=False: without it every event also carries the
        # LangGraph callback event it came from (RAW events and `rawEvent`),
        # which makes the captures ten times larger and no more useful here.
        # emit_interrupt_outcome=True: an interrupt ends the run with the 1.0
        # interrupt outcome, resumed through RunAgentInput.resume (the default
        # is the legacy CUSTOM on_interrupt event and forwardedProps.command).
        LangGraphAgent(
            name=name.replace("-", "_"), graph=build_graph(name), emit_raw_events=False, emit_interrupt_outcome=True
        ),
        path=f"/{name}",
    )

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
