"""The calculators' clinical content as data (calculators/content.py, calculators/data/*.toml): every file is read and
checked, every entry is used, shared citations and bands resolve, and a mistake in a file is refused by name."""

from __future__ import annotations

import tomllib
from importlib import resources

import pytest
from pydantic import ValidationError

from clinrag.calculators.chemistry import DELTA_RATIO
from clinrag.calculators.content import Content, content
from clinrag.calculators.critical_care import EYE, GLASGOW_COMA_SCALE
from clinrag.calculators.registry import registry

_DATA = resources.files("clinrag.calculators").joinpath("data")
_FILES = sorted(entry.name.removesuffix(".toml") for entry in _DATA.iterdir() if entry.name.endswith(".toml"))
_TEXT = {"title": "Anion gap", "unit": "mEq/L", "source": {"citation": "Emmett 1977"}}


def test_every_calculator_module_has_its_file() -> None:
    modules = {calculator.compute.__module__.rpartition(".")[2] for calculator in registry().values()}
    assert modules <= set(_FILES)


@pytest.mark.parametrize("module", _FILES)
def test_every_entry_of_a_file_is_a_registered_calculator_or_one_of_their_inputs(module: str) -> None:
    data = content(module)
    calculators = registry()
    for name, text in data.calculators.items():
        assert name in calculators, f"{module}.toml: no calculator {name!r}"
        assert calculators[name].title == text.title
    used = {(spec.name, spec.label) for calculator in calculators.values() for spec in calculator.inputs}
    unused = [key for key, spec in data.inputs.items() if (spec.name, spec.label) not in used]
    assert not unused, f"{module}.toml: inputs no calculator takes: {unused}"


def test_shared_citations_and_bands_are_resolved() -> None:
    references = tomllib.loads(_DATA.joinpath("chemistry.toml").read_text(encoding="utf-8"))["references"]
    assert DELTA_RATIO.source.citation == f"{references['rastegar_2007']} {references['wrenn_1990']}"
    assert registry()["albumin_corrected_delta_ratio"].bands == DELTA_RATIO.bands
    assert len(DELTA_RATIO.bands) == 4


def test_choices_of_a_points_table_come_from_the_code() -> None:
    assert GLASGOW_COMA_SCALE.input("eye").choices == tuple(EYE)


def test_a_misspelt_field_or_an_unknown_key_is_refused() -> None:
    with pytest.raises(ValidationError, match="minimun"):
        Content.model_validate({"inputs": {"age": {"name": "age", "label": "age", "minimun": 0}}})
    with pytest.raises(ValidationError, match=r"'kdigo' is not a key of \[bands\] \(none\)"):
        Content.model_validate({"calculators": {"anion_gap": {**_TEXT, "bands": "kdigo"}}})
    with pytest.raises(ValidationError, match=r"'emmett' is not a key of \[references\]"):
        Content.model_validate({"calculators": {"anion_gap": {**_TEXT, "source": {"citation": ["emmett"]}}}})
