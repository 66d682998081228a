"""``clinrag similar``: the patients of one node most similar to a patient by their codes.

PATIENT is a subject_id or a full name, resolved with the node's patient registry (``NODE/chunks.sqlite``): an
exact full name (any case, spacing), else the registry's name resolution; an unknown or ambiguous name is a usage
error naming the choices (exit status 2), as are a patient with no codes, bad weights and k ≤ 0.

Example:
    >>> choices_text([(2, "Betty Henry"), (9, "Betty Henry")])
    'Betty Henry (2), Betty Henry (9)'
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any, Final

import typer
from rich.table import Table

from clinrag.access.demo import demo_user
from clinrag.app.ask_cli import AsOrgOption, _sign_in
from clinrag.app.console import ConfigOption, FederationOption, JsonOption, console, print_json, settings_for
from clinrag.app.exits import exit_on_error
from clinrag.federation.root import load_federation
from clinrag.federation.similar_root import FederatedSimilar, SimilarOutcome
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.population.similar import MAX_RATIO, SimilarityError, SimilarResult, Weights, find_similar
from clinrag.population.similar_sets import KIND_WORDS, KINDS, Kind
from clinrag.population.tables import population_path
from clinrag.retrieve.patients import PatientRegistry

CHUNKS_FILE: Final = "chunks.sqlite"
MAX_CHOICES: Final = 8
SHOWN_SHARED: Final = 6


def choices_text(choices: Iterable[tuple[int, str | None]]) -> str:
    """Patients as ``Name (id)``, at most eight, for a message."""
    listed = [f"{name or 'patient'} ({subject_id})" for subject_id, name in choices]
    more = len(listed) - MAX_CHOICES
    return ", ".join(listed[:MAX_CHOICES]) + (f" and {more} more" if more > 0 else "")


def _fold(name: str) -> str:
    return " ".join(name.split()).casefold()


def registry_names(node: Path) -> dict[int, str | None]:
    """The node's patients (subject_id → name) from its chunk store; empty when the folder has none."""
    path = node / CHUNKS_FILE
    if not path.exists():
        return {}
    with ChunkStore.open(path) as store:
        return dict(store.patients())


def resolve_patient(text: str, names: dict[int, str | None]) -> int:
    """The subject_id that ``text`` (an id or a full name) means; `SimilarityError` naming the choices otherwise."""
    if text.strip().isdigit():
        return int(text)
    if not names:
        raise SimilarityError(f"no patient registry ({CHUNKS_FILE}) in the node folder: give a subject_id")
    exact = [(sid, name) for sid, name in names.items() if name and _fold(name) == _fold(text)]
    if len(exact) == 1:
        return exact[0][0]
    if exact:
        raise SimilarityError(f"{text!r} names several patients: {choices_text(exact)}; give a subject_id")
    resolution = PatientRegistry(names.items()).resolve(text, detect_persons=False)
    selected = sorted({sid for m in resolution.mentions if m.selects for sid in m.subject_ids})
    if len(selected) == 1 and not resolution.near:
        return selected[0]
    near = sorted({sid for m in (*resolution.mentions, *resolution.near) for sid in m.subject_ids})
    words = set(_fold(text).split())
    near = near or [sid for sid, name in names.items() if name and words <= set(_fold(name).split())]
    if near:
        choices = choices_text((sid, names.get(sid)) for sid in near)
        raise SimilarityError(f"{text!r} is not one patient here; did you mean: {choices}?")
    raise SimilarityError(f"no patient named {text!r} at this node")


def _weights(weights: str | None, preset: str | None, task: str) -> Weights:
    if weights is not None and preset is not None:
        raise SimilarityError("give --weights or --preset, not both")
    if task not in KINDS:
        raise SimilarityError(f"--task must be one of {', '.join(KINDS)}, not {task!r}")
    if weights is not None:
        return Weights.parse(weights)
    return Weights.preset(preset, task) if preset is not None else Weights()


def result_json(result: SimilarResult) -> list[dict[str, Any]]:
    """The matches as ``[{"org", "subject_id", "score", "jaccard", "shared": {"dx": [...], ...}}]`` (per admission
    also ``hadm_id``); each shared item is ``{"code", "title"}`` (codes also ``version``)."""
    rows = []
    for match in result.matches:
        row: dict[str, Any] = {"org": result.org, "subject_id": match.subject_id}
        if match.hadm_id is not None:
            row["hadm_id"] = match.hadm_id
        row["score"] = round(match.score, 6)
        row["jaccard"] = {kind: round(match.jaccard[kind], 6) for kind in KINDS}
        row["shared"] = {
            kind: [
                {"code": s.code, "title": s.title, **({"version": s.version} if s.version is not None else {})}
                for s in match.shared[kind]
            ]
            for kind in KINDS
        }
        rows.append(row)
    return rows


def _shared_text(result: SimilarResult, index: int, kind: Kind) -> str:
    items = result.matches[index].shared[kind]
    shown = [s.title if s.version is None else f"{s.title or s.code} ({s.code})" for s in items[:SHOWN_SHARED]]
    return "; ".join(shown) + (f"; +{len(items) - SHOWN_SHARED}" if len(items) > SHOWN_SHARED else "")


def print_result(result: SimilarResult, names: dict[int, str | None]) -> None:
    """A table of the similar patients: score, each kind's Jaccard and what they share with the query."""
    w = result.weights
    query = f"{names.get(result.subject_id) or 'patient'} ({result.subject_id})"
    if result.hadm_id is not None:
        query += f", admission {result.hadm_id}"
    console.print(
        f"Similar to {query} at {result.org or 'this node'}: λ dx {w.dx:.2f}, med {w.med:.2f}, proc {w.proc:.2f}"
    )
    if not result.matches:
        console.print("[yellow]No similar patient here among the records you may see.[/yellow]")
        return
    table = Table(title=f"{len(result.matches)} similar {'admissions' if result.unit == 'admission' else 'patients'}")
    for column in ("#", "patient", *(["admission"] if result.unit == "admission" else []), "score", "J dx", "J med"):
        table.add_column(column, overflow="fold")
    table.add_column("J proc")
    for kind in KINDS:
        table.add_column(f"shared {KIND_WORDS[kind]}", overflow="fold")
    for index, match in enumerate(result.matches):
        cells = [str(index + 1), f"{names.get(match.subject_id) or ''} ({match.subject_id})"]
        cells += [str(match.hadm_id)] if result.unit == "admission" else []
        cells += [f"{match.score:.3f}", *(f"{match.jaccard[kind]:.3f}" for kind in KINDS)]
        cells += [_shared_text(result, index, kind) for kind in KINDS]
        table.add_row(*cells)
    console.print(table)


def outcome_json(outcome: SimilarOutcome) -> list[dict[str, Any]]:
    """The federated matches as `result_json` rows, each with its organisation."""
    rows = []
    for found in outcome.matches:
        match = found.match
        row: dict[str, Any] = {"org": found.org, "subject_id": match.subject_id}
        if match.hadm_id is not None:
            row["hadm_id"] = match.hadm_id
        row["score"] = round(match.score, 6)
        row["jaccard"] = {kind: round(match.jaccard.get(kind, 0.0), 6) for kind in KINDS}
        row["shared"] = {kind: [s.model_dump(exclude_none=True) for s in match.shared.get(kind, [])] for kind in KINDS}
        rows.append(row)
    return rows


def print_outcome(outcome: SimilarOutcome) -> None:
    """The merged ranking (organisation, patient, score, shared codes) and how each organisation answered."""
    console.print(f"Similar to patient {outcome.subject_id} of {outcome.org}, across the federation")
    if outcome.matches:
        table = Table(title=f"{len(outcome.matches)} similar patients")
        for column in ("#", "org", "patient", "score", *(f"shared {KIND_WORDS[kind]}" for kind in KINDS)):
            table.add_column(column, overflow="fold")
        for index, found in enumerate(outcome.matches):
            m = found.match
            shared = ["; ".join(s.title or s.code for s in m.shared.get(kind, [])[:SHOWN_SHARED]) for kind in KINDS]
            table.add_row(str(index + 1), found.org, str(m.subject_id), f"{m.score:.3f}", *shared)
        console.print(table)
    else:
        console.print("[yellow]No similar patient among the records you may see.[/yellow]")
    parts = Table(title="organisations")
    for column in ("org", "status", "reason", "denied", "seconds"):
        parts.add_column(column, overflow="fold")
    for part in outcome.parts:
        parts.add_row(part.org, part.status, part.reason, ", ".join(part.denied), f"{part.seconds:.2f}")
    console.print(parts)


def similar_command(
    patient: Annotated[str, typer.Argument(help="A subject_id or a full name ('Betty Henry').")],
    k: Annotated[int, typer.Option("--k", "-k", help="How many similar patients to show.")] = 15,
    weights: Annotated[
        str | None, typer.Option(help="λ for diagnoses,medications,procedures, e.g. 1,0,0 (default 1/3 each).")
    ] = None,
    preset: Annotated[
        str | None, typer.Option(help="uniform, task-focused or complementary (ExpRAG §5.3), for --task.")
    ] = None,
    task: Annotated[str, typer.Option(help="The task's kind for a preset: dx, med or proc.")] = "dx",
    per: Annotated[str, typer.Option(help="patient (all admissions) or admission (the latest one).")] = "patient",
    min_score: Annotated[float, typer.Option(help="Leave out patients scoring below this.")] = 0.0,
    max_ratio: Annotated[
        float, typer.Option(help="A kind counts 0 when set sizes differ more than this many times (0: off).")
    ] = MAX_RATIO,
    node: Annotated[Path, typer.Option(help="Node folder (population.duckdb, chunks.sqlite).")] = Path(
        "data/demo/nodes/A"
    ),
    as_json: JsonOption = False,
    as_user: Annotated[
        str | None,
        typer.Option("--as", help="Ask every hospital as this user (signs in at their hospital, e.g. A.phys)."),
    ] = None,
    org: AsOrgOption = None,
    federation: FederationOption = None,
    config: ConfigOption = None,
) -> None:
    """Print the patients most similar to PATIENT by diagnoses, medications and procedures (weighted Jaccard).

    Score = λ1·J(diagnoses) + λ2·J(medications) + λ3·J(procedures) over the codes in the node's population
    tables; the patient is never in their own result. Shows each kind's Jaccard and the shared codes and drugs.

    With --as USER, PATIENT is a patient of USER's hospital (a subject_id, or a name in --node's registry): their
    codes there are ranked against every hospital's patients that USER may retrieve, merged by score. Hospitals
    share no patient identifier, so one person known to two hospitals is two results.

    Example: clinrag similar "Betty Henry" --node data/demo/nodes/A -k 10 --preset complementary --task med
    Example: clinrag similar 10000032 --as A.phys.neur
    """
    with exit_on_error():
        if as_user is not None:
            _similar_federated(
                patient,
                as_user,
                org,
                federation,
                config,
                node,
                k,
                weights,
                preset,
                task,
                per,
                min_score,
                max_ratio,
                as_json,
            )
            return
        if per not in ("patient", "admission"):
            raise SimilarityError(f"--per must be patient or admission, not {per!r}")
        chosen = _weights(weights, preset, task)
        names = registry_names(node)
        subject_id = resolve_patient(patient, names)
        if names and subject_id not in names:
            raise SimilarityError(f"no patient {subject_id} at this node")
        result = find_similar(
            population_path(node),
            subject_id,
            k=k,
            weights=chosen,
            unit="admission" if per == "admission" else "patient",
            max_ratio=max_ratio or None,
            min_score=min_score,
        )
    if as_json:
        print_json(result_json(result))
    else:
        print_result(result, names)


def _similar_federated(
    patient: str,
    as_user: str,
    org: str | None,
    federation: Path | None,
    config: Path | None,
    node: Path,
    k: int,
    weights: str | None,
    preset: str | None,
    task: str,
    per: str,
    min_score: float,
    max_ratio: float,
    as_json: bool,
) -> None:
    if per not in ("patient", "admission"):
        raise SimilarityError(f"--per must be patient or admission, not {per!r}")
    if k <= 0:
        raise SimilarityError(f"k must be at least 1, not {k}")
    chosen = _weights(weights, preset, task)
    subject_id = resolve_patient(patient, {} if patient.strip().isdigit() else registry_names(node))
    loaded = settings_for(config, {"federation": {"file": federation}}).settings
    orgs = load_federation(loaded.federation.file)
    bearer = _sign_in(loaded, orgs, as_user, org)
    home = org or demo_user(as_user).org  # _sign_in has checked the user is a demo user when no --org
    outcome = FederatedSimilar(orgs, bearer, loaded.federation).find(
        home,
        subject_id,
        k=min(k, 200),
        per=per,
        weights={"dx": chosen.dx, "med": chosen.med, "proc": chosen.proc},
        min_score=min_score,
        max_ratio=max_ratio,
    )
    if as_json:
        print_json(outcome_json(outcome))
    else:
        print_outcome(outcome)
