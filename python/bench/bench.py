"""agui-lint's check against the official SDK's own parse, on the same bytes.

Times ``agui_lint.Validator.check_run_agent_input(body)`` and
``ag_ui.core.RunAgentInput.model_validate_json(body)`` (``ag-ui-protocol``
1.0, pydantic) on the official 1.0 client's captured chat request
(``tests/upstream/traffic-1.0/chat.request.json``) and on small, medium and
large ``RunAgentInput`` bodies that both accept, and on a body with 400
keys the protocol does not know (400 warnings for agui-lint, ignored by
pydantic), interleaved in one run, and prints the median time per call of
each and their ratio (targets: agui-lint <= 0.5x pydantic's time on clean
bodies, <= 1.5x on the warned one). The bodies are generated deterministically, as
``benches/payloads/mod.rs`` generates the Rust benchmark's (same generator,
same bytes), declaring ``protocolVersion: "1.0"`` as the official client
does.

    python bench/bench.py [--rounds N] [--seconds S] [--json] [--undeclared VERSION]

``--undeclared 0`` drops ``protocolVersion`` from the bodies and judges
them as pre-1.0 (``Validator(protocol="0")``), the profile whose clean
requests take agui-lint's fast path today; pydantic parses the same bytes.
"""

from __future__ import annotations

import argparse
import base64
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

from ag_ui.core import RunAgentInput

import agui_lint

MASK = (1 << 64) - 1
WORDS = [
    "weather", "forecast", "the", "agent", "tool", "result", "Oslo", "tomorrow", "rain", "please",
    "check", "calendar", "meeting", "summary", "report", "status",
]


class Lcg:
    """The Rust benchmark's linear congruential generator."""

    def __init__(self, seed: int) -> None:
        self.state = seed

    def next(self) -> int:
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) & MASK
        return self.state >> 33

    def below(self, n: int) -> int:
        return self.next() % n


def sentence(rng: Lcg, words: int) -> str:
    return " ".join(WORDS[rng.below(len(WORDS))] for _ in range(words))


def tool(i: int, depth: int) -> Dict[str, Any]:
    options: Dict[str, Any] = {
        "type": "object",
        "properties": {"verbose": {"type": "boolean"}, "lang": {"type": "string", "pattern": "^[a-z]{2}$"}},
        "additionalProperties": False,
    }
    for level in range(depth):
        options = {
            "type": "object",
            "description": f"Options, level {level}",
            "properties": {"nested": options, "flag": {"type": "boolean"}},
            "additionalProperties": False,
        }
    return {
        "name": f"tool_{i}",
        "description": f"Tool number {i}, which looks things up",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look up", "minLength": 1},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100},
                "units": {"type": "string", "enum": ["metric", "imperial"]},
                "options": options,
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    }


def arguments(rng: Lcg) -> str:
    query = sentence(rng, 3)
    return json.dumps({"query": query, "limit": 1 + rng.below(100), "units": "metric"}, separators=(",", ":"))


def run_agent_input(seed: int, turns: int, tools: int, depth: int, images: int, image_bytes: int, url_every: int) -> Dict[str, Any]:
    rng = Lcg(seed)
    messages: List[Dict[str, Any]] = [{"id": "sys", "role": "system", "content": "You are a helpful agent."}]
    for turn in range(turns):
        if url_every > 0 and turn % url_every == 0:
            text = sentence(rng, 40)
            user_content: Any = [
                {"type": "text", "text": text},
                {"type": "image", "source": {"type": "url", "value": f"https://cdn.example.com/img/{turn}.png", "mimeType": "image/png"}},
            ]
        else:
            user_content = sentence(rng, 40)
        messages.append({"id": f"u{turn}", "role": "user", "content": user_content})
        call = f"call_{turn}"
        name = f"tool_{turn % max(tools, 1)}"
        content = sentence(rng, 30)
        messages.append({
            "id": f"a{turn}", "role": "assistant", "content": content,
            "toolCalls": [{"id": call, "type": "function", "function": {"name": name, "arguments": arguments(rng)}}],
        })
        messages.append({"id": f"t{turn}", "role": "tool", "toolCallId": call, "content": sentence(rng, 200)})
    for i in range(images):
        data = bytes(rng.below(256) for _ in range(image_bytes))
        messages.append({
            "id": f"img{i}", "role": "user",
            "content": [{"type": "image", "source": {"type": "data", "value": base64.b64encode(data).decode("ascii"), "mimeType": "image/png"}}],
        })
    return {
        "threadId": "thread-1",
        "runId": f"run-{seed}",
        "protocolVersion": "1.0",
        "state": {"step": 3, "items": ["a", "b"]},
        "messages": messages,
        "tools": [tool(i, depth) for i in range(tools)],
        "context": [{"description": "user timezone", "value": "Europe/Oslo"}],
        "forwardedProps": {},
    }


def cases(declared: bool = True) -> List[Tuple[str, bytes]]:
    """The benchmark's bodies: the Rust benchmark's small, medium and large,
    declaring 1.0 unless ``declared`` is false."""
    def encode(value: Dict[str, Any]) -> bytes:
        if not declared:
            del value["protocolVersion"]
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

    traffic = Path(__file__).resolve().parents[2] / "tests" / "upstream" / "traffic-1.0"
    # The real request uses 1.x shapes: it has no pre-1.0 form.
    real = [("chat", (traffic / "chat.request.json").read_bytes())] if declared else []
    return real + [
        ("small", encode(run_agent_input(1, 1, 2, 0, 0, 0, 0))),
        ("medium", encode(run_agent_input(2, 20, 10, 9, 0, 0, 5))),
        ("large", encode(run_agent_input(3, 133, 30, 2, 12, 100 * 1024, 10))),
        ("warned", encode(warned())),
    ]


#: Target ratios to pydantic's time: clean bodies, and a body with
#: hundreds of findings (each built into a finding agui-lint reports, where
#: pydantic drops the keys it does not know without a word).
TARGETS = {"warned": 1.5}
CLEAN_TARGET = 0.5


def warned() -> Dict[str, Any]:
    """A ~70 KB body whose first 100 messages each carry four keys the
    protocol does not know: 400 ``unknown-field`` warnings, which pydantic
    ignores."""
    body = run_agent_input(4, 30, 2, 0, 0, 0, 0)
    for message in body["messages"][:100]:
        message.update({"colour": "blue", "client_ref": "web-7", "trace": "t-1", "pinned": False})
    return body


def per_call(function: Callable[[], Any], seconds: float) -> float:
    """Seconds per call over a batch lasting about ``seconds``."""
    calls = 1
    while True:
        start = time.perf_counter()
        for _ in range(calls):
            function()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return elapsed / calls
        calls = max(calls * 2, int(calls * seconds / max(elapsed, 1e-9)))


def fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} µs"
    return f"{seconds * 1e3:.3f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds per case (median reported)")
    parser.add_argument("--seconds", type=float, default=0.2, help="length of one timed batch")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--undeclared", metavar="VERSION", help="bodies declare no version; judge them as VERSION")
    args = parser.parse_args()

    if args.undeclared:
        validator = agui_lint.Validator(protocol=args.undeclared)
    else:
        validator = agui_lint.Validator()
    rows = []
    for name, body in cases(declared=not args.undeclared):
        result = validator.check_run_agent_input(body)
        if not result.valid:
            raise SystemExit(f"{name}: agui-lint refuses the body: {result.diagnostics}")
        if (name == "warned") != bool(result.diagnostics):
            raise SystemExit(f"{name}: {len(result.diagnostics)} findings")
        RunAgentInput.model_validate_json(body)
        ours, theirs = [], []
        for _ in range(args.rounds):
            ours.append(per_call(lambda: validator.check_run_agent_input(body), args.seconds))
            theirs.append(per_call(lambda: RunAgentInput.model_validate_json(body), args.seconds))
        a, p = statistics.median(ours), statistics.median(theirs)
        rows.append({
            "case": name, "bytes": len(body), "protocol": result.protocol,
            "findings": len(result.diagnostics),
            "agui_lint_s": a, "pydantic_s": p, "ratio": a / p,
            "agui_lint_range": [min(ours), max(ours)], "pydantic_range": [min(theirs), max(theirs)],
        })

    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    import pydantic  # noqa: PLC0415 - only for the header

    print(f"agui-lint {agui_lint.__version__}, pydantic {pydantic.VERSION}, Python {platform.python_version()}, "
          f"{args.rounds} rounds of {args.seconds}s batches, median per call")
    print(f"{'case':<8}{'bytes':>10}  {'judged as':>9}  {'findings':>8}  {'pydantic':>12}  {'agui-lint':>12}  {'ratio':>7}  target")
    for r in rows:
        target = TARGETS.get(r["case"], CLEAN_TARGET)
        verdict = "met" if r["ratio"] <= target else "not met"
        print(f"{r['case']:<8}{r['bytes']:>10}  {r['protocol']:>9}  {r['findings']:>8}  {fmt(r['pydantic_s']):>12}  "
              f"{fmt(r['agui_lint_s']):>12}  {r['ratio']:>6.2f}x  <= {target}x {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
