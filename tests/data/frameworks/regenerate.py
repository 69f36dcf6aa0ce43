#!/usr/bin/env python3
"""Regenerate the vendored AG-UI adapter captures in this folder.

For every adapter: create a fresh virtual environment from its pinned
requirements file, start the adapter's server (servers/*.py) with uvicorn on
a free port of 127.0.0.1, POST each scenario's RunAgentInput as the official
@ag-ui/client does (compact JSON, `Accept: text/event-stream`,
`protocolVersion` "1.0" where the adapter's ag-ui-protocol has it), record
the exact request and response bodies, and rewrite
<adapter>/<scenario>.har. Every model is scripted: nothing leaves the machine.

    python3.11 regenerate.py                 # every adapter, fresh venvs
    python3.11 regenerate.py --only strands  # one adapter
    python3.11 regenerate.py --reuse-venv    # keep existing venvs (faster)

This script itself needs only the standard library.
"""

from __future__ import annotations

import argparse
import copy
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"

# The URL and Host header written into the HAR files: the real port is free
# and changes from run to run, so it is replaced by this one.
CANONICAL_HOST = "127.0.0.1:8000"
# Every HAR envelope timestamp, and the Date response header, are fixed.
FIXED_DATE = "2025-01-01T00:00:00.000Z"
FIXED_HTTP_DATE = "Wed, 01 Jan 2025 00:00:00 GMT"

# venv name -> requirements file. agent-framework-ag-ui pins
# ag-ui-protocol<0.2 while the other adapters need ag-ui-protocol 1.0, so it
# has its own environment.
VENVS = {
    "main": "requirements.txt",
    "agent-framework": "requirements-agent-framework.txt",
}

# adapter folder -> (server script, venv, scenarios, speaks AG-UI 1.0)
ADAPTERS: dict[str, tuple[str, str, list[str], bool]] = {
    "pydantic-ai": (
        "pydantic_ai_app.py",
        "main",
        ["text", "frontend-tool", "backend-tool", "state", "reasoning", "error", "tool-error", "interrupt"],
        True,
    ),
    "langgraph": (
        "langgraph_app.py",
        "main",
        ["text", "frontend-tool", "backend-tool", "state", "reasoning", "error", "tool-error", "interrupt"],
        True,
    ),
    "strands": (
        "strands_app.py",
        "main",
        ["text", "frontend-tool", "backend-tool", "state", "reasoning", "error", "tool-error", "interrupt"],
        True,
    ),
    "adk": (
        "adk_app.py",
        "main",
        ["text", "frontend-tool", "backend-tool", "state", "reasoning", "error", "tool-error"],
        True,
    ),
    "agent-framework": (
        "agent_framework_app.py",
        "agent-framework",
        ["text", "frontend-tool", "backend-tool", "state", "reasoning", "error", "tool-error"],
        False,
    ),
}

FRONTEND_TOOL = {
    "name": "confirm_booking",
    "description": "Ask the user to confirm a hotel booking. Executed by the frontend.",
    "parameters": {
        "type": "object",
        "properties": {
            "hotel": {"type": "string"},
            "nights": {"type": "integer", "minimum": 1},
        },
        "required": ["hotel", "nights"],
    },
}

# scenario -> (user prompt, tools offered, initial state)
SCENARIOS: dict[str, tuple[str, list, dict]] = {
    "text": ("Hi!", [], {}),
    "frontend-tool": ("Book the Alpenblick for two nights.", [FRONTEND_TOOL], {}),
    "backend-tool": ("What is the weather in Berlin?", [], {}),
    "state": ("Add 'buy milk' to my todos.", [], {"todos": []}),
    "reasoning": ("Hello, think first.", [], {}),
    "error": ("Check the status.", [], {}),
    "tool-error": ("Run the failing tool.", [], {}),
    "interrupt": ("Delete /tmp/report.txt.", [], {}),
}

FRONTEND_TOOL_RESULT = "confirmed"


def ids(adapter: str, scenario: str, what: str) -> str:
    """Stable UUIDs so that re-runs send the same requests."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"agui-lint/frameworks/{adapter}/{scenario}/{what}"))


def request_body(adapter, scenario, run, messages, tools, state, speaks_1_0, resume=None) -> bytes:
    body = {"threadId": ids(adapter, scenario, "thread"), "runId": ids(adapter, scenario, f"run-{run}")}
    if speaks_1_0:
        body["protocolVersion"] = "1.0"
    body.update(state=state, messages=messages, tools=tools, context=[], forwardedProps={})
    if resume:
        body["resume"] = resume
    # JSON.stringify: compact, non-ASCII kept.
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()


def parse_sse(text: str) -> list[dict]:
    events, data = [], []
    for line in text.replace("\r\n", "\n").split("\n"):
        if line == "":
            if data:
                events.append(json.loads("\n".join(data)))
                data = []
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    if data:
        events.append(json.loads("\n".join(data)))
    return events


def apply_patch(state, patch):
    state = copy.deepcopy(state)
    for op in patch:
        parts = [p.replace("~1", "/").replace("~0", "~") for p in op["path"].split("/")[1:]]
        if not parts:
            state = copy.deepcopy(op.get("value"))
            continue
        parent = state
        for p in parts[:-1]:
            parent = parent[int(p)] if isinstance(parent, list) else parent[p]
        key = parts[-1]
        if op["op"] in ("add", "replace"):
            if isinstance(parent, list):
                if key == "-":
                    parent.append(op["value"])
                elif op["op"] == "add":
                    parent.insert(int(key), op["value"])
                else:
                    parent[int(key)] = op["value"]
            else:
                parent[key] = op["value"]
        elif op["op"] == "remove":
            del parent[int(key) if isinstance(parent, list) else key]
    return state


def apply_events(messages: list, state: dict, events: list[dict]) -> tuple[list, dict]:
    """What @ag-ui/client's default reducer does with a run's events, for
    the parts the follow-up request needs: messages and state."""
    messages = copy.deepcopy(messages)
    by_id = {m["id"]: m for m in messages}
    calls = {}
    last_text = None
    for e in events:
        t = e["type"]
        if t in ("TEXT_MESSAGE_START", "TEXT_MESSAGE_CHUNK") and e.get("messageId") not in by_id and e.get("messageId", last_text) is not None:
            mid = e.get("messageId", last_text)
            m = {"id": mid, "role": e.get("role", "assistant"), "content": ""}
            messages.append(m)
            by_id[mid] = m
        if t in ("TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CHUNK"):
            last_text = e.get("messageId", last_text)
            if "delta" in e and last_text in by_id:
                by_id[last_text]["content"] = (by_id[last_text].get("content") or "") + e["delta"]
        elif t in ("TOOL_CALL_START", "TOOL_CALL_CHUNK") and e.get("toolCallId") and e["toolCallId"] not in calls:
            parent = e.get("parentMessageId")
            if parent in by_id and by_id[parent]["role"] == "assistant":
                m = by_id[parent]
            else:
                mid = parent or e["toolCallId"]
                m = {"id": mid, "role": "assistant"}
                messages.append(m)
                by_id[mid] = m
            call = {"id": e["toolCallId"], "type": "function", "function": {"name": e.get("toolCallName", ""), "arguments": ""}}
            m.setdefault("toolCalls", []).append(call)
            calls[e["toolCallId"]] = call
            if t == "TOOL_CALL_CHUNK" and e.get("delta"):
                call["function"]["arguments"] += e["delta"]
        elif t == "TOOL_CALL_ARGS" and e["toolCallId"] in calls:
            calls[e["toolCallId"]]["function"]["arguments"] += e["delta"]
        elif t == "TOOL_CALL_RESULT":
            m = {"id": e["messageId"], "role": "tool", "toolCallId": e["toolCallId"], "content": e["content"]}
            messages.append(m)
            by_id[m["id"]] = m
        elif t == "MESSAGES_SNAPSHOT":
            messages = copy.deepcopy(e["messages"])
            by_id = {m["id"]: m for m in messages}
            calls = {c["id"]: c for m in messages for c in m.get("toolCalls") or []}
        elif t == "STATE_SNAPSHOT":
            state = copy.deepcopy(e["snapshot"])
        elif t == "STATE_DELTA":
            try:
                state = apply_patch(state, e["delta"])
            except Exception:  # a receiver keeps its prior state
                pass
    # The client sends back no reasoning or activity messages it did not get from the user.
    messages = [m for m in messages if m.get("role") not in ("reasoning", "activity")]
    return messages, state


def post(port: int, path: str, body: bytes) -> tuple[list, int, str, list, bytes]:
    headers = [
        ("Host", CANONICAL_HOST),
        ("Content-Type", "application/json"),
        ("Accept", "text/event-stream"),
        ("Content-Length", str(len(body))),
    ]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.putrequest("POST", path, skip_host=True, skip_accept_encoding=True)
    for k, v in headers:
        conn.putheader(k, v)
    conn.endheaders(body)
    resp = conn.getresponse()
    raw = resp.read()
    out = (headers, resp.status, resp.reason, resp.getheaders(), raw)
    conn.close()
    return out


def har_entry(path, req_headers, body, status, reason, resp_headers, raw) -> dict:
    resp_headers = [(k, FIXED_HTTP_DATE if k.lower() == "date" else v) for k, v in resp_headers]
    ctype = next((v for k, v in resp_headers if k.lower() == "content-type"), "")
    return {
        "startedDateTime": FIXED_DATE,
        "time": 0,
        "request": {
            "method": "POST",
            "url": f"http://{CANONICAL_HOST}{path}",
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": [{"name": k, "value": v} for k, v in req_headers],
            "queryString": [],
            "postData": {"mimeType": "application/json", "text": body.decode()},
            "headersSize": -1,
            "bodySize": len(body),
        },
        "response": {
            "status": status,
            "statusText": reason,
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": [{"name": k, "value": v} for k, v in resp_headers],
            "content": {"size": len(raw), "mimeType": ctype, "text": raw.decode()},
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": len(raw),
        },
        "cache": {},
        "timings": {"send": 0, "wait": 0, "receive": 0},
    }


def run_scenario(adapter: str, scenario: str, port: int, speaks_1_0: bool) -> list[dict]:
    prompt, tools, state = SCENARIOS[scenario]
    messages = [{"id": ids(adapter, scenario, "user-1"), "role": "user", "content": prompt}]
    path = f"/{scenario}"
    entries = []
    resume = None
    for run in (1, 2):
        body = request_body(adapter, scenario, run, messages, tools, state, speaks_1_0, resume)
        req_headers, status, reason, resp_headers, raw = post(port, path, body)
        entries.append(har_entry(path, req_headers, body, status, reason, resp_headers, raw))
        if scenario not in ("frontend-tool", "interrupt") or run == 2 or status != 200:
            break
        events = parse_sse(raw.decode())
        messages, state = apply_events(messages, state, events)
        if scenario == "interrupt":
            # The user approves every interrupt the run ended with.
            finished = [e for e in events if e["type"] == "RUN_FINISHED"]
            outcome = finished[-1].get("outcome") or {} if finished else {}
            if outcome.get("type") != "interrupt":
                break
            resume = [
                {"interruptId": i["id"], "status": "resolved", "payload": {"approved": True}}
                for i in outcome["interrupts"]
            ]
            continue
        # The frontend runs the tool it was asked to and sends the result back.
        pending = [
            c["id"]
            for m in messages
            if m.get("role") == "assistant"
            for c in m.get("toolCalls") or []
            if c["function"]["name"] == FRONTEND_TOOL["name"]
        ]
        answered = {m.get("toolCallId") for m in messages if m.get("role") == "tool"}
        pending = [c for c in pending if c not in answered]
        if not pending:
            break
        messages.append(
            {
                "id": ids(adapter, scenario, "tool-result-1"),
                "role": "tool",
                "toolCallId": pending[0],
                "content": FRONTEND_TOOL_RESULT,
            }
        )
    return entries


def write_har(adapter: str, scenario: str, entries: list[dict]) -> Path:
    out = HERE / adapter / f"{scenario}.har"
    out.parent.mkdir(exist_ok=True)
    har = {"log": {"version": "1.2", "creator": {"name": "agui-lint tests/data/frameworks/regenerate.py", "version": "1"}, "entries": entries}}
    out.write_text(json.dumps(har, indent=2, ensure_ascii=False) + "\n")
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_venv(name: str, root: Path, reuse: bool) -> Path:
    venv = root / name
    python = venv / "bin" / "python"
    if reuse and python.exists():
        return python
    if venv.exists():
        shutil.rmtree(venv)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"], check=True)
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "-r", str(HERE / VENVS[name])], check=True
    )
    subprocess.run([str(python), "-m", "pip", "check"], check=True)
    return python


def wait_for(port: int, proc: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("server did not start")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", choices=sorted(ADAPTERS), help="adapter(s) to regenerate")
    parser.add_argument("--venv-root", default="/tmp/agui-lint-frameworks-venvs", help="where the venvs go")
    parser.add_argument("--reuse-venv", action="store_true", help="reuse venvs that already exist")
    parser.add_argument("--python", help="a ready interpreter to use for every server instead of venvs")
    args = parser.parse_args()

    root = Path(args.venv_root)
    root.mkdir(parents=True, exist_ok=True)
    pythons: dict[str, Path] = {}
    failed = []
    for adapter in args.only or list(ADAPTERS):
        script, venv, scenarios, speaks_1_0 = ADAPTERS[adapter]
        if args.python:
            python = Path(args.python)
        else:
            if venv not in pythons:
                pythons[venv] = make_venv(venv, root, args.reuse_venv)
            python = pythons[venv]
        port = free_port()
        log = open(root / f"{adapter}-server.log", "w")
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONUNBUFFERED="1")
        proc = subprocess.Popen(
            [str(python), str(SERVERS / script), str(port)], stdout=log, stderr=subprocess.STDOUT, env=env, cwd=root
        )
        try:
            wait_for(port, proc)
            for scenario in scenarios:
                try:
                    out = write_har(adapter, scenario, run_scenario(adapter, scenario, port, speaks_1_0))
                    print(f"wrote {out.relative_to(HERE)}")
                except Exception as error:  # keep going: report at the end
                    failed.append(f"{adapter}/{scenario}: {error!r}")
                    print(f"FAILED {adapter}/{scenario}: {error!r}", file=sys.stderr)
        except Exception as error:
            failed.append(f"{adapter}: {error!r} (server log: {root / (adapter + '-server.log')})")
            print(f"FAILED {adapter}: {error!r}", file=sys.stderr)
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
            log.close()
    if failed:
        print("\n".join(["failures:"] + failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
