"""A third blind test split of the held-out answer benchmark (``test3``), written after the question reading learnt
shorthand, more phrasings and the kind of fact read by meaning (all tuned on the splits before it), and committed
before the answerer was run on it: handover shorthand, the way a patient's family asks, and chart-review wordings
with other verbs. No template here equals or rephrases one of the earlier splits' templates on purpose; the
questions are not to be changed after their first run.

Placeholders as in :mod:`clinrag.evaluate.heldout_questions_2`: ``{name}``, ``{poss}``, ``{listed}``, ``{lower}``.

Example:
    >>> sorted(FAMILIES_3) == sorted(__import__("clinrag.evaluate.heldout_questions", fromlist=["x"]).FAMILIES)
    True
    >>> all(len(families) == 3 and all(len(t) == 2 for t in families.values()) for families in FAMILIES_3.values())
    True
"""

from __future__ import annotations

from typing import Final

from clinrag.evaluate.heldout_wordings import load_blind_split

FAMILIES_3: Final = load_blind_split("test3").families
"""``data/heldout/test3.toml``'s intent → family → templates, all in the split ``test3``; the rest of that file
(its must-abstain wordings) is read by :data:`clinrag.evaluate.heldout.SPLIT_3`."""
