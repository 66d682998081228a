"""An installed package registering clinrag plugins, for the conformance tests: a module and its ``.dist-info``
(METADATA and ``entry_points.txt``) written to a folder put on ``sys.path``, where ``importlib.metadata`` finds it as
it finds any installed distribution."""

from __future__ import annotations

from pathlib import Path

import pytest


def install_plugin(
    folder: Path, monkeypatch: pytest.MonkeyPatch, module: str, source: str, entry_points: dict[str, dict[str, str]]
) -> None:
    """Write ``module``.py (``source``) and a distribution registering ``entry_points`` (group → name → target) under
    ``folder``, and put ``folder`` on ``sys.path`` for the test."""
    (folder / f"{module}.py").write_text(source)
    info = folder / f"{module}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module.replace('_', '-')}\nVersion: 0.1\n")
    groups = "".join(
        f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in names.items())
        for group, names in entry_points.items()
    )
    (info / "entry_points.txt").write_text(groups)
    monkeypatch.syspath_prepend(str(folder))
