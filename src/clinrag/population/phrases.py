"""How a text criterion's phrase is read, and whether one sentence of a note supports it.

A phrase ("reports heavy alcohol use", "presented after a mechanical fall", "former smokers") asks for a concept of the
table ``phrases.toml`` beside this module: sentence patterns with their synonyms and abbreviations (alcohol, EtOH,
beers, a pint of vodka; fall, fell, slipped), quantities ("3-4 beers daily" is heavy drinking, "1-2 glasses of wine
per week" is not), and whether past use counts (the phrase decides: "smokers" now, "former smokers" only past,
"history of smoking" either). A phrase that asks for no concept ("lives alone") is matched word by word: every
content word, or the abbreviation of a term it spells out, must be in the sentence.

Every match must be about the patient, now: not negated in its clause ("denies alcohol use", "no tobacco", "never
smoker"), not about a relative ("father with alcohol use disorder"), not advice ("avoid alcohol"), not a label whose
body says otherwise ("EtOH: denies"). Family History sections never count (`SentenceMatcher.reads_section`).

Example:
    >>> heavy = matcher_for("reports heavy alcohol use")
    >>> heavy.interpretation.describe()
    'heavy alcohol use (current)'
    >>> [heavy.supports(s) for s in ("Reports 3-4 beers daily.", "Drinks 1-2 glasses of wine per week.",
    ...                              "Denies alcohol use.", "Father with alcohol use disorder.")]
    [True, False, False, False]
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from clinrag.index.abbreviations import PREFERRED_EXPANSIONS
from clinrag.index.lexical import mentioned_words, tokenize
from clinrag.ingest.sensitivity import CLAUSE_END, NEGATION, NEGATION_WINDOW

TABLE_PATH = Path(__file__).parent / "phrases.toml"
"""The concept table shipped with clinrag."""

Mode = Literal["current", "former", "ever"]

_FLAGS = re.IGNORECASE
_LABEL = re.compile(r"[ \t]*:")
_SCOPE_END = re.compile(
    r",(?=\s*(?:and\s+)?(?:reports?|endorses?|admits?|drinks|smokes|uses|currently|but)\b)|\b(?:who|which|whom)\b",
    _FLAGS,
)
"""Where a clause ends beyond `CLAUSE_END`: a comma before a new verb ("denies tobacco, drinks 2 beers daily"), a
relative pronoun ("a man with no past history who slipped on ice")."""


def _compiles(patterns: tuple[str, ...]) -> tuple[str, ...]:
    for pattern in patterns:
        try:
            re.compile(pattern, _FLAGS)
        except re.error as error:
            raise ValueError(f"pattern {pattern!r} is not a valid regular expression: {error}") from None
    return patterns


class _Rule(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class AmountRule(_Rule):
    """Quantities of drinks: a match counts when its upper figure per day (or per week) reaches the bound."""

    pattern: str
    per_day: int = Field(ge=1)
    per_week: int = Field(ge=1)

    @field_validator("pattern")
    @classmethod
    def _named(cls, pattern: str) -> str:
        groups = re.compile(pattern, _FLAGS).groupindex
        if not {"high", "per"} <= set(groups):
            raise ValueError("an amount pattern needs the groups 'high' and 'per'")
        return pattern


class QualifierRule(_Rule):
    """A word of the phrase (``asks``) that excludes sentences where an ``exclude`` pattern matches, not negated."""

    id: str = Field(pattern=r"^[a-z0-9-]+$")
    asks: str
    exclude: tuple[str, ...] = Field(min_length=1)

    _valid = field_validator("exclude")(_compiles)


class ConceptRule(_Rule):
    """One concept: the phrases that ask for it, the sentences that state it, and how past use is treated."""

    id: str = Field(pattern=r"^[a-z0-9-]+$")
    label: str = Field(min_length=1)
    asks: tuple[str, ...] = Field(min_length=1)
    cues: tuple[str, ...] = Field(min_length=1)
    patterns: tuple[str, ...] = ()
    extends: tuple[str, ...] = ()
    temporal: bool = False
    advice: bool = False
    amount: AmountRule | None = None
    qualifier: tuple[QualifierRule, ...] = ()

    _valid = field_validator("asks", "patterns")(_compiles)

    @field_validator("cues")
    @classmethod
    def _lower(cls, cues: tuple[str, ...]) -> tuple[str, ...]:
        if any(cue != cue.lower() or "%" in cue or "_" in cue for cue in cues):
            raise ValueError("cues are lower-case words without '%' or '_'")
        return cues


class CueRules(_Rule):
    """Cues shared by every concept (see the comments of ``phrases.toml``)."""

    other_person: str
    other_sections: tuple[str, ...]
    advice: str
    former: str
    former_after: str
    ever_ask: str
    former_ask: str
    filler: tuple[str, ...]

    @model_validator(mode="after")
    def _valid(self) -> CueRules:
        _compiles((self.other_person, self.advice, self.former, self.former_after, self.ever_ask, self.former_ask))
        return self


class PhraseTable(_Rule):
    """The whole table: its version, the shared cues, the concepts in the order phrases are tried against them."""

    version: int
    cues: CueRules
    concept: tuple[ConceptRule, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _known_extensions(self) -> PhraseTable:
        ids = [concept.id for concept in self.concept]
        if len(set(ids)) != len(ids):
            raise ValueError("a concept id is used twice")
        for concept in self.concept:
            unknown = set(concept.extends) - set(ids)
            if unknown:
                raise ValueError(f"concept {concept.id} extends unknown concepts {sorted(unknown)}")
        return self


@cache
def load_table(path: Path = TABLE_PATH) -> PhraseTable:
    """The concept table at ``path`` (the shipped one by default), validated; ValueError names what is wrong."""
    with path.open("rb") as handle:
        return PhraseTable.model_validate(tomllib.load(handle))


@dataclass(frozen=True)
class Interpretation:
    """How a phrase is read: a concept of the table (or, when ``concept`` is None, the phrase's own ``words``),
    whether past use counts (``mode``; None for concepts without time), and the qualifiers in force."""

    concept: str | None
    label: str
    mode: Mode | None = None
    qualifiers: tuple[str, ...] = ()
    words: tuple[str, ...] = ()

    def describe(self) -> str:
        """``heavy alcohol use (current)``, ``fall (mechanical)``, ``words: live, alone``."""
        notes = [*([self.mode] if self.mode else []), *self.qualifiers]
        return self.label + (f" ({', '.join(notes)})" if notes else "")


@dataclass(frozen=True)
class _Shared:
    other_person: re.Pattern[str]
    other_sections: frozenset[str]
    advice: re.Pattern[str]
    former: re.Pattern[str]
    former_after: re.Pattern[str]


class SentenceMatcher:
    """Decides whether a sentence supports one phrase; build it with `matcher_for` (immutable, thread-safe).

    ``like`` is what a supporting chunk must contain (lower case; every group must have one of its words): the
    chunk store is filtered on it before sentences are verified, so nothing a pattern matches is missed.
    """

    def __init__(
        self,
        interpretation: Interpretation,
        like: tuple[tuple[str, ...], ...],
        shared: _Shared,
        rule: ConceptRule | None = None,
        patterns: tuple[re.Pattern[str], ...] = (),
        qualifiers: tuple[tuple[re.Pattern[str], ...], ...] = (),
        terms: tuple[tuple[tuple[str, ...], ...], ...] = (),
    ) -> None:
        self.interpretation = interpretation
        self.like = like
        self._shared = shared
        self._rule = rule
        self._patterns = patterns
        self._amount = re.compile(rule.amount.pattern, _FLAGS) if rule is not None and rule.amount else None
        self._qualifiers = qualifiers
        self._terms = terms

    def reads_section(self, section: str | None) -> bool:
        """Whether sentences of ``section`` may count at all (a Family History never does)."""
        return (section or "").casefold() not in self._shared.other_sections

    def supports(self, sentence: str) -> bool:
        """Whether ``sentence`` states the phrase about the patient (see the module docstring)."""
        if self._rule is None:
            return self._words_support(sentence)
        return any(self._holds(sentence, start, end) for start, end in self._matches(sentence))

    def mentions(self, text: str) -> bool:
        """Whether ``text`` has anything a supporting sentence needs (cheap, before splitting it into sentences)."""
        if self._rule is None:
            words = mentioned_words(text)
            return all(any(set(option) <= words for option in term) for term in self._terms)
        return any(pattern.search(text) for pattern in self._patterns) or bool(
            self._amount is not None and self._amount.search(text)
        )

    def _matches(self, sentence: str) -> Iterator[tuple[int, int]]:
        for pattern in self._patterns:
            for match in pattern.finditer(sentence):
                yield match.span()
        if self._amount is not None and self._rule is not None and self._rule.amount is not None:
            for match in self._amount.finditer(sentence):
                if _heavy_amount(match, self._rule.amount):
                    yield match.span()

    def _holds(self, sentence: str, start: int, end: int) -> bool:
        if _LABEL.match(sentence, end):
            return False
        before, after = _clause_before(sentence, start), _clause_after(sentence, end)
        if _negated(before) or self._shared.other_person.search(before):
            return False
        rule = self._rule
        assert rule is not None
        if rule.advice and self._shared.advice.search(before):
            return False
        if rule.temporal:
            former = bool(self._shared.former.search(before) or self._shared.former_after.search(after))
            mode = self.interpretation.mode
            if (mode == "current" and former) or (mode == "former" and not former):
                return False
        clause = before + sentence[start:end] + after
        for excludes in self._qualifiers:
            for pattern in excludes:
                if any(not _negated(_clause_before(clause, m.start())) for m in pattern.finditer(clause)):
                    return False
        return True

    def _words_support(self, sentence: str) -> bool:
        words = mentioned_words(sentence)
        if not all(any(set(option) <= words for option in term) for term in self._terms):
            return False
        lowered = sentence.lower()
        starts = [
            found.start()
            for term in self._terms
            for option in term
            if (found := re.search(r"\b" + re.escape(_stem(option[0])), lowered))
        ]
        before = _clause_before(sentence, min(starts, default=0))
        return not _negated(before) and not self._shared.other_person.search(before)


def _heavy_amount(match: re.Match[str], rule: AmountRule) -> bool:
    """Whether a quantity reaches the rule's bound: the upper figure per day, or per week (weekends: per week)."""
    per = match["per"].lower()
    weekly = "week" in per
    return int(match["high"]) >= (rule.per_week if weekly else rule.per_day)


def _clause_before(text: str, start: int) -> str:
    """The part of ``start``'s clause before it (a clause ends at a sentence mark, a contrast or ", reports")."""
    before = text[:start]
    ends = [m.end() for m in CLAUSE_END.finditer(before)] + [m.end() for m in _SCOPE_END.finditer(before)]
    return before[max(ends, default=0) :]


def _clause_after(text: str, end: int) -> str:
    after = text[end:]
    found = [m.start() for m in (CLAUSE_END.search(after), _SCOPE_END.search(after)) if m is not None]
    return after[: min(found, default=len(after))]


def _negated(before: str) -> bool:
    """A negation cue within `NEGATION_WINDOW` characters before a match, in its clause (as sensitivity labels)."""
    return NEGATION.search(before[-NEGATION_WINDOW:]) is not None


def _stem(token: str) -> str:
    """What every spelling of a folded token contains (``lives`` folds to ``live``, ``injuries`` to ``injury``)."""
    return token[:-1] if len(token) > 3 else token


def _mode(phrase: str, cues: CueRules) -> Mode:
    if re.search(cues.former_ask, phrase, _FLAGS):
        return "former"
    return "ever" if re.search(cues.ever_ask, phrase, _FLAGS) else "current"


def _word_terms(phrase: str, filler: frozenset[str]) -> tuple[tuple[tuple[str, ...], ...], ...]:
    """The phrase's content words, each with its alternatives: a run of words an abbreviation stands for (``atrial
    fibrillation``: ``af``, ``afib``) is one term; a word alone may be written as its abbreviation (``alcohol``:
    ``etoh``)."""
    tokens = [token for token in tokenize(phrase) if token not in filler]
    terms: list[tuple[tuple[str, ...], ...]] = []
    index = 0
    while index < len(tokens):
        best: tuple[int, list[tuple[str, ...]]] = (1, [(tokens[index],)])
        for abbreviation, expansion in PREFERRED_EXPANSIONS.items():
            words = tuple(tokenize(expansion))
            short = tuple(tokenize(abbreviation))
            if words and len(short) == 1 and tuple(tokens[index : index + len(words)]) == words:
                if len(words) > best[0]:
                    best = (len(words), [words])
                if len(words) == best[0] and short not in best[1]:
                    best[1].append(short)
        terms.append(tuple(best[1]))
        index += best[0]
    return tuple(terms)


@lru_cache(maxsize=256)
def matcher_for(phrase: str, path: Path = TABLE_PATH) -> SentenceMatcher:
    """The matcher of ``phrase`` under the concept table at ``path`` (cached per phrase).

    Example:
        >>> matcher_for("presented after a mechanical fall").interpretation.describe()
        'fall (mechanical)'
        >>> matcher_for("lives alone").interpretation.describe()
        'words: live, alone'
    """
    table = load_table(path)
    cues = table.cues
    shared = _Shared(
        re.compile(cues.other_person, _FLAGS),
        frozenset(section.casefold() for section in cues.other_sections),
        re.compile(cues.advice, _FLAGS),
        re.compile(cues.former, _FLAGS),
        re.compile(cues.former_after, _FLAGS),
    )
    by_id = {concept.id: concept for concept in table.concept}
    for rule in table.concept:
        if not any(re.search(ask, phrase, _FLAGS) for ask in rule.asks):
            continue
        family = [rule, *(by_id[other] for other in rule.extends)]
        patterns = tuple(re.compile(p, _FLAGS) for member in family for p in member.patterns)
        like = tuple(dict.fromkeys(cue for member in family for cue in member.cues))
        active = [q for q in rule.qualifier if re.search(q.asks, phrase, _FLAGS)]
        interpretation = Interpretation(
            rule.id, rule.label, _mode(phrase, cues) if rule.temporal else None, tuple(q.id for q in active)
        )
        excludes = tuple(tuple(re.compile(p, _FLAGS) for p in q.exclude) for q in active)
        return SentenceMatcher(interpretation, (like,), shared, rule, patterns, excludes)
    terms = _word_terms(phrase, frozenset(cues.filler))
    if not terms:
        raise ValueError("the phrase has no content words to look for")
    words = tuple(word for term in terms for word in term[0])
    groups = tuple(tuple(dict.fromkeys(_stem(max(option, key=len)) for option in term)) for term in terms)
    return SentenceMatcher(Interpretation(None, "words: " + ", ".join(words), words=words), groups, shared, terms=terms)
