"""`clinrag.plugins` across its entry point groups: a plugin's name is a valid setting, a plugin that takes a built-in
name is refused wherever a backend is chosen, and loading errors are configuration errors naming the plugin. Each
group's backends are held to their own conformance suite (``tests/index/test_embedder_contract.py``,
``tests/generate/test_generator_contract.py``, ``tests/index/test_store_contract.py``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import BaseModel

from clinrag.errors import ConfigError
from clinrag.plugins import EMBEDDERS, GENERATORS, STORES, load_plugin, plugin_names
from clinrag.settings import (
    BUILT_IN_EMBEDDERS,
    BUILT_IN_GENERATORS,
    BUILT_IN_STORES,
    AnswerSettings,
    IndexSettings,
    load_settings,
)

from .plugin_packages import install_plugin

SOURCE = """
def factory(settings, where):
    raise AssertionError("never called by these tests")


NOT_CALLABLE = 42
"""
# group → (the settings group, its field, the built-ins)
CHOICES: dict[str, tuple[type[BaseModel], str, tuple[str, ...]]] = {
    EMBEDDERS: (IndexSettings, "embedder", BUILT_IN_EMBEDDERS),
    GENERATORS: (AnswerSettings, "generator", BUILT_IN_GENERATORS),
    STORES: (IndexSettings, "backend", BUILT_IN_STORES),
}


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A package registering, in every group, ``ours``, ``not-callable``, and each group's first built-in name."""
    targets = {
        group: {
            "ours": "shadow_plugin:factory",
            "not-callable": "shadow_plugin:NOT_CALLABLE",
            built_in[0]: "shadow_plugin:factory",
        }
        for group, (_, _, built_in) in CHOICES.items()
    }
    install_plugin(tmp_path, monkeypatch, "shadow_plugin", SOURCE, targets)


@pytest.mark.parametrize("group", sorted(CHOICES))
def test_a_plugin_name_is_chosen_and_a_built_in_name_taken_by_a_plugin_is_refused(installed: None, group: str) -> None:
    model, field, built_in = CHOICES[group]
    assert plugin_names(group) == tuple(sorted({"ours", "not-callable", built_in[0]}))
    assert getattr(model(**{field: "ours"}), field) == "ours"
    with pytest.raises(ValueError, match=re.escape(f"{built_in[0]!r} is built in")):
        model(**{field: built_in[0]})
    assert getattr(model(**{field: built_in[1]}), field) == built_in[1]  # built-in names no plugin takes stay valid


def test_a_refused_name_in_the_settings_file_is_a_config_error(
    installed: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "clinrag.toml"
    config.write_text('[index]\nbackend = "edge"\n')
    with pytest.raises(ConfigError, match="may not take a built-in name"):
        load_settings(config_file=config, environ={})


@pytest.mark.parametrize("group", sorted(CHOICES))
def test_loading_errors_name_the_plugin(installed: None, group: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(f"the {group} plugin 'not-callable'") + ".* not callable"):
        load_plugin(group, "not-callable")
    with pytest.raises(ConfigError, match=re.escape(f"no {group} plugin named 'absent'")):
        load_plugin(group, "absent")
    assert callable(load_plugin(group, "ours"))
