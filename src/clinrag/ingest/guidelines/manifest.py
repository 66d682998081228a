"""Guideline manifests and a library's publisher allow-list, both TOML, both validated by pydantic.

A manifest says what a guideline is: title, publisher, URL, date and licence. It sits beside one document with
the document's name and ``.toml`` (``af.html`` → ``af.toml``), or in a folder as ``guideline.toml``, where it covers
every document of the folder and its subfolders that has no manifest of its own::

    title = "Atrial fibrillation: diagnosis and management"
    publisher = "Example Cardiology Society"
    url = "https://guidelines.example.org/af"
    date = 2024-03-15          # a TOML date, or "2024-03-15"
    licence = "CC BY 4.0"      # "license" is read too

The node's allow-list, ``NODE/guideline-publishers.toml``, names the publishers the library accepts
(``publishers = ["Example Cardiology Society"]``, matched ignoring case and spacing).

Errors name the file and the field, never the document's text.

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "af.toml"
    >>> _ = path.write_text('title = "AF"\\npublisher = "ECS"\\nurl = "ftp://x"\\ndate = 2024-03-15\\n')
    >>> try:
    ...     load_manifest(path)
    ... except ManifestError as error:
    ...     print(error.reasons)
    ("field 'url': URL scheme should be 'http' or 'https'", "field 'licence': missing")
"""

from __future__ import annotations

import tomllib
from datetime import date
from pathlib import Path
from typing import Annotated, Final

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, HttpUrl, StringConstraints, ValidationError

from clinrag.errors import ConfigError, InputError
from clinrag.types import Guideline

FOLDER_MANIFEST: Final = "guideline.toml"
"""A folder's manifest: it covers the folder's documents (and its subfolders') that have none of their own."""
ALLOW_LIST: Final = "guideline-publishers.toml"
"""In a library node's folder: the publishers whose guidelines the library accepts."""

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]


class GuidelineManifest(BaseModel):
    """What a guideline is, as its manifest states it (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    title: Text
    publisher: Text
    url: HttpUrl
    date: date
    licence: Text = Field(validation_alias=AliasChoices("licence", "license"))

    def guideline(self) -> Guideline:
        """The record every chunk of the guideline carries.

        Example:
            >>> GuidelineManifest(title="AF", publisher="ECS", url="https://x.org/af", date="2024-03-15",
            ...                   licence="CC BY 4.0").guideline().short
            'ECS, AF, 2024-03-15, https://x.org/af'
        """
        return Guideline(
            title=self.title, publisher=self.publisher, url=str(self.url), date=self.date, licence=self.licence
        )


class ManifestError(InputError):
    """A manifest that cannot be used: not TOML, or fields missing or invalid (each named)."""

    def __init__(self, path: Path, reasons: tuple[str, ...]) -> None:
        self.path = path
        self.reasons = reasons
        super().__init__(f"{path}: {'; '.join(reasons)}")


def _reasons(error: ValidationError) -> tuple[str, ...]:
    """One reason per problem, naming the field; pydantic's own message, never the value given."""
    reasons = []
    for problem in error.errors():
        field = ".".join(str(part) for part in problem["loc"]) or "manifest"
        if problem["type"] == "missing":
            reasons.append(f"field '{field}': missing")
        elif problem["type"] == "extra_forbidden":
            reasons.append(f"field '{field}': unknown (expected title, publisher, url, date, licence)")
        else:
            reasons.append(f"field '{field}': {problem['msg']}")
    return tuple(reasons)


def _read_toml(path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ManifestError(path, ("not UTF-8 text",)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(path, (f"not TOML ({exc})",)) from None
    except OSError as exc:
        raise ManifestError(path, (f"cannot be read ({exc.strerror})",)) from None


def load_manifest(path: Path) -> GuidelineManifest:
    """The manifest at ``path``; `ManifestError` names the file and each field at fault."""
    data = _read_toml(path)
    try:
        return GuidelineManifest.model_validate(data)
    except ValidationError as exc:
        raise ManifestError(path, _reasons(exc)) from None


def _folded(name: str) -> str:
    return " ".join(name.split()).casefold()


class AllowList(BaseModel):
    """The publishers a library accepts (``NODE/guideline-publishers.toml``).

    Example:
        >>> AllowList(publishers=("Example Cardiology Society",)).allows("example  cardiology society")
        True
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    publishers: tuple[Text, ...]

    def allows(self, publisher: str) -> bool:
        """Whether ``publisher`` is on the list, ignoring case and spacing."""
        return _folded(publisher) in {_folded(name) for name in self.publishers}


def load_allow_list(node: Path) -> AllowList:
    """The node's allow-list; `ConfigError` when it is missing, invalid or empty (a library accepts nobody's
    guidelines until it names whose)."""
    path = node / ALLOW_LIST
    if not path.is_file():
        raise ConfigError(
            f"{path}: no publisher allow-list; name the publishers this library accepts with --allow PUBLISHER "
            f'or write the file (publishers = ["..."])'
        )
    try:
        allowed = AllowList.model_validate(_read_toml(path))
    except ManifestError as exc:
        raise ConfigError(str(exc)) from None
    except ValidationError as exc:
        raise ConfigError(f"{path}: {'; '.join(_reasons(exc))}") from None
    if not allowed.publishers:
        raise ConfigError(f"{path}: lists no publisher; add one with --allow PUBLISHER")
    return allowed


def allow_publishers(node: Path, publishers: tuple[str, ...]) -> AllowList:
    """Add ``publishers`` to the node's allow-list (created if absent) and return it.

    Example:
        >>> import tempfile, pathlib
        >>> node = pathlib.Path(tempfile.mkdtemp())
        >>> allow_publishers(node, ("ECS",)).publishers, allow_publishers(node, ("ecs", "WHO")).publishers
        (('ECS',), ('ECS', 'WHO'))
    """
    current = load_allow_list(node).publishers if (node / ALLOW_LIST).is_file() else ()
    names = list(current)
    for publisher in publishers:
        if publisher.strip() and _folded(publisher) not in {_folded(name) for name in names}:
            names.append(" ".join(publisher.split()))
    allowed = AllowList(publishers=tuple(names))
    node.mkdir(parents=True, exist_ok=True)
    lines = ["# Publishers whose guidelines this library accepts (clinrag guidelines ingest)", "publishers = ["]
    lines += [f"  {_toml_string(name)}," for name in allowed.publishers]
    (node / ALLOW_LIST).write_text("\n".join([*lines, "]", ""]), encoding="utf-8")
    return allowed


def _toml_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'
