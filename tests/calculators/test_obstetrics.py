"""Pregnancy dating (issue 19): due date, conception date and gestational age, against Naegele's rule and ACOG, and
differentially against medcalc-bench (whose dates are MM/DD/YYYY strings)."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta

import pytest

from clinrag.calculators.obstetrics import CONCEPTION_DATE, DUE_DATE, GESTATIONAL_AGE
from clinrag.calculators.spec import CalculatorInputError

CASES = 200


def _us(day: date) -> str:
    return day.strftime("%m/%d/%Y")


def _from_us(text: str) -> date:
    return datetime.strptime(text, "%m/%d/%Y").date()


# --- worked examples -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lmp", "cycle", "days", "due"),
    [
        # Naegele / ACOG Committee Opinion 700: the due date is 280 days after the first day of the LMP.
        ("2024-01-01", None, 280, "2024-10-07"),
        ("2023-12-03", 28, 280, "2024-09-08"),
        # A 21-day cycle ovulates 7 days earlier: 280 − 7 days (2012-06-23 − 7 days).
        ("2011-09-17", 21, 273, "2012-06-16"),
        # A 35-day cycle: 280 + 7 days.
        ("2021-03-10", 35, 287, "2021-12-22"),
    ],
)
def test_due_date_naegele(lmp: str, cycle: int | None, days: int, due: str) -> None:
    given: dict[str, object] = {"lmp": lmp} if cycle is None else {"lmp": lmp, "cycle_length": cycle}
    result = DUE_DATE.run(given)
    assert result.value == days
    assert result.steps[-1] == f"estimated due date: {due}"
    assert date.fromisoformat(lmp) + timedelta(days=days) == date.fromisoformat(due)


def test_due_date_defaults_the_cycle_by_naegeles_rule() -> None:
    result = DUE_DATE.run({"lmp": "2024-01-01"})
    cycle = next(used for used in result.inputs if used.name == "cycle_length")
    assert cycle.origin == "defaulted"
    assert cycle.value == 28
    assert "28-day cycle" in cycle.source


@pytest.mark.parametrize(
    ("lmp", "cycle", "days", "conception"),
    [
        # 28-day cycle: ovulation on day 14, 266 days before the due date.
        ("2024-01-01", 28, 14, "2024-01-15"),
        # 20-day cycle: ovulation 14 days before the next menses, day 6.
        ("2004-01-21", 20, 6, "2004-01-27"),
        ("2005-11-06", 32, 18, "2005-11-24"),
    ],
)
def test_conception_date(lmp: str, cycle: int, days: int, conception: str) -> None:
    result = CONCEPTION_DATE.run({"lmp": lmp, "cycle_length": cycle})
    assert result.value == days
    assert result.steps[-1] == f"estimated conception date: {conception}"
    due = DUE_DATE.run({"lmp": lmp, "cycle_length": cycle}).value
    assert due is not None
    assert due - days == 266  # conception is 266 days before the due date, whatever the cycle


def test_gestational_age_worked_example() -> None:
    # 2022-01-06 to 2022-04-29: 25 + 28 + 31 + 29 = 113 days = 16 weeks 1 day (second trimester).
    result = GESTATIONAL_AGE.run({"lmp": "2022-01-06", "current_date": "2022-04-29"})
    assert result.value == 113
    assert result.steps[0] == "gestational age = 2022-04-29 − 2022-01-06 = 113 days = 16 weeks 1 day"
    assert result.interpretation is not None
    assert result.interpretation.label == "second trimester"


@pytest.mark.parametrize(
    ("weeks", "days", "band"),
    [
        (0, 0, "first trimester"),
        (13, 6, "first trimester"),
        (14, 0, "second trimester"),
        (27, 6, "second trimester"),
        (28, 0, "third trimester, preterm"),
        (36, 6, "third trimester, preterm"),
        (37, 0, "early term"),  # ACOG 579: early term 37 0/7 to 38 6/7
        (39, 0, "full term"),  # 39 0/7 to 40 6/7
        (40, 6, "full term"),
        (41, 0, "late term"),  # 41 0/7 to 41 6/7
        (42, 0, "post-term"),  # 42 0/7 and beyond
    ],
)
def test_gestational_age_bands(weeks: int, days: int, band: str) -> None:
    lmp = date(2024, 1, 1)
    result = GESTATIONAL_AGE.run({"lmp": lmp, "current_date": lmp + timedelta(weeks=weeks, days=days)})
    assert result.value == weeks * 7 + days
    assert result.interpretation is not None
    assert result.interpretation.label == band


# --- refusals, missing inputs, units ---------------------------------------------------------------------------


def test_contradictory_and_out_of_range_inputs_are_refused() -> None:
    with pytest.raises(CalculatorInputError, match=r"current_date \(2024-01-01\) is before lmp \(2024-02-01\)"):
        GESTATIONAL_AGE.run({"lmp": "2024-02-01", "current_date": "2024-01-01"})
    with pytest.raises(CalculatorInputError, match=r"current_date \(2025-01-01\) is 52 weeks 2 days after lmp"):
        GESTATIONAL_AGE.run({"lmp": "2024-01-01", "current_date": "2025-01-01"})
    with pytest.raises(CalculatorInputError, match=r"cycle_length \(menstrual cycle length\) = 15 is outside 20 to 45"):
        DUE_DATE.run({"lmp": "2024-01-01", "cycle_length": 15})
    with pytest.raises(CalculatorInputError, match=r"lmp \(first day of the last menstrual period\) is a date"):
        CONCEPTION_DATE.run({"lmp": "2024-13-01"})
    with pytest.raises(CalculatorInputError, match=r"is a whole number, not 28\.5"):
        DUE_DATE.run({"lmp": "2024-01-01", "cycle_length": 28.5})


def test_missing_inputs_are_reported() -> None:
    assert DUE_DATE.run({}).missing == ("lmp",)
    assert CONCEPTION_DATE.run({"cycle_length": 30}).missing == ("lmp",)
    result = GESTATIONAL_AGE.run({"lmp": "2024-01-01"})
    assert result.value is None
    assert result.missing == ("current_date",)


def test_cycle_length_in_weeks_is_converted() -> None:
    assert DUE_DATE.run({"lmp": "2024-01-01", "cycle_length": "5 weeks"}).value == 287


# --- differential tests against medcalc-bench ------------------------------------------------------------------


def _lmps_cycles(seed: int) -> list[tuple[date, int]]:
    rng = random.Random(seed)
    return [(date(2000, 1, 1) + timedelta(days=rng.randint(0, 11_000)), rng.randint(20, 45)) for _ in range(CASES)]


def test_due_date_against_medcalc() -> None:
    from medcalc.estimated_due_date import add_40_weeks_explanation

    shorter = 0
    for lmp, cycle in _lmps_cycles(1812):
        result = DUE_DATE.run({"lmp": lmp, "cycle_length": cycle})
        assert result.value is not None
        ours = lmp + timedelta(days=result.value)
        theirs = _from_us(add_40_weeks_explanation({"cycle_length": cycle, "menstrual_date": _us(lmp)})["Answer"])
        assert ours == lmp + timedelta(days=280 + cycle - 28)
        if cycle >= 28:
            assert theirs == ours, (lmp, cycle)
        else:
            # Documented disagreement: for a cycle shorter than 28 days medcalc ADDS the difference its own
            # explanation says to subtract (21-day cycle: LMP + 287 days instead of LMP + 273).
            shorter += 1
            assert theirs == ours + timedelta(days=2 * (28 - cycle)), (lmp, cycle)
    assert 0 < shorter < CASES


def test_conception_date_against_medcalc() -> None:
    from medcalc.conception_date import add_2_weeks_explanation

    for lmp, cycle in _lmps_cycles(2000):
        result = CONCEPTION_DATE.run({"lmp": lmp, "cycle_length": cycle})
        assert result.value is not None
        ours = lmp + timedelta(days=result.value)
        theirs = _from_us(add_2_weeks_explanation({"cycle_length": cycle, "menstrual_date": _us(lmp)})["Answer"])
        # Documented disagreement: medcalc ignores the cycle length (always LMP + 14 days); ovulation is about 14
        # days before the next menses, so clinrag moves it with the cycle (LMP + cycle − 14), 266 days before the
        # due date. The two agree for a 28-day cycle only.
        assert theirs == lmp + timedelta(days=14)
        assert ours == theirs + timedelta(days=cycle - 28), (lmp, cycle)


def test_gestational_age_matches_medcalc() -> None:
    from medcalc.gestational_age import compute_gestational_age_explanation

    rng = random.Random(700)
    for lmp, _ in _lmps_cycles(579):
        current = lmp + timedelta(days=rng.randint(0, 300))
        ours = GESTATIONAL_AGE.run({"lmp": lmp, "current_date": current}).value
        assert ours is not None
        theirs = compute_gestational_age_explanation({"current_date": _us(current), "menstrual_date": _us(lmp)})
        weeks, days = divmod(int(ours), 7)
        assert theirs["Answer"] == (f"{weeks} weeks", f"{days} days"), (lmp, current)


def test_gestational_age_before_the_lmp_disagreement() -> None:
    # Documented disagreement: medcalc takes the absolute difference, so a current date 10 days BEFORE the LMP
    # reads as 1 week 3 days of gestation; clinrag refuses the contradictory dates.
    from medcalc.gestational_age import compute_gestational_age_explanation

    theirs = compute_gestational_age_explanation({"current_date": "01/01/2024", "menstrual_date": "01/11/2024"})
    assert theirs["Answer"] == ("1 weeks", "3 days")
    with pytest.raises(CalculatorInputError, match="is before lmp"):
        GESTATIONAL_AGE.run({"lmp": "2024-01-11", "current_date": "2024-01-01"})
