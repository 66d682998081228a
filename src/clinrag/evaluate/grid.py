"""A parameter grid read from YAML (`GridSpec`): every combination of chunk size, name prefixing, k, fetch_k, mode,
MMR λ, threshold, generator and temperature, and the weights of the score that ranks them — as the published PubMed
system searched 64 combinations. ``src/clinrag/evaluate/data/grid.yaml`` is the default (64 combinations, each a
distinct run: MMR's λ is varied only under ``hybrid-mmr``, fetch_k only under plain ``hybrid``). A file's optional
``branches`` each replace some of ``grid``'s values, and the grid is the union of the branches' combinations.

What the ``grid`` suite caches between combinations: one node (ingested chunks and index) per chunk size × name
prefixing — the only parameters that change the index — built with `CachingEmbedder`, so a chunk text two nodes
share is embedded once; and one run per `Combination.run_key` (λ matters only to ``hybrid-mmr``, temperature only
to a model generator).

Example:
    >>> spec = GridSpec.load()
    >>> combinations = spec.combinations()
    >>> len(combinations), len({c.run_key for c in combinations}), len({c.index_key for c in combinations})
    (64, 64, 4)
    >>> round(spec.score({"recall_at_k": 1.0, "ndcg_at_10": 1.0, "cites_gold": 1.0, "faithfulness": 0.0,
    ...     "answer_rate": 1.0, "rejection": 0.0}), 4)
    1.0
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Mapping
from dataclasses import asdict, astuple, dataclass, fields
from importlib import resources
from pathlib import Path
from typing import Any, Final, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from clinrag.errors import ClinragError
from clinrag.index.embed import Embedder
from clinrag.index.indexer import VectorReuse
from clinrag.index.store import Mode

GRID_FILE: Final = "grid.yaml"
METRICS: Final = ("recall_at_k", "ndcg_at_10", "cites_gold", "faithfulness", "answer_rate", "rejection")
"""What a weight may name (the metrics of each combination that the score can rank by)."""


class GridError(ClinragError):
    """A grid file that cannot be read or is not a grid (exit status 2)."""

    exit_code = 2


class GridValues(BaseModel):
    """The values each parameter takes (every combination is run)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    chunk_size: tuple[int, ...] = Field((800,), min_length=1)
    name_prefix: tuple[bool, ...] = Field((True,), min_length=1)
    k: tuple[int, ...] = Field((10,), min_length=1)
    fetch_k: tuple[int, ...] = Field((50,), min_length=1)
    mode: tuple[Mode, ...] = Field(("hybrid",), min_length=1)
    mmr_lambda: tuple[float, ...] = Field((0.5,), min_length=1)
    threshold: tuple[float | None, ...] = Field((None,), min_length=1)
    generator: tuple[Literal["extractive", "local", "openai"], ...] = Field(("extractive",), min_length=1)
    temperature: tuple[float, ...] = Field((0.0,), min_length=1)


class GridQuestions(BaseModel):
    """How many questions: retrieval questions per kind, negative and noise questions each."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    per_kind: int = Field(10, ge=1)
    rejection: int = Field(5, ge=0)


class GridCorpus(BaseModel):
    """Which hospital's notes of the demo cohort the grid ingests."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    hospital: str = "A"


@dataclass(frozen=True)
class Combination:
    """One point of the grid."""

    chunk_size: int
    name_prefix: bool
    k: int
    fetch_k: int
    mode: Mode
    mmr_lambda: float
    threshold: float | None
    generator: str
    temperature: float

    @property
    def index_key(self) -> tuple[int, bool]:
        """What the index depends on: chunk size and name prefixing."""
        return self.chunk_size, self.name_prefix

    @property
    def run_key(self) -> tuple[object, ...]:
        """What the run depends on: the parameters without those this combination's mode and generator ignore."""
        return (
            *self.index_key,
            self.k,
            self.fetch_k,
            self.mode,
            self.mmr_lambda if self.reads("mmr_lambda") else None,
            self.threshold,
            self.generator,
            self.temperature if self.reads("temperature") else None,
        )

    def reads(self, parameter: str) -> bool:
        """Whether this combination's mode and generator read ``parameter`` (λ: only ``hybrid-mmr``; temperature:
        only a model generator).

        Example:
            >>> point = Combination(800, True, 10, 50, "hybrid", 0.5, None, "extractive", 0.0)
            >>> point.reads("mmr_lambda"), point.reads("temperature"), point.reads("k")
            (False, False, True)
        """
        if parameter == "mmr_lambda":
            return self.mode == "hybrid-mmr"
        if parameter == "temperature":
            return self.generator != "extractive"
        return True

    @property
    def label(self) -> str:
        """A short unique name: ``c800 p+ k10 f50 hybrid-mmr λ0.5 t- extractive T0``."""
        threshold = "t-" if self.threshold is None else f"t{self.threshold:g}"
        return (
            f"c{self.chunk_size} p{'+' if self.name_prefix else '-'} k{self.k} f{self.fetch_k} {self.mode} "
            f"λ{self.mmr_lambda:g} {threshold} {self.generator} T{self.temperature:g}"
        )

    def cells(self) -> tuple[str | int | float | bool | None, ...]:
        """The parameters in field order, as table cells."""
        return astuple(self)

    def to_json(self) -> dict[str, object]:
        """The parameters by name, in field order."""
        return asdict(self)


class GridSpec(BaseModel):
    """A grid file: corpus, questions, the values of each parameter and the score's weights."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    corpus: GridCorpus = GridCorpus()
    questions: GridQuestions = GridQuestions()
    grid: GridValues = GridValues()
    branches: tuple[dict[str, Any], ...] = ()
    """Each replaces some of ``grid``'s values (a mapping like ``grid``'s); none: ``grid`` alone."""
    weights: dict[str, float] = Field(default_factory=lambda: dict.fromkeys(METRICS, 1.0))

    def model_post_init(self, context: Any, /) -> None:
        """Weights name known metrics, are not negative, and add up to more than 0."""
        unknown = sorted(set(self.weights) - set(METRICS))
        if unknown:
            raise ValueError(f"weights name unknown metrics {unknown}; known: {', '.join(METRICS)}")
        if any(w < 0 for w in self.weights.values()) or sum(self.weights.values()) <= 0:
            raise ValueError("weights must be >= 0 and add up to more than 0")

    @model_validator(mode="after")
    def _branches_are_grids(self) -> GridSpec:
        """Every branch, laid over ``grid``, is a grid (known parameters, valid values)."""
        self.values()
        return self

    def values(self) -> list[GridValues]:
        """The grid of each branch (``grid``'s values, some replaced by the branch's), or ``[grid]`` alone.

        Example:
            >>> spec = GridSpec(grid=GridValues(k=(5, 10)), branches=({"mode": ["hybrid-mmr"]}, {"k": [20]}))
            >>> [(v.mode, v.k) for v in spec.values()]
            [(('hybrid-mmr',), (5, 10)), (('hybrid',), (20,))]
        """
        if not self.branches:
            return [self.grid]
        return [GridValues.model_validate({**self.grid.model_dump(), **branch}) for branch in self.branches]

    @classmethod
    def load(cls, path: Path | None = None) -> GridSpec:
        """The grid of ``path`` (default: the packaged 64-combination grid); `GridError` says what is wrong."""
        try:
            text = (
                path.read_text(encoding="utf-8")
                if path is not None
                else (resources.files("clinrag.evaluate") / "data" / GRID_FILE).read_text(encoding="utf-8")
            )
            data = yaml.safe_load(text)
        except (OSError, yaml.YAMLError) as exc:
            raise GridError(f"{path or GRID_FILE}: cannot read the grid ({exc})") from None
        try:
            return cls.model_validate(data or {})
        except ValidationError as exc:
            raise GridError(f"{path or GRID_FILE}: not a grid: {exc}") from None

    def combinations(self) -> list[Combination]:
        """Every combination, branch by branch, in the file's order of values (chunk size slowest); a combination
        two branches both give is kept once."""
        found: dict[Combination, None] = {}
        for grid in self.values():
            values = [getattr(grid, parameter.name) for parameter in fields(Combination)]
            found.update(dict.fromkeys(Combination(*point) for point in itertools.product(*values)))
        return list(found)

    def score(self, metrics: Mapping[str, float | None]) -> float:
        """Σ weight × metric / Σ weight (a missing metric counts 0), rounded to 4 places."""
        total = sum(self.weights.values())
        return round(sum(w * float(metrics.get(name) or 0.0) for name, w in self.weights.items()) / total, 4)


class CachingEmbedder(VectorReuse):
    """An `Embedder` that embeds each distinct text once and remembers its vector: a `VectorReuse` that keeps every
    vector and is itself an embedder (the same model, the same vectors: an index built through it equals one built
    without it); ``embedded`` and ``reused`` count texts.

    Example:
        >>> import numpy as np
        >>> class Ones:
        ...     id, dimension = "ones", 2
        ...     def embed(self, texts):
        ...         return np.ones((len(texts), 2), dtype=np.float32)
        >>> cached = CachingEmbedder(Ones())
        >>> _ = cached.embed(["a", "b"]); _ = cached.embed(["b", "c"])
        >>> cached.embedded, cached.reused
        (3, 1)
    """

    def __init__(self, embedder: Embedder) -> None:
        super().__init__(embedder, limit=sys.maxsize)

    @property
    def id(self) -> str:
        """The wrapped embedder's id."""
        return self.embedder.id

    @property
    def dimension(self) -> int:
        """The wrapped embedder's dimension."""
        return self.embedder.dimension
