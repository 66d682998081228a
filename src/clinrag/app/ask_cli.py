"""``clinrag ask``: a verified, cited answer from one node's records (or an honest abstention)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from clinrag.app.console import ConfigOption, console, settings_for
from clinrag.generate.answer import Answerer
from clinrag.generate.llm import generator_from
from clinrag.generate.prompts import provenance
from clinrag.index.embed import embedder_from
from clinrag.retrieve.hybrid import Retriever
from clinrag.types import Answer, SearchFilters


def ask_command(
    question: Annotated[str, typer.Argument(help="The question, in plain words.")],
    node: Annotated[Path, typer.Option(help="Node folder (chunks.sqlite and index/).")] = Path("data/demo/nodes/A"),
    generator: Annotated[
        str | None, typer.Option(help="extractive (no model), local (llama.cpp GGUF) or openai (endpoint).")
    ] = None,
    patient: Annotated[list[int] | None, typer.Option(help="Only this patient (subject_id); repeatable.")] = None,
    stream: Annotated[bool, typer.Option(help="Print the draft as it is generated, then the verified answer.")] = False,
    sources: Annotated[int | None, typer.Option(help="Retrieved chunks given to the generator.")] = None,
    config: ConfigOption = None,
) -> None:
    """Answer a question from the node's records, citing [n] after every sentence and checking each citation.

    Sentences whose cited sources do not support them are removed (or marked, with answer.unsupported=mark);
    when nothing is left, or nothing relevant was found, the answer says so instead of guessing.

    Example: clinrag ask "What was Betty Henry discharged on?" --node data/demo/nodes/A
    """
    loaded = settings_for(config, {"answer": {"generator": generator, "sources": sources}}).settings
    filters = SearchFilters(subject_ids=tuple(patient)) if patient else None
    embedder = embedder_from(loaded.index)
    retriever = Retriever.open(node, loaded.retrieve, embedder)
    try:
        answerer = Answerer(
            retriever, loaded.answer, generator_from(loaded.answer, loaded.paths), embedder, searched=(str(node),)
        )
        on_token = (lambda piece: console.print(piece, end="", markup=False, highlight=False)) if stream else None
        answer = answerer.answer(question, filters, on_token=on_token)
        if stream:
            console.print("\n[dim]— verified —[/dim]")
    finally:
        retriever.close()
    print_answer(answer)


def print_answer(answer: Answer) -> None:
    """The answer, then its sources (cited and merely retrieved), support score and timings."""
    style = "yellow" if answer.abstained else "bold"
    console.print(answer.text, style=style, markup=False, highlight=False)
    if answer.sources:
        table = Table(title="sources")
        for column in ("n", "cited", "score", "from", "text"):
            table.add_column(column, overflow="fold")
        for source in answer.sources:
            table.add_row(
                str(source.number),
                "yes" if source.number in answer.cited else "",
                f"{source.score:.4f}",
                provenance(source.chunk),
                source.chunk.text[:120].replace("\n", " "),
            )
        console.print(table)
    facts = [f"generator {answer.generator}", f"support {answer.support:.2f}"]
    if answer.invalid_citations:
        facts.append(f"{answer.invalid_citations} invalid citations removed")
    if answer.unsupported_sentences:
        facts.append(f"{answer.unsupported_sentences} unsupported sentences")
    if answer.quarantined_spans:
        facts.append(f"{answer.quarantined_spans} instruction-like spans quarantined")
    facts += [f"{name} {seconds * 1000:.0f} ms" for name, seconds in answer.timings.items()]
    console.print("[dim]" + "; ".join(facts) + "[/dim]")
