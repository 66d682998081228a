"""A federated searcher asked only the organisations that hold some kinds of source: the literature part of a
population question ("How many of our patients with atrial fibrillation are on apixaban, and what do the trials say
about apixaban versus warfarin?") is searched in the libraries alone, while its counts come from the hospitals.

The view shares its `FederatedSearcher`'s state — the user's token, the last search's organisations, the searches
made and the sensitive passages withheld — so the answer lists the library beside the hospitals that counted, and
every node checks its policies and writes its audit log as for any search.

Example:
    >>> searcher = FederatedSearcher(root, token)  # doctest: +SKIP
    >>> library = literature_searcher(searcher)  # doctest: +SKIP
    >>> library.retrieve("What do the trials say about apixaban versus warfarin?").searched  # doctest: +SKIP
    ('LIB',)
"""

from __future__ import annotations

from clinrag.federation.root import FederatedSearcher, family
from clinrag.retrieve.hybrid import Retrieval
from clinrag.retrieve.scope import ScopeNames
from clinrag.retrieve.sources import SourceFamily
from clinrag.types import SearchFilters

LITERATURE_ONLY = frozenset({SourceFamily.LITERATURE})


class SourceSearcher:
    """``searcher`` asked only the organisations holding ``families`` (none holding them: nothing is found)."""

    def __init__(self, searcher: FederatedSearcher, families: frozenset[SourceFamily]) -> None:
        self.searcher = searcher
        self.families = families

    @property
    def searches(self) -> int:
        """Searches the shared searcher made so far."""
        return self.searcher.searches

    def withheld_after(self, mark: int) -> int:
        """The shared searcher's `FederatedSearcher.withheld_after`."""
        return self.searcher.withheld_after(mark)

    def scope_names(self) -> ScopeNames:
        """The organisations and specialties a question may name (the shared searcher's)."""
        return self.searcher.scope_names()

    def retrieve(self, question: str, filters: SearchFilters | None = None, k: int | None = None) -> Retrieval:
        """The federated retrieval of ``question`` from the organisations holding `families` only."""
        return self.searcher.retrieve(question, filters, k, families=self.families)


def literature_searcher(searcher: FederatedSearcher) -> SourceSearcher | None:
    """``searcher`` asking the federation's libraries only; None when the federation has no library.

    Example:
        >>> literature_searcher(FederatedSearcher(root, token)).families  # doctest: +SKIP
        frozenset({<SourceFamily.LITERATURE: 'literature'>})
    """
    if not any(family(org) == SourceFamily.LITERATURE for org in searcher.root.orgs):
        return None
    return SourceSearcher(searcher, LITERATURE_ONLY)
