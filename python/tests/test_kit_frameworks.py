"""The conformance kit against more real adapters, in process: ag-ui-strands
1.0.2 over a Strands ``Agent``, ag-ui-adk 0.11.0 over an ADK ``LlmAgent`` and
ag-ui-langgraph 0.0.47 over a graph whose model streams, each with a
scripted model (no LLM, no network): one that calls every tool the client
offers, one that reasons before it answers, and one that fails. What each gets is recorded below with why; an agent whose
model fails every run fails no check, and the report says so first."""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, Callable, Dict, List

import pytest
from ag_ui_adk import ADKAgent, AGUIToolset, add_adk_fastapi_endpoint
from ag_ui_strands import StrandsAgent, add_strands_fastapi_endpoint
from fastapi import FastAPI
from google.adk.agents import LlmAgent
from google.adk.models import BaseLlm, LlmRequest, LlmResponse
from google.genai import types
from strands import Agent
from strands.models.model import Model

from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import MemorySaver
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from agui_lint.kit import SCENARIOS, KitReport, run_asgi
from asgi_bodies import recording

Event = Dict[str, Any]
COUNTER = itertools.count()


# --- Strands -----------------------------------------------------------------


def strands_answered(messages: list) -> bool:
    """Whether the newest message carries a tool's result."""
    return bool(messages) and any("toolResult" in block for block in messages[-1].get("content", []))


def strands_text(*pieces: str) -> List[Event]:
    return [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockStart": {"start": {}}},
        *({"contentBlockDelta": {"delta": {"text": p}}} for p in pieces),
        {"contentBlockStop": {}},
        {"messageStop": {"stopReason": "end_turn"}},
    ]


def strands_calls(names: List[str]) -> List[Event]:
    events: List[Event] = [{"messageStart": {"role": "assistant"}}]
    for name in names:
        call = f"call-{next(COUNTER)}"
        events += [
            {"contentBlockStart": {"start": {"toolUse": {"toolUseId": call, "name": name}}}},
            {"contentBlockDelta": {"delta": {"toolUse": {"input": '{"city": "Berlin"}'}}}},
            {"contentBlockStop": {}},
        ]
    return [*events, {"messageStop": {"stopReason": "tool_use"}}]


class StrandsModel(Model):
    """A Strands model that calls every offered tool (``kind="tools"``),
    reasons first (``"reasoning"``) or fails (``"failing"``)."""

    def __init__(self, kind: str):
        self.kind = kind
        self.config: Dict[str, Any] = {"model_id": "scripted"}

    def update_config(self, **model_config: Any) -> None:
        self.config.update(model_config)

    def get_config(self) -> Any:
        return self.config

    async def structured_output(self, output_model, prompt, system_prompt=None, **kwargs):  # type: ignore[no-untyped-def]
        raise NotImplementedError("no structured output")
        yield  # pragma: no cover

    async def stream(self, messages, tool_specs=None, system_prompt=None, **kwargs) -> AsyncIterator[Event]:  # type: ignore[no-untyped-def]
        if self.kind == "failing":
            raise RuntimeError("model unavailable: quota")
        if self.kind == "reasoning":
            events = [
                {"messageStart": {"role": "assistant"}},
                {"contentBlockStart": {"start": {}}},
                {"contentBlockDelta": {"delta": {"reasoningContent": {"text": "The user asks; I answer."}}}},
                {"contentBlockDelta": {"delta": {"reasoningContent": {"signature": "scripted-signature"}}}},
                {"contentBlockStop": {}},
                *strands_text("I can answer questions.")[1:],
            ]
        elif tool_specs and not strands_answered(messages):
            events = strands_calls([spec["name"] for spec in tool_specs])
        else:
            events = strands_text("I can ", "answer questions.")
        for event in events:
            yield event
        yield {"metadata": {"usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2}, "metrics": {"latencyMs": 0}}}


def strands_app(kind: str) -> FastAPI:
    app = FastAPI()
    core = Agent(model=StrandsModel(kind), tools=[], callback_handler=None)
    add_strands_fastapi_endpoint(app, StrandsAgent(core, name="kit"), "/agent")
    return app


# --- ADK ---------------------------------------------------------------------


def adk_answered(request: LlmRequest) -> bool:
    """Whether the newest content carries a tool's response."""
    return bool(request.contents) and any(
        part.function_response is not None for part in request.contents[-1].parts or []
    )


def adk_text(*pieces: str, thought: str = "") -> List[LlmResponse]:
    parts = [types.Part(text=thought, thought=True)] if thought else []
    partial = [
        LlmResponse(content=types.Content(role="model", parts=[types.Part(text=p)]), partial=True) for p in pieces
    ]
    final = LlmResponse(
        content=types.Content(role="model", parts=[*parts, types.Part(text="".join(pieces))]),
        partial=False,
        turn_complete=True,
        finish_reason=types.FinishReason.STOP,
    )
    return [*partial, final]


class AdkModel(BaseLlm):
    """An ADK model that calls every offered tool (``kind="tools"``),
    reasons first (``"reasoning"``) or fails (``"failing"``)."""

    kind: str

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        if self.kind == "failing":
            raise RuntimeError("model unavailable: quota")
        offered = [name for name in llm_request.tools_dict if name != "transfer_to_agent"]
        if self.kind == "reasoning":
            responses = adk_text("I can answer questions.", thought="The user asks; I answer.")
        elif offered and not adk_answered(llm_request):
            calls = [
                types.Part(function_call=types.FunctionCall(id=f"call-{next(COUNTER)}", name=name, args={"city": "Berlin"}))
                for name in offered
            ]
            responses = [
                LlmResponse(
                    content=types.Content(role="model", parts=calls),
                    partial=False,
                    turn_complete=True,
                    finish_reason=types.FinishReason.STOP,
                )
            ]
        else:
            responses = adk_text("I can ", "answer questions.")
        for response in responses:
            if not stream and response.partial:
                continue
            yield response


def adk_app(kind: str) -> FastAPI:
    app = FastAPI()
    llm_agent = LlmAgent(
        name="kit",
        model=AdkModel(model="scripted", kind=kind),
        instruction="You are a scripted test agent.",
        tools=[AGUIToolset()],
    )
    agent = ADKAgent(adk_agent=llm_agent, app_name="agui_lint", user_id="tester", use_in_memory_services=True)
    add_adk_fastapi_endpoint(app, agent, path="/agent")
    return app


# --- LangGraph, its model streaming ------------------------------------------


class StreamingChatModel(BaseChatModel):
    """A LangGraph chat model that streams, as a provider's does: text in
    pieces, and tool calls as chunks whose arguments come in two pieces;
    calls every offered tool (``kind="tools"``), answers in content blocks
    (``"blocks"``), or fails (``"failing"``)."""

    kind: str

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> "StreamingChatModel":
        names = [t.name if hasattr(t, "name") else t.get("name") for t in tools]
        return self.model_copy(update={"offered": names})

    offered: List[str] = []

    def _chunks(self, messages: List[BaseMessage]) -> List[AIMessageChunk]:
        if self.kind == "failing":
            raise RuntimeError("model unavailable: quota")
        frontend = [name for name in self.offered if name != "lookup_city"]
        if self.kind == "backend" and not isinstance(messages[-1], ToolMessage):
            # A tool of the graph's own, run by its ToolNode.
            call = {"id": f"call-{next(COUNTER)}", "name": "lookup_city", "args": '{"city": "Berlin"}', "index": 0}
            return [AIMessageChunk(content="Let me look. ", tool_call_chunks=[call])]
        if frontend and not isinstance(messages[-1], ToolMessage):
            chunks = []
            for n, name in enumerate(frontend):
                call = f"call-{next(COUNTER)}"
                # The first chunk names the call and carries the first piece
                # of its arguments, as OpenAI's and Anthropic's integrations
                # stream them.
                first = {"id": call, "name": name, "args": '{"city": ', "index": n}
                chunks.append(AIMessageChunk(content="", tool_call_chunks=[first]))
                rest = {"id": None, "name": None, "args": '"Berlin"}', "index": n}
                chunks.append(AIMessageChunk(content="", tool_call_chunks=[rest]))
            return chunks
        if self.kind == "blocks":
            # The answer as content blocks, two text blocks in one message,
            # as Anthropic's integration streams an answer a citation
            # splits.
            return [
                AIMessageChunk(content=[{"type": "text", "text": "I can ", "index": 0}]),
                AIMessageChunk(content=[{"type": "text", "text": "answer questions.", "index": 1}]),
            ]
        return [AIMessageChunk(content=p) for p in ("I can ", "answer questions.")]

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:  # type: ignore[no-untyped-def]
        merged = None
        for chunk in self._chunks(messages):
            merged = chunk if merged is None else merged + chunk
        message = AIMessage(content=merged.content, tool_calls=merged.tool_calls)  # type: ignore[union-attr]
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _astream(self, messages, stop=None, run_manager=None, **kwargs) -> AsyncIterator[ChatGenerationChunk]:  # type: ignore[no-untyped-def]
        for chunk in self._chunks(messages):
            generation = ChatGenerationChunk(message=chunk)
            if run_manager:
                await run_manager.on_llm_new_token(generation.text, chunk=generation)
            yield generation


class GraphState(MessagesState):
    tools: List[Any]


@tool
def lookup_city(city: str) -> str:
    """What the graph knows of a city."""
    return f"{city}: sunny"


def langgraph_app(kind: str) -> FastAPI:
    model = StreamingChatModel(kind=kind)

    async def chat(state: GraphState, config: RunnableConfig) -> Dict[str, Any]:
        tools = [lookup_city, *(state.get("tools") or [])] if kind == "backend" else state.get("tools") or []
        response = await model.bind_tools(tools).ainvoke(state["messages"], config)
        return {"messages": [response]}

    def route(state: GraphState) -> str:
        last = state["messages"][-1]
        calls = getattr(last, "tool_calls", None) or []
        return "tools" if any(c["name"] == "lookup_city" for c in calls) else END

    graph = StateGraph(GraphState)
    graph.add_node("chat", chat)
    graph.add_node("tools", ToolNode([lookup_city]))
    graph.add_edge(START, "chat")
    graph.add_conditional_edges("chat", route, ["tools", END])
    graph.add_edge("tools", "chat")
    agent = LangGraphAgent(name="kit", graph=graph.compile(checkpointer=MemorySaver()), emit_interrupt_outcome=True)
    app = FastAPI()
    add_langgraph_fastapi_endpoint(app, agent, "/agent")
    return app


APPS: Dict[str, Callable[[str], FastAPI]] = {
    "strands": strands_app,
    "adk": adk_app,
    "langgraph-streaming": langgraph_app,
}


def not_passed(report: KitReport) -> Dict[str, str]:
    return {f"{s}/{c}": v for s, c, _, v, _ in report.results if v != "passed"}


#: What each adapter gets with a model calling every offered tool: every
#: check not passed, with why; all others pass.
RECORDED: Dict[str, Dict[str, str]] = {
    # ag-ui-strands 1.0.2: interrupts only from a tool behavior (none here);
    # state comes as snapshots, never deltas; the run fails over a resume
    # entry naming an interrupt it never raised ("No pending interrupts for
    # this thread", a SHOULD: a warning); snake_case keys are served
    # (pydantic's populate_by_name); the two calls of one run are each
    # restated before the other's result (a warning beside the verdicts).
    "strands": {
        "parallel-tools/stream-as-received": "failed",
        "state/state-deltas-apply": "not-exercised",
        "interrupt/resume-accepted": "not-exercised",
        "interrupt/unknown-resume-handled": "failed",
        "bad-requests/snake-case-rejected": "failed",
    },
    # ag-ui-adk 0.11.0: no MESSAGES_SNAPSHOT on a later turn; state as
    # snapshots; no interrupt without a long-running tool; the run fails
    # over an unknown resume entry ("references unknown interrupt", a
    # SHOULD); snake_case keys served.
    "adk": {
        "multi-turn/snapshot-keeps-history": "not-exercised",
        "state/state-deltas-apply": "not-exercised",
        "interrupt/resume-accepted": "not-exercised",
        "interrupt/unknown-resume-handled": "failed",
        "bad-requests/snake-case-rejected": "failed",
    },
    # ag-ui-langgraph 0.0.47 over a graph whose model streams its tool
    # calls with the first piece of the arguments in the chunk that names
    # the call: the adapter loses that piece (the client would run the tool
    # with arguments that do not parse) and its closing snapshot restates
    # the whole, contradicting the stream; stream-as-received shows both
    # beside the verdicts. RUN_STARTED declares no protocolVersion; state
    # as snapshots; no interrupt in this graph; snake_case served.
    "langgraph-streaming": {
        "tool/stream-as-received": "failed",
        "parallel-tools/stream-as-received": "failed",
        "state/state-deltas-apply": "not-exercised",
        "interrupt/resume-accepted": "not-exercised",
        "version/version-declared": "failed",
        "bad-requests/snake-case-rejected": "failed",
    },
}

#: What each adapter fails whatever its model does: the server's own.
SERVERS_OWN: Dict[str, Dict[str, str]] = {
    "strands": {"bad-requests/snake-case-rejected": "failed"},
    "adk": {"bad-requests/snake-case-rejected": "failed"},
    "langgraph-streaming": {
        "bad-requests/snake-case-rejected": "failed",
        "version/version-declared": "failed",
    },
}


@pytest.mark.parametrize("server", list(APPS))
def test_real_adapters_under_the_kit(server: str) -> None:
    report = run_asgi(APPS[server]("tools"), "/agent")
    assert not_passed(report) == RECORDED[server], report.text
    must_failed = any(level == "MUST" and v == "failed" for _, _, level, v, _ in report.results)
    assert report.ok == (not must_failed), report.text


@pytest.mark.parametrize("server", list(APPS))
def test_a_model_that_fails_every_run_fails_no_check(server: str) -> None:
    report = run_asgi(APPS[server]("failing"), "/agent")
    failed = {k: v for k, v in not_passed(report).items() if v == "failed"}
    # What fails is the server's own, whatever its model does: a body
    # without threadId is served (a RUN_STARTED, then the model's failure).
    assert failed == SERVERS_OWN[server], report.text
    assert report.json["agentFailure"] is not None, report.text
    assert report.text.startswith("the agent failed"), report.text
    assert "model unavailable: quota" in report.text
    not_exercised = [k for k, v in not_passed(report).items() if v == "not-exercised"]
    assert len(not_exercised) >= 6, report.text


@pytest.mark.parametrize("server", ["strands", "adk"])
def test_a_model_that_reasons_is_sent_its_reasoning_back(server: str) -> None:
    bodies: List[bytes] = []
    report = run_asgi(recording(APPS[server]("reasoning"), bodies), "/agent", scenarios=["multi-turn"])
    assert report.verdict("multi-turn", "history-taken-back") == "passed", report.text
    # The second turn carries the first's reasoning, as @ag-ui/client sends
    # it back (providers with encrypted reasoning need it).
    second = json.loads(bodies[1])
    roles = [m["role"] for m in second["messages"]]
    assert "reasoning" in roles, roles
    assert "multi-turn" in SCENARIOS


def test_langgraphs_known_defects_are_shown_beside_the_verdicts() -> None:
    """ag-ui-langgraph 0.0.47's defects a user of the official client meets,
    each shown by stream-as-received (the 1.1 text calls none a violation,
    so they warn): the first piece of a streamed call's arguments lost, a
    call of the graph's own tool streamed with no arguments, which only the
    closing snapshot gives, and a snapshot that cuts the answer the run
    streamed."""
    lost = run_asgi(langgraph_app("tools"), "/agent", scenarios=["tool"])
    why = lost.json["scenarios"][0]["checks"]
    shown = next(c for c in why if c["check"] == "stream-as-received")
    assert shown["verdict"] == "failed" and shown["fails"] is False, lost.text
    assert "warning[tool-call-args-not-json]" in shown["why"], lost.text
    missing = run_asgi(langgraph_app("backend"), "/agent", scenarios=["text"])
    shown = next(c for c in missing.json["scenarios"][0]["checks"] if c["check"] == "stream-as-received")
    assert "the run streamed no arguments (no TOOL_CALL_ARGS)" in shown["why"], missing.text
    # The closing snapshot keeps a message's first text block alone: the
    # answer the user read ("I can answer questions.") is cut to "I can ".
    cut = run_asgi(langgraph_app("blocks"), "/agent", scenarios=["text"])
    shown = next(c for c in cut.json["scenarios"][0]["checks"] if c["check"] == "stream-as-received")
    assert shown["verdict"] == "failed" and shown["fails"] is False, cut.text
    assert "warning[snapshot-contradicts-stream]" in shown["why"], cut.text
    assert "(6 characters) is not the text the run streamed for it (23 characters)" in shown["why"], cut.text
    assert missing.ok and lost.ok and cut.ok
