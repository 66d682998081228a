"""A fourth blind test split of the held-out answer benchmark (``test4``), written by someone who had not read the
question-reading code, and committed before the answerer was ever run on it: a ward nurse asking a colleague
(``nurse_to_nurse``: ward shorthand, UK and US abbreviations, the odd typo), a medical student asking plainly in
full, sometimes long and wordy sentences (``student``), and search-box keyword queries with no grammar at all
(``terse_query``). No template here equals or rephrases one of the earlier splits' templates on purpose; the
questions are not to be changed after their first run.

Placeholders as in :mod:`clinrag.evaluate.heldout_questions_2`: ``{name}``, ``{poss}``, ``{listed}``, ``{lower}``.

The questions that must abstain use their own wordings, tests and drugs (those a note of the node mentions are left
out when the questions are built), patients of other hospitals, and real surnames with first names no earlier split
invented.

Example:
    >>> sorted(FAMILIES_4) == sorted(__import__("clinrag.evaluate.heldout_questions", fromlist=["x"]).FAMILIES)
    True
    >>> all(len(families) == 3 and all(len(t) == 2 for t in families.values()) for families in FAMILIES_4.values())
    True
    >>> sorted({family for families in FAMILIES_4.values() for family in families})
    ['nurse_to_nurse', 'student', 'terse_query']
"""

from __future__ import annotations

from typing import Final

from clinrag.evaluate.heldout_wordings import load_blind_split

FAMILIES_4: Final = load_blind_split("test4").families
"""``data/heldout/test4.toml``'s intent → family → templates, all in the split ``test4``; the rest of that file
(its must-abstain wordings) is read by :data:`clinrag.evaluate.heldout.SPLIT_4`."""
