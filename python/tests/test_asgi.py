"""The ASGI guard in front of a real FastAPI app whose handler takes the
official ``ag-ui-protocol`` 1.0 ``RunAgentInput``, driven by its test
client: the dependency and the middleware, each the same way."""

from __future__ import annotations

import json
import logging
from typing import Any, Dict

import pytest
from ag_ui.core import RunAgentInput
from fastapi import Depends, FastAPI, Request
from fastapi.testclient import TestClient
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

import agui_lint
from agui_lint.asgi import (
    WARNING_COUNT_HEADER,
    WARNINGS_HEADER,
    Guard,
    GuardMiddleware,
    Validated,
)
from conftest import body_of, traffic_requests

JSON = {"content-type": "application/json"}


def answer(input_data: RunAgentInput, raw: bytes, validated: Any) -> Dict[str, Any]:
    return {
        "threadId": input_data.thread_id,
        "runId": input_data.run_id,
        "messages": len(input_data.messages),
        "raw": raw.decode("utf-8"),
        "validated": isinstance(validated, Validated),
    }


def dependency_app(guard: Guard) -> FastAPI:
    app = FastAPI()
    guard.install(app)

    @app.post("/agent")
    async def agent(
        input_data: RunAgentInput, request: Request, checked: Validated = Depends(guard)
    ) -> Dict[str, Any]:
        return answer(input_data, await request.body(), checked)

    @app.post("/unguarded")
    async def unguarded(input_data: RunAgentInput) -> Dict[str, Any]:
        return {"threadId": input_data.thread_id}

    return app


def middleware_app(guard: Guard) -> FastAPI:
    app = FastAPI()
    app.add_middleware(GuardMiddleware, guard=guard, paths=["/agent"])

    @app.post("/agent")
    async def agent(input_data: RunAgentInput, request: Request) -> Dict[str, Any]:
        return answer(input_data, await request.body(), getattr(request.state, "agui_lint", None))

    @app.post("/unguarded")
    async def unguarded(input_data: RunAgentInput) -> Dict[str, Any]:
        return {"threadId": input_data.thread_id}

    return app


APPS = {"dependency": dependency_app, "middleware": middleware_app}


@pytest.fixture(params=sorted(APPS))
def make_client(request):
    def make(**options: Any) -> TestClient:
        return TestClient(APPS[request.param](Guard(**options)))

    return make


def test_the_official_clients_requests_reach_the_handler_untouched(make_client):
    client = make_client()
    for path in traffic_requests():
        body = path.read_bytes()
        response = client.post("/agent", content=body, headers=JSON)
        assert response.status_code == 200, (path.name, response.text)
        seen = response.json()
        sent = json.loads(body)
        assert seen["threadId"] == sent["threadId"] and seen["runId"] == sent["runId"]
        assert seen["messages"] == len(sent["messages"])
        assert seen["raw"] == body.decode("utf-8")
        assert seen["validated"] is True


@pytest.mark.parametrize(
    "rule", ["tool-result-without-call", "missing-field", "null-for-optional", "invalid-json"]
)
def test_bad_bodies_get_the_422_document(make_client, bad_bodies, rule):
    body = bad_bodies[rule]
    response = make_client().post("/agent", content=body, headers=JSON)
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/json"
    # Exactly the Rust guard's document: the CLI's `--format json` for one
    # document, named by the request's path.
    expected = agui_lint.Validator().check_run_agent_input(body).to_json("/agent")
    assert response.text == expected
    document = response.json()
    assert document["tool"] == "agui-lint"
    (only,) = document["documents"]
    assert only["path"] == "/agent" and only["valid"] is False
    assert rule in {d["rule"] for d in only["diagnostics"] if d["severity"] == "error"}


@pytest.mark.parametrize("rule", ["tool-result-without-call", "missing-field", "null-for-optional"])
def test_the_official_model_alone_accepts_what_the_guard_refuses(bad_bodies, rule):
    RunAgentInput.model_validate_json(bad_bodies[rule])


def test_routes_without_the_guard_keep_fastapis_own_answers(make_client, bad_bodies):
    client = make_client()
    accepted = client.post("/unguarded", content=bad_bodies["null-for-optional"], headers=JSON)
    assert accepted.status_code == 200
    broken = client.post("/unguarded", content=bad_bodies["invalid-json"], headers=JSON)
    assert broken.status_code == 422 and "detail" in broken.json()


def test_a_body_that_is_not_json_by_content_type_gets_415(make_client, chat_request):
    response = make_client().post("/agent", content=body_of(chat_request), headers={"content-type": "text/plain"})
    assert response.status_code == 415
    assert response.json() == {
        "tool": "agui-lint",
        "version": agui_lint.__version__,
        "error": "the body must be JSON (Content-Type: application/json), not 'text/plain'",
    }
    ok = make_client().post(
        "/agent", content=body_of(chat_request), headers={"content-type": "application/vnd.ag-ui+json; charset=utf-8"}
    )
    assert ok.status_code == 200, ok.text


def test_a_body_over_the_limit_gets_413(make_client, chat_request):
    body = body_of(chat_request)
    response = make_client(body_limit=len(body) - 1).post("/agent", content=body, headers=JSON)
    assert response.status_code == 413
    limit = len(body) - 1
    shown = f"{limit} bytes" if limit < 1024 else f"{limit / 1024:.1f}".removesuffix(".0") + " KiB"
    assert response.json()["error"] == f"the body is over the limit of {shown}"
    assert make_client(body_limit=len(body)).post("/agent", content=body, headers=JSON).status_code == 200


def test_a_streamed_body_over_the_limit_gets_413_from_the_middleware(chat_request):
    body = body_of(chat_request)
    client = TestClient(middleware_app(Guard(body_limit=100)))

    def chunks():
        for i in range(0, len(body), 64):
            yield body[i : i + 64]

    response = client.post("/agent", content=chunks(), headers=JSON)
    assert response.status_code == 413


def with_unknown_key(chat_request: Dict[str, Any]) -> bytes:
    document = dict(chat_request)
    document["extra"] = True
    return body_of(document)


def test_warnings_are_logged_and_never_block(make_client, chat_request, caplog):
    with caplog.at_level(logging.INFO, logger="agui_lint"):
        response = make_client().post("/agent", content=with_unknown_key(chat_request), headers=JSON)
    assert response.status_code == 200
    records = [r for r in caplog.records if r.name == "agui_lint"]
    assert [r.rule for r in records] == ["unknown-field"]
    assert records[0].levelno == logging.WARNING
    assert records[0].pointer == "/extra"
    assert "rule=unknown-field pointer=/extra line=1" in records[0].getMessage()
    assert WARNINGS_HEADER not in response.headers


def test_warnings_in_the_response_header_with_the_middleware(chat_request, caplog):
    client = TestClient(middleware_app(Guard(warnings="header")))
    with caplog.at_level(logging.INFO, logger="agui_lint"):
        response = client.post("/agent", content=with_unknown_key(chat_request), headers=JSON)
    assert response.status_code == 200
    assert response.headers[WARNING_COUNT_HEADER] == "1"
    (finding,) = json.loads(response.headers[WARNINGS_HEADER])
    assert finding["rule"] == "unknown-field" and finding["pointer"] == "/extra"
    assert not [r for r in caplog.records if r.name == "agui_lint"]
    clean = client.post("/agent", content=body_of(chat_request), headers=JSON)
    assert WARNINGS_HEADER not in clean.headers


def test_masked_values_stay_out_of_the_answer(bad_bodies):
    client = TestClient(middleware_app(Guard(agui_lint.Validator(mask_values=True))))
    response = client.post("/agent", content=bad_bodies["tool-result-without-call"], headers=JSON)
    assert response.status_code == 422
    assert "call_nobody_made" not in response.text


def test_a_masked_422_names_the_missing_key():
    client = TestClient(middleware_app(Guard(agui_lint.Validator(mask_values=True))))
    body = json.dumps(
        {
            "thread_id": "t",
            "runId": "r",
            "state": {},
            "tools": [],
            "context": [],
            "forwardedProps": {},
            "messages": [{"id": "m", "role": "user", "content": "sk_live_51HxSecret"}],
        }
    )
    response = client.post("/agent", content=body, headers=JSON)
    assert response.status_code == 422
    assert "missing required key 'threadId'" in response.text
    assert "found 'thread_id'; the key is spelled 'threadId'" in response.text
    assert "sk_live_51HxSecret" not in response.text


def test_the_middleware_guards_a_plain_starlette_app(chat_request, bad_bodies):
    async def agent(request: Request) -> JSONResponse:
        input_data = RunAgentInput.model_validate_json(await request.body())
        return JSONResponse({"runId": input_data.run_id})

    app = Starlette(routes=[Route("/agent", agent, methods=["POST"])])
    app.add_middleware(GuardMiddleware, paths=["/agent"])
    client = TestClient(app)
    assert client.post("/agent", content=body_of(chat_request), headers=JSON).json() == {
        "runId": chat_request["runId"]
    }
    refused = client.post("/agent", content=bad_bodies["missing-field"], headers=JSON)
    assert refused.status_code == 422 and refused.json()["documents"][0]["valid"] is False


def test_guard_settings_are_checked():
    with pytest.raises(ValueError):
        Guard(warnings="stderr")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Guard(body_limit=-1)
