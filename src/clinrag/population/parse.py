"""Questions about groups of patients, read into population queries by transparent rules and a vocabulary.

The rules, in the order they read a question (each one that fires is recorded in words in ``rules``):

1. *Cues*: "how many", "number of" → count; "proportion", "percentage", "share" → share; "most common", "top 5",
   "what are the <diagnoses>", "complications after …" → top of what is named; "trend", "per year", "over time"
   → by year; "by hospital", "compare hospitals" → by hospital; "by department" → by department. "more common"
   between values of one field (Medicare or Medicaid) ranks that field among those values; between other things
   (a fall or pain) makes one query per alternative. A plural cohort noun ("patients who…", "admissions with…")
   alone is a cue too (a count). No cue: no query.
2. *Fields*: "Hospital A" (the organisations asked), ages ("over 65"), years ("since 2019"), sex, insurance,
   admission type, services ("cardiology" → ``CMED``; "… department" → the department) from ``terms.toml`` and
   the vocabulary.
3. *Note text*: what a patient reports, presents with or comes in for, and the things no code holds (heavy
   alcohol use, a mechanical fall; ``[text]`` of ``terms.toml``) become text criteria.
4. *Codes and drugs*: the rest is read longest phrase first: a synonym, a drug or drug class, an ICD title.
   Anything clinical left over is reported with its nearest vocabulary entries, and then no query is made.

Before them, the literature's part is set aside (`retrieve.sources`): a question that asks only the literature
("Apixaban versus warfarin in atrial fibrillation?", "What do the trials say …?") is no population question, and of
one that asks both in separate clauses ("How many of our patients with atrial fibrillation are on apixaban, and what
do the trials say about apixaban versus warfarin?") only the other clauses are read.

The unit is admissions when the question speaks of admissions, stays or coming in, else patients.

Example:
    >>> from clinrag.population.vocabulary import Vocabulary
    >>> vocabulary = Vocabulary.build(insurances=["Medicare", "Medicaid", "Other"], organisations=[("A", "Hospital A")])
    >>> reading = parse_question("Is Medicare or Medicaid more common at Hospital A?", vocabulary)
    >>> reading.query.describe(), reading.orgs
    ('top 2 insurances among patients with insurance Medicare or Medicaid', ('A',))
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Final, Literal

from pydantic import ValidationError

from clinrag.population.query import (
    CodeCriterion,
    Criterion,
    Measure,
    MedicationCriterion,
    PopulationQuery,
    RangeCriterion,
    TextCriterion,
    TopOf,
    ValueCriterion,
)
from clinrag.population.vocabulary import Vocabulary, normalise, term_key
from clinrag.retrieve.query import parse_date_range
from clinrag.retrieve.sources import SourceFamily, records_clauses, sources_asked
from clinrag.retrieve.vocabulary import is_thing

CueKind = Literal["count", "share", "top", "compare", "trend", "group", "cohort", "similar"]


@dataclass(frozen=True)
class UnknownTerm:
    """A phrase of the question that maps to nothing in the vocabulary, with its nearest entries."""

    term: str
    nearest: tuple[str, ...]


@dataclass(frozen=True)
class Cue:
    """A phrase that says the question is about a population, and what kind of cue it is."""

    kind: CueKind
    text: str


@dataclass(frozen=True)
class PopulationReading:
    """What :func:`parse_question` made of a question: the query (one per alternative for a comparison), the rules
    that fired, the cues found, the organisations asked about and the terms it could not map."""

    question: str
    queries: tuple[PopulationQuery, ...] = ()
    labels: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    cues: tuple[Cue, ...] = ()
    orgs: tuple[str, ...] = ()
    unknown: tuple[UnknownTerm, ...] = ()

    @property
    def query(self) -> PopulationQuery | None:
        """The query, or the first alternative's; ``None`` when none could be made."""
        return self.queries[0] if self.queries else None

    @property
    def measured(self) -> bool:
        """Whether a cue says what to measure (a count, share, ranking, trend or comparison), not only a cohort."""
        return any(cue.kind not in ("cohort", "similar") for cue in self.cues)

    def describe(self) -> str:
        """The query (or queries) in words, or why there is none.

        Example:
            >>> PopulationReading("Hello").describe()
            'no population query: no population cue'
        """
        if self.queries:
            parts = [
                f"{label}: {query.describe()}" if label else query.describe()
                for label, query in zip(self.labels or ("",) * len(self.queries), self.queries, strict=True)
            ]
            where = f" at {', '.join(self.orgs)}" if self.orgs else ""
            return "; ".join(parts) + where
        if self.unknown:
            unknown = "; ".join(f"'{u.term}' (nearest: {', '.join(u.nearest) or 'none'})" for u in self.unknown)
            return f"no population query: unknown {unknown}"
        return "no population query: " + (self.rules[-1] if self.rules else "no population cue")


# --- cues -----------------------------------------------------------------------------------------------------------

_TOP_NOUNS: Final[tuple[tuple[str, TopOf], ...]] = (
    (
        r"chief complaints?|presenting complaints?|complaints?|reasons? for (?:admission|coming in|presentation)"
        r"|presenting symptoms?|symptoms?|presentations?",
        "chief_complaint",
    ),
    (r"complications?|adverse events?|what goes wrong|problems? after|problems? following", "complication"),
    (r"diagnos[ie]s|conditions?|diseases?|comorbidit(?:y|ies)|illness(?:es)?|problems?", "diagnosis"),
    (r"procedures?|operations?|surger(?:y|ies)|interventions?", "procedure"),
    (r"medications?|drugs?|meds|prescriptions?|medicines?|treatments?", "medication"),
    (r"insurances?|insurers?|payers?|coverage|insurance types?", "insurance"),
    (r"admission types?|types? of admission", "admission_type"),
    (r"departments?|services?|specialt(?:y|ies)|wards?", "dept"),
)
_TOP_NOUN = "|".join(f"(?:{pattern})" for pattern, _ in _TOP_NOUNS)
_NUMBER_WORDS: Final = {"three": 3, "five": 5, "ten": 10, "two": 2, "four": 4, "six": 6, "seven": 7, "twenty": 20}
_N = r"(\d{1,2}|" + "|".join(_NUMBER_WORDS) + ")"

_TOP = re.compile(
    rf"\b(?:(?:the\s+)?{_N}\s+)?(?:most|more)\s+(?:common(?:ly\s+\w+)?|frequent(?:ly\s+\w+)?|prevalent|usual|often)"
    rf"(?:\s+{_N})?|\bcommonest\b|\btop\s*{_N}?\b|\bleading\b|\bmain\b"
    rf"|\b(?:what|which)\s+(?:are|were|is|was)?\s*(?:the\s+)?(?:{_TOP_NOUN})\b"
    rf"|\b(?:{_TOP_NOUN})\s+(?:follow(?:ing|s|ed)?|after)\b|\bwhat\s+happens\s+(?:to|after)\b",
    re.IGNORECASE,
)
_COUNT = re.compile(
    r"\bhow\s+many\b|\bnumber\s+of\b|\bcount\b|\bhow\s+often\b|\bhow\s+frequent(?:ly)?\b|\bfrequency\b"
    r"|\bhow\s+common\b|\bincidence\b",
    re.IGNORECASE,
)
_SHARE = re.compile(
    r"\bproportion\b|\bpercent(?:age)?\b|%|\bshare\b|\bfraction\b|\bwhat\s+rate\b|\brate\s+of\b|\bratio\b",
    re.IGNORECASE,
)
_COMPARE = re.compile(
    r"\bmore\s+(?:common(?:ly)?|frequent(?:ly)?|often|likely|prevalent)\b|\bless\s+(?:common|often|frequent)\b"
    r"|\bversus\b|\bvs\.?(?=\s)|\bcompared?\s+(?:to|with)\b|\bcome\s+in\s+more\b",
    re.IGNORECASE,
)
_TREND = re.compile(
    r"\btrends?\b|\bover\s+(?:time|the\s+years)\b|\bper\s+year\b|\beach\s+year\b|\bby\s+year\b|\byearly\b"
    r"|\bannual(?:ly)?\b|\byear[\s-]+(?:by|on|over)[\s-]+year\b|\bchanged?\s+(?:over|since)\b",
    re.IGNORECASE,
)
_BY_ORG = re.compile(
    r"\b(?:by|per|each|every|across(?:\s+the)?|between(?:\s+the)?|among(?:\s+the)?)\s+hospitals?\b"
    r"|\bcompare\s+(?:the\s+)?hospitals\b|\bwhich\s+hospital\b|\bhospitals?\s+compare\b|\bat\s+each\s+site\b",
    re.IGNORECASE,
)
_BY_DEPT = re.compile(
    r"\b(?:by|per|each|every|across|between)\s+(?:the\s+)?departments?\b|\bwhich\s+department\b",
    re.IGNORECASE,
)
_COHORT = re.compile(
    r"\b(?:patients|people|admissions|stays|cases|hospitali[sz]ations|encounters|visits|those|women|men|adults"
    r"|individuals|subjects|cohort)\b",
    re.IGNORECASE,
)
_SIMILAR = re.compile(
    r"\b(?:patients|people|cases)\s+(?:like|similar\s+to)\b|\bsimilar\s+(?:patients|cases)\b"
    r"|\bwhat\s+happens\s+to\s+(?:patients|people)\b|\bhow\s+do\s+(?:patients|people)\s+(?:like|with)\b",
    re.IGNORECASE,
)
_ADMISSION_UNIT = re.compile(
    r"\b(?:admissions?|stays?|hospitali[sz]ations?|encounters?|visits?|episodes?|readmissions?|come\s+in|came\s+in"
    r"|coming\s+in|presentations?)\b",
    re.IGNORECASE,
)


# --- fields ---------------------------------------------------------------------------------------------------------

_ORG = re.compile(r"\b(?:hospital|site|org(?:anisation|anization)?)\s+([A-Z])\b", re.IGNORECASE)
_AGE = re.compile(
    r"\b(?:aged?\s+|age\s+)?(?P<op>over|above|older\s+than|more\s+than|greater\s+than|at\s+least|under|below"
    r"|younger\s+than|less\s+than|between|from)\s+(?:the\s+age\s+of\s+)?(?P<low>\d{1,3})"
    r"(?:\s*(?:and|to|-|–)\s*(?P<high>\d{1,3}))?(?:\s*(?:years?(?:\s+old)?|yo|y/o))?"
    r"|\b(?P<plus>\d{1,3})\s*(?:\+|(?:years?\s+)?(?:and|or)\s+(?:over|older|above))"
    r"|\baged\s+(?P<alow>\d{1,3})\s*(?:-|–|to)\s*(?P<ahigh>\d{1,3})"
    r"|\b(?P<elderly>elderly|older\s+adults|geriatric)\b",
    re.IGNORECASE,
)
_YEAR_PHRASE = re.compile(
    r"\b(?:since|from|after|before|until|through|in|during|between|prior\s+to)\s+(?:the\s+year\s+)?"
    r"(?:19|20)\d\d(?:\s*(?:and|to|-|–)\s*(?:19|20)\d\d)?"
    r"|\b(?:in\s+)?the\s+(?:last|past)\s+(?:\d{1,2}|two|three|five|ten)\s+years\b|\b(?:19|20)\d\d\s*(?:-|–)\s*(?:19|20)\d\d",
    re.IGNORECASE,
)
_DEPT_WORDS = r"(?:department|dept|unit|ward|service)"


# --- note text ------------------------------------------------------------------------------------------------------

_TEXT_INTRO = re.compile(
    r"\b(?:who\s+)?(?:reports?|reported|reporting|complain(?:s|ed|ing)?\s+of|describ(?:e|es|ed|ing)"
    r"|present(?:s|ed|ing)?\s+(?:with|after|following)|(?:come|comes|came|coming)\s+in(?:\s+more)?\s+(?:with|for|after)"
    r"|admitted\s+after|notes?\s+(?:say|says|mention|mentions|document|documents|state|states)(?:\s+that)?)\s+",
    re.IGNORECASE,
)
_TEXT_END = re.compile(
    r"\s*(?:[,;?!.]|\bor\s+(?:for|with|after)\b|\bor\b|\bversus\b|\bvs\b|\bwhat\b|\bwhich\b|\bhow\b|$)", re.IGNORECASE
)
_ARTICLE = re.compile(r"^(?:a|an|the|their|his|her)\s+", re.IGNORECASE)


# --- words of the frame, never criteria -----------------------------------------------------------------------------

_FRAME_WORDS_TEXT: Final = """
    a an the of and or with without to in on for by at from as about among amongst across between within during what
    which who whom whose when where why how is are was were be been being do does did done has have had having can
    could would should will may might must there their them they it its this that these those than then patients
    patient people person persons admission admissions admitted stay stays case cases hospitalization
    hospitalisation hospitalizations hospitalisations encounter encounters visit visits individual individuals
    subject subjects cohort group groups population men women adults adult male female males females many much
    number count often frequent frequently frequency common commonly commonest most more less least top main leading
    usual proportion percentage percent share fraction rate ratio prevalence incidence prevalent likely trend trends
    time times year years yearly annual annually per each every over since after before until through following
    follow follows followed undergo underwent undergoing undergone receive received receiving get got getting go
    went come came coming came back treated treatment given prescribed taking take takes diagnosed diagnosis
    diagnoses condition conditions disease diseases problem problems comorbidity comorbidities procedure procedures
    operation operations surgery surgeries intervention interventions medication medications drug drugs med meds
    medicine medicines prescription prescriptions complication complications complaint complaints chief presenting
    symptom symptoms reason reasons insurance insurances insurer payer type types department departments service
    services specialty specialties ward wards unit units hospital hospitals site sites show list give tell find
    compare compared comparison versus vs happen happens happened like similar all any some other others overall
    total including include includes our we us you your there here typically usually generally also just only still
    ever already new recent recently last past first seen see
"""
_FRAME_WORDS: Final = frozenset(_FRAME_WORDS_TEXT.split())
_WORD = re.compile(r"[A-Za-z0-9]+(?:['’\-][A-Za-z0-9]+)*")
_MAX_NGRAM: Final = 6


@dataclass
class _Found:
    """A criterion and where the question names it."""

    start: int
    end: int
    criterion: Criterion
    label: str


@dataclass
class _State:
    question: str
    free: list[bool]
    found: list[_Found] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    unknown: list[UnknownTerm] = field(default_factory=list)

    def take(self, start: int, end: int) -> None:
        for i in range(start, end):
            self.free[i] = False

    def is_free(self, start: int, end: int) -> bool:
        return all(self.free[start:end])


def parse_question(question: str, vocabulary: Vocabulary, *, today: date | None = None) -> PopulationReading:
    """Read ``question`` into a population query by the module's rules (``rules`` says which fired).

    Example:
        >>> from clinrag.population.vocabulary import Vocabulary
        >>> reading = parse_question("What complications follow coronary artery bypass?", Vocabulary.build())
        >>> reading.query.describe()
        'top 5 complications among patients with procedure coronary artery bypass (0210*, 0211*, 0212*, 0213*)'
    """
    if sources_asked(question) == {SourceFamily.LITERATURE}:  # "Apixaban versus warfarin in AF?": the trials'
        return PopulationReading(question, rules=("asks only the literature: no population cue",))
    asked = records_clauses(question)
    if asked != question:  # "How many of our patients …, and what do the trials say …?": the first clause counts
        reading = _parse(asked, vocabulary, today or date.today())
        aside = f"the clauses asking the literature set aside: counted '{asked}'"
        return dataclasses.replace(reading, question=question, rules=(aside, *reading.rules))
    return _parse(question, vocabulary, today or date.today())


def _parse(question: str, vocabulary: Vocabulary, today: date) -> PopulationReading:
    cues = _cues(question)
    if not cues:
        return PopulationReading(question, rules=("no population cue",))
    state = _State(question, [True] * len(question))
    for cue in cues:
        if cue.kind != "cohort":
            for match in re.finditer(re.escape(cue.text), question):
                state.take(match.start(), match.end())
    orgs = _orgs(state, vocabulary)
    _ages(state)
    _years(state, today)
    _departments(state, vocabulary)
    _text_phrases(state, vocabulary)
    _terms(state, vocabulary)
    if state.unknown:
        state.rules.append("unknown terms: no query")
        return PopulationReading(question, rules=tuple(state.rules), cues=cues, orgs=orgs, unknown=tuple(state.unknown))
    try:
        queries, labels = _queries(state, cues)
    except ValidationError as error:
        state.rules.append(f"invalid query: {error.errors()[0]['msg']}")
        return PopulationReading(question, rules=tuple(state.rules), cues=cues, orgs=orgs)
    return PopulationReading(question, queries, labels, tuple(state.rules), cues, orgs)


def _cues(question: str) -> tuple[Cue, ...]:
    found: list[Cue] = []
    for kind, pattern in (
        ("similar", _SIMILAR),
        ("top", _TOP),
        ("count", _COUNT),
        ("share", _SHARE),
        ("compare", _COMPARE),
        ("trend", _TREND),
        ("group", _BY_ORG),
        ("group", _BY_DEPT),
    ):
        found += [Cue(kind, match.group(0)) for match in pattern.finditer(question)]  # type: ignore[arg-type]
    if not found and (match := _COHORT.search(question)):
        found.append(Cue("cohort", match.group(0)))
    return tuple(found)


def _orgs(state: _State, vocabulary: Vocabulary) -> tuple[str, ...]:
    orgs: list[str] = []
    names = {name.lower(): org for org, name in vocabulary.organisations.items()}
    for match in _ORG.finditer(state.question):
        orgs.append(match.group(1).upper())
        state.take(match.start(), match.end())
    for name, org in names.items():
        for match in re.finditer(rf"\b{re.escape(name)}\b", state.question, re.IGNORECASE):
            orgs.append(org)
            state.take(match.start(), match.end())
    if orgs:
        state.rules.append(f"organisations asked: {', '.join(dict.fromkeys(orgs))}")
    return tuple(dict.fromkeys(orgs))


def _ages(state: _State) -> None:
    for match in _AGE.finditer(state.question):
        low: int | None
        high: int | None
        if match.group("elderly"):
            low, high = 65, None
        elif match.group("plus"):
            low, high = int(match.group("plus")), None
        elif match.group("alow"):
            low, high = int(match.group("alow")), int(match.group("ahigh"))
        else:
            op, number = match.group("op").lower(), int(match.group("low"))
            if match.group("high"):
                low, high = number, int(match.group("high"))
            elif op.startswith(("over", "above", "older", "more", "greater")):
                low, high = number + 1, None
            elif op.startswith("at least"):
                low, high = number, None
            elif op.startswith(("under", "below", "younger", "less")):
                low, high = None, number - 1
            else:
                continue
        if (low or 0) > 130 or (high or 0) > 130:
            continue
        state.take(match.start(), match.end())
        state.found.append(_Found(match.start(), match.end(), RangeCriterion(kind="age", low=low, high=high), ""))
        state.rules.append(f"age: '{match.group(0).strip()}'")


def _years(state: _State, today: date) -> None:
    spans = list(_YEAR_PHRASE.finditer(state.question))
    if not spans:
        return
    found = parse_date_range(" ".join(match.group(0) for match in spans), today)
    if found is None:
        return
    low = found.start.year if found.start else None
    high = None
    if found.end is not None:
        high = found.end.year - 1 if (found.end.month, found.end.day) == (1, 1) else found.end.year
    if low is None and high is None:
        return
    for match in spans:
        state.take(match.start(), match.end())
    first = spans[0]
    state.found.append(_Found(first.start(), first.end(), RangeCriterion(kind="year", low=low, high=high), ""))
    state.rules.append(f"years: '{', '.join(match.group(0) for match in spans)}'")


def _departments(state: _State, vocabulary: Vocabulary) -> None:
    for department in vocabulary.departments:
        pattern = rf"\b(?:the\s+)?{re.escape(department)}\s+{_DEPT_WORDS}s?\b"
        for match in re.finditer(pattern, state.question, re.IGNORECASE):
            if state.is_free(match.start(), match.end()):
                state.take(match.start(), match.end())
                state.found.append(
                    _Found(match.start(), match.end(), ValueCriterion(kind="dept", values=(department,)), department)
                )
                state.rules.append(f"department: '{match.group(0)}'")


def _text_phrases(state: _State, vocabulary: Vocabulary) -> None:
    question = state.question
    for intro in _TEXT_INTRO.finditer(question):
        start = intro.end()
        closing = _TEXT_END.search(question, start)
        stop = closing.start() if closing else len(question)
        phrase = _ARTICLE.sub("", question[start:stop].strip())
        if len(phrase) < 3 or not state.is_free(start, stop):
            continue
        coded = vocabulary.terms.codes.get(term_key(phrase))
        if coded is not None and "report" not in intro.group(0).lower():
            continue  # "admitted after a stroke": the code says it better than the notes
        state.take(intro.start(), stop)
        sections = vocabulary.terms.text.get(term_key(phrase), ())
        state.found.append(_Found(start, stop, TextCriterion(phrase=phrase, sections=sections), phrase))
        state.rules.append(f"note text after '{intro.group(0).strip()}': '{phrase}'")
    for start, end, text in _ngrams(state):
        if term_key(text) in vocabulary.terms.text and state.is_free(start, end):
            state.take(start, end)
            sections = vocabulary.terms.text[term_key(text)]
            state.found.append(_Found(start, end, TextCriterion(phrase=text, sections=sections), text))
            state.rules.append(f"note text (no code holds it): '{text}'")


def _ngrams(state: _State) -> list[tuple[int, int, str]]:
    """Every run of up to six free words, longest first, then left to right."""
    tokens = [m for m in _WORD.finditer(state.question) if state.is_free(m.start(), m.end())]
    spans: list[tuple[int, int, str]] = []
    for size in range(_MAX_NGRAM, 0, -1):
        for i in range(len(tokens) - size + 1):
            run = tokens[i : i + size]
            gaps = [state.question[a.end() : b.start()] for a, b in itertools.pairwise(run)]
            if any(gap.strip(" -/") for gap in gaps):
                continue
            start, end = run[0].start(), run[-1].end()
            spans.append((start, end, state.question[start:end]))
    return spans


def _terms(state: _State, vocabulary: Vocabulary) -> None:
    for start, end, text in _ngrams(state):
        if not state.is_free(start, end):
            continue
        lowered = [normalise(w) for w in _WORD.findall(text.lower())]
        framed = len(lowered) > 1 and (lowered[0] in _FRAME_WORDS or lowered[-1] in _FRAME_WORDS)
        key = term_key(text)
        named = key in vocabulary.terms.codes or key in vocabulary.terms.fields  # "type 2 diabetes" is a term
        if framed and not named:
            continue
        criterion, label, rule = _resolve(text, lowered, vocabulary)
        if criterion is not None:
            state.take(start, end)
            state.found.append(_Found(start, end, criterion, label))
            state.rules.append(rule)
    leftover = [m for m in _WORD.finditer(state.question) if state.is_free(m.start(), m.end())]
    unknown_words = [m for m in leftover if _clinical(m.group(0), vocabulary)]
    for match in unknown_words:
        state.unknown.append(UnknownTerm(match.group(0), vocabulary.nearest(match.group(0))))
        state.rules.append(f"unknown term: '{match.group(0)}'")


def _clinical(word: str, vocabulary: Vocabulary) -> bool:
    lowered = word.lower()
    if lowered in _FRAME_WORDS or normalise(lowered) in _FRAME_WORDS or lowered.isdigit() or len(lowered) < 3:
        return False
    return is_thing(lowered)


def _resolve(text: str, lowered: list[str], vocabulary: Vocabulary) -> tuple[Criterion | None, str, str]:
    key = term_key(text)
    value = vocabulary.terms.fields.get(key)
    if value is not None:
        kind, values = value
        if kind == "insurance" and vocabulary.insurances:
            known = {v.lower(): v for v in vocabulary.insurances}
            values = tuple(known[v.lower()] for v in values if v.lower() in known) or values
        if kind == "admission_type" and vocabulary.admission_types:
            values = tuple(v for v in values if v in vocabulary.admission_types) or values
        return (
            ValueCriterion(kind=kind, values=values),
            text,
            f"{kind.replace('_', ' ')}: '{text}' → {', '.join(values)}",
        )
    named = key in vocabulary.terms.codes or vocabulary.is_drug_class(text)
    generic = all(w in _FRAME_WORDS for w in lowered) or not any(_clinical(w, vocabulary) for w in lowered)
    if not named and generic and not (len(lowered) == 1 and vocabulary.drugs_named(text)):
        return None, "", ""
    drugs = vocabulary.drugs_named(text)
    if drugs:
        return MedicationCriterion(drugs=drugs), text, f"drug: '{text}' → {', '.join(drugs)}"
    match = vocabulary.codes(text)
    if match is not None:
        criterion = CodeCriterion(kind=match.kind, prefixes=match.prefixes, label=text.lower())
        how = "synonym" if match.how == "synonym" else "ICD title"
        return criterion, text, f"{match.kind} ({how}): '{text}' → {', '.join(match.prefixes)}"
    return None, "", ""


# --- assembling the queries ---------------------------------------------------------------------------------------


def _queries(state: _State, cues: tuple[Cue, ...]) -> tuple[tuple[PopulationQuery, ...], tuple[str, ...]]:
    question = state.question
    kinds = {cue.kind for cue in cues}
    unit: Literal["patient", "admission"] = "admission" if _ADMISSION_UNIT.search(question) else "patient"
    state.rules.append(f"unit: {unit}s")
    group_by: list[Literal["org", "dept", "year"]] = []
    if _BY_ORG.search(question):
        group_by.append("org")
    if _BY_DEPT.search(question):
        group_by.append("dept")
    if "trend" in kinds:
        group_by.append("year")
    if group_by:
        state.rules.append(f"grouped by {', '.join(group_by)}")
    found = sorted(state.found, key=lambda f: f.start)
    measure = _measure(question, kinds, state)
    alternatives = _alternatives(question, found) if "compare" in kinds else None
    if alternatives is not None:
        first, second = alternatives
        if isinstance(first.criterion, ValueCriterion) and isinstance(second.criterion, ValueCriterion):
            field_of: dict[str, TopOf] = {"insurance": "insurance", "admission_type": "admission_type", "dept": "dept"}
            if first.criterion.kind in field_of:
                values = (*first.criterion.values, *second.criterion.values)
                rest = [f.criterion for f in found if f not in (first, second)]
                merged = ValueCriterion(kind=first.criterion.kind, values=values)
                measure = Measure(kind="top", of=field_of[first.criterion.kind], n=min(len(values), 50))
                state.rules.append(f"'more common' between {first.criterion.kind} values: rank them")
                query = PopulationQuery(
                    cohort=_merge([*rest, merged]), measure=measure, unit=unit, group_by=tuple(group_by)
                )
                return (query,), ("",)
        base = [f.criterion for f in found if f not in (first, second)]
        state.rules.append(f"comparison: one query for '{first.label}', one for '{second.label}'")
        if measure.kind == "top" and "top" not in kinds:
            measure = Measure()
        queries = tuple(
            PopulationQuery(
                cohort=_merge([*base, alternative.criterion]), measure=measure, unit=unit, group_by=tuple(group_by)
            )
            for alternative in (first, second)
        )
        return queries, (first.label, second.label)
    query = PopulationQuery(
        cohort=_merge([f.criterion for f in found]), measure=measure, unit=unit, group_by=tuple(group_by)
    )
    return (query,), ("",)


def _measure(question: str, kinds: set[CueKind], state: _State) -> Measure:
    if "top" in kinds or "similar" in kinds:
        of = _top_of(question)
        if of == "dept" and _BY_DEPT.search(question):
            of = None  # "which department has the most …": a count by department
        if of is not None:
            number = re.search(rf"\btop\s*{_N}|\b{_N}\s+most\b|\bmost\s+\w+\s+{_N}\b", question, re.IGNORECASE)
            n = 5
            if number:
                raw = next(g for g in number.groups() if g)
                n = int(raw) if raw.isdigit() else _NUMBER_WORDS[raw.lower()]
            state.rules.append(f"measure: top {n} {of}")
            return Measure(kind="top", of=of, n=max(1, min(n, 50)))
    if "share" in kinds:
        state.rules.append("measure: share")
        return Measure(kind="share")
    state.rules.append("measure: count")
    return Measure()


def _top_of(question: str) -> TopOf | None:
    if re.search(r"\bwhat\s+happens\b", question, re.IGNORECASE):
        return "complication"
    best: tuple[int, TopOf] | None = None
    anchor = _TOP.search(question)
    origin = anchor.start() if anchor else 0
    for pattern, of in _TOP_NOUNS:
        for match in re.finditer(rf"\b(?:{pattern})\b", question, re.IGNORECASE):
            distance = abs(match.start() - origin)
            if best is None or distance < best[0]:
                best = (distance, of)
    return best[1] if best else None


def _alternatives(question: str, found: list[_Found]) -> tuple[_Found, _Found] | None:
    """Two criteria of one kind (or a text criterion and a code: two reasons for coming in) joined by "or", "vs",
    "versus", "compared with" or "than"."""
    for first, second in itertools.pairwise(found):
        between = question[first.end : second.start].lower()
        reasons = (TextCriterion, CodeCriterion)  # "after a fall or for pain from an existing condition"
        if type(first.criterion) is not type(second.criterion) and not (
            isinstance(first.criterion, reasons) and isinstance(second.criterion, reasons)
        ):
            continue
        if getattr(first.criterion, "kind", None) != getattr(second.criterion, "kind", None) and not isinstance(
            first.criterion, TextCriterion | CodeCriterion
        ):
            continue
        if re.search(r"\bor\b|\bvs\b|\bversus\b|\bcompared\b|\bthan\b|\band\b", between):
            return first, second
    return None


def _merge(criteria: list[Criterion]) -> tuple[Criterion, ...]:
    """Values of one field OR together ("cardiology and cardiothoracic admissions"); other criteria AND."""
    merged: list[Criterion] = []
    for criterion in criteria:
        if isinstance(criterion, ValueCriterion):
            same = next((c for c in merged if isinstance(c, ValueCriterion) and c.kind == criterion.kind), None)
            if same is not None:
                values = tuple(dict.fromkeys((*same.values, *criterion.values)))
                merged[merged.index(same)] = ValueCriterion(kind=criterion.kind, values=values)
                continue
        if criterion not in merged:
            merged.append(criterion)
    return tuple(merged)
