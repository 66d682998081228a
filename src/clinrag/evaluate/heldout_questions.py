"""The phrasings of the held-out answer benchmark: for each kind of fact a clinician asks about one patient,
families of wordings (synonyms, clinical abbreviations, possessives, typos, lay words, other verbs), each family a
few templates. The benchmark splits by family: three of each intent's six families (``direct`` and two others)
are the dev half, the other three the test half, so no wording of the test half is ever seen while tuning.

``{name}`` is the patient's full name and ``{poss}`` its possessive ("Ada Stone's").

Example:
    >>> sorted(FAMILIES)[:2]
    ['admission_medications', 'admissions']
    >>> split_of("allergy", "direct"), split_of("allergy", "possessive")
    ('dev', 'dev')
"""

from __future__ import annotations

from typing import Final

from clinrag.evaluate.heldout_wordings import load_families

FAMILIES: Final = load_families("dev_test")
"""Intent → family → templates (``data/heldout/dev_test.toml``)."""


def split_of(intent: str, family: str) -> str:
    """The half a family belongs to. ``direct`` wordings are dev for every intent (the issue's own examples are
    among them, and the answer step was developed on those); of the other five families two are dev and three test,
    rotating with the intent so that each half holds every kind of wording (possessives, abbreviations, lay words,
    typos, other verbs) across intents.

    Example:
        >>> [split_of("allergy", family) for family in FAMILIES["allergy"]]
        ['dev', 'dev', 'test', 'dev', 'test', 'test']
    """
    if family == "direct":
        return "dev"
    others = [name for name in FAMILIES[intent] if name != "direct"]
    shift = list(FAMILIES).index(intent)
    dev = {others[shift % len(others)], others[(shift + 2) % len(others)]}
    return "dev" if family in dev else "test"
