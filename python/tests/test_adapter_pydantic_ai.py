"""A real AG-UI adapter under the pytest plugin and the probe: pydantic-ai's
``AGUIAdapter`` serving an agent whose model is a ``FunctionModel`` (no
network, no LLM). Its stream is correct, text and client-side tool call
alike; the same stream with its ``TEXT_MESSAGE_END`` events dropped is
broken, and both the plugin and the probe say so."""

from __future__ import annotations

from pathlib import Path
from typing import Any, AsyncIterator, Dict, List, Union

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.requests import Request

from agui_lint.pytest_plugin import assert_exchange
from test_probe import probe, rules

TOOL = {
    "name": "agui_lint_get_weather",
    "description": "Get the current weather for a city. Runs in the browser.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


def request(tools: List[Dict[str, Any]]) -> Dict[str, Any]:
    return {
        "threadId": "thread-1",
        "runId": "run-1",
        "protocolVersion": "1.0",
        "state": {},
        "messages": [{"id": "u1", "role": "user", "content": "Weather in Berlin?"}],
        "tools": tools,
        "context": [],
        "forwardedProps": {},
    }


async def model(
    messages: List[ModelMessage], info: AgentInfo
) -> AsyncIterator[Union[str, Dict[int, DeltaToolCall]]]:
    """Calls the probe's client-side tool (agui_lint_get_weather) when it
    is offered and not yet answered; otherwise says one sentence, in two pieces."""
    answered = any(
        isinstance(part, ToolReturnPart)
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
    )
    if any(t.name == "agui_lint_get_weather" for t in info.function_tools) and not answered:
        yield {0: DeltaToolCall(name="agui_lint_get_weather", json_args='{"city": "Berlin"}')}
    else:
        yield "It is sunny "
        yield "in Berlin."


def adapter_app(drop_text_end: bool = False) -> FastAPI:
    agent = Agent(FunctionModel(stream_function=model))
    app = FastAPI()

    @app.post("/agent")
    async def run(http_request: Request) -> Any:
        response = await AGUIAdapter.dispatch_request(http_request, agent=agent)
        if drop_text_end:
            original = response.body_iterator

            async def without_ends() -> AsyncIterator[Any]:
                async for chunk in original:
                    text = chunk if isinstance(chunk, str) else bytes(chunk).decode()
                    if '"TEXT_MESSAGE_END"' not in text:
                        yield chunk

            response.body_iterator = without_ends()
        return response

    return app


def broken_adapter_app() -> FastAPI:
    return adapter_app(drop_text_end=True)


@pytest.mark.parametrize("tools", [[], [TOOL]], ids=["text", "tool-call"])
def test_the_adapters_stream_passes_the_plugin(tools: List[Dict[str, Any]]) -> None:
    body = request(tools)
    with TestClient(adapter_app()) as client:
        answered = client.post("/agent", json=body, headers={"accept": "text/event-stream"})
    result = assert_exchange(body, answered, strict=True)
    assert result.valid and result.warnings == 0
    kinds = [line for line in answered.text.splitlines() if line.startswith("data:")]
    expected = "TOOL_CALL_START" if tools else "TEXT_MESSAGE_CONTENT"
    assert any(expected in line for line in kinds), answered.text


def test_the_broken_adapter_stream_fails_the_plugin_with_the_clis_report() -> None:
    body = request([])
    with TestClient(broken_adapter_app()) as client:
        answered = client.post("/agent", json=body)
    with pytest.raises(AssertionError) as failure:
        assert_exchange(body, answered)
    report = str(failure.value)
    assert "error[run-finished-while-open]" in report, report


@pytest.mark.parametrize("served", [adapter_app], indirect=True)
def test_the_probe_finds_the_adapter_clean_and_answers_its_tool_call(
    served: str, agui_lint_cli: Path
) -> None:
    code, report, stderr = probe(agui_lint_cli, served, "--strict")
    assert rules(report) == [], stderr
    assert code == 0
    # The text turn, the tool turn, and the follow-up with the tool's
    # result, which the agent answers with text.
    assert stderr.count("probe: ") == 3, stderr
    assert "follow-up with the tool's result" in stderr


@pytest.mark.parametrize("served", [broken_adapter_app], indirect=True)
def test_the_probe_reports_the_broken_adapter(served: str, agui_lint_cli: Path) -> None:
    code, report, _ = probe(agui_lint_cli, served, "--scenario", "text")
    assert rules(report) == ["run-finished-while-open"]
    assert code == 1
