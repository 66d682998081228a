"""Calculator inputs from a named patient's records (issue 19), over the running federation: read only from what the
asker may retrieve, each cited, a relative's condition never taken for the patient's, nothing guessed."""

from __future__ import annotations

from clinrag.calculators.registry import registry
from clinrag.federation.root import FederatedSearcher, FederationRoot
from clinrag.generate.calculation import RECORD_PASSAGES, answer_calculation
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.settings import FederationSettings, RetrieveSettings

from ..shared.federation import EMBEDDER, ORGS, Federation


def _only_at(federation: Federation, org: str) -> tuple[int, str]:
    """A patient held by ``org`` alone, with a name no other patient has."""
    holders: dict[int, set[str]] = {}
    names: dict[int, str] = {}
    for each in ORGS:
        with ChunkStore.open(federation.configs[each].data / "chunks.sqlite") as chunks:
            for subject_id, name in chunks.patients():
                holders.setdefault(subject_id, set()).add(each)
                names[subject_id] = name or ""
    counts: dict[str, int] = {}
    for name in names.values():
        counts[name] = counts.get(name, 0) + 1
    return next(
        (sid, names[sid])
        for sid in sorted(holders)
        if holders[sid] == {org} and counts[names[sid]] == 1 and len(names[sid].split()) == 2
    )


def _lookup(federation: Federation, subject: str):  # type: ignore[no-untyped-def]
    root = FederationRoot(federation.orgs, RetrieveSettings(), EMBEDDER.id, FederationSettings(timeout=20))
    searcher = FederatedSearcher(root, federation.token(subject))
    return lambda text: searcher.retrieve(text, None, k=RECORD_PASSAGES).hits


def test_record_inputs_are_cited_and_only_the_patients_own(federation: Federation) -> None:
    subject_id, name = _only_at(federation, "A")
    answer, calc = answer_calculation(
        f"What is the CHA2DS2-VASc score of {name}?", registry()["cha2ds2_vasc"], _lookup(federation, "A.phys")
    )
    stated = [i for i in calc.inputs if i.origin == "stated"]
    assert stated  # age and sex at least: every discharge summary's history states them
    assert {i.name for i in stated} >= {"age", "sex"}
    for used in stated:
        assert used.citation is not None
        assert f"[{used.citation}]" in answer.text
    assert {source.chunk.subject_id for source in answer.sources} == {subject_id}
    assert all((source.chunk.section or "") != "Family History" for source in answer.sources)
    assert calc.value is not None


def test_a_patient_the_asker_may_not_see_gives_no_record_input(federation: Federation) -> None:
    subject_id, name = _only_at(federation, "A")  # C.research may search Hospital C only
    answer, calc = answer_calculation(
        f"What is the CHA2DS2-VASc score of {name}?", registry()["cha2ds2_vasc"], _lookup(federation, "C.research")
    )
    assert subject_id not in {source.chunk.subject_id for source in answer.sources}
    assert "age" in calc.missing
    assert calc.value is None
    assert "nothing was guessed" in answer.text
