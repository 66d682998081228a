"""Pregnancy dating: estimated due date (Naegele's rule adjusted for cycle length), estimated conception
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

from clinrag.calculators.content import content
from clinrag.calculators.spec import CalculatorInputError, Steps, Values

_DATA = content(__name__)

NAEGELE_DAYS: Final = 280
"""Naegele: the due date is 280 days (40 weeks) after the first day of the LMP of a 28-day cycle."""
STANDARD_CYCLE: Final = 28
LUTEAL_DAYS: Final = 14
"""Ovulation, hence conception, about 14 days before the next menses: day 14 of a 28-day cycle."""
MAX_GESTATION_DAYS: Final = 45 * 7
"""Beyond 45 weeks after the LMP no pregnancy is still going on: the dates are wrong."""

LMP = _DATA.input("lmp")
CYCLE = _DATA.input("cycle", default=STANDARD_CYCLE)
CURRENT_DATE = _DATA.input("current_date")


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


DUE_DATE = _DATA.calculator("estimated_due_date", inputs=(LMP, CYCLE), compute=_due)


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


CONCEPTION_DATE = _DATA.calculator("estimated_conception_date", inputs=(LMP, CYCLE), compute=_conception)


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


GESTATIONAL_AGE = _DATA.calculator("gestational_age", inputs=(LMP, CURRENT_DATE), compute=_gestational_age)

CALCULATORS = (DUE_DATE, CONCEPTION_DATE, GESTATIONAL_AGE)
