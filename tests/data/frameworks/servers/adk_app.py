"""ag-ui-adk (`ADKAgent` + `add_adk_fastapi_endpoint`) behind uvicorn, one
endpoint per scenario. The ADK `LlmAgent`'s model is `ScriptedLlm`, a
`google.adk.models.BaseLlm` that streams like Gemini does under
StreamingMode.SSE: partial text chunks, then the aggregated final response.

Run: python adk_app.py PORT
"""

from __future__ import annotations

import sys
from collections.abc import AsyncGenerator, Callable
from typing import Any

import uvicorn
from ag_ui_adk import ADKAgent, AGUIToolset, add_adk_fastapi_endpoint
from fastapi import FastAPI
from google.adk.agents import LlmAgent
from google.adk.models import BaseLlm, LlmRequest, LlmResponse
from google.adk.tools import ToolContext
from google.genai import types


def function_response(request: LlmRequest) -> Any:
    """The response in the newest content, if the model is called back after a tool."""
    if not request.contents:
        return None
    for part in request.contents[-1].parts or []:
        if part.function_response is not None:
            return part.function_response.response
    return None


def text(*pieces: str) -> list[LlmResponse]:
    partial = [
        LlmResponse(content=types.Content(role="model", parts=[types.Part(text=p)]), partial=True) for p in pieces
    ]
    final = LlmResponse(
        content=types.Content(role="model", parts=[types.Part(text="".join(pieces))]),
        partial=False,
        turn_complete=True,
        finish_reason=types.FinishReason.STOP,
    )
    return [*partial, final]


def call(call_id: str, name: str, args: dict) -> list[LlmResponse]:
    return [
        LlmResponse(
            content=types.Content(
                role="model", parts=[types.Part(function_call=types.FunctionCall(id=call_id, name=name, args=args))]
            ),
            partial=False,
            turn_complete=True,
            finish_reason=types.FinishReason.STOP,
        )
    ]


def reasoning() -> list[LlmResponse]:
    thoughts = ["The user greets me; ", "I should greet back."]
    out = [
        LlmResponse(content=types.Content(role="model", parts=[types.Part(text=t, thought=True)]), partial=True)
        for t in thoughts
    ]
    out.append(LlmResponse(content=types.Content(role="model", parts=[types.Part(text="Hi there!")]), partial=True))
    out.append(
        LlmResponse(
            content=types.Content(
                role="model",
                parts=[types.Part(text="".join(thoughts), thought=True), types.Part(text="Hi there!")],
            ),
            partial=False,
            turn_complete=True,
            finish_reason=types.FinishReason.STOP,
        )
    )
    return out


class Boom(LlmResponse):
    """Marker: raise instead of yielding."""


SCRIPTS: dict[str, Callable[[LlmRequest], list[LlmResponse]]] = {
    "text": lambda r: text("Hello! ", "I am a scripted ", "ADK agent."),
    "frontend-tool": lambda r: (
        text(f"The user answered: {function_response(r)}")
        if function_response(r) is not None
        else call("call_frontend_1", "confirm_booking", {"hotel": "Alpenblick", "nights": 2})
    ),
    "backend-tool": lambda r: (
        text("It is ", f"{function_response(r)['result']} in Berlin.")
        if function_response(r) is not None
        else call("call_backend_1", "get_weather", {"city": "Berlin"})
    ),
    "state": lambda r: (
        text("Added the todo.")
        if function_response(r) is not None
        else call("call_state_1", "add_todo", {"todo": "buy milk"})
    ),
    "reasoning": lambda r: reasoning(),
    "error": lambda r: [*text("Let me check ")[:1], Boom()],
    "tool-error": lambda r: (
        text("The tool failed.") if function_response(r) is not None else call("call_error_1", "explode", {})
    ),
}


class ScriptedLlm(BaseLlm):
    script: Callable[[LlmRequest], list[LlmResponse]]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        for response in self.script(llm_request):
            if isinstance(response, Boom):
                raise RuntimeError("scripted model failure")
            if not stream and response.partial:
                continue
            yield response


def get_weather(city: str) -> dict:
    """Current weather of a city."""
    return {"result": "sunny, 21 degrees"}


def add_todo(todo: str, tool_context: ToolContext) -> dict:
    """Add a todo to the shared state."""
    tool_context.state["todos"] = [*(tool_context.state.get("todos") or []), todo]
    return {"result": f"added {todo}"}


def explode() -> dict:
    """A tool that always fails."""
    raise RuntimeError("scripted tool failure")


TOOLS = {
    "frontend-tool": [AGUIToolset()],
    "backend-tool": [get_weather],
    "state": [add_todo],
    "tool-error": [explode],
}

app = FastAPI()
for name, script in SCRIPTS.items():
    llm_agent = LlmAgent(
        name=name.replace("-", "_"),
        model=ScriptedLlm(model="scripted", script=script),
        instruction="You are a scripted test agent.",
        tools=TOOLS.get(name, []),
    )
    agent = ADKAgent(adk_agent=llm_agent, app_name="agui_lint", user_id="tester", use_in_memory_services=True)
    add_adk_fastapi_endpoint(app, agent, path=f"/{name}")

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
