"""Which capability answers a question: records retrieval, a population query, or both; the reason is shown to the
user with the answer.

Each capability is a *detector*: a function that reads the question (with what the population parser made of it)
and says why it should answer, or nothing. The planner combines their signals; later capabilities (similar
patients, literature, calculators) are further detectors and destinations, without changing these.

Rules of the default detectors:

- *records*: a named patient (spaCy's person names, or the node's registry when given), a patient identifier, or
  one patient spoken of ("she", "this patient", "Mr. …"); a list of patients ("Which patients…", "Who…") without
  a count is records too: retrieval lists them with evidence.
- *population*: a count, share, ranking, trend or comparison cue ("how many", "most common", "per year", "more
  common", "compare hospitals") or a plural cohort noun ("patients who…"), and a query the parser could build.
- *both*: "patients like …", "similar patients", "what happens to patients with …", or a named patient compared
  with others ("How does her stay compare with other patients?").
- *calculator*: a calculator named, or an indication asked with a calculation cue ("CHA2DS2-VASc for Ada Stone",
  "stroke risk in AF for a 70-year-old woman"): computed by code (`generate.calculation`), inputs from the question
  and, for a named patient, from their records; wins over every other destination. In a library (``library``:
  guidelines and abstracts, no patients) only when the question gives some of the calculator's values or names a
  patient, and then from the question alone: "Which score assesses bleeding risk in AF?" is answered from the
  library's text, "HAS-BLED of a 70-year-old with labile INR?" is computed.
- *experience*: patients similar to one patient named in full or by identifier ("What were patients like Ada Stone
  discharged with?", "Which patients are similar to patient 10000032?"): the similar patients' records answer
  (`generate.experience`), never the named patient's own.

A population cue whose question cannot be turned into a query goes to records, and the reason says why.

Example:
    >>> from clinrag.population.vocabulary import Vocabulary
    >>> planner = Planner(Vocabulary.build(), detect_persons=False)
    >>> planner.plan("How many patients had a stroke?").route
    'population'
    >>> planner.plan("What was she discharged on?").route
    'records'
    >>> planner.plan("Which patients are similar to patient 10000032?").route
    'experience'
    >>> library = Planner(Vocabulary.build(), detect_persons=False, library=True)
    >>> library.plan("Which score should be used to assess bleeding risk in atrial fibrillation?").route
    'records'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Final, Literal

from clinrag.calculators.registry import registry
from clinrag.generate.calculation import find_calculator, question_inputs
from clinrag.population.parse import PopulationReading, parse_question
from clinrag.population.vocabulary import Vocabulary
from clinrag.retrieve.patients import PatientRegistry

Route = Literal["records", "population", "both", "experience", "calculator"]
RECORDS: Final = "records"
POPULATION: Final = "population"
EXPERIENCE: Final = "experience"
CALCULATOR: Final = "calculator"


@dataclass(frozen=True)
class Signal:
    """One detector's vote: the destination it sends the question to, and why (shown to the user)."""

    destination: str
    reason: str
    strong: bool = False
    """A strong signal (a named patient, "patients like …") is kept even when another destination is chosen."""


@dataclass(frozen=True)
class PlanContext:
    """What detectors read: the question, the population reading, the named patients found, and whether the
    question goes to a library (guidelines and abstracts: no patients, no population)."""

    question: str
    reading: PopulationReading
    persons: tuple[str, ...]
    library: bool = False


Detector = Callable[[PlanContext], Sequence[Signal]]


@dataclass(frozen=True)
class Plan:
    """Where a question goes (``destinations``, in order; ``route`` for records and population) and why."""

    question: str
    destinations: tuple[str, ...]
    reason: str
    population: PopulationReading
    signals: tuple[Signal, ...] = ()

    @property
    def route(self) -> Route:
        """``records``, ``population``, ``both``, ``experience`` or ``calculator``."""
        if CALCULATOR in self.destinations:
            return "calculator"
        if EXPERIENCE in self.destinations:
            return "experience"
        records, population = RECORDS in self.destinations, POPULATION in self.destinations
        return "both" if records and population else "population" if population else "records"


_ONE_PATIENT = re.compile(
    r"\b(?:she|he|her|his|him|hers|herself|himself)\b|\b(?:this|the|that|my|our)\s+patient(?:'s)?\b"
    r"|\b(?:mr|mrs|ms|miss|mx)\.?\s+[A-Z]",
    re.IGNORECASE,
)
_IDENTIFIER = re.compile(
    r"\b(?:patient|subject|mrn|hadm|admission)(?:[\s_-]*id)?\s*[:#]?\s*\d{5,}\b|#\d{5,}\b|(?<![\w.])\d{8}(?![\w.])",
    re.IGNORECASE,
)
_LISTING = re.compile(
    r"^\s*(?:which|what)\s+(?:patients|people)\b|^\s*(?:who|whose)\b|^\s*(?:list|find|show(?:\s+me)?)\s+"
    r"(?:all\s+)?(?:the\s+)?(?:patients|people|everyone)\b",
    re.IGNORECASE,
)
_OTHERS = re.compile(
    r"\b(?:other|similar)\s+(?:patients|people|cases)\b|\bpatients\s+(?:like|similar\s+to)\b"
    r"|\bcompared?\s+(?:to|with)\s+(?:other|the\s+average|typical)\b|\btypical\s+(?:patient|stay)\b",
    re.IGNORECASE,
)


_SIMILAR_TO = re.compile(
    r"\b(?:patients|people|cases|others)\s+(?:(?:who|that)\s+)?(?:are\s+|were\s+)?(?:like|similar\s+to|comparable\s+to)\b"
    r"|\bsimilar\s+(?:patients|people|cases)\b",
    re.IGNORECASE,
)


def calculator_detector(context: PlanContext) -> Sequence[Signal]:
    """A calculator named ("CHA2DS2-VASc", "Cockcroft-Gault", "BMI") or an indication asked with a calculation cue
    ("stroke risk in AF"): computed by code (`generate.calculation`). In a library, only when the question gives
    some of its values or names a patient; otherwise the library's text answers (a records signal says why).

    Example:
        >>> reading = PopulationReading("What is the CHA2DS2-VASc score of a 70-year-old man?")
        >>> calculator_detector(PlanContext(reading.question, reading, ()))[0].destination
        'calculator'
        >>> reading = PopulationReading("How often should eGFR be monitored in G3b CKD?")
        >>> calculator_detector(PlanContext(reading.question, reading, (), library=True))[0].destination
        'records'
    """
    match = find_calculator(context.question, registry().values())
    if match is None:
        return []
    asks = f"asks for {match.calculator.title} ({match.how} '{match.matched}')"
    if context.library and not question_inputs(context.question, match.calculator) and not _names_patient(context):
        return [Signal(RECORDS, f"{asks} but gives none of its values: answered from the library's text")]
    return [Signal(CALCULATOR, asks, strong=True)]


def _names_patient(context: PlanContext) -> bool:
    """A person named, a patient identifier, or one patient spoken of ("she", "this patient")."""
    question = context.question
    return bool(context.persons or _IDENTIFIER.search(question) or _ONE_PATIENT.search(question))


def experience_detector(context: PlanContext) -> Sequence[Signal]:
    """Patients similar to one named patient ("patients like Ada Stone", "similar patients to patient 10000032"):
    their records answer, the named patient's own do not.

    Example:
        >>> reading = PopulationReading("What were patients like patient 10000032 discharged with?")
        >>> experience_detector(PlanContext(reading.question, reading, ()))[0].destination
        'experience'
    """
    similar = _SIMILAR_TO.search(context.question)
    if similar is None:
        return []
    named = context.persons[0] if context.persons else None
    if named is None and (identifier := _IDENTIFIER.search(context.question)):
        named = identifier.group(0)
    if named is None:
        return []
    reason = f"asks about patients similar to one patient ('{similar.group(0)}', {named}): their records"
    return [Signal(EXPERIENCE, reason, strong=True)]


def records_detector(context: PlanContext) -> Sequence[Signal]:
    """A named patient, an identifier, one patient spoken of, or a list of patients.

    Example:
        >>> reading = PopulationReading("What did patient 10000032 take?")
        >>> records_detector(PlanContext(reading.question, reading, ()))[0].reason
        "names a patient identifier ('patient 10000032')"
    """
    question = context.question
    if context.persons:
        return [Signal(RECORDS, f"names a patient ({', '.join(context.persons)})", strong=True)]
    if identifier := _IDENTIFIER.search(question):
        return [Signal(RECORDS, f"names a patient identifier ('{identifier.group(0)}')", strong=True)]
    if one := _ONE_PATIENT.search(question):
        return [Signal(RECORDS, f"speaks of one patient ('{one.group(0)}')", strong=True)]
    if _LISTING.search(question) and not context.reading.measured:
        return [Signal(RECORDS, "asks which patients (retrieval lists them with evidence)")]
    return []


def population_detector(context: PlanContext) -> Sequence[Signal]:
    """A population cue, with the query the parser built (or why it could not).

    Example:
        >>> reading = PopulationReading("How many?")
        >>> population_detector(PlanContext(reading.question, reading, ()))
        []
    """
    reading = context.reading
    if not reading.cues or (_LISTING.search(context.question) and not reading.measured):
        return []
    cues = ", ".join(dict.fromkeys(f"'{cue.text}'" for cue in reading.cues))
    signals: list[Signal] = []
    if _OTHERS.search(context.question) or any(cue.kind == "similar" for cue in reading.cues):
        signals.append(Signal(RECORDS, "asks about patients like one patient: their records too", strong=True))
    if reading.query is None:
        return [*signals, Signal(RECORDS, f"population cue ({cues}) but {reading.describe()}; answered by retrieval")]
    return [*signals, Signal(POPULATION, f"population cue ({cues}): {reading.describe()}")]


DEFAULT_DETECTORS: Final[tuple[Detector, ...]] = (
    calculator_detector,
    experience_detector,
    records_detector,
    population_detector,
)


class Planner:
    """Routes questions with a vocabulary (the root's: the union of its nodes'), a registry of patient names when
    one node answers, and spaCy's person names unless ``detect_persons`` is off; ``library`` when the question goes
    to a library (a node folder with the literature vocabulary, `retrieve.literature_filters.load_vocabulary`)."""

    def __init__(
        self,
        vocabulary: Vocabulary,
        *,
        registry: PatientRegistry | None = None,
        detect_persons: bool = True,
        detectors: Sequence[Detector] = DEFAULT_DETECTORS,
        library: bool = False,
    ) -> None:
        self._vocabulary = vocabulary
        self._library = library
        self._registry = registry if registry is not None else PatientRegistry(())
        self._detect_persons = detect_persons
        self._detectors = tuple(detectors)

    def plan(self, question: str, *, today: date | None = None) -> Plan:
        """The plan for ``question``.

        Example:
            >>> from clinrag.population.vocabulary import Vocabulary
            >>> Planner(Vocabulary.build(), detect_persons=False).plan("Hello there").reason
            'no population cue: answered by records retrieval'
        """
        resolution = self._registry.resolve(question, detect_persons=self._detect_persons)
        persons = tuple(m.text for m in resolution.mentions) + resolution.unknown_persons
        unnamed = question
        for person in persons:  # a name is no criterion: "patients like Ada Stone"
            unnamed = unnamed.replace(person, " " * len(person))
        reading = parse_question(unnamed, self._vocabulary, today=today)
        context = PlanContext(question, reading, persons, self._library)
        signals = tuple(signal for detector in self._detectors for signal in detector(context))
        return _decide(question, reading, signals, library=self._library)


def _decide(question: str, reading: PopulationReading, signals: tuple[Signal, ...], *, library: bool = False) -> Plan:
    """Population wins over weak records signals; a strong records signal makes it both, or records alone when no
    population query was built or the population cue only counts within one patient ("How many times was she
    admitted?"). A calculator wins over all; its inputs come from a named patient's records too, except in a
    ``library``, which holds no patient's records."""
    if calculator := [s for s in signals if s.destination == CALCULATOR]:
        named = [s for s in signals if s.destination == RECORDS and s.strong]
        if named and library:
            held = "whom a library does not hold: inputs from the question"
            reason = f"{calculator[0].reason}; {named[0].reason}, {held}"
            return Plan(question, (CALCULATOR,), reason, reading, signals)
        reason = calculator[0].reason + (f"; {named[0].reason}: inputs from their records too" if named else "")
        return Plan(question, (CALCULATOR, *((RECORDS,) if named else ())), reason, reading, signals)
    if experience := [s for s in signals if s.destination == EXPERIENCE]:
        return Plan(question, (EXPERIENCE,), experience[0].reason, reading, signals)
    population = [s for s in signals if s.destination == POPULATION]
    records = [s for s in signals if s.destination == RECORDS]
    strong = [s for s in records if s.strong]
    others = tuple(dict.fromkeys(s.destination for s in signals if s.destination not in (RECORDS, POPULATION)))
    if population and strong:
        comparing = _OTHERS.search(question) or any(cue.kind == "similar" for cue in reading.cues)
        if comparing:
            reason = f"{strong[0].reason}; {population[0].reason}"
            return Plan(question, (RECORDS, POPULATION, *others), reason, reading, signals)
        return Plan(question, (RECORDS, *others), f"{strong[0].reason}: records retrieval", reading, signals)
    if population:
        return Plan(question, (POPULATION, *others), population[0].reason, reading, signals)
    if records:
        return Plan(question, (RECORDS, *others), records[0].reason, reading, signals)
    return Plan(question, (RECORDS, *others), "no population cue: answered by records retrieval", reading, signals)


def plan(question: str, vocabulary: Vocabulary, *, today: date | None = None, detect_persons: bool = True) -> Plan:
    """Route one question (a :class:`Planner` built for it).

    Example:
        >>> from clinrag.population.vocabulary import Vocabulary
        >>> plan("Compare the number of stroke admissions by hospital", Vocabulary.build(), detect_persons=False).route
        'population'
    """
    return Planner(vocabulary, detect_persons=detect_persons).plan(question, today=today)
