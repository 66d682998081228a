"""Clinical classes: a question that names a class ("Which antidepressant …", "her urologic procedure", "a contrast
allergy", "confused after the operation") is answered by a source that names a member ("Citalopram 20 mg",
"TURP", "Iodine Containing Agents", "postoperative delirium"). The vocabulary is data (``classes.toml``, validated
by pydantic): drug groups after the ATC classification, procedure groups after the ICD-10-PCS body systems,
umbrella and lay words for conditions, and topics (tobacco, alcohol, living situation) that only say which lines
of a section answer.

Words are compared by :func:`stem` (plurals and derived forms fold together: "urological" and "urology", "smokes"
and "smoking"); drugs also by their INN name endings (``-olol``, ``-statin`` …). A member mentioned only under a
negation ("no anticoagulation", "denies tobacco") does not count.

Example:
    >>> [c.name for c in asked_classes("Which antidepressant was she discharged on?")]
    ['antidepressant']
    >>> "antidepressant" in class_mentions("Citalopram 20 mg PO DAILY")
    True
    >>> "anticoagulant" in class_mentions("Not on apixaban given the bleed.")
    False
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Iterable, Sequence
from importlib import resources
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from clinrag.index.lexical import mentioned_words, tokenize

ClassKind = Literal["drug", "procedure", "condition", "study", "topic"]

_WORD: Final = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_SUFFIXES: Final = (
    "ically", "ations", "ation", "ional", "ions", "ion", "ical", "ists", "ist", "ies", "ied", "ing", "ers", "er",
    "ed", "ic", "al", "es", "s", "y", "e",
)  # fmt: skip
_NEGATORS: Final = frozenset(
    {"no", "not", "never", "without", "denies", "denied", "deny", "negative", "free", "absence", "nor", "non"}
)
"""Words that, a few words before a member and in the same clause, say the member is absent."""
_CLAUSE_END: Final = re.compile(r"[.;:!?\n]|\bbut\b")
NEGATION_WINDOW: Final = 4
"""How many words before a member a negator still reaches."""


def stem(word: str) -> str:
    """A word with one common English ending removed (never below three letters): the form that question words
    and note words are compared in.

    Example:
        >>> stem("urological"), stem("urology"), stem("smokes"), stem("smoking"), stem("confusion")
        ('urolog', 'urolog', 'smok', 'smok', 'confus')
    """
    lowered = word.lower().strip("'")
    if lowered.endswith("'s"):
        lowered = lowered[:-2]
    for suffix in _SUFFIXES:
        if lowered.endswith(suffix) and len(lowered) - len(suffix) >= 3:
            return lowered[: -len(suffix)]
    return lowered


def stems(text: str) -> list[str]:
    """The stems of the words of ``text`` in order (hyphens and slashes separate words)."""
    return [stem(word) for word in _WORD.findall(text.lower().replace("’", "'"))]


class ClinicalClass(BaseModel):
    """One class: how questions name it and how notes name its members."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=2)
    kind: ClassKind
    asked: tuple[str, ...] = ()
    sites: tuple[str, ...] = ()
    members: tuple[str, ...] = Field(min_length=1)
    stems: tuple[str, ...] = ()

    @field_validator("name", "asked", "sites", "members", "stems", mode="after")
    @classmethod
    def _lower(cls, value: str | tuple[str, ...]) -> str | tuple[str, ...]:
        if isinstance(value, str):
            return value.lower()
        return tuple(item.lower() for item in value)

    @field_validator("stems", mode="after")
    @classmethod
    def _long_enough(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        short = [item for item in value if len(item) < 3]
        if short:
            raise ValueError(f"name endings shorter than three letters match too much: {short}")
        return value

    @model_validator(mode="after")
    def _named(self) -> ClinicalClass:
        if not self.asked and not self.sites:
            raise ValueError(f"class {self.name!r}: no way to ask for it (asked or sites)")
        if self.sites and self.kind != "procedure":
            raise ValueError(f"class {self.name!r}: only procedures have sites")
        return self

    @functools.cached_property
    def asked_stems(self) -> tuple[tuple[str, ...], ...]:
        """Each way of asking as a sequence of stems."""
        return tuple(tuple(stems(phrase)) for phrase in self.asked)

    @functools.cached_property
    def site_stems(self) -> tuple[tuple[str, ...], ...]:
        """Each site word as a sequence of stems."""
        return tuple(tuple(stems(phrase)) for phrase in self.sites)

    @functools.cached_property
    def member_stems(self) -> tuple[tuple[str, ...], ...]:
        """Each member as a sequence of stems."""
        return tuple(tuple(stems(member)) for member in self.members)

    @property
    def expansion(self) -> str:
        """The members' words, for the lexical (BM25) query."""
        return " ".join(dict.fromkeys(self.members))


class ClassVocabulary(BaseModel):
    """The whole vocabulary (``classes.toml``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    classes: tuple[ClinicalClass, ...] = Field(alias="class", min_length=1)

    @field_validator("classes", mode="after")
    @classmethod
    def _distinct(cls, value: tuple[ClinicalClass, ...]) -> tuple[ClinicalClass, ...]:
        names = [item.name for item in value]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"classes named twice: {repeated}")
        return value

    @classmethod
    def load(cls, text: str | None = None) -> ClassVocabulary:
        """The packaged vocabulary, or ``text`` in its format."""
        source = text if text is not None else resources.files("clinrag.retrieve").joinpath("classes.toml")
        raw = tomllib.loads(source if isinstance(source, str) else source.read_text(encoding="utf-8"))
        return cls.model_validate(raw)


@functools.cache
def vocabulary() -> ClassVocabulary:
    """The packaged vocabulary, loaded once."""
    return ClassVocabulary.load()


def _contains(sequence: Sequence[str], phrase: Sequence[str]) -> list[int]:
    """Where ``phrase`` starts in ``sequence`` (both stems)."""
    size = len(phrase)
    if not size:
        return []
    return [i for i in range(len(sequence) - size + 1) if tuple(sequence[i : i + size]) == tuple(phrase)]


def asked_classes(
    question: str,
    kinds: Iterable[ClassKind] = ("drug", "procedure", "condition", "study", "topic"),
    procedure_asked: bool = False,
) -> tuple[ClinicalClass, ...]:
    """The classes of the given kinds that ``question`` names, in vocabulary order; a procedure group also by a
    body part or specialty (its ``sites``) when ``procedure_asked`` (the question asks for a procedure).

    Example:
        >>> [c.name for c in asked_classes("Is he on anticoagulation at home?")]
        ['anticoagulant']
        >>> [c.name for c in asked_classes("Tobacco?", kinds=("topic",))]
        ['tobacco use']
        >>> [c.name for c in asked_classes("His urologic procedure?", procedure_asked=True)]
        ['urologic procedure']
        >>> asked_classes("Urologic follow-up?")
        ()
    """
    words = stems(_PHRASAL_BACK.sub(" ", question))  # "came back to us" names no back
    wanted = set(kinds)
    classes = vocabulary().classes
    named: dict[int, set[tuple[int, int]]] = {}
    for number, item in enumerate(classes):
        if item.kind in wanted:
            for phrase in (*item.asked_stems, *(item.site_stems if procedure_asked else ())):
                named.setdefault(number, set()).update((at, at + len(phrase)) for at in _contains(words, phrase))
    named = {number: found for number, found in named.items() if found}
    return tuple(classes[number] for number, found in named.items() if not _inside_longer(found, named.values()))


_PHRASAL_BACK: Final = re.compile(
    r"\b(?:came|come|comes|coming|went|go|goes|going|get|got|getting|bring|brought|call|called|ring|rang|send|sent"
    r"|been|be|is|was|are|were|move|moved|head|headed|fall|fell|fight|fought|bounce|bounced) back\b",
    re.IGNORECASE,
)


def _inside_longer(found: set[tuple[int, int]], every: Iterable[set[tuple[int, int]]]) -> bool:
    """Whether each of ``found``'s spans lies inside a longer span of another class: "VTE prophylaxis" names
    thromboprophylaxis, not a blood clot; "opioid analgesic" an opioid."""
    longer = [span for spans in every for span in spans if span not in found]
    return all(
        any(start <= begin and end <= stop and stop - start > end - begin for start, stop in longer)
        for begin, end in found
    )


def _affirmed(text: str, start: int) -> bool:
    """Whether the word at character ``start`` of ``text`` is not negated by a word shortly before it in its clause."""
    before = text[:start]
    clause = _CLAUSE_END.split(before.lower())[-1]
    return not (_NEGATORS & set(_WORD.findall(clause)[-NEGATION_WINDOW:]))


@functools.cache
def _member_index() -> tuple[dict[str, tuple[int, ...]], tuple[tuple[int, tuple[str, ...]], ...], re.Pattern[str]]:
    """One-word members by stem → class numbers; several-word members; one pattern of all INN name endings."""
    single: dict[str, list[int]] = {}
    phrases: list[tuple[int, tuple[str, ...]]] = []
    for number, item in enumerate(vocabulary().classes):
        for member in item.member_stems:
            if len(member) == 1:
                single.setdefault(member[0], []).append(number)
            elif member:
                phrases.append((number, member))
    endings = sorted({ending for item in vocabulary().classes for ending in item.stems}, key=len, reverse=True)
    pattern = re.compile(r"\b[a-z]{3,}(?:" + "|".join(map(re.escape, endings)) + r")\b")
    return {key: tuple(value) for key, value in single.items()}, tuple(phrases), pattern


@functools.lru_cache(maxsize=8192)
def class_mentions(text: str) -> frozenset[str]:
    """The names of the classes whose members ``text`` names, not under a negation ("Citalopram 20 mg" names an
    antidepressant; "no anticoagulation given" names no anticoagulant).

    Example:
        >>> sorted(class_mentions("Underwent TURP. Denies tobacco."))
        ['urologic procedure']
        >>> sorted(class_mentions("Metoprolol succinate 25 mg"))
        ['antiarrhythmic', 'antihypertensive', 'beta blocker']
    """
    lowered = text.lower().replace("’", "'")
    single, phrases, endings = _member_index()
    classes = vocabulary().classes
    words = [(match.start(), stem(match.group(0))) for match in _WORD.finditer(lowered)]
    sequence = [word for _, word in words]
    found: set[int] = set()
    for start, word in words:
        numbers = single.get(word, ())
        if numbers and not found.issuperset(numbers) and _affirmed(lowered, start):
            found.update(numbers)
    for number, phrase in phrases:
        if number in found:
            continue
        if any(_affirmed(lowered, words[i][0]) for i in _contains(sequence, phrase)):
            found.add(number)
    for match in endings.finditer(lowered):
        if not _affirmed(lowered, match.start()):
            continue
        for number, item in enumerate(classes):
            if number not in found and item.stems and match.group(0).endswith(item.stems):
                found.add(number)
    return frozenset(classes[number].name for number in found if classes[number].kind != "topic")


def mentioned(text: str) -> frozenset[str]:
    """What ``text`` mentions when a question asks whether it names a thing: its words and the parts of its
    hyphenated words (:func:`clinrag.index.lexical.mentioned_words`), and the classes whose members it names
    (:func:`class_mentions`).

    Example:
        >>> sorted(mentioned("Apixaban 5 mg"))
        ['5', 'anticoagulant', 'apixaban', 'mg', 'thromboprophylaxis']
    """
    return mentioned_words(text) | class_mentions(text)


def member_words(name: str) -> tuple[str, ...]:
    """The members of the class ``name`` (empty for a name that is no class), for matching lines by regex."""
    for item in vocabulary().classes:
        if item.name == name:
            return item.members
    return ()


def names_topic(text: str, topics: Iterable[str]) -> bool:
    """Whether ``text`` names a member of one of the topic classes ``topics`` (the names of ``kind = "topic"``
    classes; other names are ignored): an answer to "is he a smoker?" must say something about tobacco.

    Example:
        >>> names_topic("Tobacco: Never smoker.", ["tobacco use"]), names_topic("Lives alone.", ["tobacco use"])
        (True, False)
    """
    wanted = {name for name in topics if name in _topic_patterns()}
    return any(_topic_patterns()[name].search(text) for name in wanted)


def topic_names(names: Iterable[str]) -> tuple[str, ...]:
    """The topic classes among the class ``names`` (``tobacco use``, ``alcohol use``, ``living situation``)."""
    return tuple(name for name in names if name in _topic_patterns())


@functools.cache
def _topic_patterns() -> dict[str, re.Pattern[str]]:
    return {
        item.name: re.compile(r"\b(?:" + "|".join(re.escape(member) for member in item.members) + ")", re.IGNORECASE)
        for item in vocabulary().classes
        if item.kind == "topic"
    }


@functools.cache
def class_words(kind: ClassKind) -> frozenset[str]:
    """The words of the names and asking phrases of the classes of ``kind``.

    Example:
        >>> {"mri", "ct"} <= class_words("study"), "ssri" in class_words("drug")
        (True, True)
    """
    return frozenset(
        token
        for item in vocabulary().classes
        if item.kind == kind
        for phrase in (item.name, *item.asked)
        for token in tokenize(phrase)
    )
