"""The code sets behind patient similarity: one sparse 0/1 matrix per kind, a row per patient (or
admission), a column per distinct item.

Kinds: ``dx`` — distinct ``(icd_version, icd_code)`` diagnoses; ``med`` — distinct drug names as the population
tables store them (`clinrag.population.tables.normalise_drug`: lower case, trimmed, inner whitespace collapsed; the
formulation words stay, as MIMIC's per-formulation drug names and the published method's formulary codes do);
``proc`` — distinct ``(icd_version, icd_code)`` procedures. Per patient, a set is the union over all the patient's
admissions. Only rows of document classes the asker may see are read, so a patient counts with the codes the asker
may retrieve, and a patient with none visible is not a row at all.

Example:
    >>> sets = build_code_sets("patient", {"dx": [(1, 1, "10:I10", "Hypertension"), (2, 2, "10:I10", "Hypertension")],
    ...                                    "med": [(1, 1, "aspirin", "aspirin")], "proc": []})
    >>> sets.keys.tolist(), sets.matrices["dx"].toarray().tolist(), sets.sizes["med"].tolist()
    ([1, 2], [[1.0], [1.0]], [1, 0])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

import numpy as np
import numpy.typing as npt
from scipy import sparse

from clinrag.population.tables import MaySee, connect, document_classes, meta, visible_classes

Kind = Literal["dx", "med", "proc"]
Unit = Literal["patient", "admission"]
KINDS: Final[tuple[Kind, ...]] = ("dx", "med", "proc")
KIND_WORDS: Final[dict[Kind, str]] = {"dx": "diagnoses", "med": "medications", "proc": "procedures"}

Row = tuple[int, int, str, str]  # unit id (subject_id or hadm_id), subject_id, item key, title
IntArray = npt.NDArray[np.int64]

_SQL: Final[dict[Kind, str]] = {
    "dx": "SELECT DISTINCT {unit}, subject_id, CAST(version AS VARCHAR) || ':' || code, title FROM diagnoses",
    "med": "SELECT DISTINCT {unit}, subject_id, drug, drug FROM prescriptions",
    "proc": "SELECT DISTINCT {unit}, subject_id, CAST(version AS VARCHAR) || ':' || code, title FROM procedures",
}


@dataclass(frozen=True)
class CodeSets:
    """Rows (``keys``: subject_id per patient, hadm_id per admission; ``subjects``: each row's patient) and per kind
    a CSR matrix (rows × items, 1.0 where the row has the item), each row's set size, and the items' keys and
    titles (column order)."""

    unit: Unit
    keys: IntArray
    subjects: IntArray
    matrices: Mapping[Kind, sparse.csr_matrix]
    sizes: Mapping[Kind, IntArray]
    items: Mapping[Kind, tuple[str, ...]]
    titles: Mapping[Kind, tuple[str, ...]]
    org: str = ""

    def row_of(self, key: int) -> int | None:
        """The row of a subject_id (per patient) or hadm_id (per admission), None when it has no visible codes.

        Example:
            >>> build_code_sets("patient", {"dx": [(7, 7, "10:I10", "")], "med": [], "proc": []}).row_of(7)
            0
        """
        found = np.searchsorted(self.keys, key)
        return int(found) if found < len(self.keys) and int(self.keys[found]) == key else None

    def row_items(self, kind: Kind, row: int) -> IntArray:
        """The column indices of one row's items of ``kind`` (sorted).

        Example:
            >>> build_code_sets("patient", {"dx": [(7, 7, "10:I10", "")], "med": [], "proc": []}).row_items("dx", 0)
            array([0])
        """
        matrix = self.matrices[kind]
        return np.asarray(matrix.indices[matrix.indptr[row] : matrix.indptr[row + 1]], dtype=np.int64)


def matrix_from_pairs(rows: IntArray, cols: IntArray, shape: tuple[int, int]) -> sparse.csr_matrix:
    """A CSR 0/1 matrix with a 1.0 at each distinct (row, col) pair (float32, sorted indices: ready for products).

    Example:
        >>> matrix_from_pairs(np.array([0, 0, 1]), np.array([1, 1, 0]), (2, 2)).toarray().tolist()
        [[0.0, 1.0], [1.0, 0.0]]
    """
    data = np.ones(len(rows), dtype=np.float32)
    matrix = sparse.csr_matrix((data, (rows, cols)), shape=shape, dtype=np.float32)
    matrix.sum_duplicates()
    matrix.data[:] = 1.0
    matrix.sort_indices()
    return matrix


def build_code_sets(unit: Unit, rows: Mapping[Kind, Iterable[Row]], org: str = "") -> CodeSets:
    """`CodeSets` from ``(unit id, subject_id, item key, title)`` rows of each kind (duplicates are fine); codes'
    item keys are ``VERSION:CODE``."""
    listed = {kind: list(rows.get(kind, ())) for kind in KINDS}
    owner: dict[int, int] = {}
    for found in listed.values():
        for key, subject, _, _ in found:
            owner.setdefault(int(key), int(subject))
    keys = np.array(sorted(owner), dtype=np.int64)
    subjects = np.array([owner[int(k)] for k in keys], dtype=np.int64)
    matrices: dict[Kind, sparse.csr_matrix] = {}
    sizes: dict[Kind, IntArray] = {}
    items: dict[Kind, tuple[str, ...]] = {}
    titles: dict[Kind, tuple[str, ...]] = {}
    for kind, found in listed.items():
        titled: dict[str, str] = {}
        for _, _, item, title in found:
            if title or item not in titled:
                titled[item] = title or titled.get(item, "")
        names = sorted(titled)
        column = {name: index for index, name in enumerate(names)}
        row_index = np.searchsorted(keys, np.array([int(r[0]) for r in found], dtype=np.int64))
        cols = np.array([column[r[2]] for r in found], dtype=np.int64)
        matrices[kind] = matrix_from_pairs(row_index, cols, (len(keys), len(names)))
        sizes[kind] = np.diff(matrices[kind].indptr).astype(np.int64)
        items[kind] = tuple(names)
        titles[kind] = tuple(titled[name] for name in names)
    return CodeSets(unit, keys, subjects, matrices, sizes, items, titles, org)


def load_code_sets(
    tables_path: Path,
    *,
    unit: Unit = "patient",
    allowed_depts: frozenset[str] | None = None,
    may_see: MaySee | None = None,
) -> CodeSets:
    """The node's code sets (``NODE/population.duckdb``) from the rows the asker may see."""
    with connect(tables_path) as connection:
        org = meta(connection).get("org", "")
        visible = visible_classes(document_classes(connection), allowed_depts, may_see)
        column = "subject_id" if unit == "patient" else "hadm_id"
        rows: dict[Kind, list[Row]] = {}
        for kind, sql in _SQL.items():
            if not visible:
                rows[kind] = []
                continue
            query = sql.format(unit=column) + f" WHERE class_id IN ({', '.join('?' * len(visible))})"
            query += f" AND {column} IS NOT NULL"
            rows[kind] = [
                (int(a), int(b), str(c), str(d or "")) for a, b, c, d in connection.execute(query, visible).fetchall()
            ]
    return build_code_sets(unit, rows, org)
