"""What every suite runs on: the demo folder (its ``cohort/`` and ``nodes/``), a work folder that caches what
suites build (nodes, libraries, vectors) between runs, the settings, the seed, the generators to compare, and the
embedder and generators, each loaded once for all suites.

Example:
    >>> from clinrag.settings import Settings
    >>> context = SuiteContext(Path("data/demo"), Path("/tmp/eval-work"), Settings(), seed=3)
    >>> context.cohort, context.generators, context.generator("extractive") is None
    (PosixPath('data/demo/cohort'), ('extractive',), True)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Protocol

from clinrag.evaluate.suites.base import SuiteInputError
from clinrag.federation.root import OrgEndpoint
from clinrag.generate.llm import Generator, generator_from
from clinrag.index.embed import Embedder, embedder_from
from clinrag.settings import Settings

GENERATORS: Final = ("extractive", "local", "openai")
"""Generator names a suite can be asked to compare (`AnswerSettings.generator`)."""


class RunningFederation(Protocol):
    """A federation serving the demo's nodes on loopback, for a suite that measures through it (``trend``)."""

    def orgs(self, policies: bool = True) -> list[OrgEndpoint]:
        """The organisations as the root sees them, with the demo's policies or with policies off."""
        ...

    def token(self, subject: str) -> str:
        """An ID token of the demo user ``subject`` from their hospital's identity provider."""
        ...


FederationStarter = Callable[["SuiteContext"], AbstractContextManager[RunningFederation]]
"""Starts the demo federation for a context (``clinrag eval``: `clinrag.demo.local_federation`), stopped on exit."""


@dataclass
class SuiteContext:
    """Inputs shared by the suites of one run (see the module docstring). ``out`` is the run's folder, where a
    suite may write files of its own under ``out/SUITE/`` (`files`)."""

    demo: Path
    work: Path
    settings: Settings
    seed: int = 0
    generators: tuple[str, ...] = ("extractive",)
    out: Path | None = None
    federation: FederationStarter | None = None
    """How to start the demo federation (suites that measure through it; None: they say it is missing)."""
    _embedder: Embedder | None = field(default=None, repr=False)
    _loaded: dict[str, Generator | None] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        unknown = [name for name in self.generators if name not in GENERATORS]
        if unknown or not self.generators:
            raise SuiteInputError(f"generators are {', '.join(GENERATORS)}; not {', '.join(unknown) or 'none'}")

    @property
    def cohort(self) -> Path:
        """The demo's synthetic cohort (``gold_facts.jsonl``, ``full/``, ``hospitals/ORG``)."""
        return self.demo / "cohort"

    @property
    def nodes(self) -> Path:
        """The demo's node folders, ``nodes/ORG``."""
        return self.demo / "nodes"

    def require_cohort(self) -> Path:
        """The cohort folder, or `SuiteInputError` saying how to make it."""
        if not (self.cohort / "gold_facts.jsonl").is_file():
            raise SuiteInputError(f"{self.demo}: no demo cohort here; build it with 'clinrag demo --no-serve'")
        return self.cohort

    def require_nodes(self) -> Path:
        """The nodes folder (and the cohort), or `SuiteInputError`."""
        cohort = (self.cohort / "gold_facts.jsonl").is_file()
        if not cohort or not self.nodes.is_dir() or not any(self.nodes.glob("*/chunks.sqlite")):
            raise SuiteInputError(
                f"{self.demo}: no demo cohort and nodes here; build them with 'clinrag demo --no-serve'"
            )
        return self.nodes

    def cohort_key(self) -> str:
        """A name for the cohort (``p300-s42``: its patients and seed), so that caches of another cohort are kept
        apart."""
        manifest = self.require_cohort() / "cohort.json"
        data = json.loads(manifest.read_text(encoding="utf-8")) if manifest.is_file() else {}
        return f"p{data.get('patients', 'x')}-s{data.get('seed', 'x')}"

    def cache(self, *parts: str) -> Path:
        """A folder under the work folder (created), for what a suite builds and reuses between runs; name the
        cohort (`cohort_key`) in ``parts`` when what is cached comes from it."""
        folder = self.work.joinpath(*parts)
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def files(self, suite: str) -> Path | None:
        """``out/SUITE`` (created) for a suite's own files, or None when the run writes no folder."""
        if self.out is None:
            return None
        folder = self.out / suite
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def start_federation(self) -> AbstractContextManager[RunningFederation]:
        """The running demo federation (stopped when the ``with`` block ends), or `SuiteInputError` when this
        context cannot start one."""
        self.require_nodes()
        if self.federation is None:
            raise SuiteInputError("this run cannot start the demo federation (run it with 'clinrag eval')")
        return self.federation(self)

    def embedder(self) -> Embedder:
        """The settings' embedder, loaded once."""
        if self._embedder is None:
            self._embedder = embedder_from(self.settings.index, self.settings.paths.cache_dir)
        return self._embedder

    def generator(self, name: str) -> Generator | None:
        """The generator ``name`` (None for ``extractive``), loaded once; `SuiteInputError` when it cannot be."""
        if name not in self._loaded:
            answer = self.settings.answer.model_copy(update={"generator": name})
            try:
                self._loaded[name] = generator_from(answer, self.settings.paths)
            except (OSError, ImportError) as exc:
                raise SuiteInputError(f"the {name} generator cannot be loaded: {exc}") from exc
        return self._loaded[name]

    def close(self) -> None:
        """Release loaded generators that hold a model."""
        for generator in self._loaded.values():
            close = getattr(generator, "close", None)
            if callable(close):
                close()
        self._loaded.clear()
