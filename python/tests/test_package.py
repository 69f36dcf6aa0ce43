"""The installed package as a user meets it: the guard's optional extra and
the metadata a package index shows."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata

# Starlette made unimportable in a fresh interpreter, as in an install
# without the `asgi` extra (None in sys.modules makes an import fail).
WITHOUT_STARLETTE = """
import sys
sys.modules["starlette"] = None
import agui_lint
assert agui_lint.Validator().check_run_agent_input(b"{}") is not None
try:
    import agui_lint.asgi
except ModuleNotFoundError as error:
    print(error)
    print(error.name)
else:
    raise SystemExit("agui_lint.asgi imported without Starlette")
"""


def test_the_guard_without_its_extra_says_which_extra_to_install():
    run = subprocess.run(
        [sys.executable, "-c", WITHOUT_STARLETTE], capture_output=True, text=True, check=True
    )
    message, name = run.stdout.splitlines()
    assert "pip install 'agui-lint[asgi]'" in message
    assert "starlette" in message
    assert name == "starlette"


def test_the_package_declares_the_asgi_extra_and_a_home():
    meta = metadata.metadata("agui-lint")
    assert "asgi" in meta.get_all("Provides-Extra")
    assert any(
        requirement.startswith("starlette")
        and requirement.split(";")[1].replace('"', "'").strip() == "extra == 'asgi'"
        for requirement in meta.get_all("Requires-Dist")
    )
    urls = dict(url.split(", ", 1) for url in meta.get_all("Project-URL"))
    assert urls["Repository"].startswith("https://github.com/")
