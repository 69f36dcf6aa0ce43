"""The Dask recipe (python/examples/dask_check.py) on a local cluster of two
worker processes: its per-file lines and its summary against the CLI's
`check --format json --statistics` over the same generated fleet."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import distributed
import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
CLI = os.environ.get("AGUI_LINT_BIN", str(Path(__file__).resolve().parents[2] / "target" / "debug" / "agui-lint"))


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def cli_json(*args: str) -> dict:
    done = subprocess.run([CLI, "check", *args, "--format", "json", "--statistics"], capture_output=True, check=False)
    assert done.returncode in (0, 1), done.stderr.decode()
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def fleet(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("fleet")
    subprocess.run(
        [sys.executable, str(EXAMPLES / "make_fleet.py"), str(out), "--files", "24", "--events", "300", "--broken", "10"],
        check=True,
    )
    # Beside the streams: HARs (read whole by the recipe, as by the CLI), one
    # with a warning and one with an info; an empty capture; a broken line.
    streams = Path(__file__).resolve().parents[2] / "fixtures" / "1.1" / "streams"
    for har in ("invalid/keep-alive-gap.har", "valid/resumed-run-answers-the-requests-call.har"):
        (out / Path(har).name).write_bytes((streams / har).read_bytes())
    (out / "empty.jsonl").write_bytes(b"")
    (out / "broken.ndjson").write_bytes(b'{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}\n{"type": \n')
    return out


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


def test_the_recipe_counts_what_the_cli_counts(fleet: Path, client) -> None:
    recipe = load("dask_check")
    # Small batches, so both workers get several tasks.
    lines, summary = recipe.check_fleet(client, str(fleet), batch_bytes=64 << 10)
    ran_on = {worker for worker in client.scheduler_info()["workers"]}
    assert len(ran_on) == 2

    cli = cli_json(str(fleet))
    assert summary["summary"] == cli["summary"]
    assert summary["statistics"] == cli["statistics"]
    # Every count has something in it, so equal counts are not two zeros.
    assert all(cli["summary"][key] > 0 for key in ("errors", "warnings", "infos")), cli["summary"]
    assert any(s["rule"] == "run-finished-while-open" for s in cli["statistics"])

    assert [Path(line["path"]).name for line in lines] == sorted(p.name for p in fleet.iterdir())
    for line in lines:
        one = cli_json(line["path"])
        assert line["records"] == one["summary"]["documents"], line["path"]
        assert [line["valid"], line["errors"], line["warnings"], line["infos"]] == [
            one["summary"][k] for k in ("valid", "errors", "warnings", "infos")
        ], line["path"]
        assert line["rules"] == sorted([s["rule"], s["severity"], s["count"]] for s in one["statistics"]), line["path"]


def test_the_script_writes_its_report(fleet: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "dask_check.py"), str(fleet), "--workers", "2", "--out", str(out)],
        capture_output=True,
        check=True,
        text=True,
    )
    assert "28 captures" in done.stdout
    written = json.loads((out / "summary.json").read_text())
    cli = cli_json(str(fleet))
    assert written == {"summary": cli["summary"], "statistics": cli["statistics"]}
    assert len((out / "files.jsonl").read_text().splitlines()) == 28
