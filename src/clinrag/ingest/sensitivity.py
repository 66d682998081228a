"""Sensitivity labels: which chunks hold psychiatric, substance-use, HIV, reproductive or genetic information.

A small rule table (``sensitivity.toml`` next to this module, validated with pydantic) assigns categories to a chunk
by its section (the canonical section title, or a labelled history line inside the chunk such as ``Past Psychiatric
History: ...``) and by its content (regular expressions, some negatable: ``Denies alcohol use.`` is a screening
answer, not substance-use information). The chunk keeps the categories (``Chunk.sensitivity``) and the rules that
fired (``Chunk.sensitivity_rules``, e.g. ``term:alcohol`` or ``section:Past Medical History/Psychiatric History``);
neither is part of the chunk id, so labelling never changes ids or text. Cedar policies read the categories as
``resource.sensitivity``.

Example:
    >>> from clinrag.types import Chunk
    >>> chunk = Chunk.create(source_id="note:1", text="Social History: Reports 3-4 beers daily.", org="A",
    ...                      dept="orthopaedics", section="Social History")
    >>> labelled = label_chunk(chunk)
    >>> labelled.sensitivity, labelled.sensitivity_rules, labelled.chunk_id == chunk.chunk_id
    (('substance_use',), ('term:alcohol',), True)
    >>> label_chunk(chunk.model_copy(update={"text": "Social History: Denies alcohol use."})).sensitivity
    ()
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from clinrag.types import Chunk

RULES_PATH = Path(__file__).parent / "sensitivity.toml"
"""The rule table shipped with clinrag."""

Category = Literal["mental_health", "substance_use", "hiv", "reproductive", "genetic"]
CATEGORIES: tuple[str, ...] = ("mental_health", "substance_use", "hiv", "reproductive", "genetic")
"""Every sensitive category, in the order labels list them."""

NEGATION = re.compile(r"\b(?:denies|denied|deny|denying|no(?! longer)|not|never|negative for|without|nor)\b", re.I)
"""A negation cue: a negatable match with one before it in the same clause does not fire."""
CLAUSE_END = re.compile(r"[.;!?\n]|\b(?:but|however|although|though)\b", re.I)
"""Where a clause ends, for negation: a sentence or line end, or a contrast ("denies X but uses Y")."""
NEGATION_WINDOW = 60
"""Characters before a match searched for a negation cue (within its clause)."""
NIL_BODY = re.compile(r"^\s*(?:none|denies|denied|negative|n/?a|non-?contributory|no|unknown)?\s*[.;]?\s*$", re.I)
"""The body of a labelled history line that says nothing (``Past Psychiatric History: None.``)."""


class _Rule(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SectionRule(_Rule):
    """A section, or a labelled history line inside a chunk, whose text is sensitive whatever it says."""

    category: Category
    names: tuple[str, ...] = Field(min_length=1)


class TermRule(_Rule):
    """Patterns whose match makes a chunk sensitive (negatable ones not when negated in the same clause)."""

    id: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    category: Category
    negatable: bool = False
    patterns: tuple[str, ...] = Field(min_length=1)

    @field_validator("patterns")
    @classmethod
    def _compiles(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in patterns:
            try:
                re.compile(pattern, re.IGNORECASE | re.MULTILINE)
            except re.error as error:
                raise ValueError(f"pattern {pattern!r} is not a valid regular expression: {error}") from None
        return patterns


class RuleTable(_Rule):
    """The whole table: its version (bumped when a rule changes) and its rules."""

    version: int
    section: tuple[SectionRule, ...] = ()
    term: tuple[TermRule, ...] = ()


@dataclass(frozen=True)
class Label:
    """What the rules found in one text: categories (in `CATEGORIES` order) and the rules that fired (sorted)."""

    categories: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()


class Labeller:
    """Applies a rule table to chunks. Build it once (`Labeller.default`); it is immutable and thread-safe.

    Example:
        >>> Labeller.default().label_text("HIV on Biktarvy, CD4 count 600.", section="Past Medical History")
        Label(categories=('hiv',), rules=('term:HIV',))
    """

    def __init__(self, table: RuleTable) -> None:
        self.table = table
        self.digest = hashlib.sha256(table.model_dump_json().encode()).hexdigest()[:16]
        self._sections: dict[str, tuple[str, str]] = {}
        for rule in table.section:
            for name in rule.names:
                self._sections[name.casefold()] = (rule.category, name)
        names = sorted(self._sections, key=len, reverse=True)
        self._heading = re.compile(
            r"^[ \t]*(?:[-*#•][ \t]*)?(?P<name>" + "|".join(map(re.escape, names)) + r")[ \t]*:(?P<body>[^\n]*)",
            re.IGNORECASE | re.MULTILINE,
        )
        # Each pattern with the literal text any match must contain (in lower case), when it has one: a pattern whose
        # literal is not in the text is not run (a regular expression costs some µs a passage, a substring test less).
        self._terms = [
            (rule.id, rule.category, rule.negatable, [(_literal(p), re.compile(p, re.I | re.M)) for p in rule.patterns])
            for rule in table.term
        ]

    @classmethod
    def load(cls, path: Path) -> Labeller:
        """A labeller for the rule table at ``path``; ValueError names what is wrong with it."""
        with path.open("rb") as handle:
            data = tomllib.load(handle)
        return cls(RuleTable.model_validate(data))

    @classmethod
    @cache
    def default(cls) -> Labeller:
        """The labeller of the table shipped with clinrag (loaded once per process)."""
        return cls.load(RULES_PATH)

    def label_text(self, text: str, section: str | None = None) -> Label:
        """The categories of ``text`` (in section ``section``) and the rules that fired."""
        found: dict[str, str] = {}  # rule -> category
        if section is not None and section.casefold() in self._sections:
            category, name = self._sections[section.casefold()]
            found[f"section:{name}"] = category
        for match in self._heading.finditer(text):
            if NIL_BODY.match(match["body"]) and not _continues(text, match.end()):
                continue
            category, name = self._sections[match["name"].casefold()]
            found[f"section:{section or 'Header'}/{name}"] = category
        lowered = text.lower()
        for rule_id, category, negatable, patterns in self._terms:
            if any(_fires(pattern, text, negatable) for literal, pattern in patterns if literal in lowered):
                found[f"term:{rule_id}"] = category
        categories = set(found.values())
        return Label(tuple(c for c in CATEGORIES if c in categories), tuple(sorted(found)))

    def label(self, chunk: Chunk) -> Chunk:
        """``chunk`` with its sensitivity set by these rules (the same object when nothing changes). Literature is
        about no one: an abstract or a guideline on alcohol withdrawal reveals nothing about a patient and is never
        labelled."""
        if chunk.citation is not None or chunk.guideline is not None:
            return chunk
        label = self.label_text(chunk.text, chunk.section)
        if label.categories == chunk.sensitivity and label.rules == chunk.sensitivity_rules:
            return chunk
        return chunk.model_copy(update={"sensitivity": label.categories, "sensitivity_rules": label.rules})


def _fires(pattern: re.Pattern[str], text: str, negatable: bool) -> bool:
    """Whether ``pattern`` matches ``text`` somewhere not negated (anywhere, when not ``negatable``)."""
    return any(not negatable or not _negated(text, match.start()) for match in pattern.finditer(text))


_LEAD = re.compile(r"(?:\\b|\(\?<!(?:[^()\\]|\\.)*\)|\(\?-i:)*")
_RUN = re.compile(r"(?:[A-Za-z0-9 '&/-]|\\[-. ])+")
LITERAL_MIN = 3
"""Shortest literal worth testing for before running a pattern."""


def _literal(pattern: str) -> str:
    r"""Text every match of ``pattern`` contains, in lower case ("" when none is found, and "" is in every text): the
    plain run it starts with, after word boundaries, lookbehinds and a case-sensitive group's opening, unless it has
    an alternation outside its groups; a last character made optional by ``?``, ``*`` or ``{`` is left out.

    Example:
        >>> _literal(r"(?<!ST )\bdepression\b"), _literal(r"\bgonorrh?(?:o|e)a\b"), _literal(r"\b(?:a|b)c")
        ('depression', 'gonorr', '')
    """
    if _top_level_alternation(pattern):
        return ""
    lead = _LEAD.match(pattern)
    rest = pattern[lead.end() :] if lead is not None else pattern
    run = _RUN.match(rest)
    if run is None:
        return ""
    literal = run.group(0)
    if rest[run.end() : run.end() + 1] in ("?", "*", "{"):
        literal = literal[:-1]
    literal = literal.replace("\\", "")
    return literal.lower() if len(literal) >= LITERAL_MIN else ""


def _top_level_alternation(pattern: str) -> bool:
    """Whether ``pattern`` has a ``|`` outside every group and character class."""
    depth, escaped, in_class = 0, False, False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            return True
    return False


def _negated(text: str, start: int) -> bool:
    """Whether a negation cue precedes ``start`` in its clause (at most `NEGATION_WINDOW` characters back)."""
    before = text[max(0, start - NEGATION_WINDOW) : start]
    ends = list(CLAUSE_END.finditer(before))
    clause = before[ends[-1].end() :] if ends else before
    return NEGATION.search(clause) is not None


def _continues(text: str, end: int) -> bool:
    """Whether a labelled line with an empty body continues on the next lines (a heading over a list)."""
    rest = text[end:].lstrip(" \t")
    if not rest.startswith("\n"):
        return False
    following = rest[1:].split("\n", 1)[0].strip()
    return bool(following) and not following.endswith(":")


def label_chunk(chunk: Chunk) -> Chunk:
    """``chunk`` labelled by the shipped rule table (see `Labeller.label`)."""
    return Labeller.default().label(chunk)


def label_chunks(chunks: Iterable[Chunk]) -> list[Chunk]:
    """Every chunk labelled by the shipped rule table."""
    labeller = Labeller.default()
    return [labeller.label(chunk) for chunk in chunks]


def rules_version(labeller: Labeller | None = None) -> str:
    """What identifies the rules in force: the table's version and a digest of its content (a stored chunk set
    labelled under another is labelled again)."""
    chosen = labeller or Labeller.default()
    return f"{chosen.table.version}:{chosen.digest}"


def categories_of(chunks: Sequence[Chunk]) -> dict[str, int]:
    """How many of ``chunks`` carry each category (for summaries)."""
    counts = dict.fromkeys(CATEGORIES, 0)
    for chunk in chunks:
        for category in chunk.sensitivity:
            counts[category] = counts.get(category, 0) + 1
    return counts
