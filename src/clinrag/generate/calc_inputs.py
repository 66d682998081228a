"""Calculator inputs read from text: a question ("CHA2DS2-VASc for a 72-year-old woman with hypertension")
or a record passage ("This 59 year old man with ... Creat-1.7"), each value with the span it was read from.

Rules, by the input's kind (`calculators.spec.Input`); an input's words are its label, its name and its synonyms:

- *number*: a word of the input followed within a few characters by a number and an optional unit ("creatinine
  1.2 mg/dL", "Cr 1.2", "Creat-1.7", "weight: 154 lb"); ages also as "72-year-old", "aged 72", "72 yo"; systolic and
  diastolic pressures from "BP 150/90"; the unit travels with the value so the calculator converts it.
- *boolean*: a word of the input present counts as yes, unless negated just before it ("no", "denies", "without",
  "negative for", "ruled out") — then no; a relative's condition ("father with diabetes") is not the patient's and
  is not read; absent, nothing is read (the calculator's published default, or a question
  for it).
- *date*: ISO (2026-03-01) or month/day/year (3/1/2026) after one of the input's words;
- *choice*: a choice written out in the text; sex from "woman", "female", "Ms.", "man", "male", "Mr." and the like.

Nothing is inferred beyond what the text says: a value not found is left to the calculator, which asks for it.

Example:
    >>> from clinrag.calculators.spec import Input
    >>> age = Input(name="age", label="age", unit="year")
    >>> creatinine = Input(name="creatinine", label="serum creatinine", unit="mg/dL", synonyms=("Cr", "creat"))
    >>> found = read_inputs((age, creatinine), "A 72-year-old man, Cr 1.4 mg/dL.")
    >>> found["age"].value, found["creatinine"].value
    ('72 year', '1.4 mg/dL')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

import pint

from clinrag.calculators.spec import Input
from clinrag.calculators.units import registry

_UNITS: Final = {
    "mg/dl": "mg/dL",
    "mmol/l": "mmol/L",
    "umol/l": "umol/L",
    "µmol/l": "umol/L",
    "μmol/l": "umol/L",
    "meq/l": "mEq/L",
    "g/dl": "g/dL",
    "g/l": "g/L",
    "mg/l": "mg/L",
    "iu/l": "IU/L",
    "u/l": "U/L",
    "kg": "kg",
    "lb": "lb",
    "lbs": "lb",
    "pounds": "lb",
    "cm": "cm",
    "m": "m",
    "in": "in",
    "inches": "in",
    "°f": "degF",
    "°c": "degC",
    "f": "degF",
    "c": "degC",
    "mmhg": "mmHg",
    "bpm": "bpm",
    "/min": "1/min",
    "ms": "ms",
    "msec": "ms",
    "%": "percent",
    "years": "year",
    "year": "year",
    "yrs": "year",
    "mg": "mg",
    "mcg": "ug",
    "x10^9/l": "1e9/L",
    "k/ul": "1e9/L",
}
_UNIT = "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True))
_NUMBER = r"((?:(?<=[\s:])-)?\d+(?:\.\d+)?)"
"""A number; a minus sign counts only after a space or colon ("BE: -6"), never as a separator ("Creat-1.7")."""
_GAP = r"[^\d\n.;]{0,24}?"
_NEGATION = re.compile(
    r"\b(?:no|not|denies|denied|without|negative\s+for|ruled\s+out|absence\s+of|free\s+of|never\s+had|nor)\b"
    r"(?:\s+[\w/-]+){0,5}\s*$",  # NegEx's window: a negation reaches five words ("no prior bleeding or …")
    re.IGNORECASE,
)
_RELATIVE = re.compile(
    r"\b(?:father|mother|brother|sister|sibling|siblings|son|daughter|aunt|uncle|grand(?:father|mother|parent)s?|"
    r"parents?|cousin|family\s+history|FHx?)\b",
    re.IGNORECASE,
)
_AGE = re.compile(
    r"\b(\d{1,3})\s*[- ]?(?:years?|yrs?|y)[- ]?(?:old|o\b|/o\b)|\baged?\s*(\d{1,3})\b|\b(\d{1,3})\s*yo\b", re.I
)
_PRESSURE = re.compile(r"\b(?:BP|blood\s+pressure)\b[^\d\n]{0,12}(\d{2,3})\s*/\s*(\d{2,3})", re.IGNORECASE)
_FEET_INCHES = re.compile(
    r"\b(\d)\s*(?:ft|feet|foot|')\s*(?:(\d{1,2}(?:\.\d+)?)\s*(?:in|inches|inch|\"|''))?(?![\w])", re.IGNORECASE
)
_FEMALE = re.compile(r"\b(?:female|woman|women|girl|lady|she|her|mrs?s?\.?(?=\s)|ms\.?(?=\s)|sex:\s*f)\b", re.I)
_MALE = re.compile(r"\b(?:male|man|men|boy|gentleman|he|his|mr\.?(?=\s)|sex:\s*m)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Reading:
    """A value read for an input: as the calculator takes it (a number with its unit, ``yes``/``no``, a choice),
    and the span of text it was read from."""

    name: str
    value: str | bool
    span: str
    start: int
    end: int


def plain_label(label: str) -> str:
    """A label as notes write it: without the explanation in brackets a spec's label may carry.

    Example:
        >>> plain_label("international normalised ratio (INR)")
        'international normalised ratio'
    """
    return re.sub(r"\s*\([^)]*\)", "", label).strip()


def words_of(spec: Input) -> list[str]:
    """The words an input is written with in text: label (also without the explanation in brackets a spec's label
    may carry, which notes do not write), name and synonyms, longest first.

    Example:
        >>> words_of(Input(name="heart_rate", label="heart rate", synonyms=("HR", "pulse")))
        ['heart rate', 'pulse', 'hr']
        >>> words_of(Input(name="inr", label="international normalised ratio (INR)"))
        ['international normalised ratio (inr)', 'international normalised ratio', 'inr']
    """
    plain = plain_label(spec.label).lower()
    words = {spec.label.lower(), plain, spec.name.replace("_", " ").lower(), *(s.lower() for s in spec.synonyms)}
    return sorted((w for w in words if len(w) >= 2), key=lambda w: (-len(w), w))


def _term(word: str) -> str:
    return r"(?<![\w])" + re.escape(word).replace(r"\ ", r"[\s-]+") + r"(?![\w])"


_DATE = r"(\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{4})"


def _date(spec: Input, text: str) -> Reading | None:
    """A date after one of the input's words: ISO (2026-03-01) or month/day/year (3/1/2026), as ISO."""
    for word in words_of(spec):
        if match := re.search(_term(word) + r"[^\d\n]{0,24}?" + _DATE, text, re.IGNORECASE):
            written = match.group(1)
            if "/" in written:
                month, day, year = (int(part) for part in written.split("/"))
                written = f"{year:04d}-{month:02d}-{day:02d}"
            return Reading(spec.name, written, match.group(0), match.start(), match.end())
    return None


Candidate = tuple[int, Reading]
"""A possible reading and the length of the words it was found by (the longest words win a span)."""


def _numbers(spec: Input, text: str) -> list[Candidate]:
    is_age = spec.name in ("age", "age_years") or spec.label.lower() == "age"
    found: list[Candidate] = []
    if is_age:
        for match in _AGE.finditer(text):
            number = next(group for group in match.groups() if group)
            found.append((len(match.group(0)), Reading(spec.name, f"{number} year", match.group(0), *match.span())))
    if spec.unit in ("cm", "m", "in"):
        for height in _FEET_INCHES.finditer(text):
            inches = 12 * int(height.group(1)) + float(height.group(2) or 0)
            found.append((len(height.group(0)), Reading(spec.name, f"{inches:g} in", height.group(0), *height.span())))
    words = words_of(spec)
    if any(w in ("systolic", "diastolic") for word in words for w in word.split()):
        for pressure in _PRESSURE.finditer(text):
            number = pressure.group(1) if any("systolic" in word for word in words) else pressure.group(2)
            reading = Reading(spec.name, f"{number} mmHg", pressure.group(0), *pressure.span())
            found.append((len(pressure.group(0)), reading))
    for word in words:
        pattern = re.compile(_term(word) + _GAP + _NUMBER + rf"(?:\s*({_UNIT})(?![\w/]))?", re.IGNORECASE)
        for match in pattern.finditer(text):
            number, unit = match.group(1), match.group(2)
            value = f"{number} {_UNITS[unit.lower()]}" if unit else number
            found.append((len(word), Reading(spec.name, value, match.group(0), *match.span())))
    return found


def _booleans(spec: Input, text: str) -> list[Candidate]:
    found: list[Candidate] = []
    for word in words_of(spec):
        for match in re.finditer(_term(word), text, re.IGNORECASE):
            before = text[max(0, match.start() - 40) : match.start()]
            clause = re.split(r"[.;:\n]|\bbut\b", before)[-1]
            if _RELATIVE.search(clause):  # "father with type 2 diabetes": someone else's condition
                continue
            negated = _NEGATION.search(clause) is not None
            found.append((len(word), Reading(spec.name, not negated, match.group(0), *match.span())))
    return found


def _sex(spec: Input, text: str) -> list[Candidate]:
    female, male = _FEMALE.search(text), _MALE.search(text)
    first = min((m for m in (female, male) if m), key=lambda m: m.start(), default=None)
    if first is None:
        return []
    if spec.kind == "boolean":
        return [(0, Reading(spec.name, first is female, first.group(0), *first.span()))]
    chosen = "female" if first is female else "male"
    value = next((c for c in spec.choices if c.lower().startswith(chosen[0])), chosen)
    return [(0, Reading(spec.name, value, first.group(0), *first.span()))]


def _choices(spec: Input, text: str) -> list[Candidate]:
    """A choice written just after one of the input's words ("Liver disease: mild"), else — when the text names
    only one of the choices — that one anywhere."""
    if {c.lower() for c in spec.choices} >= {"female", "male"} or spec.name in ("sex", "gender"):
        return _sex(spec, text)
    options = "|".join(re.escape(c) for c in sorted(spec.choices, key=len, reverse=True))
    found: list[Candidate] = []
    for word in words_of(spec):
        pattern = re.compile(_term(word) + r"[^.;\n]{0,30}?(?<![\w-])(" + options + r")(?![\w-])", re.IGNORECASE)
        for match in pattern.finditer(text):
            choice = next(c for c in spec.choices if c.lower() == match.group(1).lower())
            found.append((len(word), Reading(spec.name, choice, match.group(0), *match.span())))
    if found:
        return found
    named = {c: m for c in spec.choices if (m := re.search(_term(c.lower()), text, re.IGNORECASE))}
    if len(named) == 1:
        ((choice, match),) = named.items()
        return [(0, Reading(spec.name, choice, match.group(0), *match.span()))]
    return []


def _candidates(spec: Input, text: str) -> list[Candidate]:
    if spec.kind == "date":
        found = _date(spec, text)
        return [(len(found.span), found)] if found is not None else []
    if spec.kind in ("number", "integer"):
        return _numbers(spec, text)
    if spec.kind == "boolean":
        return _sex(spec, text) if spec.name in ("female", "is_female") else _booleans(spec, text)
    if spec.kind == "choice":
        return _choices(spec, text)
    return []


def read_input(spec: Input, text: str) -> Reading | None:
    """The value ``text`` gives for one input read alone (its longest words first, then the earliest), or None."""
    found = sorted(_candidates(spec, text), key=lambda c: (-c[0], c[1].start))
    return found[0][1] if found else None


def read_inputs(specs: Sequence[Input], text: str) -> dict[str, Reading]:
    """Every input ``text`` gives a value for. Inputs compete for spans: the reading found by the longest words
    wins ("urine creatinine 40" is not the serum creatinine; "BUN at 48 hours 30" is not the admission BUN), and a
    span is read once; then values are matched by unit alone where one value and one input left share a dimension
    ("80 kg and 180 cm" for weight and height).

    Example:
        >>> weight = Input(name="weight", label="weight", unit="kg")
        >>> height = Input(name="height", label="height", unit="cm")
        >>> {name: r.value for name, r in read_inputs((weight, height), "BMI for 80 kg and 180 cm?").items()}
        {'weight': '80 kg', 'height': '180 cm'}
        >>> serum = Input(name="creatinine", label="creatinine", unit="mg/dL")
        >>> urine = Input(name="urine_creatinine", label="urine creatinine", unit="mg/dL")
        >>> {n: r.value for n, r in read_inputs((serum, urine), "Urine creatinine 90 mg/dL, creatinine 1.1").items()}
        {'urine_creatinine': '90 mg/dL', 'creatinine': '1.1'}
    """
    order = {spec.name: index for index, spec in enumerate(specs)}
    candidates = [(length, reading) for spec in specs for length, reading in _candidates(spec, text)]
    candidates.sort(key=lambda c: (-c[0], c[1].start, order[c[1].name]))
    found: dict[str, Reading] = {}
    for _, reading in candidates:
        if reading.name in found:
            continue
        if any(r.start < reading.end and reading.start < r.end for r in found.values()):
            continue
        found[reading.name] = reading
    found |= _by_unit([spec for spec in specs if spec.name not in found], text, list(found.values()))
    return found


_MEASURE = re.compile(_NUMBER + rf"\s*({_UNIT})(?![\w/])", re.IGNORECASE)


@cache
def _dimension(unit: str) -> object | None:
    try:
        return registry().Quantity(1, unit).dimensionality
    except (pint.PintError, ValueError):  # an unknown or unparsable unit has no dimension to match by
        return None


def _by_unit(specs: Sequence[Input], text: str, taken: Sequence[Reading]) -> dict[str, Reading]:
    """Values matched to inputs by their unit's dimension alone, when that pairs them one to one."""
    numeric = [spec for spec in specs if spec.kind in ("number", "integer") and spec.unit]
    if not numeric:
        return {}
    measures = [m for m in _MEASURE.finditer(text) if not any(r.start <= m.start() < r.end for r in taken)]
    found: dict[str, Reading] = {}
    for spec in numeric:
        dimension = _dimension(spec.unit or "")
        rivals = [other for other in numeric if _dimension(other.unit or "") == dimension]
        matches = [m for m in measures if _dimension(_UNITS[m.group(2).lower()]) == dimension]
        if dimension is None or len(rivals) != 1 or len(matches) != 1:
            continue
        match = matches[0]
        value = f"{match.group(1)} {_UNITS[match.group(2).lower()]}"
        found[spec.name] = Reading(spec.name, value, match.group(0), match.start(), match.end())
    return found


def distinct_values(readings: Iterable[Reading]) -> list[str | bool]:
    """The different values among readings of one input, in order (several: the record conflicts).

    Example:
        >>> distinct_values([Reading("k", "4.1", "", 0, 0), Reading("k", "4.1", "", 5, 5), Reading("k", "5", "", 9, 9)])
        ['4.1', '5']
    """
    return list(dict.fromkeys(reading.value for reading in readings))
