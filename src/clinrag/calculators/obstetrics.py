"""Pregnancy dating (issue 19): estimated due date (Naegele's rule adjusted for cycle length), estimated conception
date, and gestational age from the last menstrual period (LMP).

Why the values are day counts: a result's value is a number, and a date as days since some epoch is a number no one
reads. Each value is therefore a span in days that means something on its own — the due date and the conception
date as days after the LMP (280 and 14 for a 28-day cycle), the gestational age as days since the LMP (weeks and
days in the steps) — and the calendar date itself is the last step of the due and conception dates.

Example:
    >>> result = DUE_DATE.run({"lmp": "2024-01-01"})
    >>> result.value, result.steps[-1]
    (280.0, 'estimated due date: 2024-10-07')
    >>> GESTATIONAL_AGE.run({"lmp": "2022-01-06", "current_date": "2022-04-29"}).steps[0]
    'gestational age = 2022-04-29 − 2022-01-06 = 113 days = 16 weeks 1 day'
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Final

from clinrag.calculators.spec import Band, Calculator, CalculatorInputError, Input, Source, Steps, Values

NAEGELE_DAYS: Final = 280
"""Naegele: the due date is 280 days (40 weeks) after the first day of the LMP of a 28-day cycle."""
STANDARD_CYCLE: Final = 28
LUTEAL_DAYS: Final = 14
"""Ovulation, hence conception, about 14 days before the next menses: day 14 of a 28-day cycle."""
MAX_GESTATION_DAYS: Final = 45 * 7
"""Beyond 45 weeks after the LMP no pregnancy is still going on: the dates are wrong."""

LMP = Input(
    name="lmp",
    label="first day of the last menstrual period",
    kind="date",
    synonyms=("LMP", "last menstrual period", "last period", "LNMP"),
)
CYCLE = Input(
    name="cycle_length",
    label="menstrual cycle length",
    kind="integer",
    unit="day",
    minimum=20,
    maximum=45,
    required=False,
    default=STANDARD_CYCLE,
    default_rule="Naegele's rule assumes a regular 28-day cycle; a cycle given moves the dates by its difference "
    "from 28 days",
    synonyms=("cycle length", "cycle", "menstrual cycle"),
)
CURRENT_DATE = Input(
    name="current_date",
    label="date the gestational age is wanted for",
    kind="date",
    synonyms=("today", "current date", "date of visit", "as of"),
)

_NAEGELE = Source(
    citation="Naegele FC. Erfahrungen und Abhandlungen aus dem Gebiete der Krankheiten des weiblichen "
    "Geschlechtes. Mannheim: Loeffler; 1812. American College of Obstetricians and Gynecologists. Methods for "
    "estimating the due date. Committee Opinion No. 700. Obstet Gynecol 2017;129:e150-e154 (due date 280 days "
    "after the first day of the LMP; for a cycle other than 28 days, the dates move by the difference).",
)


def _cycle(v: Values, steps: Steps) -> int:
    cycle = int(v["cycle_length"])
    shift = cycle - STANDARD_CYCLE
    if shift:
        steps.add(
            f"cycle of {cycle} days: ovulation {abs(shift)} days {'later' if shift > 0 else 'earlier'} than in a "
            f"28-day cycle, so {'+' if shift > 0 else '−'}{abs(shift)} days"
        )
    return cycle


def _due(v: Values, steps: Steps) -> float:
    lmp: date = v["lmp"]
    steps.add(f"Naegele's rule: due date = LMP + {NAEGELE_DAYS} days (40 weeks) for a 28-day cycle")
    days = NAEGELE_DAYS + _cycle(v, steps) - STANDARD_CYCLE
    steps.add(f"due date = {lmp.isoformat()} + {days} days")
    steps.add(f"estimated due date: {(lmp + timedelta(days=days)).isoformat()}")
    return float(days)


DUE_DATE = Calculator(
    name="estimated_due_date",
    title="Estimated due date (Naegele's rule)",
    inputs=(LMP, CYCLE),
    unit="days after the LMP",
    source=_NAEGELE,
    compute=_due,
    synonyms=("estimated due date", "edd", "due date", "naegele", "naegele's rule", "estimated date of delivery"),
    indications=("due date", "pregnancy dating", "expected delivery date"),
    digits=0,
)


def _conception(v: Values, steps: Steps) -> float:
    lmp: date = v["lmp"]
    steps.add(f"conception ≈ ovulation, about {LUTEAL_DAYS} days before the next expected menses")
    days = _cycle(v, steps) - LUTEAL_DAYS
    steps.add(
        f"conception date = LMP + (cycle − {LUTEAL_DAYS}) days = {lmp.isoformat()} + {days} days "
        f"(= due date − {NAEGELE_DAYS - LUTEAL_DAYS} days)"
    )
    steps.add(f"estimated conception date: {(lmp + timedelta(days=days)).isoformat()}")
    return float(days)


CONCEPTION_DATE = Calculator(
    name="estimated_conception_date",
    title="Estimated conception date",
    inputs=(LMP, CYCLE),
    unit="days after the LMP",
    source=_NAEGELE,
    compute=_conception,
    synonyms=("estimated conception date", "conception date", "date of conception", "fertilization date"),
    indications=("date of conception", "pregnancy dating"),
    digits=0,
)


def _weeks_days(days: int) -> str:
    weeks, rest = divmod(days, 7)
    return f"{weeks} week{'s' * (weeks != 1)} {rest} day{'s' * (rest != 1)}"


def _gestational_age(v: Values, steps: Steps) -> float:
    lmp: date = v["lmp"]
    current: date = v["current_date"]
    days = (current - lmp).days
    if days < 0:
        raise CalculatorInputError(
            f"current_date ({current.isoformat()}) is before lmp ({lmp.isoformat()}): the gestational age is "
            "counted from the LMP forward"
        )
    if days > MAX_GESTATION_DAYS:
        raise CalculatorInputError(
            f"current_date ({current.isoformat()}) is {_weeks_days(days)} after lmp ({lmp.isoformat()}): more than "
            "45 weeks is no pregnancy's gestational age; check both dates"
        )
    steps.add(f"gestational age = {current.isoformat()} − {lmp.isoformat()} = {days} days = {_weeks_days(days)}")
    return float(days)


GESTATIONAL_AGE = Calculator(
    name="gestational_age",
    title="Gestational age from the last menstrual period",
    inputs=(LMP, CURRENT_DATE),
    unit="days",
    source=Source(
        citation="American College of Obstetricians and Gynecologists. Methods for estimating the due date. "
        "Committee Opinion No. 700. Obstet Gynecol 2017;129:e150-e154 (gestational age counted from the first day "
        "of the LMP).",
        bands_citation="American College of Obstetricians and Gynecologists. Definition of term pregnancy. "
        "Committee Opinion No. 579. Obstet Gynecol 2013;122:1139-1140 (early, full, late and post-term); "
        "trimesters: first to 13 6/7 weeks, second 14 0/7 to 27 6/7 weeks, third from 28 0/7 weeks.",
    ),
    compute=_gestational_age,
    bands=(
        Band(high=14 * 7, label="first trimester", meaning="before 14 0/7 weeks"),
        Band(low=14 * 7, high=28 * 7, label="second trimester", meaning="14 0/7 to 27 6/7 weeks"),
        Band(low=28 * 7, high=37 * 7, label="third trimester, preterm", meaning="28 0/7 to 36 6/7 weeks"),
        Band(low=37 * 7, high=39 * 7, label="early term", meaning="37 0/7 to 38 6/7 weeks"),
        Band(low=39 * 7, high=41 * 7, label="full term", meaning="39 0/7 to 40 6/7 weeks"),
        Band(low=41 * 7, high=42 * 7, label="late term", meaning="41 0/7 to 41 6/7 weeks"),
        Band(low=42 * 7, label="post-term", meaning="42 0/7 weeks and beyond"),
    ),
    synonyms=("gestational age", "ga", "weeks pregnant", "weeks of gestation", "pregnancy weeks"),
    indications=("how far along a pregnancy is", "pregnancy dating", "gestational age"),
    digits=0,
)

CALCULATORS = (DUE_DATE, CONCEPTION_DATE, GESTATIONAL_AGE)
