"""Records the kit's own scenarios, run end to end against real adapters,
for the differential test of the kit's client (tests/kit_client.rs,
node/test/kit-client.test.js): each server of python/tests (pydantic-ai,
ag-ui-langgraph, ag-ui-strands, ag-ui-adk, each with a scripted model that
calls every offered tool) served on 127.0.0.1 with uvicorn, and
`agui-lint probe URL --suite --save DIR/SERVER` run against it. Each
exchange of the sessions saved is a case: what the kit sent next holds to
what HttpAgent sends after the same response.

Run from the repository root in CI's Python environment (made by
.ci/python-test.sh), after `cargo build`:

    target/ci-python/bin/python tests/data/kit-client/sessions/record.py
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import uvicorn

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "python" / "tests"))

import test_kit  # noqa: E402
import test_kit_frameworks  # noqa: E402

SERVERS = {
    "pydantic-ai": test_kit.pydantic_ai_app,
    "strands": lambda: test_kit_frameworks.strands_app("tools"),
    "adk": lambda: test_kit_frameworks.adk_app("tools"),
    "langgraph-streaming": lambda: test_kit_frameworks.langgraph_app("tools"),
}


def serve(app) -> tuple[uvicorn.Server, int]:  # type: ignore[no-untyped-def]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return server, port


def main() -> None:
    cli = ROOT / "target" / "debug" / "agui-lint"
    out = Path(__file__).resolve().parent
    for name, make in SERVERS.items():
        server, port = serve(make())
        target = out / name
        shutil.rmtree(target, ignore_errors=True)
        subprocess.run(
            [str(cli), "probe", f"http://127.0.0.1:{port}/agent", "--suite", "--save", str(target), "--format", "json"],
            stdout=subprocess.DEVNULL,
            check=False,
        )
        server.should_exit = True
        # Only the sessions: the requests saved beside them are the same
        # bodies.
        for request in target.glob("*.json"):
            request.unlink()
        print(name, sorted(p.name for p in target.iterdir()))


if __name__ == "__main__":
    main()
