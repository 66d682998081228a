"""``clinrag ask``: a verified, cited answer from one node's records (or an honest abstention)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from clinrag.access.demo import demo_user
from clinrag.access.login import TokenCache, get_token
from clinrag.app.chat_service import MAX_QUESTION_CHARS
from clinrag.app.console import ConfigOption, FederationOption, NodeOption, console, settings_for
from clinrag.app.source_links import source_link, source_reference
from clinrag.errors import ConfigError, InputError
from clinrag.federation.population_root import FederatedCounter
from clinrag.federation.root import FederatedSearcher, FederationRoot, OrgEndpoint, OrgResult, load_federation
from clinrag.federation.source_searcher import literature_searcher
from clinrag.generate.answer import Answerer, Searcher
from clinrag.generate.calculation import RECORD_PASSAGES
from clinrag.generate.experience import ExperiencePart, answer_experience
from clinrag.generate.literature_part import answer_from_library
from clinrag.generate.llm import generator_from
from clinrag.generate.planner import Planner
from clinrag.generate.population_answer import PopulationAnswer, RoutedAnswer
from clinrag.generate.prompts import provenance
from clinrag.generate.routed import PopulationCounter, answer_routed
from clinrag.generate.similar_finders import FederatedFinder, LocalFinder
from clinrag.index.embed import embedder_from
from clinrag.population.node import LocalCounter
from clinrag.population.vocabulary import Vocabulary
from clinrag.retrieve.hybrid import Retriever, TimedEmbedder
from clinrag.retrieve.literature_filters import load_vocabulary
from clinrag.settings import AnswerSettings, Settings
from clinrag.types import Answer, Chunk, Hit, SearchFilters


def _bounds(name: str) -> tuple[int, int]:
    """The ``ge`` and ``le`` bounds of an answer setting, so that an option states them as the setting does."""
    low = high = None
    for rule in AnswerSettings.model_fields[name].metadata:
        low = getattr(rule, "ge", low)
        high = getattr(rule, "le", high)
    if not isinstance(low, int) or not isinstance(high, int):
        raise TypeError(f"answer.{name} needs integer ge and le bounds")
    return low, high


K_MIN, K_MAX = _bounds("sources")
AsOrgOption = Annotated[str | None, typer.Option(help="The --as user's organisation (default: from the demo users).")]


def checked_question(text: str) -> str:
    """The question without its surrounding blanks, or a usage error (exit status 2) naming the limit it breaks —
    checked where the question enters, as the web app and the API do, never as a traceback from a node's request.

    Example:
        >>> checked_question("  Is Ada Stone allergic to anything? ")
        'Is Ada Stone allergic to anything?'
    """
    stripped = text.strip()
    if not stripped:
        raise typer.BadParameter("the question is empty: write what you want to know.")
    if len(stripped) > MAX_QUESTION_CHARS:
        raise typer.BadParameter(
            f"the question is {len(stripped):,} characters long; the limit is {MAX_QUESTION_CHARS:,} characters."
        )
    return stripped


def ask_command(
    question: Annotated[str, typer.Argument(help="The question, in plain words.", callback=checked_question)],
    node: NodeOption = Path("data/demo/nodes/A"),
    generator: Annotated[
        str | None, typer.Option(help="extractive (no model), local (llama.cpp GGUF) or openai (endpoint).")
    ] = None,
    local_model: Annotated[
        str | None,
        typer.Option(help="With --generator local: qwen-0.5b (default) or qwen-1.5b (extra local-llm-large)."),
    ] = None,
    patient: Annotated[list[int] | None, typer.Option(help="Only this patient (subject_id); repeatable.")] = None,
    stream: Annotated[bool, typer.Option(help="Print the draft as it is generated, then the verified answer.")] = False,
    k: Annotated[
        int | None,
        typer.Option(
            "--k",
            "--sources",
            help=f"Hits retrieval returns, each given to the answerer as a numbered source ({K_MIN} to {K_MAX}).",
            min=K_MIN,
            max=K_MAX,
        ),
    ] = None,
    as_user: Annotated[
        str | None,
        typer.Option("--as", help="Ask the federation as this user (signs in at their hospital, e.g. A.phys)."),
    ] = None,
    org: AsOrgOption = None,
    token: Annotated[
        str | None,
        typer.Option(envvar="CLINRAG_TOKEN", help="Ask the federation with this ID token (from any OIDC provider)."),
    ] = None,
    federation: FederationOption = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Print the answer as one JSON object (text, sentences, sources, abstention, organisations)."
        ),
    ] = False,
    config: ConfigOption = None,
) -> None:
    """Answer a question from the records you may see, citing \\[n] after every sentence and checking each citation.

    Sentences whose cited sources do not support them are removed (or marked, with answer.unsupported=mark);
    when nothing is left, or nothing relevant was found, the answer says so instead of guessing.

    With --as USER (or --token), the question goes to every hospital of the federation instead of one node
    folder: each node verifies the sign-in itself and answers only with what its policies let USER see.

    Example: clinrag ask "What was Betty Henry discharged on?" --node data/demo/nodes/A
    Example: clinrag ask "Who was treated for a stroke?" --as A.phys
    Example: clinrag ask "Who was treated for a stroke?" --as A.phys.neur --k 10
    """
    answering = {"generator": generator, "sources": k, "local_model": local_model}
    overrides = {"answer": answering, "retrieve": {"k": k}, "federation": {"file": federation}}
    loaded = settings_for(config, overrides).settings
    filters = SearchFilters(subject_ids=tuple(patient)) if patient else None
    embedder = embedder_from(loaded.index, loaded.paths.cache_dir)
    on_token = _printer(stream and not as_json)
    if as_user is not None or token is not None:
        orgs = load_federation(loaded.federation.file)
        bearer = token if token is not None else _sign_in(loaded, orgs, as_user or "", org)
        root = FederationRoot(orgs, loaded.retrieve, embedder.id, loaded.federation, embed=TimedEmbedder(embedder))
        searcher = FederatedSearcher(root, bearer)
        federated = FederatedCounter(orgs, bearer, loaded.federation)
        plan = Planner(federated.vocabulary()).plan(question)

        def federated_answer(asked: str, within: SearchFilters | None, among: Searcher | None = None) -> Answer:
            generating = generator_from(loaded.answer, loaded.paths)
            answerer = Answerer(among or searcher, loaded.answer, generating, embedder)
            return answerer.answer(asked, within, on_token=on_token)

        library = literature_searcher(searcher)  # a population question's literature part

        def from_library() -> Answer:
            return answer_from_library(lambda asked: federated_answer(asked, filters, library), question)

        home = org or (_demo_org(as_user) if as_user else None)
        finder = FederatedFinder(orgs, bearer, home, loaded.federation) if home and not filters else None
        answer = answer_routed(
            plan,
            None if filters else federated,
            lambda: federated_answer(question, filters),
            (lambda: answer_experience(question, finder, federated_answer)) if finder else None,
            lambda text: searcher.retrieve(text, filters, k=RECORD_PASSAGES).hits,
            literature=from_library if library else None,
        )
        show_answer(answer, searcher.last.orgs if searcher.last is not None else [], as_json, stream)
        return
    local = LocalCounter(node, loaded.aggregates.min_cell)
    counter: PopulationCounter | None = local
    try:
        vocabulary = local.vocabulary()
    except InputError:  # no population tables at this node: records only
        counter, vocabulary = None, Vocabulary.build()
    plan = Planner(vocabulary, library=load_vocabulary(node) is not None).plan(question)

    def local_answer(asked: str, within: SearchFilters | None) -> Answer:
        retriever = Retriever.open(node, loaded.retrieve, embedder, index=loaded.index)
        try:
            answerer = Answerer(
                retriever, loaded.answer, generator_from(loaded.answer, loaded.paths), embedder, searched=(str(node),)
            )
            return answerer.answer(asked, within, on_token=on_token)
        finally:
            retriever.close()

    def local_lookup(text: str) -> Sequence[Hit]:
        retriever = Retriever.open(node, loaded.retrieve, embedder, index=loaded.index)
        try:
            return retriever.retrieve(text, filters, k=RECORD_PASSAGES).hits
        finally:
            retriever.close()

    experience = None if filters or counter is None else LocalFinder(node)
    answer = answer_routed(
        plan,
        None if filters else counter,
        lambda: local_answer(question, filters),
        (lambda: answer_experience(question, experience, local_answer)) if experience else None,
        local_lookup,
    )
    show_answer(answer, [], as_json, stream)


def show_answer(answer: RoutedAnswer, orgs: Sequence[OrgResult], as_json: bool, stream: bool) -> None:
    """``clinrag ask``'s output: the answer as JSON (`answer_json`), or after a streamed draft a rule, then the answer
    (`print_routed`) and each organisation's part when the federation answered (`print_organisations`)."""
    if as_json:
        typer.echo(answer_json(answer, orgs))
        return
    if stream and answer.population is None:
        console.print("\n[dim]— verified —[/dim]")
    print_routed(answer)
    if orgs:
        print_organisations(orgs)


def print_routed(answer: RoutedAnswer) -> None:
    """The route, then the population part (its text, tables and organisations) and/or the records answer."""
    if answer.route is not None:
        console.print(f"[dim]route: {answer.route.route} — {answer.route.reason}[/dim]", highlight=False)
    if answer.experience is not None:
        print_answer(answer)
        print_experience(answer.experience)
        return
    if answer.calculations:
        print_answer(answer)
        for calculation in answer.calculations:
            for step in calculation.steps:
                console.print(f"  {step}", style="dim", highlight=False, markup=False)
        return
    if answer.population is None:
        print_answer(answer)
        return
    print_population(answer.population)
    if answer.route is not None and answer.route.route == "both":
        records_text = answer.text[len(answer.population.text) :].strip()
        print_answer(answer.model_copy(update={"text": records_text}))


def print_population(population: PopulationAnswer) -> None:
    """The population answer in words, the table behind each figure, and each organisation's part."""
    console.print(population.text, style="bold", markup=False, highlight=False)
    for result in population.results:
        orgs = sorted({org for row in result.table for org in row.by_org})
        table = Table(title=f"[{result.key}] {result.description}" + (f" ({result.label})" if result.label else ""))
        groups = list(result.query.group_by)
        for column in (*groups, "item", "count", "share", *orgs):
            table.add_column(column, overflow="fold")
        for row in result.table:
            share = f"{100 * row.share:.0f} %" if row.share is not None else ""
            cells = [row.group.get(name, "") for name in groups]
            table.add_row(*cells, row.label, row.count, share, *(row.by_org.get(o, "") for o in orgs))
        console.print(table)
    parts = {part.org: part for result in population.results for part in result.orgs}
    if parts:
        table = Table(title="organisations")
        for column in ("org", "status", "counted", "denied", "seconds"):
            table.add_column(column, overflow="fold")
        for part in parts.values():
            status = part.status + (f" ({part.reason})" if part.reason else "")
            table.add_row(part.label, status, ", ".join(part.counted), ", ".join(part.denied), f"{part.seconds:.2f}")
        console.print(table)


def print_experience(part: ExperiencePart) -> None:
    """The similar patients an experience answer drew on: score, each kind's Jaccard, shared codes (cited first)."""
    if not part.patients:
        return
    cited = {(view.org, view.subject_id) for view in part.cited_patients}
    table = Table(title=f"patients most similar to {part.patient}")
    for column in ("org", "patient", "score", "J dx/med/proc", "cited", "shared"):
        table.add_column(column, overflow="fold")
    for view in part.patients:
        jaccard = "/".join(f"{view.jaccard.get(kind, 0.0):.2f}" for kind in ("dx", "med", "proc"))
        shared = "; ".join(item.title or item.code for items in view.shared.values() for item in items[:3])
        used = "yes" if (view.org, view.subject_id) in cited else ""
        table.add_row(view.org, str(view.subject_id), f"{view.score:.3f}", jaccard, used, shared)
    console.print(table)
    failed = [
        f"{p.name or p.org}: {p.status}" + (f" ({p.reason})" if p.reason else "") for p in part.orgs if p.status != "ok"
    ]
    if failed:
        console.print("[dim]" + "; ".join(failed) + "[/dim]", highlight=False)


def answer_json(answer: Answer, orgs: Sequence[OrgResult] = ()) -> str:
    """The answer as one JSON object, with each organisation's part when the federation answered.

    Example:
        >>> import json
        >>> json.loads(answer_json(Answer(question="q", text="t", generator="extractive")))["text"]
        't'
    """
    body: dict[str, Any] = answer.model_dump(mode="json")
    body["abstained"] = answer.abstained
    for source, shown in zip(answer.sources, body["sources"], strict=True):
        shown["reference"] = source_reference(source.chunk)
        shown["link"] = source_link(source.chunk)
        if source.chunk.citation is not None:
            shown["chunk"]["citation"]["url"] = source.chunk.citation.url
    body["withheld_note"] = answer.withheld_note
    if orgs:
        body["organisations"] = [
            {
                "org": result.org.org,
                "name": result.org.label,
                "status": result.status.value,
                "detail": result.detail,
                "searched": list(result.response.searched) if result.response else [],
                "denied": [denial.path for denial in result.response.denied] if result.response else [],
                "withheld_sensitive": result.response.withheld_sensitive if result.response else 0,
                "seconds": round(result.seconds, 3),
            }
            for result in orgs
        ]
    return json.dumps(body, indent=2, ensure_ascii=False)


def _demo_org(subject: str) -> str | None:
    try:
        return demo_user(subject).org
    except KeyError:
        return None


def _printer(stream: bool) -> Callable[[str], None] | None:
    return (lambda piece: console.print(piece, end="", markup=False, highlight=False)) if stream else None


def _sign_in(loaded: Settings, orgs: list[OrgEndpoint], subject: str, org: str | None) -> str:
    """An ID token for ``subject`` from their hospital's identity provider (cached until shortly before expiry)."""
    if org is None:
        try:
            org = demo_user(subject).org
        except KeyError as exc:
            raise ConfigError(f"{exc.args[0]}; name the user's organisation with --org") from None
    endpoint = next((endpoint for endpoint in orgs if endpoint.org == org), None)
    if endpoint is None or not endpoint.issuer:
        raise ConfigError(f"{loaded.federation.file}: no identity provider listed for organisation {org!r}")
    cache = TokenCache(loaded.federation.token_cache)
    return get_token(endpoint.issuer, subject, cache, client_id=loaded.federation.client_id)


def print_organisations(orgs: Sequence[OrgResult]) -> None:
    """Which organisations answered, were denied (and where), or could not be reached, and how long each took."""
    table = Table(title="organisations")
    for column in ("org", "status", "searched", "denied", "seconds"):
        table.add_column(column, overflow="fold")
    for result in orgs:
        reply = result.response
        table.add_row(
            result.org.label,
            result.status.value + (f" ({result.detail})" if result.detail else ""),
            ", ".join(reply.searched) if reply else "",
            ", ".join(denial.path for denial in reply.denied) if reply else "",
            f"{result.seconds:.2f}",
        )
    console.print(table)


def print_answer(answer: Answer) -> None:
    """The answer, then its sources (cited and merely retrieved), support score and timings."""
    style = "yellow" if answer.abstained else "bold"
    console.print(answer.text, style=style, markup=False, highlight=False)
    if answer.withheld_note:
        console.print(answer.withheld_note, style="yellow", markup=False, highlight=False)
    for note in answer.filter_notes:  # spelling read otherwise, filters applied or dropped: said, never silent
        console.print(note, style="dim", markup=False, highlight=False)
    if answer.sources:
        table = Table(title="sources")
        for column in ("n", "cited", "score", "from", "text"):
            table.add_column(column, overflow="fold")
        for source in answer.sources:
            table.add_row(
                str(source.number),
                "yes" if source.number in answer.cited else "",
                f"{source.score:.4f}",
                source_origin(source.chunk),
                source.chunk.text[:120].replace("\n", " "),
            )
        console.print(table)
    generator = f"generator {answer.generator}"
    if answer.fallback_from:
        generator += f" (the lines quoted: {answer.fallback_from}'s draft was declined or unsupported)"
    facts = [generator, f"support {answer.support:.2f}"]
    if answer.invalid_citations:
        facts.append(f"{answer.invalid_citations} invalid citations removed")
    if answer.unsupported_sentences:
        facts.append(f"{answer.unsupported_sentences} unsupported sentences")
    if answer.quarantined_spans:
        facts.append(f"{answer.quarantined_spans} instruction-like spans quarantined")
    facts += [f"{name} {seconds * 1000:.0f} ms" for name, seconds in answer.timings.items()]
    console.print("[dim]" + "; ".join(facts) + "[/dim]")


def source_origin(chunk: Chunk) -> str:
    """The sources table's "from" cell: a record's provenance; for literature its reference (first author, journal,
    year, title, PMID; or publisher, title, date), where it is held, and its link on a line of its own.

    Example:
        >>> from clinrag.types import Citation, SourceKind
        >>> cited = Citation(pmid=7, title="T.", authors=("Li X",), year=2020)
        >>> print(source_origin(Chunk.create(source_id="pmid:7", text="x", org="LIB", dept="literature",
        ...                                  source_kind=SourceKind.ABSTRACT, citation=cited)))
        Li X, 2020 · T. · PMID 7 · LIB/literature
        https://pubmed.ncbi.nlm.nih.gov/7/
    """
    reference = source_reference(chunk)
    if reference is None:
        return provenance(chunk)
    section = chunk.section if chunk.guideline is not None else None  # an abstract's is only "Abstract"
    held = " · ".join(part for part in (reference, section, f"{chunk.org}/{chunk.dept}") if part)
    link = source_link(chunk)
    return f"{held}\n{link}" if link else held


def token_command(
    as_user: Annotated[str, typer.Option("--as", help="The demo user to sign in (e.g. A.phys).")],
    org: Annotated[str | None, typer.Option(help="The user's organisation (default: from the demo users).")] = None,
    federation: FederationOption = None,
    config: ConfigOption = None,
) -> None:
    """Print an ID token for a demo user: the API key for the OpenAI-compatible API and any chat UI.

    Signs USER in at their hospital's demo identity provider (or reuses a cached token that is still valid) and
    prints only the token, so that it can go straight into a variable.

    Example: export OPENAI_API_KEY=$(clinrag token --as A.phys)
    """
    loaded = settings_for(config, {"federation": {"file": federation}}).settings
    typer.echo(_sign_in(loaded, load_federation(loaded.federation.file), as_user, org))
