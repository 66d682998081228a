"""Similar patients at one node: the ExpRAG EHR-based report ranker, vectorised.

Similarity (ExpRAG, Ou et al. 2025, §3.3 "EHR-Based Report Ranker", Eq. 4-7) is
``λ1·J(dx) + λ2·J(med) + λ3·J(proc)`` with J the Jaccard index of the two patients' sets (`similar_sets`). It is
computed for every row at once: one CSR matrix per kind, the intersections as a sparse matrix-vector product with
the query's 0/1 vector, the unions as ``|A| + |B| − |A∩B|`` from the set sizes.

Weights: 1/3 each by default (§5 "Hyperparameters"); presets from §5.3 "Balancing Coefficients": ``uniform``
(1/3 each), ``task-focused`` (1 for the task's kind, 0 for the others: diagnosis inference is 1, 0, 0) and
``complementary`` (0 for the task's kind, 1 for the two others: 0, 1, 1 for diagnosis). The paper names the task's
kind for diagnosis and medication only; here the task is a kind (``dx`` by default, as in its examples).

Options, as the published code (``similarity_check.py``, ``filter_by_length``) applies them: a kind whose two set
sizes differ more than ``max_ratio`` times (10) counts 0 for that pair unless the smaller set lies wholly inside
the larger; a minimum score (the code keeps pairs whose summed Jaccards reach 0.5; here ``min_score`` applies to the
weighted score and is 0 by default). A row scoring 0 is never similar. The query patient is never in the result
(per admission: none of the query patient's admissions). Ties are broken by the smaller id.

Example:
    >>> from clinrag.population.similar_sets import build_code_sets
    >>> sets = build_code_sets("patient", {
    ...     "dx": [(1, 1, "10:I10", "HTN"), (1, 1, "10:E119", "T2DM"), (2, 2, "10:I10", "HTN"), (3, 3, "10:J45", "")],
    ...     "med": [(1, 1, "metformin", "metformin"), (2, 2, "metformin", "metformin")], "proc": []})
    >>> [(m.subject_id, round(m.score, 3), m.jaccard["dx"]) for m in rank_similar(sets, 1, k=5)]
    [(2, 0.5, 0.5)]
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from clinrag.errors import ClinragError
from clinrag.population.similar_sets import KINDS, CodeSets, IntArray, Kind, Unit, load_code_sets
from clinrag.population.tables import MaySee

FloatArray = npt.NDArray[np.float64]
MAX_RATIO: Final = 10.0
PRESETS: Final = ("uniform", "task-focused", "complementary")


class SimilarityError(ClinragError):
    """A similar-patients request that cannot be answered as asked (unknown patient, no codes, bad weights or k):
    a usage error, exit status 2."""

    exit_code = 2


@dataclass(frozen=True)
class Weights:
    """The λ of each kind; non-negative, summing to a positive number.

    Example:
        >>> Weights.parse("1,0,0"), Weights.preset("complementary", task="med")
        (Weights(dx=1.0, med=0.0, proc=0.0), Weights(dx=1.0, med=0.0, proc=1.0))
    """

    dx: float = 1 / 3
    med: float = 1 / 3
    proc: float = 1 / 3

    def __post_init__(self) -> None:
        values = (self.dx, self.med, self.proc)
        if any(not np.isfinite(v) or v < 0 for v in values) or sum(values) <= 0:
            raise SimilarityError(f"weights must be non-negative and sum to a positive number, not {values}")

    def of(self, kind: Kind) -> float:
        """The weight of one kind.

        Example:
            >>> Weights(1, 0, 0).of("dx")
            1.0
        """
        return float(getattr(self, kind))

    @classmethod
    def parse(cls, text: str) -> Weights:
        """Three comma-separated numbers, λ for diagnoses, medications and procedures (``1,0,0``)."""
        parts = [p.strip() for p in text.split(",")]
        try:
            values = [float(p) for p in parts]
        except ValueError:
            values = []
        if len(values) != len(KINDS):
            raise SimilarityError(f"--weights takes three numbers (diagnoses,medications,procedures), not {text!r}")
        return cls(*values)

    @classmethod
    def preset(cls, name: str, task: Kind = "dx") -> Weights:
        """A published preset (§5.3): ``uniform``, ``task-focused`` or ``complementary`` for ``task``'s kind."""
        if task not in KINDS:
            raise SimilarityError(f"unknown task kind {task!r}; one of {', '.join(KINDS)}")
        if name == "uniform":
            return cls()
        if name == "task-focused":
            return cls(**{kind: 1.0 if kind == task else 0.0 for kind in KINDS})
        if name == "complementary":
            return cls(**{kind: 0.0 if kind == task else 1.0 for kind in KINDS})
        raise SimilarityError(f"unknown preset {name!r}; one of {', '.join(PRESETS)}")


@dataclass(frozen=True)
class SharedItem:
    """An item two rows share: its code (``I10``, or a drug's name), ICD version (None for a drug) and title.

    Example:
        >>> SharedItem.of("10:I10", "Essential (primary) hypertension"), SharedItem.of("aspirin", "aspirin").version
        (SharedItem(code='I10', title='Essential (primary) hypertension', version=10), None)
    """

    code: str
    title: str
    version: int | None = None

    @classmethod
    def of(cls, item: str, title: str) -> SharedItem:
        """From an item key (``VERSION:CODE`` for codes)."""
        version, colon, code = item.partition(":")
        if colon and version.isdigit():
            return cls(code, title, int(version))
        return cls(item, title)


@dataclass(frozen=True)
class SimilarPatient:
    """One similar patient (per admission: one admission, ``hadm_id`` set): the score, each kind's Jaccard and the
    items shared with the query."""

    subject_id: int
    score: float
    jaccard: dict[Kind, float]
    shared: dict[Kind, tuple[SharedItem, ...]]
    hadm_id: int | None = None


def jaccards(sets: CodeSets, row: int, max_ratio: float | None = MAX_RATIO) -> dict[Kind, FloatArray]:
    """Each kind's Jaccard index of every row with row ``row`` (the size rule applied when ``max_ratio`` is set).

    Example:
        >>> from clinrag.population.similar_sets import build_code_sets
        >>> sets = build_code_sets("patient", {"dx": [(1, 1, "a", ""), (2, 2, "a", ""), (2, 2, "b", "")]})
        >>> jaccards(sets, 0)["dx"].tolist()
        [1.0, 0.5]
    """
    return {
        kind: jaccard_with(sets, kind, sets.row_items(kind, row), float(sets.sizes[kind][row]), max_ratio)
        for kind in KINDS
    }


def jaccard_with(
    sets: CodeSets, kind: Kind, columns: IntArray, size: float, max_ratio: float | None = MAX_RATIO
) -> FloatArray:
    """The Jaccard index of every row's ``kind`` set with a query set of ``size`` items, of which those known here
    are the columns ``columns`` (the size rule applied when ``max_ratio`` is set).

    Example:
        >>> from clinrag.population.similar_sets import build_code_sets
        >>> sets = build_code_sets("patient", {"dx": [(1, 1, "a", ""), (2, 2, "a", ""), (2, 2, "b", "")]})
        >>> jaccard_with(sets, "dx", np.array([0]), 2.0).round(2).tolist()  # "a" and an item unknown here
        [0.5, 0.33]
    """
    matrix, sizes = sets.matrices[kind], sets.sizes[kind]
    query = np.zeros(matrix.shape[1], dtype=np.float32)
    query[columns] = 1.0
    inter = np.asarray(matrix @ query, dtype=np.float64)
    union = sizes + size - inter
    score = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    if max_ratio is not None:
        small, big = np.minimum(sizes, size), np.maximum(sizes, size)
        score[(big > max_ratio * small) & (inter < small)] = 0.0
    return score


def _shared(sets: CodeSets, query: int, other: int) -> dict[Kind, tuple[SharedItem, ...]]:
    shared: dict[Kind, tuple[SharedItem, ...]] = {}
    for kind in KINDS:
        both = np.intersect1d(sets.row_items(kind, query), sets.row_items(kind, other), assume_unique=True)
        shared[kind] = tuple(SharedItem.of(sets.items[kind][i], sets.titles[kind][i]) for i in both.tolist())
    return shared


def rank_similar(
    sets: CodeSets,
    key: int,
    *,
    k: int = 15,
    weights: Weights | None = None,
    max_ratio: float | None = MAX_RATIO,
    min_score: float = 0.0,
) -> list[SimilarPatient]:
    """The ``k`` rows most similar to row ``key`` (a subject_id, or a hadm_id per admission), best first."""
    if k <= 0:
        raise SimilarityError(f"k must be at least 1, not {k}")
    row = sets.row_of(key)
    if row is None:
        raise SimilarityError(f"{'patient' if sets.unit == 'patient' else 'admission'} {key} has no codes you may see")
    weights = weights or Weights()
    per_kind = jaccards(sets, row, max_ratio)
    score = sum((weights.of(kind) * per_kind[kind] for kind in KINDS), np.zeros(len(sets.keys)))
    keep = (score > 0) & (score >= min_score) & (sets.subjects != sets.subjects[row])
    candidates = np.flatnonzero(keep)
    if len(candidates) > k:
        candidates = candidates[np.argpartition(-score[candidates], k - 1)[:k]]
        cut = score[candidates].min()
        candidates = np.flatnonzero(keep & (score >= cut))  # ties at the cut: decided by id below
    order = candidates[np.lexsort((sets.keys[candidates], -score[candidates]))][:k]
    return [
        SimilarPatient(
            subject_id=int(sets.subjects[i]),
            hadm_id=int(sets.keys[i]) if sets.unit == "admission" else None,
            score=float(score[i]),
            jaccard={kind: float(per_kind[kind][i]) for kind in KINDS},
            shared=_shared(sets, row, int(i)),
        )
        for i in order.tolist()
    ]


@dataclass(frozen=True)
class SimilarResult:
    """What `find_similar` found: the query (patient, and the admission per admission), the weights and matches."""

    subject_id: int
    unit: Unit
    weights: Weights
    matches: tuple[SimilarPatient, ...]
    hadm_id: int | None = None
    org: str = ""


def query_admission(sets: CodeSets, subject_id: int) -> int:
    """Per admission, the patient's admission to rank against: the latest (the largest hadm_id) with visible codes.

    Example:
        >>> from clinrag.population.similar_sets import build_code_sets
        >>> sets = build_code_sets("admission", {"dx": [(20, 1, "a", ""), (21, 1, "b", ""), (30, 2, "a", "")]})
        >>> query_admission(sets, 1)
        21
    """
    own = sets.keys[sets.subjects == subject_id]
    if not len(own):
        raise SimilarityError(f"patient {subject_id} has no codes you may see")
    return int(own.max())


def find_similar(
    tables_path: Path,
    subject_id: int,
    *,
    k: int = 15,
    weights: Weights | None = None,
    unit: Unit = "patient",
    hadm_id: int | None = None,
    max_ratio: float | None = MAX_RATIO,
    min_score: float = 0.0,
    allowed_depts: frozenset[str] | None = None,
    may_see: MaySee | None = None,
) -> SimilarResult:
    """The patients of a node most similar to ``subject_id``, from the rows the asker may see (``allowed_depts``,
    ``may_see`` as in `clinrag.population.count.count`). Per admission, ``hadm_id`` (default: the patient's latest
    admission) is ranked against every other patient's admissions."""
    sets = load_code_sets(tables_path, unit=unit, allowed_depts=allowed_depts, may_see=may_see)
    weights = weights or Weights()
    if unit == "patient":
        key = subject_id
    else:
        key = query_admission(sets, subject_id) if hadm_id is None else hadm_id
        row = sets.row_of(key)
        if row is not None and int(sets.subjects[row]) != subject_id:
            raise SimilarityError(f"admission {key} is not patient {subject_id}'s")
    matches = rank_similar(sets, key, k=k, weights=weights, max_ratio=max_ratio, min_score=min_score)
    return SimilarResult(
        subject_id=subject_id,
        unit=unit,
        weights=weights,
        matches=tuple(matches),
        hadm_id=key if unit == "admission" else None,
        org=sets.org,
    )
