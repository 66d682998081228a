"""The calculators' core (issue 19): units through pint, inputs checked and never guessed, the registry, the CLI."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from clinrag.app.cli import app
from clinrag.calculators.registry import UnknownCalculatorError, get, registry
from clinrag.calculators.spec import Band, Calculator, CalculatorInputError, Input, Source, Steps, Values, checked
from clinrag.calculators.units import UnitError, convert


@pytest.mark.parametrize(
    ("value", "unit", "to", "substance", "expected"),
    [
        (1.0, "mg/dL", "umol/L", "creatinine", 88.4),  # the KDIGO factor 88.4
        (100, "mg/dL", "mmol/L", "glucose", 5.55),  # 18.0 mg/dL per mmol/L
        (14, "mg/dL", "mmol/L", "urea_nitrogen", 5.0),  # BUN: 2.8 mg/dL per mmol/L
        (10, "mg/dL", "mmol/L", "calcium", 2.5),
        (2.5, "mmol/L", "mEq/L", "calcium", 5.0),  # divalent
        (200, "mg/dL", "mmol/L", "cholesterol", 5.17),
        (4.0, "g/dL", "g/L", None, 40.0),
        (212, "degF", "degC", None, 100.0),
        (220, "lb", "kg", None, 99.79),
        (72, "in", "cm", None, 182.88),
    ],
)
def test_units_convert_through_pint(value: float, unit: str, to: str, substance: str | None, expected: float) -> None:
    assert convert(value, unit, to, substance) == pytest.approx(expected, abs=0.01)


def test_incompatible_or_unknown_units_are_refused() -> None:
    with pytest.raises(UnitError, match="cannot express mg/dL as kg"):
        convert(1, "mg/dL", "kg")
    with pytest.raises(UnitError, match="unknown unit"):
        convert(1, "blorps", "kg")


def test_inputs_are_checked_by_kind_and_range() -> None:
    creatinine = Input(name="creatinine", label="serum creatinine", unit="mg/dL", substance="creatinine", maximum=20)
    assert checked(creatinine, "176.8 umol/L") == 2.0
    with pytest.raises(CalculatorInputError, match=r"creatinine \(serum creatinine\) = 25 is outside -∞ to 20 mg/dL"):
        checked(creatinine, 25)
    with pytest.raises(CalculatorInputError, match="is a number in mg/dL, not 'high'"):
        checked(creatinine, "high")
    with pytest.raises(CalculatorInputError, match="is yes or no"):
        checked(Input(name="chf", label="heart failure", kind="boolean"), "maybe")
    with pytest.raises(CalculatorInputError, match="is one of female, male"):
        checked(Input(name="sex", label="sex", kind="choice", choices=("female", "male")), "x")
    with pytest.raises(CalculatorInputError, match="is a whole number"):
        checked(Input(name="n", label="items", kind="integer"), 2.5)


def _score(v: Values, steps: Steps) -> float:
    return steps.points("risk factor", 1 if v["factor"] else 0, 0) + (1 if v["age"] >= 65 else 0)


SCORE = Calculator(
    name="toy",
    title="Toy score",
    inputs=(
        Input(name="factor", label="a risk factor", kind="boolean", default=False, default_rule="absent unless stated"),
        Input(name="age", label="age", unit="year", minimum=0, maximum=120),
    ),
    unit="points",
    source=Source(citation="A test."),
    compute=_score,
    bands=(Band(high=1, label="low"), Band(low=1, label="high")),
)


def test_a_missing_measurement_is_asked_for_and_a_published_default_is_said() -> None:
    missing = SCORE.run({"factor": "yes"})
    assert missing.value is None
    assert missing.missing == ("age",)
    defaulted = SCORE.run({"age": 70})
    assert defaulted.value == 1
    assert [(i.name, i.origin, i.source) for i in defaulted.inputs] == [
        ("factor", "defaulted", "absent unless stated"),
        ("age", "given", ""),
    ]
    assert defaulted.interpretation is not None
    assert defaulted.interpretation.label == "high"
    with pytest.raises(CalculatorInputError, match="toy has no input 'weight'"):
        SCORE.run({"weight": 3})


def test_the_registry_finds_calculators_and_suggests_near_names() -> None:
    calculators = registry()
    assert {"bmi", "bsa"} <= set(calculators)
    for name, calc in calculators.items():
        assert calc.name == name
        assert calc.source.citation
        assert len({spec.name for spec in calc.inputs}) == len(calc.inputs)
    assert get("BMI").name == "bmi"
    with pytest.raises(UnknownCalculatorError, match="did you mean bmi"):
        get("bmx")


def test_the_cli_lists_shows_and_runs() -> None:
    runner = CliRunner()
    listed = runner.invoke(app, ["calc", "list", "--json"])
    assert listed.exit_code == 0
    assert "bmi" in {c["name"] for c in json.loads(listed.output)}
    shown = runner.invoke(app, ["calc", "show", "bmi"])
    assert shown.exit_code == 0
    assert "18.5 to < 25: normal weight" in shown.output
    ran = runner.invoke(app, ["calc", "run", "bmi", "-i", "weight=154 lb", "-i", "height=70 in", "--json"])
    assert ran.exit_code == 0, ran.output
    body = json.loads(ran.output)
    assert body["value"] == 22.1
    assert body["interpretation"] == "normal weight"
    assert body["inputs"][0] == {"name": "weight", "value": 69.853, "unit": "kg", "source": "", "origin": "given"}
    assert body["missing"] == []
    incomplete = runner.invoke(app, ["calc", "run", "bmi", "-i", "weight=70", "--json"])
    assert incomplete.exit_code == 3
    assert json.loads(incomplete.output)["missing"] == ["height"]
    refused = runner.invoke(app, ["calc", "run", "bmi", "-i", "weight=900", "-i", "height=170"])
    assert refused.exit_code == 2
    assert "weight (body weight) = 900 is outside 0.5 to 400 kg" in refused.output
    malformed = runner.invoke(app, ["calc", "run", "bmi", "-i", "weight"])
    assert malformed.exit_code == 2
