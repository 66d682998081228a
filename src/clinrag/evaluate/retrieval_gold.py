"""What the retrieval benchmark judges against: the synthetic cohort's gold facts, the questions asked about them,
and which chunks state them (the qrels).

The generator records which note and section states every fact (diagnosis, medication, procedure, complication,
finding, allergy, social history), with character offsets. A chunk is relevant to a question when it belongs to a
gold fact's note, has the fact's section, and its text contains the fact's text (whitespace-normalised).

The judgments are as complete as the gold facts, no more: a chunk that mentions a fact the generator did not record
there (a discharge drug named again in the Discharge Instructions, a home drug in the Brief Hospital Course's chronic
issues) counts as not relevant, which lowers MRR and nDCG a little and can push a relevant chunk out of the top k.

Example:
    >>> fact = GoldFact("1", 7, "Allergies", "allergy", "Codeine", "Codeine", "Codeine")
    >>> question = Question("single_patient-000", "single_patient", "allergies", "Is Ada allergic?", (fact,), (7,))
    >>> chunk = Chunk.create(source_id="note:1", text="Allergies:  Codeine", org="A", dept="d", note_id="1",
    ...                      section="Allergies")
    >>> ChunkLookup([chunk]).qrels([question]) == {"single_patient-000": {chunk.chunk_id}}
    True
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Final, Literal, get_args

from clinrag.ingest.mimic import IngestReport, read_admissions, read_notes, read_patients
from clinrag.ingest.synthetic.cohort import FULL
from clinrag.types import Chunk

QuestionKind = Literal["single_patient", "single_note", "multi_patient"]
KINDS: Final[tuple[QuestionKind, ...]] = get_args(QuestionKind)
K: Final = 10
"""The ranking depth the benchmark judges (recall@10, MRR@10, nDCG@10) and a multi-patient question's most gold
chunks."""
GOLD_FILE: Final = "gold_facts.jsonl"


def normalise_space(text: str) -> str:
    """Collapse every run of whitespace to one space and strip the ends.

    Example:
        >>> normalise_space(" CT A/P: no renal vein\\ninvolvement; ")
        'CT A/P: no renal vein involvement;'
    """
    return " ".join(text.split())


@dataclass(frozen=True)
class GoldFact:
    """One fact of ``gold_facts.jsonl`` with its text as the note writes it (whitespace-normalised)."""

    note_id: str
    subject_id: int
    section: str
    kind: str
    value: str
    label: str
    text: str
    history: bool = False
    noise: bool = False


@dataclass(frozen=True)
class Stay:
    """A discharge note and the admission it summarises."""

    note_id: str
    subject_id: int
    admitted: datetime | None
    discharged: datetime | None


@dataclass(frozen=True)
class Cohort:
    """What question writing needs from a synthetic cohort: names, stays and located facts.

    Example:
        >>> import tempfile
        >>> from clinrag.ingest.synthetic.cohort import generate_cohort
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = generate_cohort(folder, patients=10, seed=1, workers=1)
        >>> cohort = Cohort.load(folder)
        >>> len(cohort.names), all(fact.text for fact in cohort.facts)
        (10, True)
    """

    names: Mapping[int, str]
    stays: Mapping[str, Stay]
    facts: tuple[GoldFact, ...]

    @classmethod
    def load(cls, folder: Path) -> Cohort:
        """Read ``folder/full`` (patients, admissions, notes) and ``folder/gold_facts.jsonl``."""
        full, report = folder / FULL, IngestReport()
        names = {p.subject_id: p.name for p in read_patients(full, report) if p.name}
        admissions = {a.hadm_id: a for a in read_admissions(full, report)}
        raw: dict[str, list[dict[str, Any]]] = defaultdict(list)
        with (folder / GOLD_FILE).open() as handle:
            for line in handle:
                record = json.loads(line)
                raw[record["note_id"]].append(record)
        stays: dict[str, Stay] = {}
        facts: list[GoldFact] = []
        for note in read_notes(full, report):
            admission = admissions.get(note.hadm_id) if note.hadm_id is not None else None
            stays[note.note_id] = Stay(
                note_id=note.note_id,
                subject_id=note.subject_id,
                admitted=admission.admittime if admission else None,
                discharged=admission.dischtime if admission and admission.dischtime else note.charttime,
            )
            facts.extend(
                GoldFact(
                    note_id=note.note_id,
                    subject_id=note.subject_id,
                    section=str(r["section"]),
                    kind=str(r["kind"]),
                    value=str(r["value"]),
                    label=str(r.get("label", "")),
                    text=normalise_space(note.text[int(r["start"]) : int(r["end"])]),
                    history=bool(r.get("history", False)),
                    noise=bool(r.get("noise", False)),
                )
                for r in raw.get(note.note_id, ())
            )
        return cls(names=names, stays=stays, facts=tuple(facts))


@dataclass(frozen=True)
class Question:
    """A benchmark question: its text, what it asks about, and the gold facts that answer it."""

    qid: str
    kind: QuestionKind
    aspect: str
    text: str
    gold: tuple[GoldFact, ...]
    named_subjects: tuple[int, ...] = ()
    note_id: str | None = None

    def to_json(self) -> dict[str, object]:
        """A JSON-ready summary (gold as note/section/text triples)."""
        return {
            "qid": self.qid,
            "kind": self.kind,
            "aspect": self.aspect,
            "text": self.text,
            "named_subjects": list(self.named_subjects),
            "note_id": self.note_id,
            "gold": [{"note_id": f.note_id, "section": f.section, "text": f.text} for f in self.gold],
        }


class ChunkLookup:
    """Note chunks by (note id, section), to find the chunks that state a fact.

    Example:
        >>> chunk = Chunk.create(source_id="note:1", text="Allergies: Codeine", org="A", dept="d", note_id="1",
        ...                      section="Allergies")
        >>> fact = GoldFact("1", 7, "Allergies", "allergy", "Codeine", "Codeine", "Codeine")
        >>> ChunkLookup([chunk]).relevant([fact]) == {chunk.chunk_id}
        True
    """

    def __init__(self, chunks: Iterable[Chunk]) -> None:
        self._places: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
        self.texts: dict[str, str] = {}
        for chunk in chunks:
            if chunk.note_id is None or chunk.section is None:
                continue
            self._places[chunk.note_id, chunk.section].append((chunk.chunk_id, normalise_space(chunk.text)))
            self.texts[chunk.chunk_id] = chunk.text

    def relevant(self, facts: Iterable[GoldFact]) -> frozenset[str]:
        """Ids of the chunks of each fact's note and section whose text contains the fact's text."""
        return frozenset(
            chunk_id
            for fact in facts
            for chunk_id, text in self._places.get((fact.note_id, fact.section), ())
            if fact.text in text
        )

    def passages(self, chunk_ids: Iterable[str]) -> list[str]:
        """The texts of ``chunk_ids``, in id order."""
        return [self.texts[chunk_id] for chunk_id in sorted(chunk_ids)]

    def qrels(self, questions: Iterable[Question]) -> dict[str, frozenset[str]]:
        """The relevant chunk ids of every question, by question id."""
        return {question.qid: self.relevant(question.gold) for question in questions}
