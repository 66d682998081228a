"""Inputs that several calculator modules ask for in the same words (issue 19).

Example:
    >>> SEX.choices
    ('female', 'male')
"""

from __future__ import annotations

from clinrag.calculators.spec import Input

SEX = Input(
    name="sex",
    label="sex",
    kind="choice",
    choices=("female", "male"),
    synonyms=("sex", "gender", "female", "male", "woman", "man"),
)
"""Sex as the equations take it (female or male); the same input in chemistry, renal, hepatology and the PSI."""
