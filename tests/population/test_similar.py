"""Similar patients at one node (issue 18): every score equals a plain pairwise computation over Python sets built
from the generated CSVs (tests/population/truth.py, independent of the population tables), for several weights, the
presets, the 10x size rule, a minimum score, self-exclusion and restricted visibility; and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinrag.app.cli import app
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.mimic import IngestReport, read_patients
from clinrag.population.similar import SimilarityError, Weights, find_similar, rank_similar
from clinrag.population.similar_sets import KINDS, build_code_sets
from clinrag.population.tables import materialise

from .truth import Truth

Sets = dict[str, set[str]]
WEIGHTS = [Weights(), Weights(1, 0, 0), Weights(0, 1, 0), Weights(0, 0, 1), Weights(0.5, 2, 0.25)]
runner = CliRunner()


@pytest.fixture(scope="module")
def node(cohort: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Hospital A's population tables and patient registry in a node folder."""
    folder = tmp_path_factory.mktemp("similar-node")
    materialise(cohort / "hospitals" / "A", folder / "population.duckdb")
    with ChunkStore.open(folder / "chunks.sqlite") as store:
        store.put_patients(read_patients(cohort / "hospitals" / "A", IngestReport()))
        store.commit()
    return folder


@pytest.fixture(scope="module")
def truth(cohort: Path) -> Truth:
    return Truth(cohort / "hospitals" / "A")


def _sets(truth: Truth, depts: set[str] | None = None) -> dict[int, Sets]:
    """Each patient's sets from the stays of the departments ``depts`` (None: all); codes are ICD-10 here."""
    found: dict[int, Sets] = {}
    for stay in truth.stays.values():
        if depts is not None and stay.dept not in depts:
            continue
        sets = found.setdefault(stay.subject, {"dx": set(), "med": set(), "proc": set()})
        sets["dx"].update(code for _, code in stay.diagnoses)
        sets["med"].update(stay.drugs)
        sets["proc"].update(stay.procedures)
    return found


def _pairwise(
    patients: dict[int, Sets], query: int, weights: Weights, ratio: float | None = 10.0, min_score: float = 0.0
) -> dict[int, float]:
    """The straightforward computation: a loop over every other patient and Python set operations."""
    scores = {}
    for other, sets in patients.items():
        if other == query:
            continue
        score = 0.0
        for kind in KINDS:
            a, b = patients[query][kind], sets[kind]
            inter, union = len(a & b), len(a | b)
            j = inter / union if union else 0.0
            small, big = min(len(a), len(b)), max(len(a), len(b))
            if ratio is not None and big > ratio * small and inter < small:
                j = 0.0
            score += weights.of(kind) * j
        if score > 0 and score >= min_score:
            scores[other] = score
    return scores


def _queries(patients: dict[int, Sets]) -> list[int]:
    ids = sorted(p for p, s in patients.items() if any(s.values()))
    return ids[:: max(1, len(ids) // 8)]


def _found(node: Path, query: int, **options: object) -> dict[int, float]:
    result = find_similar(node / "population.duckdb", query, k=10_000, **options)  # type: ignore[arg-type]
    return {m.subject_id: m.score for m in result.matches}


@pytest.mark.parametrize("weights", WEIGHTS, ids=str)
def test_scores_equal_pairwise_sets(node: Path, truth: Truth, weights: Weights) -> None:
    patients = _sets(truth)
    for query in _queries(patients):
        expected = _pairwise(patients, query, weights)
        found = _found(node, query, weights=weights)
        assert found.keys() == expected.keys()
        assert all(found[p] == pytest.approx(expected[p], abs=1e-9) for p in expected)
        assert query not in found


def test_ranking_order_and_k(node: Path, truth: Truth) -> None:
    patients = _sets(truth)
    query = _queries(patients)[0]
    expected = sorted(_pairwise(patients, query, Weights()).items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    result = find_similar(node / "population.duckdb", query, k=5)
    assert [(m.subject_id, pytest.approx(m.score)) for m in result.matches] == expected
    top = result.matches[0]
    assert {s.code for s in top.shared["dx"]} == patients[query]["dx"] & patients[top.subject_id]["dx"]
    assert {s.code for s in top.shared["med"]} == patients[query]["med"] & patients[top.subject_id]["med"]
    assert all(s.title for s in top.shared["dx"])


def test_presets_are_the_published_weights() -> None:
    third = 1 / 3
    assert Weights.preset("uniform") == Weights(third, third, third) == Weights()
    assert Weights.preset("task-focused") == Weights(1, 0, 0)
    assert Weights.preset("complementary") == Weights(0, 1, 1)
    assert Weights.preset("task-focused", task="med") == Weights(0, 1, 0)
    assert Weights.preset("complementary", task="proc") == Weights(1, 1, 0)
    with pytest.raises(SimilarityError):
        Weights.preset("balanced")


@pytest.mark.parametrize("text", ["0,0,0", "1,-1,1", "1,2", "a,b,c", "nan,1,1"])
def test_bad_weights(text: str) -> None:
    with pytest.raises(SimilarityError):
        Weights.parse(text)


def test_size_rule_and_min_score(node: Path, truth: Truth) -> None:
    filler = [(2, 2, f"c{i}", "") for i in range(20)]
    sets = build_code_sets(
        "patient",
        {
            "dx": [(1, 1, "a", ""), (1, 1, "b", ""), (2, 2, "a", ""), *filler, (3, 3, "a", ""), (3, 3, "b", "")]
            + [(3, 3, f"c{i}", "") for i in range(19)]
        },
    )
    ruled = {m.subject_id: m.score for m in rank_similar(sets, 1, weights=Weights(1, 0, 0))}
    assert ruled == {3: pytest.approx(2 / 21)}  # 2 vs 21 items: kept only when the small set lies inside
    unruled = {m.subject_id: m.score for m in rank_similar(sets, 1, weights=Weights(1, 0, 0), max_ratio=None)}
    assert unruled == {2: pytest.approx(1 / 22), 3: pytest.approx(2 / 21)}
    patients = _sets(truth)
    for query in _queries(patients)[:3]:
        assert _found(node, query, max_ratio=None) == pytest.approx(_pairwise(patients, query, Weights(), None))
        expected = _pairwise(patients, query, Weights(), min_score=0.2)
        assert _found(node, query, min_score=0.2) == pytest.approx(expected)
        assert all(score >= 0.2 for score in expected.values())


def test_restricted_visibility_changes_the_sets(node: Path, truth: Truth) -> None:
    depts = {"medicine"}
    patients = _sets(truth, depts)
    everyone = _sets(truth)
    assert patients != {p: s for p, s in everyone.items() if p in patients}  # the restriction matters here
    for query in _queries(patients):
        found = _found(node, query, allowed_depts=frozenset(depts))
        assert found == pytest.approx(_pairwise(patients, query, Weights()))
    hidden = next(p for p in everyone if p not in patients)
    with pytest.raises(SimilarityError, match="no codes you may see"):
        find_similar(node / "population.duckdb", hidden, allowed_depts=frozenset(depts))


def test_per_admission_excludes_the_patients_own_admissions(node: Path, truth: Truth) -> None:
    subject = next(
        s
        for s in {st.subject for st in truth.stays.values()}
        if sum(st.subject == s for st in truth.stays.values()) > 1
    )
    result = find_similar(node / "population.duckdb", subject, unit="admission", k=50)
    assert result.hadm_id == max(st.hadm for st in truth.stays.values() if st.subject == subject)
    assert result.matches
    assert all(m.subject_id != subject and m.hadm_id is not None for m in result.matches)


def test_k_must_be_positive(node: Path, truth: Truth) -> None:
    with pytest.raises(SimilarityError):
        find_similar(node / "population.duckdb", _queries(_sets(truth))[0], k=0)


def test_cli_by_id_and_by_name(node: Path, truth: Truth) -> None:
    patients = _sets(truth)
    query = _queries(patients)[1]
    by_id = runner.invoke(app, ["similar", str(query), "--node", str(node), "-k", "3", "--json"])
    assert by_id.exit_code == 0, by_id.output
    rows = json.loads(by_id.output)
    expected = sorted(_pairwise(patients, query, Weights()).items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    assert [(r["subject_id"], pytest.approx(r["score"], abs=1e-6)) for r in rows] == expected
    assert set(rows[0]) == {"org", "subject_id", "score", "jaccard", "shared"}
    assert rows[0]["org"] == "A"
    assert set(rows[0]["shared"]) == {"dx", "med", "proc"}
    with ChunkStore.open(node / "chunks.sqlite") as store:
        name = dict(store.patients())[query]
    assert name
    by_name = runner.invoke(app, ["similar", name.upper(), "--node", str(node), "-k", "3", "--json"])
    assert by_name.exit_code == 0
    assert json.loads(by_name.output) == rows
    table = runner.invoke(app, ["similar", name, "--node", str(node), "--preset", "task-focused"])
    assert table.exit_code == 0
    assert name in table.output
    assert "λ dx 1.00" in table.output


@pytest.mark.parametrize(
    "args",
    [["Nobody Anywhere"], ["Q", "-k", "0"], ["Q", "--weights", "0,0,0"], ["Q", "--preset", "x"], ["999"]],
)
def test_cli_bad_input_exits_2(node: Path, truth: Truth, args: list[str]) -> None:
    query = str(_queries(_sets(truth))[0])
    result = runner.invoke(app, ["similar", *(query if a == "Q" else a for a in args), "--node", str(node)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert "error:" in result.output


def test_cli_surname_alone_names_the_choices(node: Path) -> None:
    with ChunkStore.open(node / "chunks.sqlite") as store:
        name = next(n for _, n in store.patients() if n)
    result = runner.invoke(app, ["similar", name.split()[-1], "--node", str(node)])
    assert result.exit_code == 2
    assert "did you mean" in result.output
    assert name in result.output


def test_help_has_an_example() -> None:
    result = runner.invoke(app, ["similar", "--help"])
    assert result.exit_code == 0
    assert "clinrag similar" in result.output
