"""The README's pipeline snippet runs as written (from the repository root), so the page stays true."""
from __future__ import annotations

import os
import re

from samples import REPO


def test_pipeline_snippet_runs(monkeypatch):
    text = (REPO / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README.md has no python block"
    monkeypatch.chdir(REPO)
    namespace: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)  # noqa: S102 - the repository's own text
    assert namespace["qdd"].shape == (namespace["model"].nv,)
    assert not namespace["stage"].GetRootLayer().dirty  # the snippet edits only the session layer
    assert os.getcwd() == str(REPO)
