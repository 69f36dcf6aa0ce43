"""The conformance kit against agent-framework-ag-ui 1.7.0 in process, over
an Agent Framework ``Agent`` whose chat client is scripted (no LLM, no
network): one model that calls every tool the client offers, streaming each
call's arguments in two pieces as provider clients do, one that reasons
before it answers, and one that fails. What each gets is recorded below with
why; an agent whose model fails every run fails no check of its own, and
the report says so first."""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Dict, List

import pytest
from agent_framework import Agent, BaseChatClient, ChatResponseUpdate, Content, Message
from agent_framework._tools import FunctionInvocationLayer
from agent_framework_ag_ui import add_agent_framework_fastapi_endpoint
from fastapi import FastAPI

from agui_lint.kit import KitReport, run_asgi
from asgi_bodies import recording

COUNTER = itertools.count()


def answered(messages: Sequence[Message]) -> bool:
    """Whether the newest message carries a tool's result."""
    return bool(messages) and any(c.type == "function_result" for c in messages[-1].contents)


def offered(options: Mapping[str, Any]) -> List[str]:
    """The names of the tools the request offered the model."""
    names = []
    for tool in options.get("tools") or []:
        name = getattr(tool, "name", None)
        if name is None and isinstance(tool, dict):
            name = tool.get("function", {}).get("name") or tool.get("name")
        if name:
            names.append(name)
    return names


def said(text: str) -> ChatResponseUpdate:
    return ChatResponseUpdate(role="assistant", contents=[Content.from_text(text)], model="scripted")


class ScriptedChatClient(FunctionInvocationLayer, BaseChatClient):
    """A chat client that calls every offered tool (``kind="tools"``),
    reasons first (``"reasoning"``) or fails (``"failing"``)."""

    OTEL_PROVIDER_NAME = "scripted"

    def __init__(self, kind: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.kind = kind

    def _inner_get_response(self, *, messages: Sequence[Message], stream: bool, options: Mapping[str, Any], **kwargs: Any):  # type: ignore[no-untyped-def]
        names = offered(options)

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            if self.kind == "failing":
                raise RuntimeError("model unavailable: quota")
            if self.kind == "reasoning":
                reasoning = Content.from_text_reasoning(text="The user asks; I answer.")
                yield ChatResponseUpdate(role="assistant", contents=[reasoning], model="scripted")
                yield said("I can answer questions.")
                return
            if names and not answered(messages):
                for name in names:
                    call = f"call_{next(COUNTER)}"
                    for piece_name, piece in ((name, '{"city": '), ("", '"Berlin"}')):
                        content = Content.from_function_call(call_id=call, name=piece_name, arguments=piece)
                        yield ChatResponseUpdate(role="assistant", contents=[content], model="scripted")
                return
            yield said("I can ")
            yield said("answer questions.")

        if stream:
            return self._build_response_stream(updates())

        async def whole():  # type: ignore[no-untyped-def]
            return self._finalize_response_updates([u async for u in updates()])

        return whole()


def agent_framework_app(kind: str) -> FastAPI:
    app = FastAPI()
    agent = Agent(client=ScriptedChatClient(kind), name="kit", instructions="A scripted test agent.")
    add_agent_framework_fastapi_endpoint(app, agent, "/agent", single_user=True)
    return app


def not_passed(report: KitReport) -> Dict[str, str]:
    return {f"{s}/{c}": v for s, c, _, v, _ in report.results if v != "passed"}


#: What agent-framework-ag-ui 1.7.0 gets with a model calling every offered
#: tool: every check not passed, with why; all others pass.
#:
#: - parallel-tools: two calls of one response are each started twice
#:   (TOOL_CALL_START for a call already open, then two TOOL_CALL_ENDs each):
#:   @ag-ui/client fails the run ("A tool call with ID ... is already in
#:   progress"), so stream-conforms fails; the closing snapshot lists the
#:   four starts with empty arguments, contradicting the stream
#:   (stream-as-received). One call alone streams as it should.
#: - RUN_STARTED declares no protocolVersion (the adapter speaks
#:   ag-ui-protocol 0.1.22, before the field).
#: - No state event without a state schema; no interrupt without an
#:   approval tool; the run fails over a resume entry naming an interrupt it
#:   never raised (APPROVAL_RESUME_NOT_FOUND, a SHOULD: a warning).
#: - snake_case keys are served (pydantic's populate_by_name).
RECORDED: Dict[str, str] = {
    "parallel-tools/stream-conforms": "failed",
    "parallel-tools/stream-as-received": "failed",
    "state/state-deltas-apply": "not-exercised",
    "state/state-continuity": "not-exercised",
    "interrupt/resume-accepted": "not-exercised",
    "interrupt/unknown-resume-handled": "failed",
    "version/version-declared": "failed",
    "bad-requests/snake-case-rejected": "failed",
}

#: What the adapter fails whatever its model does: the server's own.
SERVERS_OWN = {
    "bad-requests/snake-case-rejected": "failed",
    "version/version-declared": "failed",
}


def test_agent_framework_under_the_kit() -> None:
    report = run_asgi(agent_framework_app("tools"), "/agent")
    assert not_passed(report) == RECORDED, report.text
    assert not report.ok, report.text
    conforms = next(
        c for s in report.json["scenarios"] if s["name"] == "parallel-tools" for c in s["checks"]
        if c["check"] == "stream-conforms"
    )
    assert "error[duplicate-start]" in conforms["why"], report.text


def test_a_model_that_fails_every_run_fails_no_check() -> None:
    report = run_asgi(agent_framework_app("failing"), "/agent")
    failed = {k: v for k, v in not_passed(report).items() if v == "failed"}
    assert failed == SERVERS_OWN, report.text
    assert report.json["agentFailure"] is not None, report.text
    assert report.text.startswith("the agent failed"), report.text
    not_exercised = [k for k, v in not_passed(report).items() if v == "not-exercised"]
    assert len(not_exercised) >= 6, report.text


def test_a_model_that_reasons_is_sent_its_reasoning_back() -> None:
    bodies: List[bytes] = []
    report = run_asgi(recording(agent_framework_app("reasoning"), bodies), "/agent", scenarios=["multi-turn"])
    assert report.verdict("multi-turn", "history-taken-back") == "passed", report.text
    second = json.loads(bodies[1])
    assert "reasoning" in [m["role"] for m in second["messages"]], second
