"""The conformance kit in a server's own tests: ``agui_lint.kit.run_asgi``
drives FastAPI apps in process (httpx's ASGI transport, no network), one
pytest test per scenario. The apps: the example server (the official
``ag-ui-protocol`` encoder, guarded both ways), pydantic-ai's
``AGUIAdapter`` with a scripted ``FunctionModel``, and servers that break
one requirement across requests on purpose."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Dict, List, Tuple, Union

import pytest
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
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt
from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from starlette.requests import Request

from agui_lint.kit import SCENARIOS, KitReport, _EventCounter, run, run_asgi, run_asgi_async
from asgi_bodies import read_body
from test_probe import example_app


def verdicts(report: KitReport) -> Dict[str, str]:
    return {f"{s}/{c}": v for s, c, _, v, _ in report.results}


def test_the_kit_knows_its_scenarios() -> None:
    assert SCENARIOS == [
        "text",
        "multi-turn",
        "tool",
        "parallel-tools",
        "state",
        "interrupt",
        "cancellation",
        "version",
        "bad-requests",
    ]
    with pytest.raises(ValueError, match="'texts' is not a scenario of the kit"):
        run_asgi(example_app(), "/agent", scenarios=["texts"])


def model_calling_every_offered_tool() -> FunctionModel:
    async def model(
        messages: List[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[Union[str, Dict[int, DeltaToolCall]]]:
        answered = any(
            isinstance(part, ToolReturnPart)
            for message in messages
            if isinstance(message, ModelRequest)
            for part in message.parts
        )
        if info.function_tools and not answered:
            yield {
                n: DeltaToolCall(name=tool.name, json_args='{"city": "Berlin"}')
                for n, tool in enumerate(info.function_tools)
            }
        else:
            yield "It is sunny "
            yield "in Berlin."

    return FunctionModel(stream_function=model)


def pydantic_ai_app() -> FastAPI:
    agent = Agent(model_calling_every_offered_tool())
    app = FastAPI()

    @app.post("/agent")
    async def run(http_request: Request) -> Any:
        return await AGUIAdapter.dispatch_request(http_request, agent=agent)

    return app


class LangGraphState(MessagesState):
    """The graph's state: the conversation, the client's tools (which
    ag-ui-langgraph puts there) and a shopping list."""

    tools: List[Any]
    items: List[str]


def langgraph_node(state: LangGraphState) -> Dict[str, Any]:
    """A scripted agent: interrupts when asked for approval, adds to the
    shopping list when asked, calls every offered tool, else one sentence."""
    last = state["messages"][-1]
    if isinstance(last, HumanMessage):
        text = str(last.content)
        if "approval" in text:
            answer = interrupt({"message": "Approve?"})
            return {"messages": [AIMessage(content=f"Done, as approved: {answer}")]}
        if "shopping list" in text or "'plums'" in text:
            item = "plums" if "plums" in text else "pears"
            items = [*(state.get("items") or []), item]
            return {"items": items, "messages": [AIMessage(content=f"Added {item}.")]}
        tools = state.get("tools") or []
        if tools:
            calls = [
                {"name": t["name"], "args": {"city": "Berlin"}, "id": f"call-{n}-{len(state['messages'])}"}
                for n, t in enumerate(tools)
            ]
            return {"messages": [AIMessage(content="", tool_calls=calls)]}
    return {"messages": [AIMessage(content="I can answer questions.")]}


def langgraph_app() -> FastAPI:
    """ag-ui-langgraph's endpoint over a LangGraph graph with a checkpointer,
    emitting 1.1 interrupt outcomes."""
    graph = StateGraph(LangGraphState)
    graph.add_node("agent", langgraph_node)
    graph.add_edge(START, "agent")
    graph.add_edge("agent", END)
    agent = LangGraphAgent(
        name="kit", graph=graph.compile(checkpointer=MemorySaver()), emit_interrupt_outcome=True
    )
    app = FastAPI()
    add_langgraph_fastapi_endpoint(app, agent, "/agent")
    return app


#: What each real server gets from the kit, recorded in python/README.md:
#: every check not passed, by scenario; all others pass.
RECORDED: Dict[str, Dict[str, str]] = {
    # The example server (the official ag-ui-protocol 1.0.0 encoder behind
    # FastAPI and agui-lint's guard) says one sentence whatever it is asked.
    "official-encoder": {
        "multi-turn/snapshot-keeps-history": "not-exercised",
        "tool/tool-result-taken-back": "not-exercised",
        "tool/ids-unique-across-runs": "not-exercised",
        "parallel-tools/parallel-calls-taken-back": "not-exercised",
        "parallel-tools/ids-unique-across-runs": "not-exercised",
        "state/state-deltas-apply": "not-exercised",
        "state/state-continuity": "not-exercised",
        "interrupt/resume-accepted": "not-exercised",
    },
    # pydantic-ai 2.68's AGUIAdapter with a FunctionModel calling every
    # offered tool: no interrupts, state ignored without StateDeps, and
    # snake_case keys accepted (pydantic's populate_by_name).
    "pydantic-ai": {
        "multi-turn/snapshot-keeps-history": "not-exercised",
        "state/state-deltas-apply": "not-exercised",
        "state/state-continuity": "not-exercised",
        "interrupt/resume-accepted": "not-exercised",
        # Fails the run over a resume entry naming an interrupt it never
        # raised ("does not start with the expected 'int-' prefix"), where
        # the run SHOULD proceed: a warning, not a failure of the run.
        "interrupt/unknown-resume-handled": "failed",
        "bad-requests/snake-case-rejected": "failed",
    },
    # ag-ui-langgraph 0.0.47 over a scripted graph: interrupt and resume
    # work (emit_interrupt_outcome=True); a node's tool calls reach the
    # client only in MESSAGES_SNAPSHOT (no model stream, so no
    # TOOL_CALL_START); state comes as snapshots, never deltas;
    # RUN_STARTED declares no version; snake_case keys accepted.
    "langgraph": {
        "tool/tool-result-taken-back": "not-exercised",
        "tool/ids-unique-across-runs": "not-exercised",
        "parallel-tools/parallel-calls-taken-back": "not-exercised",
        "parallel-tools/ids-unique-across-runs": "not-exercised",
        "state/state-deltas-apply": "not-exercised",
        "version/version-declared": "failed",
        "bad-requests/snake-case-rejected": "failed",
    },
}

APPS: Dict[str, Callable[[], FastAPI]] = {
    "official-encoder": example_app,
    "pydantic-ai": lambda: pydantic_ai_app(),
    "langgraph": lambda: langgraph_app(),
}


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("server", list(RECORDED))
def test_real_servers_under_the_kit(server: str, scenario: str) -> None:
    report = run_asgi(APPS[server](), "/agent", scenarios=[scenario])
    not_passed = {k: v for k, v in verdicts(report).items() if v != "passed"}
    recorded = {k: v for k, v in RECORDED[server].items() if k.startswith(scenario + "/")}
    assert not_passed == recorded, report.text
    assert report.results and all(row[0] == scenario for row in report.results)
    # Only a MUST failure fails the run; a SHOULD failure is a warning.
    must_failed = any(level == "MUST" and v == "failed" for _, _, level, v, _ in report.results)
    assert report.ok == (not must_failed), report.text


def test_a_tool_call_only_in_a_snapshot_is_said_to_be_one() -> None:
    report = run_asgi(langgraph_app(), "/agent", scenarios=["tool"])
    why = [row[4] for row in report.results if row[1] == "tool-result-taken-back"][0]
    assert why is not None and "came only in a MESSAGES_SNAPSHOT" in why, report.text


def reply_app(reuse_ids: bool = False, slow: bool = False) -> FastAPI:
    """The official encoder behind FastAPI, saying one sentence; with
    ``reuse_ids`` every run's message is ``msg-1``; with ``slow`` the
    sentence comes a word at a time."""
    app = FastAPI()
    served = {"after_disconnect": 0}

    @app.post("/agent")
    async def agent(input_data: RunAgentInput, request: Request) -> StreamingResponse:
        encoder = EventEncoder()
        message_id = "msg-1" if reuse_ids else f"{input_data.run_id}-reply"
        ids = {"thread_id": input_data.thread_id, "run_id": input_data.run_id}

        async def stream() -> AsyncIterator[str]:
            yield encoder.encode(RunStartedEvent(**ids, protocol_version="1.0"))
            yield encoder.encode(TextMessageStartEvent(message_id=message_id, role="assistant"))
            for word in ("one " * (200 if slow else 1)).split():
                yield encoder.encode(TextMessageContentEvent(message_id=message_id, delta=word + " "))
                if slow:
                    await asyncio.sleep(0.01)
            yield encoder.encode(TextMessageEndEvent(message_id=message_id))
            yield encoder.encode(RunFinishedEvent(**ids))

        return StreamingResponse(stream(), media_type=encoder.get_content_type())

    return app


def test_a_server_reusing_message_ids_fails_that_check_alone() -> None:
    report = run_asgi(reply_app(reuse_ids=True), "/agent", scenarios=["multi-turn"])
    failed = {k for k, v in verdicts(report).items() if v == "failed"}
    assert failed == {"multi-turn/ids-unique-across-runs"}, report.text
    assert not report.ok
    assert "'msg-1', an id the thread's history already has" in report.text


def test_a_cancelled_run_is_cancelled_in_process_and_the_next_one_served() -> None:
    report = run_asgi(reply_app(slow=True), "/agent", scenarios=["cancellation"])
    assert report.verdict("cancellation", "served-after-cancel") == "passed", report.text
    assert report.ok


def test_expected_failures_and_levels_reach_the_kit(tmp_path: Path) -> None:
    listed = tmp_path / "expected.toml"
    listed.write_text(
        '[[expected]]\nscenario = "multi-turn"\ncheck = "ids-unique-across-runs"\nreason = "ids from a counter"\n'
    )
    report = run_asgi(
        reply_app(reuse_ids=True), "/agent", scenarios=["multi-turn"], expected_failures=listed
    )
    assert report.ok, report.text
    assert report.verdict("multi-turn", "ids-unique-across-runs") == "expected-failure"
    fixed = run_asgi(reply_app(), "/agent", scenarios=["multi-turn"], expected_failures=listed)
    assert not fixed.ok
    assert fixed.verdict("multi-turn", "ids-unique-across-runs") == "fixed-but-listed"
    musts = run_asgi(reply_app(), "/agent", level="must")
    assert all(level == "MUST" for _, _, level, _, _ in musts.results)
    # ag-ui-protocol's RunAgentInput takes snake_case keys (pydantic's
    # populate_by_name): a body without threadId is served, the one MUST
    # the official encoder's app fails.
    failed = [(s, c) for s, c, _, v, _ in musts.results if v == "failed"]
    assert failed == [("bad-requests", "snake-case-rejected")], musts.text
    assert "<testsuite" in musts.junit and musts.json["summary"]["failed"] == 1


def test_a_misspelt_scenario_is_refused_and_scenario_files_run_besides_the_built_ins(
    tmp_path: Path,
) -> None:
    listed = tmp_path / "expected.toml"
    listed.write_text('[[expected]]\nscenario = "multi-trun"\ncheck = "ids-echoed"\nreason = "r"\n')
    with pytest.raises(ValueError, match="'multi-trun' is not a scenario of the kit or of a scenario file; did you mean 'multi-turn'"):
        run_asgi(reply_app(), "/agent", scenarios=["text"], expected_failures=listed)
    scenario = tmp_path / "hello.json"
    scenario.write_text(
        json.dumps(
            {
                "name": "hello",
                "steps": [
                    {
                        "request": {
                            "threadId": "{{threadId}}",
                            "runId": "{{runId}}",
                            "state": {},
                            "messages": [{"id": "{{id}}", "role": "user", "content": "Hello"}],
                            "tools": [],
                            "context": [],
                            "forwardedProps": {},
                        },
                        "expect": {"events": ["TEXT_MESSAGE_START"]},
                    }
                ],
            }
        )
    )
    besides = run_asgi(reply_app(), "/agent", scenarios=["text"], scenario_files=[scenario])
    assert {s for s, *_ in besides.results} == {"text", "hello"}, besides.text
    alone = run_asgi(reply_app(), "/agent", scenarios=[], scenario_files=[scenario])
    assert {s for s, *_ in alone.results} == {"hello"}, alone.text
    # A file's scenario names an entry of the expected failures too.
    listed.write_text('[[expected]]\nscenario = "hello"\ncheck = "ids-echoed"\nreason = "r"\n')
    run_asgi(reply_app(), "/agent", scenarios=[], scenario_files=[scenario], expected_failures=listed)


def test_the_async_runner_serves_async_tests() -> None:
    async def in_a_test_of_its_own() -> KitReport:
        return await run_asgi_async(reply_app(), "/agent", scenarios=["text"])

    report = asyncio.run(in_a_test_of_its_own())
    assert report.ok, report.text


def cli_verdicts(cli: Path, url: str, *args: str) -> Tuple[int, Dict[str, str]]:
    """`agui-lint probe URL --suite ARGS`: its exit code and verdicts."""
    done = subprocess.run(
        [str(cli), "probe", url, "--suite", "--format", "json", "--quiet", *args],
        capture_output=True,
        timeout=300,
    )
    report = json.loads(done.stdout)
    found = {f"{s['name']}/{c['check']}": c["verdict"] for s in report["scenarios"] for c in s["checks"]}
    return done.returncode, found


@pytest.mark.parametrize("served", [langgraph_app], indirect=True)
def test_over_http_the_cli_and_the_python_runner_agree_with_the_in_process_kit(
    served: str, agui_lint_cli: Path
) -> None:
    """ag-ui-langgraph served by uvicorn on 127.0.0.1: `agui-lint probe URL
    --suite` and `agui_lint.kit.run(URL)` give the in-process verdicts, a
    run the client stops reading after two events included."""
    code, found = cli_verdicts(agui_lint_cli, served)
    assert {k: v for k, v in found.items() if v != "passed"} == RECORDED["langgraph"], found
    assert code == 1  # version-declared fails
    report = run(served)
    assert {k: v for k, v in verdicts(report).items() if v != "passed"} == RECORDED["langgraph"], report.text


@pytest.mark.parametrize("served", [lambda: reply_app(slow=True)], indirect=True)
def test_over_http_a_slow_run_is_cancelled_and_the_next_served(served: str, agui_lint_cli: Path) -> None:
    code, found = cli_verdicts(agui_lint_cli, served, "--scenario", "cancellation")
    assert found["cancellation/served-after-cancel"] == "passed", found
    assert code == 0
    report = run(served, scenarios=["cancellation"])
    assert report.verdict("cancellation", "served-after-cancel") == "passed", report.text


def test_events_are_counted_across_chunks_split_anywhere() -> None:
    stream = b": hi\r\n\r\ndata: 1\r\n\r\ndata: 2\n\nevent: x\rdata: 3\r\r: no data\n\n"
    for size in (1, 2, 3, 7, len(stream)):
        counter = _EventCounter()
        for at in range(0, len(stream), size):
            counter.feed(stream[at : at + size])
        assert counter.events == 3, size


def test_an_app_that_dies_fails_the_check_of_that_request_and_the_report_is_whole() -> None:
    inner = reply_app()
    dead = False

    async def app(scope: Dict[str, Any], receive: Any, send: Any) -> None:
        nonlocal dead
        if scope["type"] != "http":
            return await inner(scope, receive, send)
        if dead:
            raise RuntimeError("worker gone")
        body, again = await read_body(receive)
        try:
            json.loads(body)
        except ValueError:
            dead = True
            raise RuntimeError("worker crashed") from None
        await inner(scope, again, send)

    report = run_asgi(app, "/agent", scenarios=["text", "bad-requests", "version"])
    found = verdicts(report)
    assert found["text/run-served"] == "passed", report.text
    assert found["bad-requests/invalid-json-rejected"] == "failed", report.text
    assert found["version/version-declared"] == "not-exercised", report.text
    assert "request 1 (a body that is not JSON): no response came: RuntimeError: worker crashed" in report.text
    assert "the server stopped answering after request 1 of the suite" in report.text
    assert not report.ok
