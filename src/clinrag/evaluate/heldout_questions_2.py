"""A second, blind test split of the held-out answer benchmark (``test2``): new phrasing families for the same
twelve intents, written after the first test half had been seen and tuned on, in the way clinicians type —
terse notes-style queries, the name at the end, other verbs, lay words, abbreviations, typos, and now and then the
name as a list shows it ("Stone, Ada") or typed in lower case. No template here equals or rephrases one of
:data:`clinrag.evaluate.heldout_questions.FAMILIES`; the questions were committed before the answerer was ever run
on them and are not to be changed after.

Placeholders: ``{name}`` the full name ("Ada Stone"), ``{poss}`` its possessive ("Ada Stone's"), ``{listed}`` the
name as a patient list shows it ("Stone, Ada"), ``{lower}`` the full name in lower case ("ada stone").

The questions that must abstain use new wordings and new facts no record holds (tests and drugs checked absent from
the node's notes when the questions are built), patients of other hospitals, and real surnames with invented first
names not used by the first split.

Example:
    >>> sorted(FAMILIES_2) == sorted(__import__("clinrag.evaluate.heldout_questions", fromlist=["x"]).FAMILIES)
    True
    >>> all(len(families) >= 2 and all(len(t) >= 2 for t in families.values()) for families in FAMILIES_2.values())
    True
"""

from __future__ import annotations

from typing import Final

from clinrag.evaluate.heldout_wordings import load_blind_split

FAMILIES_2: Final = load_blind_split("test2").families
"""``data/heldout/test2.toml``'s intent → family → templates, all in the split ``test2``; the rest of that file
(its must-abstain wordings) is read by :data:`clinrag.evaluate.heldout.SPLIT_2`."""
