"""Settings: layering of file, environment and overrides, provenance, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from clinrag.errors import ConfigError
from clinrag.settings import describe, iter_settings, load_settings


def test_defaults_come_from_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    loaded = load_settings(environ={})
    assert loaded.settings.ingest.chunk_max_chars == 800
    assert loaded.config_file is None
    assert set(loaded.sources.values()) == {"default"}


def test_file_then_env_then_override_with_provenance(tmp_path: Path) -> None:
    config = tmp_path / "clinrag.toml"
    config.write_text("[ingest]\nchunk_max_chars = 500\nname_prefix_notes = false\n[synth]\nseed = 3\n")
    environ = {"CLINRAG_INGEST__CHUNK_MAX_CHARS": "600", "CLINRAG_SYNTH__PATIENTS": "20"}
    loaded = load_settings(config_file=config, overrides={"synth": {"patients": 30}}, environ=environ)
    settings = loaded.settings
    assert settings.ingest.chunk_max_chars == 600
    assert settings.ingest.name_prefix_notes is False
    assert settings.synth.seed == 3
    assert settings.synth.patients == 30
    assert loaded.sources["ingest.chunk_max_chars"] == "env CLINRAG_INGEST__CHUNK_MAX_CHARS"
    assert loaded.sources["ingest.name_prefix_notes"] == str(config)
    assert loaded.sources["synth.patients"] == "override"
    assert loaded.sources["synth.workers"] == "default"


def test_config_file_found_through_environment(tmp_path: Path) -> None:
    config = tmp_path / "other.toml"
    config.write_text("[synth]\nseed = 9\n")
    loaded = load_settings(environ={"CLINRAG_CONFIG": str(config)})
    assert loaded.settings.synth.seed == 9
    assert loaded.config_file == config


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("[ingest]\nchunk_max_chars = 5\n", "ingest.chunk_max_chars"),
        ("[ingest]\nchunk_max_charz = 500\n", "ingest.chunk_max_charz"),
        ("[ingest\n", "not valid TOML"),
    ],
)
def test_bad_file_names_the_problem(tmp_path: Path, content: str, fragment: str) -> None:
    config = tmp_path / "clinrag.toml"
    config.write_text(content)
    with pytest.raises(ConfigError, match=fragment.replace(".", r"\.")):
        load_settings(config_file=config, environ={})


def test_bad_environment_value_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"synth\.patients"):
        load_settings(environ={"CLINRAG_SYNTH__PATIENTS": "lots"})


def test_every_setting_is_described() -> None:
    loaded = load_settings(environ={})
    for key, _ in iter_settings(loaded.settings):
        assert describe(key), f"{key} has no description"
