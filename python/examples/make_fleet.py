"""Writes a fleet's AG-UI logs to a folder: many captures, each one thread's
event stream as JSON Lines or SSE, for the Dask recipe (``dask_check.py``)
to check and to measure.

Every run is a real AG-UI 1.0 exchange of the repository's vendored
traffic (``tests/upstream/traffic-1.0/``: a text turn, streamed chunks with a
tool call, a turn ending in an interrupt, the official server's SSE answer)
replayed with fresh ids, so the logs look like a server's and not like one
file copied. About ``--broken`` percent of the runs that send a text message
lose its ``TEXT_MESSAGE_END`` (an error every checker should report); a run that ends
in ``RUN_ERROR`` comes only last in its file, as a stream ends there.
Deterministic for a given ``--seed``.

    python python/examples/make_fleet.py /tmp/fleet --files 200 --events 600
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Dict, List

TRAFFIC = Path(__file__).resolve().parents[2] / "tests" / "upstream" / "traffic-1.0"

# The keys whose values name a thread, a run, a message or a tool call.
ID_KEYS = ("threadId", "runId", "messageId", "toolCallId", "parentMessageId")


def templates() -> Dict[str, List[dict]]:
    """The vendored exchanges, each as its list of events."""
    runs = {}
    for path in sorted(TRAFFIC.glob("events-*.jsonl")):
        runs[path.stem] = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    sse = (TRAFFIC / "chat.response.sse").read_text()
    runs["chat"] = [json.loads(line[5:]) for line in sse.splitlines() if line.startswith("data:")]
    return runs


def replay(events: List[dict], thread: str, rng: random.Random) -> List[dict]:
    """``events`` with fresh ids: the file's thread, new runs, messages and calls."""
    fresh: Dict[str, str] = {}

    def renamed(key: str, value: str) -> str:
        if key == "threadId":
            return thread
        if value not in fresh:
            fresh[value] = f"{key[:-2]}-{rng.getrandbits(64):016x}"
        return fresh[value]

    return [
        {k: renamed(k, v) if k in ID_KEYS and isinstance(v, str) else v for k, v in event.items()}
        for event in events
    ]


def write_file(path: Path, events: List[dict]) -> int:
    """Writes ``events`` framed as the file's extension says; its size."""
    lines = [json.dumps(e, separators=(",", ":")) for e in events]
    if path.suffix == ".sse":
        text = "".join(f"data: {line}\n\n" for line in lines)
    else:
        text = "".join(f"{line}\n" for line in lines)
    path.write_text(text)
    return len(text.encode())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="the folder to write (made if missing)")
    parser.add_argument("--files", type=int, default=200, help="how many captures (default 200)")
    parser.add_argument("--events", type=int, default=600, help="about how many events each (default 600)")
    parser.add_argument("--broken", type=float, default=4.0, help="percent of text-sending runs with an error (default 4)")
    parser.add_argument("--seed", type=int, default=1, help="the generator's seed (default 1)")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    runs = templates()
    ending = [name for name, events in runs.items() if events[-1]["type"] == "RUN_ERROR"]
    middle = [name for name in runs if name not in ending]
    args.out.mkdir(parents=True, exist_ok=True)
    total = broken = count = 0
    for index in range(args.files):
        thread = f"thread-{index:06d}"
        events: List[dict] = []
        while len(events) < args.events:
            names = middle if len(events) + 10 < args.events or not ending else middle + ending
            name = rng.choice(names)
            run = replay(runs[name], thread, rng)
            if rng.random() * 100 < args.broken and any(e["type"] == "TEXT_MESSAGE_END" for e in run):
                run = [e for e in run if e["type"] != "TEXT_MESSAGE_END"]
                broken += 1
            events.extend(run)
            count += 1
            if name in ending:
                break
        suffix = ".sse" if index % 2 else ".jsonl"
        total += write_file(args.out / f"capture-{index:06d}{suffix}", events)
    print(f"{args.files} captures, {count} runs ({broken} broken), {total / 1e6:.1f} MB in {args.out}")


if __name__ == "__main__":
    main()
