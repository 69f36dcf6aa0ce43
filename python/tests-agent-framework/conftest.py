"""The agent-framework-ag-ui suite runs in an environment of its own (the
adapter pins ag-ui-protocol<0.2; `.ci/python-test.sh` makes it from
tests/data/frameworks/requirements-agent-framework.txt). As in
python/tests, a skipped test is a failed one."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# The ASGI helpers of python/tests need nothing that environment has and this
# one lacks.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):  # type: ignore[no-untyped-def]
    """A skipped test is a failed one: CI must not pass on tests that did
    not run."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped, which this suite does not allow: {report.longrepr}"
