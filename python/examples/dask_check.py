"""Checks a fleet's AG-UI logs on a Dask cluster with the agui-lint package.

Every capture under a folder (or an fsspec URL such as ``s3://bucket/logs``)
that is JSON Lines (``.jsonl``, ``.ndjson``), SSE (``.sse``) or a HAR
(``.har``) is checked as ``agui-lint check`` checks it, on the workers of a
``dask.distributed`` cluster; the files are handed out in batches of about
``--batch-mb`` so that a task is worth its scheduling. Each worker builds one
``agui_lint.Validator`` (a worker plugin) and streams each file through a
``StreamChecker`` a megabyte at a time, so a worker's memory does not grow
with a file. Writes, to ``--out``:

- ``files.jsonl``: one line per capture, in path order: its records, how
  many are valid, its errors, warnings and infos, and each rule's count;
- ``summary.json``: the ``summary`` and ``statistics`` that
  ``agui-lint check DIR --format json --statistics`` gives for the same
  files.

With no ``--scheduler`` it starts a local cluster of ``--workers`` processes
of one thread each (the check releases the GIL, but one process per core is
what a cluster runs).

    python python/examples/dask_check.py /tmp/fleet --workers 2 --out /tmp/fleet-report
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

import fsspec
from distributed import Client, LocalCluster, WorkerPlugin, as_completed, get_worker

import agui_lint

# The framing each extension names, as `agui-lint check` reads it.
FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".sse": "sse", ".har": "har"}
# How much of a file is fed to its checker at a time.
CHUNK_BYTES = 1 << 20
PLUGIN = "agui-lint"


class ValidatorPlugin(WorkerPlugin):
    """One validator per worker, built there from picklable settings."""

    name = PLUGIN

    def __init__(self, settings: Dict[str, object]):
        self.settings = settings
        self.validator: Optional[agui_lint.Validator] = None

    def setup(self, worker) -> None:
        self.validator = agui_lint.Validator(**self.settings)


def framing(path: str) -> Optional[str]:
    """The framing of a capture, or None for a file that is not one."""
    for suffix, name in FORMATS.items():
        if path.endswith(suffix):
            return name
    return None


def tally(results: Iterable[agui_lint.Result], line: Dict[str, object], rules: Counter) -> None:
    """Adds the findings of ``results`` to a file's counts."""
    for result in results:
        if not result.valid:
            line["invalid"] += 1
        line["errors"] += result.errors
        line["warnings"] += result.warnings
        line["infos"] += result.infos
        for diagnostic in result.diagnostics:
            rules[(diagnostic.rule, diagnostic.severity)] += 1


def check_file(validator: agui_lint.Validator, fs, path: str) -> Dict[str, object]:
    """One capture's counts. JSON Lines and SSE are streamed; a HAR, one
    JSON document, is read whole."""
    line: Dict[str, object] = {"path": path, "invalid": 0, "errors": 0, "warnings": 0, "infos": 0}
    rules: Counter = Counter()
    form = framing(path)
    with fs.open(path, "rb") as file:
        if form == "har":
            result = validator.check_stream(file.read(), format="har", path=path)
            tally(result.documents, line, rules)
            records = len(result)
        else:
            checker = agui_lint.StreamChecker(validator, format=form, path=path)
            while chunk := file.read(CHUNK_BYTES):
                tally(checker.feed(chunk), line, rules)
            tally(checker.finish(), line, rules)
            # An empty capture is one document, the one that says so, as
            # `agui-lint check` counts it.
            records = checker.records or 1
    line["records"] = records
    line["valid"] = records - line.pop("invalid")
    line["rules"] = [[rule, severity, count] for (rule, severity), count in sorted(rules.items())]
    return line


def check_batch(url: str, paths: List[str]) -> List[Dict[str, object]]:
    """The task a worker runs: each capture of a batch, with its validator."""
    validator = get_worker().plugins[PLUGIN].validator
    fs, _ = fsspec.core.url_to_fs(url)
    return [check_file(validator, fs, path) for path in paths]


def captures(url: str) -> Tuple[List[Tuple[str, int]], str]:
    """Every capture under ``url`` with its size, in path order."""
    fs, root = fsspec.core.url_to_fs(url)
    found = fs.find(root, detail=True)
    files = sorted((path, int(info.get("size") or 0)) for path, info in found.items() if framing(path))
    return files, root


def batches(files: List[Tuple[str, int]], batch_bytes: int) -> Iterator[List[str]]:
    """Consecutive files of about ``batch_bytes`` together (a larger file alone)."""
    batch: List[str] = []
    size = 0
    for path, bytes_ in files:
        batch.append(path)
        size += bytes_
        if size >= batch_bytes:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def summary_of(lines: List[Dict[str, object]]) -> Dict[str, object]:
    """The ``summary`` and ``statistics`` of ``agui-lint check --format json --statistics``."""
    summary = {"documents": 0, "valid": 0, "errors": 0, "warnings": 0, "infos": 0}
    rules: Counter = Counter()
    for line in lines:
        summary["documents"] += line["records"]
        for key in ("valid", "errors", "warnings", "infos"):
            summary[key] += line[key]
        for rule, severity, count in line["rules"]:
            rules[(rule, severity)] += count
    # The CLI's order: most frequent first, then by rule name.
    statistics = [
        {"rule": rule, "severity": severity, "count": count}
        for (rule, severity), count in sorted(rules.items(), key=lambda item: (-item[1], item[0]))
    ]
    return {"summary": summary, "statistics": statistics}


def check_fleet(
    client: Client,
    url: str,
    settings: Optional[Dict[str, object]] = None,
    batch_bytes: int = 32 << 20,
) -> Tuple[List[Dict[str, object]], Dict[str, object]]:
    """Checks every capture under ``url`` on ``client``'s cluster: the
    per-file lines in path order, and the summary."""
    if __name__ != "__main__":
        # Imported, not run: the workers have agui_lint but not this file,
        # which its tasks and plugin name; Dask ships it to each of them.
        # (Run as a script, its functions travel by value.)
        client.upload_file(__file__)
    client.register_plugin(ValidatorPlugin(settings or {}))
    files, _ = captures(url)
    futures = [client.submit(check_batch, url, batch, pure=False) for batch in batches(files, batch_bytes)]
    lines: List[Dict[str, object]] = []
    for future in as_completed(futures):
        lines.extend(future.result())
        future.release()
    lines.sort(key=lambda line: line["path"])
    return lines, summary_of(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url", help="a folder or fsspec URL of captures")
    parser.add_argument("--scheduler", help="a running cluster's scheduler address (default: a local cluster)")
    parser.add_argument("--workers", type=int, default=2, help="local worker processes (default 2)")
    parser.add_argument("--batch-mb", type=float, default=32, help="about this many MB per task (default 32)")
    parser.add_argument("--protocol", default="auto", help="the protocol version to judge by (default auto)")
    parser.add_argument("--out", help="a folder for files.jsonl and summary.json")
    args = parser.parse_args()

    started = time.perf_counter()
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    with client:
        client.wait_for_workers(args.workers if not args.scheduler else 1)
        ready = time.perf_counter()
        lines, summary = check_fleet(client, args.url, {"protocol": args.protocol}, int(args.batch_mb * (1 << 20)))
    elapsed = time.perf_counter() - ready
    if args.out:
        fs, out = fsspec.core.url_to_fs(args.out)
        fs.makedirs(out, exist_ok=True)
        with fs.open(f"{out}/files.jsonl", "w") as file:
            file.writelines(json.dumps(line) + "\n" for line in lines)
        with fs.open(f"{out}/summary.json", "w") as file:
            json.dump(summary, file, indent=2)
    counts = summary["summary"]
    print(
        f"{len(lines)} captures, {counts['documents']} records: {counts['valid']} valid, "
        f"{counts['errors']} errors, {counts['warnings']} warnings, {counts['infos']} infos "
        f"in {elapsed:.1f} s (the cluster started in {ready - started:.1f} s)"
    )


if __name__ == "__main__":
    main()
