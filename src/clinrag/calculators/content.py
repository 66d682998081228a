"""The calculators' clinical content as data: what a clinician reads and checks — each calculator's
title, result unit, primary source, interpretation bands, synonyms and indications, and each measured input's
words, unit, substance and plausible limits — is kept in ``data/<module>.toml``, one file per calculator module,
and checked here against the same pydantic models the code uses (`Input`, `Band`, `Source`; unknown or misspelt
fields are refused). The modules keep what is computed: the compute functions, the points of each criterion and
the inputs made by rule (yes/no criteria and their published defaults).

What several calculators of a module share is written once: ``[references]`` holds citations by key (a source's
``citation`` or ``bands_citation`` may be a list of keys, joined with spaces) and ``[bands]`` interpretation bands by
key (a calculator's ``bands`` may be a key). A choice input whose choices are the keys of a points table in the code
takes them from the code (``choices=tuple(POINTS)``), and so does a default or default rule the code shares with its
compute function or with the module's other inputs, so the two cannot disagree.

A module reads its file once, by its own name, and builds its calculators from it:

    _DATA = content(__name__)
    HEART_RATE = _DATA.input("heart_rate")
    MAP = _DATA.calculator("map", inputs=(SBP, DBP), compute=_map)

Example:
    >>> data = content("clinrag.calculators.anthropometry")
    >>> data.input("weight").unit, data.calculators["bmi"].title
    ('kg', 'Body mass index (BMI)')
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from clinrag.calculators.spec import Band, Calculator, Compute, Input, Source


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CalculatorText(_Model):
    """A calculator's content (``[calculators.NAME]``): everything of `Calculator` but its inputs and compute."""

    title: str
    unit: str
    source: Source
    bands: tuple[Band, ...] = ()
    synonyms: tuple[str, ...] = ()
    indications: tuple[str, ...] = ()
    digits: int = 1


class Content(_Model):
    """One module's file: its measured inputs by key (``[inputs.KEY]``), its calculators by name, and the citations
    and bands they share (``[references]``, ``[bands]``), resolved into each calculator when the file is read."""

    inputs: dict[str, Input] = {}
    calculators: dict[str, CalculatorText] = {}
    references: dict[str, str] = {}
    bands: dict[str, tuple[Band, ...]] = {}

    @model_validator(mode="before")
    @classmethod
    def _resolve(cls, data: Any) -> Any:
        """Each calculator's shared bands and citations (keys) replaced by what they name."""
        if not isinstance(data, dict) or not isinstance(data.get("calculators", {}), dict):
            return data  # the models say what is wrong
        references, bands = data.get("references", {}), data.get("bands", {})
        calculators: dict[str, Any] = {}
        for name, given in data.get("calculators", {}).items():
            if not isinstance(given, dict):
                calculators[name] = given
                continue
            text = dict(given)
            if isinstance(text.get("bands"), str):
                text["bands"] = _named(bands, text["bands"], f"calculators.{name}.bands", "bands")
            if isinstance(text.get("source"), dict):
                source = dict(text["source"])
                for field in ("citation", "bands_citation"):
                    if isinstance(source.get(field), list):
                        where = f"calculators.{name}.source.{field}"
                        source[field] = " ".join(_named(references, key, where, "references") for key in source[field])
                text["source"] = source
            calculators[name] = text
        return {**data, "calculators": calculators}

    def input(self, key: str, **code: Any) -> Input:
        """The input stored under ``key``, with the fields the code owns set (the choices of a points table, a default
        or default rule the code shares).

        Raises:
            KeyError: the file has no such input (a programming error caught by the tests).
        """
        stored = self.inputs[key]
        return Input.model_validate({**stored.model_dump(exclude_defaults=True), **code}) if code else stored

    def calculator(self, name: str, inputs: tuple[Input, ...], compute: Compute) -> Calculator:
        """The calculator ``name``: its content from the file, its inputs and compute function from the code.

        Raises:
            KeyError: the file has no such calculator (a programming error caught by the tests).
        """
        return Calculator(name=name, inputs=inputs, compute=compute, **dict(self.calculators[name]))


def _named(table: object, key: object, where: str, what: str) -> Any:
    if not isinstance(table, dict):
        raise ValueError(f"[{what}] is a table of keys, not {table!r}")
    if not isinstance(key, str) or key not in table:
        raise ValueError(f"{where}: {key!r} is not a key of [{what}] ({', '.join(sorted(table)) or 'none'})")
    return table[key]


@cache
def content(module: str) -> Content:
    """The content of the calculator module ``module`` (its ``__name__``, or its last part), from its data file.

    Raises:
        ValueError: the file does not match the models; the message names the file and the fields.
    """
    name = module.rpartition(".")[2]
    path = resources.files("clinrag.calculators").joinpath("data", f"{name}.toml")
    try:
        return Content.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
    except (ValidationError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"calculators/data/{name}.toml: {exc}") from None
