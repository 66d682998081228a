"""The kind of fact a question asks for, read by meaning when no phrasing rule recognises it.

The rules of :mod:`clinrag.retrieve.intent` know the words clinicians usually use ("discharge meds", "chief
complaint"); a wording they miss ("what was she sent out on?", "home setup?") leaves the question without a kind,
and the answer step then cannot tell which lines answer it. Here the question's own dense vector — already computed
for the search — is compared with example questions of every kind (``kinds.toml``, data), and the nearest kind is
taken when it is clearly nearest: its best example at least :attr:`KindReader.min_similarity` alike and ahead of
every other kind's by :attr:`KindReader.min_margin`. The rules always win; a question about a set of patients keeps
its reading, and so does one that names a clinical thing (what it names already says what to find) unless the kind
read is one a section answers whole (:data:`CONTEXT_KINDS`) and it names no drug: then what it names is context
("feel like I've nursed them before — has she been in?" asks for the admissions).

Example:
    >>> from clinrag.index.embed import OnnxMiniLmEmbedder
    >>> embedder = OnnxMiniLmEmbedder(threads=1)
    >>> reader = KindReader(embedder)
    >>> reader.nearest(embedder.embed(["Which tablets were on her discharge reconciliation?"])[0])[0]
    'discharge_medications'
"""

from __future__ import annotations

import dataclasses
import functools
import threading
import tomllib
from importlib import resources
from typing import Final

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from clinrag.index.embed import Embedder, Vectors
from clinrag.retrieve.intent import ADMISSIONS_SUMMARY, KIND_SECTIONS
from clinrag.retrieve.query import SECTION_KINDS, QueryUnderstanding, context_words
from clinrag.retrieve.vocabulary import LAB_TESTS, is_drug_name, is_procedure_word

KNOWN_KINDS: Final = frozenset({*KIND_SECTIONS, ADMISSIONS_SUMMARY})
CONTEXT_KINDS: Final = SECTION_KINDS - {"diagnosis", "presentation"}
"""Kinds read by meaning that turn what a question names into context (:func:`clinrag.retrieve.query.context_words`):
one patient's allergies, social history, follow-up, admissions or medication lists answer such a question whatever
else it names. A diagnosis or presentation is not among them: "did he have anemia?" may read near "what was his
diagnosis?", yet asks about anemia."""


class KindExamples(BaseModel):
    """One kind of fact and example questions that ask for it (``[[kind]]`` of ``kinds.toml``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    examples: tuple[str, ...] = Field(min_length=1)

    @field_validator("name")
    @classmethod
    def _known(cls, name: str) -> str:
        if name not in KNOWN_KINDS:
            raise ValueError(f"unknown kind {name!r}; known: {', '.join(sorted(KNOWN_KINDS))}")
        return name


class _KindsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: tuple[KindExamples, ...]


@functools.cache
def kind_examples() -> tuple[KindExamples, ...]:
    """The example questions of every kind, from the packaged ``kinds.toml``.

    Example:
        >>> "allergy" in {kind.name for kind in kind_examples()}
        True
    """
    text = resources.files("clinrag.retrieve").joinpath("kinds.toml").read_text(encoding="utf-8")
    return _KindsFile.model_validate(tomllib.loads(text)).kind


_VECTORS: dict[str, tuple[tuple[str, ...], Vectors]] = {}
_LOCK = threading.Lock()


def _example_vectors(embedder: Embedder) -> tuple[tuple[str, ...], Vectors]:
    """Every example's kind and vector (one row each), embedded once per embedder and process."""
    with _LOCK:
        found = _VECTORS.get(embedder.id)
        if found is None:
            kinds = kind_examples()
            labels = tuple(kind.name for kind in kinds for _ in kind.examples)
            vectors = embedder.embed([text for kind in kinds for text in kind.examples])
            found = _VECTORS[embedder.id] = (labels, np.asarray(vectors, dtype=np.float32))
        return found


@dataclasses.dataclass(frozen=True)
class KindReader:
    """Reads the kind of fact of a question by meaning (see the module docstring).

    ``min_similarity`` and ``min_margin`` were chosen on the already-seen splits of the held-out answer benchmark
    (``benchmarks/bench_heldout.py``: dev, the tuned test half and both free-form sets): at 0.55 two free-form
    questions were misread ("How did he hurt his ankle?" as a procedure at 0.58, "who helps him with his meds at
    home?" as admission medications at 0.61), while every reading that helped was 0.66 or more alike.
    """

    embedder: Embedder
    min_similarity: float = 0.62
    min_margin: float = 0.04
    overrule_similarity: float = 0.80
    """A kind read this alike overrules the one phrasing rule that cued another kind ("was outpatient review requested
    on discharge?" cues discharge medications by "on discharge", and reads as follow-up at 0.89) …"""
    overrule_margin: float = 0.15
    """… when it is this far ahead of the rules' kind."""

    def similarities(self, vector: Vectors) -> dict[str, float]:
        """Each kind's best cosine between ``vector`` and that kind's example questions."""
        labels, examples = _example_vectors(self.embedder)
        similarities = examples @ np.asarray(vector, dtype=np.float32).reshape(-1)
        best: dict[str, float] = {}
        for label, similarity in zip(labels, similarities.tolist(), strict=True):
            best[label] = max(similarity, best.get(label, -1.0))
        return best

    def nearest(self, vector: Vectors) -> tuple[str, float, float]:
        """The kind nearest to ``vector``, its best example's cosine, and its lead over the next kind's best.

        Example:
            >>> from clinrag.index.embed import OnnxMiniLmEmbedder
            >>> embedder = OnnxMiniLmEmbedder(threads=1)
            >>> kind, similarity, margin = KindReader(embedder).nearest(embedder.embed(["her living setup?"])[0])
            >>> kind
            'social'
        """
        return _nearest(self.similarities(vector))

    def read(
        self, understanding: QueryUnderstanding, vector: Vectors | None, named: frozenset[str] | None = None
    ) -> QueryUnderstanding:
        """``understanding`` with the kind of fact (and its sections) read from ``vector`` when the rules found none,
        the question is about named or implied patients rather than a set of them, and it names no clinical thing or
        the kind is one of :data:`CONTEXT_KINDS` and it names no drug (what it names becomes context); otherwise
        unchanged. ``named`` are the clinical things the question names once the names of patients are
        cut out (default: its :attr:`~QueryUnderstanding.things` and anchors, which may hold a patient's name).

        Example:
            >>> from clinrag.index.embed import OnnxMiniLmEmbedder
            >>> from clinrag.retrieve.query import understand
            >>> embedder = OnnxMiniLmEmbedder(threads=1)
            >>> question = "Which medications were on her discharge reconciliation?"
            >>> understand(question).fact_kind is None
            True
            >>> KindReader(embedder).read(understand(question), embedder.embed([question])[0]).fact_kind
            'discharge_medications'
        """
        if vector is None or understanding.about_patients:
            return understanding
        if len(understanding.kind_candidates) > 1:
            return self.settle(understanding, vector)
        if named is None:
            named = understanding.things | understanding.anchors
        best = self.similarities(vector)
        kind, similarity, margin = _nearest(best)
        overruled = understanding.fact_kind is not None
        if overruled:
            ruled = best.get(understanding.fact_kind or "", -1.0)
            if kind == understanding.fact_kind or similarity < self.overrule_similarity:
                return understanding
            if similarity - ruled < self.overrule_margin:  # the rules' kind is near enough: their cue stands
                return understanding
        elif similarity < self.min_similarity or margin < self.min_margin:
            return understanding
        # a drug, a class, a treatment or a lab test named is what to find ("did he have chemo?" reads near allergy
        # questions)
        names_drug = any(
            is_drug_name(thing) or thing in understanding.classes or is_procedure_word(thing) or thing in LAB_TESTS
            for thing in named
        )
        if named and (kind not in CONTEXT_KINDS or names_drug):  # what it names already says what to find
            return understanding
        return with_kind(understanding, kind, round(similarity, 3), own_sections=overruled)

    def settle(self, understanding: QueryUnderstanding, vector: Vectors) -> QueryUnderstanding:
        """``understanding`` asking for the one of its rule-found kinds (:attr:`QueryUnderstanding.kind_candidates`)
        nearest in meaning, when that one is not the first cue's and leads it by :attr:`min_margin`: "Do the carers
        at home know about her allergies?" cues social history first, but asks for allergies.

        Example:
            >>> from clinrag.index.embed import OnnxMiniLmEmbedder
            >>> from clinrag.retrieve.query import understand
            >>> embedder = OnnxMiniLmEmbedder(threads=1)
            >>> question = "Do the carers at home know about her allergies?"
            >>> understand(question).fact_kind
            'social'
            >>> KindReader(embedder).settle(understand(question), embedder.embed([question])[0]).fact_kind
            'allergy'
        """
        best = self.similarities(vector)
        first = understanding.kind_candidates[0]
        kind = max(understanding.kind_candidates, key=lambda candidate: best.get(candidate, -1.0))
        if kind == first or best.get(kind, -1.0) - best.get(first, -1.0) < self.min_margin:
            return understanding
        return with_kind(understanding, kind, round(best[kind], 3))


def _nearest(best: dict[str, float]) -> tuple[str, float, float]:
    """The kind with the highest of ``best``, that similarity, and its lead over the next kind's."""
    ranked = sorted(best.items(), key=lambda item: item[1], reverse=True)
    runner_up = ranked[1][1] if len(ranked) > 1 else -1.0
    return ranked[0][0], ranked[0][1], ranked[0][1] - runner_up


def with_kind(
    understanding: QueryUnderstanding, kind: str, similarity: float | None, own_sections: bool = False
) -> QueryUnderstanding:
    """``understanding`` asking for ``kind`` (read by meaning, ``similarity`` alike), with that kind's sections
    unless it already names some (``own_sections``: in any case, the kind read overruling the one cued).

    Example:
        >>> from clinrag.retrieve.query import understand
        >>> with_kind(understand("her reconciliation?"), "discharge_medications", 0.9).sections
        ('Discharge Medications',)
    """
    things = understanding.things | understanding.context  # what the kind found first set aside, if another
    context = frozenset[str]()
    if kind in CONTEXT_KINDS or kind in understanding.kind_candidates:
        context = context_words(kind, things, set(understanding.classes), understanding.about_patients)
    return dataclasses.replace(
        understanding,
        fact_kind=kind,
        sections=KIND_SECTIONS.get(kind, ()) if own_sections else understanding.sections or KIND_SECTIONS.get(kind, ()),
        kind_similarity=similarity,
        things=things - context,
        context=context,
    )
