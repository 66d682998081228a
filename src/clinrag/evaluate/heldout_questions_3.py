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

_SPLIT: Final = load_blind_split("test3")
"""``data/heldout/test3.toml``: intent → family → templates, all in the split ``test3``, and the must-abstain
wordings (:class:`clinrag.evaluate.heldout_wordings.BlindWordings`)."""
FAMILIES_3: Final = _SPLIT.families
ABSENT_TOPICS_3: Final = _SPLIT.absent_topics
NEGATIVE_TEMPLATES_3: Final = _SPLIT.negative_templates
ABSENT_DRUGS_3: Final = _SPLIT.absent_drugs
NOISE_TEMPLATES_3: Final = _SPLIT.noise_templates
UNSEEN_TEMPLATES_3: Final = _SPLIT.unseen_templates
WRONG_NAME_TEMPLATES_3: Final = _SPLIT.wrong_name_templates
INVENTED_FIRST_NAMES_3: Final = _SPLIT.invented_first_names
