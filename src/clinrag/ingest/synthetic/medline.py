"""Synthetic MEDLINE/PubMed XML: citations written to the PubMed DTD from a seed, for tests, the demo
library and benchmarks — no real abstract is copied into the repository.

Each citation studies one treatment for one condition and reports one outcome, so its topic is known: a
structured abstract (BACKGROUND, METHODS, RESULTS, CONCLUSIONS), authors drawn from the cohort's name lists
(sometimes a collective name), a journal, a year from 2000 to 2025 (a few as ``MedlineDate``), publication types
(randomized controlled trials, cohort studies, reviews, meta-analyses), MeSH headings with qualifiers and major
topics, and keywords. `write_medline` returns the `MedlineRecord`s it wrote, so a reader can be checked against
them field by field; an update file adds revised versions and ``DeleteCitation``.

Example:
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "base.xml"
    >>> written = write_medline(out, synthetic_records(3, seed=1))
    >>> len(written), out.read_text().startswith("<?xml")
    (3, True)
"""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from xml.sax.saxutils import escape, quoteattr

from clinrag.ingest.medline import AbstractSection, Author, MedlineRecord, MeshHeading

FIRST_PMID: Final = 30_000_000
_MONTHS: Final = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@dataclass(frozen=True)
class Topic:
    """A condition with its MeSH descriptor and the treatments and outcomes studied for it."""

    condition: str
    mesh: str
    ui: str
    treatments: tuple[str, ...]
    outcomes: tuple[str, ...]


TOPICS: Final = (
    Topic(
        "atrial fibrillation",
        "Atrial Fibrillation",
        "D001281",
        ("apixaban", "warfarin", "rivaroxaban", "catheter ablation", "amiodarone"),
        ("stroke", "major bleeding", "all-cause mortality"),
    ),
    Topic(
        "heart failure",
        "Heart Failure",
        "D006333",
        ("sacubitril-valsartan", "empagliflozin", "dapagliflozin", "spironolactone", "carvedilol"),
        ("hospitalisation for heart failure", "cardiovascular death"),
    ),
    Topic(
        "type 2 diabetes",
        "Diabetes Mellitus, Type 2",
        "D003924",
        ("metformin", "semaglutide", "insulin glargine", "empagliflozin", "sitagliptin"),
        ("HbA1c", "major adverse cardiovascular events", "weight loss"),
    ),
    Topic(
        "community-acquired pneumonia",
        "Pneumonia",
        "D011014",
        ("ceftriaxone", "azithromycin", "levofloxacin", "hydrocortisone", "amoxicillin"),
        ("30-day mortality", "clinical cure", "length of stay"),
    ),
    Topic(
        "ischaemic stroke",
        "Ischemic Stroke",
        "D000083242",
        ("alteplase", "tenecteplase", "thrombectomy", "aspirin", "clopidogrel"),
        ("functional independence", "symptomatic haemorrhage", "recurrent stroke"),
    ),
    Topic(
        "hip fracture",
        "Hip Fractures",
        "D006620",
        ("early surgery", "tranexamic acid", "nerve block", "orthogeriatric care", "enoxaparin"),
        ("delirium", "one-year mortality", "return to mobility"),
    ),
    Topic(
        "sepsis",
        "Sepsis",
        "D018805",
        ("balanced crystalloids", "norepinephrine", "hydrocortisone", "procalcitonin-guided therapy", "vasopressin"),
        ("28-day mortality", "acute kidney injury"),
    ),
    Topic(
        "chronic kidney disease",
        "Renal Insufficiency, Chronic",
        "D051436",
        ("dapagliflozin", "finerenone", "ramipril", "losartan", "sodium bicarbonate"),
        ("eGFR decline", "end-stage kidney disease"),
    ),
    Topic(
        "alcohol withdrawal",
        "Alcohol Withdrawal Delirium",
        "D000430",
        ("lorazepam", "phenobarbital", "chlordiazepoxide", "gabapentin", "thiamine"),
        ("seizures", "ICU admission", "length of stay"),
    ),
    Topic(
        "COPD exacerbation",
        "Pulmonary Disease, Chronic Obstructive",
        "D029424",
        ("prednisone", "doxycycline", "noninvasive ventilation", "tiotropium", "roflumilast"),
        ("treatment failure", "readmission"),
    ),
)
JOURNALS: Final = (
    ("The New England Journal of Medicine", "N Engl J Med", "0028-4793"),
    ("Lancet (London, England)", "Lancet", "0140-6736"),
    ("JAMA", "JAMA", "0098-7484"),
    ("BMJ (Clinical research ed.)", "BMJ", "0959-8138"),
    ("Annals of internal medicine", "Ann Intern Med", "0003-4819"),
    ("Circulation", "Circulation", "0009-7322"),
    ("Stroke", "Stroke", "0039-2499"),
    ("Critical care medicine", "Crit Care Med", "0090-3493"),
    ("Diabetes care", "Diabetes Care", "0149-5992"),
    ("Chest", "Chest", "0012-3692"),
)
DESIGNS: Final = (
    ("Randomized Controlled Trial", "a randomised controlled trial", "D016449"),
    ("Observational Study", "a prospective cohort study", "D064888"),
    ("Meta-Analysis", "a meta-analysis of randomised trials", "D017418"),
    ("Review", "a systematic review", "D016454"),
)
_QUALIFIERS: Final = (
    ("drug therapy", "Q000188"),
    ("therapy", "Q000628"),
    ("mortality", "Q000401"),
    ("prevention & control", "Q000517"),
    ("epidemiology", "Q000453"),
)
_COLLECTIVES: Final = ("the {c} Trial Investigators", "{c} Collaborative Group", "the {c} Study Group")


def _names() -> dict[str, list[str]]:
    loaded: dict[str, list[str]] = json.loads((Path(__file__).parent / "names.json").read_text())
    return loaded


def _authors(rng: random.Random, names: dict[str, list[str]], topic: Topic) -> tuple[Author, ...]:
    authors = []
    for _ in range(rng.randint(1, 6)):
        first = rng.choice(names[rng.choice(("female", "male"))])
        second = rng.choice(names["female"] + names["male"]) if rng.random() < 0.3 else ""
        fore = f"{first} {second[0]}" if second else first
        initials = first[0] + (second[0] if second else "")
        affiliation = f"Department of Medicine, {rng.choice(names['surname'])} University Hospital."
        authors.append(
            Author(last=rng.choice(names["surname"]), fore=fore, initials=initials, affiliations=(affiliation,))
        )
    if rng.random() < 0.1:
        name = rng.choice(_COLLECTIVES).format(c=topic.condition.split()[0].upper())
        authors.append(Author(collective=name))
    return tuple(authors)


def _record(index: int, rng: random.Random, names: dict[str, list[str]]) -> MedlineRecord:
    topic = rng.choice(TOPICS)
    treatment, comparator = rng.sample(topic.treatments, 2)
    outcome = rng.choice(topic.outcomes)
    design, design_words, _ = rng.choice(DESIGNS)
    journal, abbrev, issn = rng.choice(JOURNALS)
    patients = rng.randrange(120, 9000, 10)
    ratio = round(rng.uniform(0.55, 1.15), 2)
    better = ratio < 0.9
    title = (
        f"{treatment[0].upper() + treatment[1:]} versus {comparator} for {outcome} in "
        f"{topic.condition}: {design_words}."
    )
    abstract = (
        AbstractSection(
            label="BACKGROUND",
            category="BACKGROUND",
            text=f"Whether {treatment} reduces {outcome} in patients with {topic.condition} compared "
            f"with {comparator} is uncertain.",
        ),
        AbstractSection(
            label="METHODS",
            category="METHODS",
            text=f"In {design_words}, {patients} adults with {topic.condition} received {treatment} or "
            f"{comparator}. The primary outcome was {outcome}.",
        ),
        AbstractSection(
            label="RESULTS",
            category="RESULTS",
            text=f"The hazard ratio for {outcome} with {treatment} was {ratio:.2f} "
            f"(95% CI {ratio - 0.12:.2f} to {ratio + 0.14:.2f}).",
        ),
        AbstractSection(
            label="CONCLUSIONS",
            category="CONCLUSIONS",
            text=(
                f"{treatment[0].upper() + treatment[1:]} lowered {outcome} compared with {comparator}."
                if better
                else f"{treatment[0].upper() + treatment[1:]} did not lower {outcome} compared with {comparator}."
            ),
        ),
    )
    qualifier = rng.choice(_QUALIFIERS)
    mesh = (
        MeshHeading(descriptor=topic.mesh, ui=topic.ui, major=True, qualifiers=((qualifier[0], qualifier[1], True),)),
        MeshHeading(descriptor="Humans", ui="D006801"),
        MeshHeading(descriptor=rng.choice(("Aged", "Middle Aged", "Adult")), ui="D000368"),
    )
    year = rng.randint(2000, 2025)
    return MedlineRecord(
        pmid=FIRST_PMID + index,
        doi=f"10.5555/clinrag.{FIRST_PMID + index}",
        title=title,
        abstract=abstract,
        authors=_authors(rng, names, topic),
        journal=journal,
        journal_abbrev=abbrev,
        issn=issn,
        volume=str(rng.randint(1, 400)),
        issue=str(rng.randint(1, 24)),
        pages=f"{(start := rng.randint(1, 2000))}-{start + rng.randint(4, 14)}",
        languages=("eng",),
        year=year,
        month=rng.randint(1, 12),
        publication_types=("Journal Article", design),
        mesh=mesh,
        keywords=(topic.condition, treatment, outcome),
    )


def synthetic_records(count: int, seed: int = 0, start: int = 0) -> list[MedlineRecord]:
    """``count`` citations with PMIDs from ``FIRST_PMID + start``, deterministic for ``seed``."""
    names = _names()
    return [_record(start + i, random.Random(f"{seed}:{start + i}"), names) for i in range(count)]


def _element(name: str, text: str, **attributes: str) -> str:
    attrs = "".join(f" {key}={quoteattr(value)}" for key, value in attributes.items())
    return f"<{name}{attrs}>{escape(text)}</{name}>"


def article_xml(record: MedlineRecord, medline_date: bool = False) -> str:
    """One ``<PubmedArticle>`` for ``record`` (``medline_date``: the date as a ``MedlineDate`` range)."""
    if medline_date and record.year is not None:
        date = _element("MedlineDate", f"{record.year} {_MONTHS[(record.month or 1) - 1]}-{record.year + 1} Jan")
    else:
        date = _element("Year", str(record.year)) + (
            _element("Month", _MONTHS[record.month - 1]) if record.month else ""
        )
    authors = "".join(
        '<Author ValidYN="Y">'
        + (
            _element("CollectiveName", a.collective)
            if a.collective
            else _element("LastName", a.last) + _element("ForeName", a.fore) + _element("Initials", a.initials)
        )
        + "".join(f"<AffiliationInfo>{_element('Affiliation', x)}</AffiliationInfo>" for x in a.affiliations)
        + "</Author>"
        for a in record.authors
    )
    abstract = "".join(_element("AbstractText", s.text, Label=s.label, NlmCategory=s.category) for s in record.abstract)
    mesh = "".join(
        "<MeshHeading>"
        + _element("DescriptorName", m.descriptor, UI=m.ui, MajorTopicYN="Y" if m.major else "N")
        + "".join(
            _element("QualifierName", q, UI=ui, MajorTopicYN="Y" if major else "N") for q, ui, major in m.qualifiers
        )
        + "</MeshHeading>"
        for m in record.mesh
    )
    return (
        f'<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM">'
        f"{_element('PMID', str(record.pmid), Version=str(record.version))}"
        f'<Article PubModel="Print"><Journal>{_element("ISSN", record.issn, IssnType="Print")}'
        f'<JournalIssue CitedMedium="Print">{_element("Volume", record.volume)}{_element("Issue", record.issue)}'
        f"<PubDate>{date}</PubDate></JournalIssue>{_element('Title', record.journal)}"
        f"{_element('ISOAbbreviation', record.journal_abbrev)}</Journal>"
        f"{_element('ArticleTitle', record.title)}<Pagination>{_element('MedlinePgn', record.pages)}</Pagination>"
        f"{_element('ELocationID', record.doi, EIdType='doi', ValidYN='Y')}"
        f'<Abstract>{abstract}</Abstract><AuthorList CompleteYN="Y">{authors}</AuthorList>'
        + "".join(_element("Language", x) for x in record.languages)
        + "<PublicationTypeList>"
        + "".join(_element("PublicationType", x, UI="D016428") for x in record.publication_types)
        + "</PublicationTypeList></Article>"
        f'<MeshHeadingList>{mesh}</MeshHeadingList><KeywordList Owner="NOTNLM">'
        + "".join(_element("Keyword", k, MajorTopicYN="N") for k in record.keywords)
        + "</KeywordList></MedlineCitation><PubmedData><ArticleIdList>"
        f"{_element('ArticleId', str(record.pmid), IdType='pubmed')}{_element('ArticleId', record.doi, IdType='doi')}"
        "</ArticleIdList></PubmedData></PubmedArticle>\n"
    )


HEADER: Final = (
    '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, '
    '1st January 2025//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">\n<PubmedArticleSet>\n'
)


def write_medline(
    path: Path, records: Sequence[MedlineRecord], deleted: Iterable[int] = (), medline_dates: int = 7
) -> list[MedlineRecord]:
    """Write ``records`` (and a ``DeleteCitation`` of ``deleted``) as one MEDLINE XML file, gzipped when ``path``
    ends in ``.gz``; every ``medline_dates``-th record dates itself as a ``MedlineDate``. Returns the records."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", encoding="utf-8") as out:
        out.write(HEADER)
        for index, record in enumerate(records):
            out.write(
                article_xml(record, medline_date=medline_dates > 0 and index % medline_dates == medline_dates - 1)
            )
        pmids = list(deleted)
        if pmids:
            out.write(
                "<DeleteCitation>"
                + "".join(_element("PMID", str(p), Version="1") for p in pmids)
                + "</DeleteCitation>\n"
            )
        out.write("</PubmedArticleSet>\n")
    return list(records)
