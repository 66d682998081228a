"""Inputs that several calculator modules ask for in the same words (issue 19).

Example:
    >>> SEX.choices
    ('female', 'male')
"""

from __future__ import annotations

from clinrag.calculators.content import content

_DATA = content(__name__)

SEX = _DATA.input("sex")
"""Sex as the equations take it (female or male); the same input in chemistry, renal, hepatology and the PSI."""
