"""The cost of the ASGI guard's response check: a Starlette app whose agent
streams 10,000 SSE events (``StreamingResponse``, one event a chunk, as the
official ``EventEncoder``'s output is usually sent) behind
``GuardMiddleware``, with ``responses="off"`` and ``responses="report"``,
called in this process through the ASGI interface (no server, no network:
the guard's share is as large as it gets), and with ``responses="report",
response_lagging="stop"``. They take turns; medians of
each are compared: the time to stream the whole body, and to its first
chunk. Then the same with an agent paced to ``--pace`` events a second
(a millisecond's sleep every ``pace / 1000`` events), as a model-backed
agent is: the check's share of the event loop's idle time.

    python bench/response_bench.py [--rounds N] [--events N] [--pace N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from typing import Any, Dict, List, Tuple

from starlette.applications import Starlette
from starlette.responses import StreamingResponse
from starlette.routing import Route

from agui_lint.asgi import Guard, GuardMiddleware


def frames(count: int) -> List[bytes]:
    """A run of ``count`` events: text messages of 20 deltas each."""
    events: List[Dict[str, Any]] = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"}
    ]
    message = 0
    while len(events) + 22 < count:
        mid = f"m{message}"
        events.append({"type": "TEXT_MESSAGE_START", "messageId": mid, "role": "assistant"})
        for i in range(20):
            events.append({"type": "TEXT_MESSAGE_CONTENT", "messageId": mid,
                           "delta": f"word {i} of a reply that streams "})
        events.append({"type": "TEXT_MESSAGE_END", "messageId": mid})
        message += 1
    while len(events) < count - 1:
        events.append({"type": "CUSTOM", "name": "tick", "value": len(events)})
    events.append({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"})
    return [f"data: {json.dumps(e)}\n\n".encode() for e in events]


def app_for(guard: Guard, chunks: List[bytes], pace: int = 0) -> Any:
    """The app: ``chunks`` streamed as fast as the loop takes them, or
    ``pace`` a second."""
    every = max(1, pace // 1000)

    async def agent(request: Any) -> StreamingResponse:
        async def stream() -> Any:
            for i, chunk in enumerate(chunks):
                if pace and i % every == 0:
                    await asyncio.sleep(0.001)
                yield chunk

        return StreamingResponse(stream(), media_type="text/event-stream")

    app = Starlette(routes=[Route("/agent", agent, methods=["POST"])])
    return GuardMiddleware(app, guard=guard, paths=["/agent"])


async def exchange(app: Any, request: bytes) -> Tuple[float, float, int]:
    start = time.perf_counter()
    first = None
    size = 0
    sent = False

    async def receive() -> Dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": request, "more_body": False}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: Dict[str, Any]) -> None:
        nonlocal first, size
        if message["type"] == "http.response.body":
            if first is None:
                first = time.perf_counter() - start
            size += len(message.get("body", b""))

    scope = {"type": "http", "method": "POST", "path": "/agent", "headers": [
        (b"content-type", b"application/json")], "query_string": b"", "root_path": "",
        "scheme": "http", "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 1),
        "http_version": "1.1", "asgi": {"version": "3.0"}}
    await app(scope, receive, send)
    return first or 0.0, time.perf_counter() - start, size


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--pace", type=int, default=20_000)
    parser.add_argument("--paced-rounds", type=int, default=5)
    args = parser.parse_args()
    chunks = frames(args.events)
    request = json.dumps({"threadId": "t", "runId": "r", "protocolVersion": "1.1", "state": {},
                          "messages": [], "tools": [], "context": [],
                          "forwardedProps": {}}).encode()
    off, report = Guard(), Guard(responses="report")
    stop = Guard(responses="report", response_lagging="stop")
    apps = [app_for(off, chunks), app_for(report, chunks), app_for(stop, chunks)]
    for app in apps:
        await exchange(app, request)
    firsts: List[List[float]] = [[], [], []]
    wholes: List[List[float]] = [[], [], []]
    for round_ in range(args.rounds):
        for i in [(round_ + k) % 3 for k in range(3)]:
            first, whole, size = await exchange(apps[i], request)
            assert size > 0
            firsts[i].append(first)
            wholes[i].append(whole)
    paced = [app_for(off, chunks, args.pace), app_for(report, chunks, args.pace)]
    paced_wholes: List[List[float]] = [[], []]
    for round_ in range(args.paced_rounds):
        for i in ((0, 1) if round_ % 2 == 0 else (1, 0)):
            _, whole, size = await exchange(paced[i], request)
            assert size > 0
            paced_wholes[i].append(whole)
    stats = report.response_stats
    assert stats.errors == 0, stats
    assert stats.events == (args.rounds + 1 + args.paced_rounds) * args.events, stats
    m = [statistics.median(w) for w in wholes]
    f = [statistics.median(x) for x in firsts]
    size = sum(map(len, chunks))
    print(f"ASGI response stream: {args.events} events, {size} bytes, {args.rounds} rounds each, "
          f"interleaved, medians")
    print(f"  to stream them:  off {m[0] * 1e3:9.3f} ms   report {m[1] * 1e3:9.3f} ms   "
          f"report / off {m[1] / m[0]:.3f}")
    print(f"  to first chunk:  off {f[0] * 1e3:9.3f} ms   report {f[1] * 1e3:9.3f} ms   "
          f"difference {(f[1] - f[0]) * 1e3:+.3f} ms")
    print('  with response_lagging="stop", the stream never waiting:')
    print(f"  to stream them:  off {m[0] * 1e3:9.3f} ms   report {m[2] * 1e3:9.3f} ms   "
          f"report / off {m[2] / m[0]:.3f}")
    print(f"  to first chunk:  off {f[0] * 1e3:9.3f} ms   report {f[2] * 1e3:9.3f} ms   "
          f"difference {(f[2] - f[0]) * 1e3:+.3f} ms")
    left = stop.response_stats
    print(f"  {left.streams_outpaced} of {left.streams} streams left their check behind, "
          f"{left.events / max(1, left.streams):.0f} events checked a stream")
    p = [statistics.median(w) for w in paced_wholes]
    print(f"  an agent pacing {args.pace} events a second, {args.paced_rounds} rounds each:")
    print(f"  to stream them:  off {p[0] * 1e3:9.3f} ms   report {p[1] * 1e3:9.3f} ms   "
          f"report / off {p[1] / p[0]:.3f}")


if __name__ == "__main__":
    asyncio.run(main())
