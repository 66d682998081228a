"""Synthetic MEDLINE/PubMed XML: citations written to the PubMed DTD from a seed, for tests, the demo
library and benchmarks — no real abstract is copied into the repository.

Each citation studies one treatment for one condition and reports one outcome, so its topic is known: a
structured abstract (BACKGROUND, METHODS, RESULTS, CONCLUSIONS), authors drawn from the cohort's name lists
(sometimes a collective name), a journal, a year from 2000 to 2025 (a few as ``MedlineDate``), publication types
(randomized controlled trials, cohort studies, reviews, meta-analyses), MeSH headings with qualifiers and major
topics, and keywords. `write_medline` returns the `MedlineRecord`s it wrote, so a reader can be checked against
them field by field; an update file adds revised versions and ``DeleteCitation``.

The topics, journals, designs, MeSH qualifiers and collective names citations are drawn from are data,
``medline.toml`` beside this module, checked against :class:`CitationContent` when the module is imported.

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
import tomllib
from collections.abc import Iterable, Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Final
from xml.sax.saxutils import escape, quoteattr

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.dataclasses import dataclass

from clinrag.errors import ConfigError
from clinrag.ingest.medline import AbstractSection, Author, MedlineRecord, MeshHeading

FIRST_PMID: Final = 30_000_000
_MONTHS: Final = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


_SCHEMA = ConfigDict(extra="forbid")
"""Every class below rejects a field it does not know, so a misspelt field name is reported, not ignored."""


@dataclass(frozen=True, config=_SCHEMA)
class Topic:
    """A condition with its MeSH descriptor and the treatments and outcomes studied for it."""

    condition: str
    mesh: str
    ui: str
    treatments: tuple[str, ...] = Field(min_length=2)
    outcomes: tuple[str, ...] = Field(min_length=1)


@dataclass(frozen=True, config=_SCHEMA)
class Journal:
    """A journal a citation appears in: its title, ISO abbreviation and print ISSN."""

    title: str
    abbreviation: str
    issn: str


@dataclass(frozen=True, config=_SCHEMA)
class Design:
    """A study design: its MEDLINE publication type, the words the abstract names it by, and the type's UI."""

    publication_type: str
    words: str
    ui: str


@dataclass(frozen=True, config=_SCHEMA)
class Qualifier:
    """A MeSH qualifier of the topic's heading."""

    name: str
    ui: str


@dataclass(frozen=True, config=_SCHEMA)
class CitationContent:
    """What the synthetic citations are drawn from (``medline.toml``, beside this module), each in listed order."""

    topics: tuple[Topic, ...] = Field(min_length=1)
    journals: tuple[Journal, ...] = Field(min_length=1)
    designs: tuple[Design, ...] = Field(min_length=1)
    qualifiers: tuple[Qualifier, ...] = Field(min_length=1)
    collectives: tuple[str, ...] = Field(min_length=1)
    """Collective author names; ``{c}`` is the first word of the topic's condition, in capitals."""


def load_content(file: Traversable) -> CitationContent:
    """The citation content of a TOML ``file``, checked against :class:`CitationContent`.

    Raises :class:`~clinrag.errors.ConfigError` listing every problem (file, field, what).

    Example:
        >>> content = load_content(resources.files("clinrag.ingest.synthetic") / "medline.toml")
        >>> content.topics[0].condition, len(content.journals)
        ('atrial fibrillation', 10)
    """
    try:
        return TypeAdapter(CitationContent).validate_python(tomllib.loads(file.read_text(encoding="utf-8")))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{file.name}: not valid TOML: {error}") from None
    except ValidationError as error:
        problems = [f"  {file.name}: {'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors()]
        raise ConfigError("invalid citation content:\n" + "\n".join(problems)) from None


CONTENT: Final = load_content(resources.files("clinrag.ingest.synthetic") / "medline.toml")
TOPICS: Final = CONTENT.topics


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
        name = rng.choice(CONTENT.collectives).format(c=topic.condition.split()[0].upper())
        authors.append(Author(collective=name))
    return tuple(authors)


def _record(index: int, rng: random.Random, names: dict[str, list[str]]) -> MedlineRecord:
    topic = rng.choice(TOPICS)
    treatment, comparator = rng.sample(topic.treatments, 2)
    outcome = rng.choice(topic.outcomes)
    design = rng.choice(CONTENT.designs)
    journal = rng.choice(CONTENT.journals)
    patients = rng.randrange(120, 9000, 10)
    ratio = round(rng.uniform(0.55, 1.15), 2)
    better = ratio < 0.9
    title = (
        f"{treatment[0].upper() + treatment[1:]} versus {comparator} for {outcome} in "
        f"{topic.condition}: {design.words}."
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
            text=f"In {design.words}, {patients} adults with {topic.condition} received {treatment} or "
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
    qualifier = rng.choice(CONTENT.qualifiers)
    mesh = (
        MeshHeading(descriptor=topic.mesh, ui=topic.ui, major=True, qualifiers=((qualifier.name, qualifier.ui, True),)),
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
        journal=journal.title,
        journal_abbrev=journal.abbreviation,
        issn=journal.issn,
        volume=str(rng.randint(1, 400)),
        issue=str(rng.randint(1, 24)),
        pages=f"{(start := rng.randint(1, 2000))}-{start + rng.randint(4, 14)}",
        languages=("eng",),
        year=year,
        month=rng.randint(1, 12),
        publication_types=("Journal Article", design.publication_type),
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
