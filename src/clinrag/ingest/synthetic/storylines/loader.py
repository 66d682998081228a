"""Reads the storyline files (YAML) of the synthetic cohort and checks them against the schema in ``model``.

Each ``*.yaml`` file of a folder holds any of these top-level sections:

- ``medications``, ``diagnoses``, ``procedures``, ``complications``: named entries, which the file's storylines,
  complications and comorbidities may then list by name instead of writing them out again;
- ``storylines``: a list of :class:`~clinrag.ingest.synthetic.model.Storyline`;
- ``comorbidities``: a list of :class:`~clinrag.ingest.synthetic.model.Comorbidity`.

Files are read in name order (``01-medicine.yaml`` before ``02-cardiology.yaml``) and their storylines kept in
the order they are listed, since the cohort draws storylines by position: adding, removing or reordering one
changes the cohort of every seed. Every problem of every file is reported at once, each with its file, the
storyline (or entry) and the field, as a :class:`StorylineFileError`.

Example:
    >>> from importlib import resources
    >>> content = load_storylines(resources.files("clinrag.ingest.synthetic.storylines"))
    >>> content.storylines[0].key, len(content.comorbidities) > 10
    ('pneumonia', True)
"""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from typing import Any

import yaml
from pydantic import TypeAdapter, ValidationError

from clinrag.errors import ConfigError
from clinrag.ingest.synthetic.model import (
    CONTEXT_PLACEHOLDERS,
    FACT_PLACEHOLDERS,
    PATIENT_PLACEHOLDERS,
    Comorbidity,
    Complication,
    Diagnosis,
    Medication,
    Procedure,
    Storyline,
)

CATALOGS: dict[str, type[Any]] = {
    "medications": Medication,
    "diagnoses": Diagnosis,
    "procedures": Procedure,
    "complications": Complication,  # after the others: a complication may name a diagnosis and medications
}
"""The named-entry sections of a file, in the order they are read."""
LISTS: dict[str, type[Any]] = {"storylines": Storyline, "comorbidities": Comorbidity}
"""The sections that add storylines and comorbidities."""
_ONE = {"storylines": "storyline", "comorbidities": "comorbidity"}
_ADAPTERS: dict[str, TypeAdapter[Any]] = {section: TypeAdapter(kind) for section, kind in (CATALOGS | LISTS).items()}
SUFFIX = ".yaml"
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader where PyYAML was built with it (about ten times faster), else PyYAML's own."""


class StorylineFileError(ConfigError):
    """One or more storyline files are malformed; ``problems`` has one line a problem (file, entry, field, what)."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("invalid storyline files:\n" + "\n".join(f"  {problem}" for problem in problems))


@dataclass(frozen=True)
class StorylineContent:
    """All storylines and comorbidities of a folder, in file order then listed order."""

    storylines: tuple[Storyline, ...]
    comorbidities: tuple[Comorbidity, ...]


def _field(location: Iterable[int | str]) -> str:
    return ".".join(str(part) for part in location) or "(the entry itself)"


def _validate(
    adapter: TypeAdapter[Any], raw: Any, where: str, context: dict[str, dict[str, Any]], problems: list[str]
) -> Any:
    """``raw`` validated by ``adapter``, or None with one line in ``problems`` a failing field."""
    try:
        return adapter.validate_python(raw, context=context)
    except ValidationError as error:
        problems.extend(f"{where}: {_field(detail['loc'])}: {detail['msg']}" for detail in error.errors())
        return None


def _entry_name(kind: str, raw: Any, position: int) -> str:
    key = raw.get("key") if isinstance(raw, dict) else None
    return f"{kind} {key!r}" if isinstance(key, str) else f"{kind} #{position + 1}"


def _read_file(name: str, text: str, problems: list[str]) -> dict[str, list[Any]]:
    """The storylines and comorbidities of one file (problems appended, the entries that failed left out)."""
    found: dict[str, list[Any]] = {section: [] for section in LISTS}
    try:
        data = yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as error:
        problems.append(f"{name}: not valid YAML: {error}".replace("\n", " "))
        return found
    if data is None:
        return found
    if not isinstance(data, dict):
        problems.append(f"{name}: a storyline file is a mapping of sections, not {type(data).__name__}")
        return found
    known = [*CATALOGS, *LISTS]
    for section in data:
        if section not in known:
            problems.append(f"{name}: unknown section {section!r} (a file has: {', '.join(known)})")
    context: dict[str, dict[str, Any]] = {}
    for section in CATALOGS:
        entries = data.get(section) or {}
        if not isinstance(entries, dict):
            problems.append(f"{name}: {section}: a mapping of name to entry, not {type(entries).__name__}")
            continue
        adapter = _ADAPTERS[section]
        context[section] = {}
        for entry, raw in entries.items():
            value = _validate(adapter, raw, f"{name}: {section} {entry!r}", context, problems)
            if value is not None:
                context[section][entry] = value
    for section in LISTS:
        items = data.get(section) or []
        if not isinstance(items, list):
            problems.append(f"{name}: {section}: a list, not {type(items).__name__}")
            continue
        adapter = _ADAPTERS[section]
        for position, raw in enumerate(items):
            where = f"{name}: {_entry_name(_ONE[section], raw, position)}"
            value = _validate(adapter, raw, where, context, problems)
            if isinstance(value, Storyline):
                _check_placeholders(value, where, problems)
            if value is not None:
                found[section].append(value)
    return found


def _templates(storyline: Storyline) -> Iterator[tuple[str, str]]:
    """Every text the renderer fills with placeholders (findings are written as they are), with its field."""
    for name in ("chief_complaints", "hpi", "instructions", "followup"):
        texts: tuple[str, ...] = getattr(storyline, name)
        yield from ((f"{name}.{i}", text) for i, text in enumerate(texts))
    for p, paragraph in enumerate(storyline.course):
        yield from ((f"course.{p}.{i}", text) for i, text in enumerate(paragraph))
    for c, complication in enumerate(storyline.complications):
        yield from ((f"complications.{c}.course.{i}", text) for i, text in enumerate(complication.course))
    for f, fact in enumerate(storyline.social):
        yield from ((f"social.{f}.text.{i}", text) for i, text in enumerate(fact.text))


def _check_placeholders(storyline: Storyline, where: str, problems: list[str]) -> None:
    allowed = PATIENT_PLACEHOLDERS | CONTEXT_PLACEHOLDERS | FACT_PLACEHOLDERS
    for field, text in _templates(storyline):
        try:
            names = {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
        except ValueError as error:
            problems.append(f"{where}: {field}: {error} (a placeholder is written {{name}})")
            continue
        for name in sorted(names - allowed):
            problems.append(f"{where}: {field}: unknown placeholder {{{name}}} (known: {', '.join(sorted(allowed))})")


def _check_keys(storylines: list[Storyline], comorbidities: list[Comorbidity], problems: list[str]) -> None:
    for kind, keys in (("storyline", [s.key for s in storylines]), ("comorbidity", [c.key for c in comorbidities])):
        problems.extend(f"{kind} key {key!r} is used {n} times" for key, n in Counter(keys).items() if n > 1)
    known = {storyline.key for storyline in storylines}
    for storyline in storylines:
        for position, key in enumerate(storyline.next_storylines):
            if key not in known:
                problems.append(f"storyline {storyline.key!r}: next_storylines.{position}: no storyline {key!r}")


def load_file(file: Traversable) -> StorylineContent:
    """Read one storyline file, checked against the schema on its own (``next_storylines`` may name another's).

    Raises :class:`StorylineFileError` listing every problem of the file.

    Example:
        >>> from importlib import resources
        >>> folder = resources.files("clinrag.ingest.synthetic.storylines")
        >>> load_file(folder / "comorbidities.yaml").comorbidities[0].key
        'hypertension'
    """
    problems: list[str] = []
    found = _read_file(file.name, file.read_text(encoding="utf-8"), problems)
    if problems:
        raise StorylineFileError(problems)
    return StorylineContent(tuple(found["storylines"]), tuple(found["comorbidities"]))


def load_storylines(folder: Traversable) -> StorylineContent:
    """Read every ``*.yaml`` file of ``folder`` (a path or package resource) in name order.

    Raises :class:`StorylineFileError` listing every problem found (none is skipped silently).

    Example:
        >>> import pathlib, tempfile
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (folder / "x.yaml").write_text("storylines:\\n  - key: flu\\n    title: Influenza\\n")
        >>> load_storylines(folder)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        clinrag.ingest.synthetic.storylines.loader.StorylineFileError: invalid storyline files:
          x.yaml: storyline 'flu': service: Field required
        ...
    """
    problems: list[str] = []
    storylines: list[Storyline] = []
    comorbidities: list[Comorbidity] = []
    files = sorted((item for item in folder.iterdir() if item.name.endswith(SUFFIX)), key=lambda item: item.name)
    for file in files:
        found = _read_file(file.name, file.read_text(encoding="utf-8"), problems)
        storylines += found["storylines"]
        comorbidities += found["comorbidities"]
    _check_keys(storylines, comorbidities, problems)
    if problems:
        raise StorylineFileError(problems)
    return StorylineContent(tuple(storylines), tuple(comorbidities))
