"""``clinrag calc``: clinical calculators computed by code — list them, show one, run one.

Example:
    >>> import json
    >>> from typer.testing import CliRunner
    >>> result = CliRunner().invoke(calc_app, ["run", "bmi", "-i", "weight=70", "-i", "height=175 cm", "--json"])
    >>> json.loads(result.output)["value"]
    22.9
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from clinrag.app.console import JsonOption, console, print_json
from clinrag.app.exits import exit_on_error
from clinrag.calculators.registry import get, registry
from clinrag.calculators.spec import Calculator, Result

CalculatorArgument = Annotated[str, typer.Argument(help="The calculator's name (see 'clinrag calc list').")]

calc_app = typer.Typer(
    help="Clinical calculators computed by code: every input checked, every step shown, nothing guessed.",
    no_args_is_help=True,
)


def result_json(result: Result, digits: int) -> dict[str, Any]:
    """The JSON record of a calculation: calculator, value, unit, interpretation, inputs (name, value, unit,
    source), missing; with the steps, the formula's source and each input's origin.

    Example:
        >>> from clinrag.calculators.registry import get
        >>> result_json(get("bmi").run({"weight": 70}), 2)["missing"]
        ['height']
    """
    return {
        "calculator": result.calculator,
        "title": result.title,
        "value": round(result.value, digits) if result.value is not None else None,
        "unit": result.unit,
        "interpretation": result.interpretation.label if result.interpretation else None,
        "interpretation_meaning": result.interpretation.meaning if result.interpretation else None,
        "inputs": [
            {"name": i.name, "value": i.value, "unit": i.unit, "source": i.source, "origin": i.origin}
            for i in result.inputs
        ],
        "missing": list(result.missing),
        "steps": list(result.steps),
        "formula_source": result.source.citation,
    }


def _given(pairs: list[str]) -> dict[str, str]:
    given: dict[str, str] = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise typer.BadParameter(f"--input takes NAME=VALUE (e.g. creatinine=1.2 mg/dL), not {pair!r}")
        given[name.strip()] = value.strip()
    return given


@calc_app.command("list")
def list_command(
    as_json: JsonOption = False,
) -> None:
    """List every calculator: name, title, result unit and what it is for.

    Example: clinrag calc list
    """
    calculators = list(registry().values())
    if as_json:
        body = [
            {"name": c.name, "title": c.title, "unit": c.unit, "indications": list(c.indications)} for c in calculators
        ]
        print_json(body)
        return
    table = Table(title=f"{len(calculators)} calculators")
    for column in ("name", "title", "unit", "for"):
        table.add_column(column, overflow="fold")
    for calc in calculators:
        table.add_row(calc.name, calc.title, calc.unit, "; ".join(calc.indications))
    console.print(table)


@calc_app.command("show")
def show_command(name: CalculatorArgument) -> None:
    """Show a calculator: its inputs (units, ranges, choices, published defaults), bands and primary source.

    Example: clinrag calc show cha2ds2_vasc
    """
    with exit_on_error():
        calc = get(name)
    _print_spec(calc)


def _print_spec(calc: Calculator) -> None:
    console.print(f"[bold]{calc.title}[/bold] ({calc.name}) — result in {calc.unit}", highlight=False)
    table = Table(title="inputs")
    for column in ("name", "what", "kind", "unit", "range / choices", "if not given"):
        table.add_column(column, overflow="fold")
    for spec in calc.inputs:
        span = ", ".join(spec.choices) if spec.choices else ""
        if spec.minimum is not None or spec.maximum is not None:
            low = "" if spec.minimum is None else f"{spec.minimum:g}"
            span = f"{low} – {'' if spec.maximum is None else f'{spec.maximum:g}'}"
        absent = (
            f"{spec.default} ({spec.default_rule})"
            if spec.default is not None
            else ("asked for" if spec.required else "left out")
        )
        table.add_row(spec.name, spec.label, spec.kind, spec.unit or "", span, absent)
    console.print(table)
    for band in calc.bands:
        meaning = f" — {band.meaning}" if band.meaning else ""
        console.print(f"  {band.span}: {band.label}{meaning}", highlight=False, markup=False)
    console.print(f"source: {calc.source.citation}", highlight=False, markup=False)
    if calc.source.bands_citation:
        console.print(f"bands: {calc.source.bands_citation}", highlight=False, markup=False)


@calc_app.command("run")
def run_command(
    name: CalculatorArgument,
    inputs: Annotated[
        list[str] | None, typer.Option("--input", "-i", help="NAME=VALUE, with a unit when not the calculator's own.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the calculation as JSON.")] = False,
) -> None:
    """Run a calculator on the inputs given: the result, its interpretation and every step; a missing input is
    named and asked for, never guessed (exit status 3).

    Example: clinrag calc run cha2ds2_vasc -i age=72 -i sex=female -i hypertension=yes
    Example: clinrag calc run ckd_epi_2021 -i creatinine="106 umol/L" -i age=60 -i sex=male --json
    """
    with exit_on_error():
        calc = get(name)
        result = calc.run(_given(inputs or []))
    if as_json:
        print_json(result_json(result, calc.digits))
    else:
        print_result(result, calc.digits)
    if result.missing:
        raise typer.Exit(3)


def print_result(result: Result, digits: int) -> None:
    """The result, its interpretation, the steps and the inputs with where each came from."""
    if result.value is None:
        console.print(
            f"{result.title}: missing {', '.join(result.missing)} — give them with --input NAME=VALUE",
            style="yellow",
            highlight=False,
            markup=False,
        )
        return
    band = f" — {result.interpretation.label}" if result.interpretation else ""
    console.print(
        f"{result.title}: {result.value:.{digits}f} {result.unit}{band}", style="bold", highlight=False, markup=False
    )
    for step in result.steps:
        console.print(f"  {step}", highlight=False, markup=False)
    for used in result.inputs:
        where = f" ({used.origin}{': ' + used.source if used.source else ''})" if used.origin != "given" else ""
        console.print(f"  input {used.name} = {used.value} {used.unit or ''}{where}", highlight=False, markup=False)
    console.print(f"[dim]source: {result.source.citation}[/dim]", highlight=False)
