"""What several calculator modules share: inputs asked for in the same words, yes/no criteria that count
as absent unless documented, and the scoring step of a criterion met or not.

Example:
    >>> SEX.choices
    ('female', 'male')
    >>> steps = Steps(); flag(steps, "confusion", True, 1, 2), steps.lines
    (3, ['confusion: yes: +1 → 3'])
"""

from __future__ import annotations

from clinrag.calculators.content import content
from clinrag.calculators.spec import Input, Steps

_DATA = content(__name__)

SEX = _DATA.input("sex")
"""Sex as the equations take it (female or male); the same input in chemistry, renal, hepatology and the PSI."""


def criterion(name: str, label: str, synonyms: tuple[str, ...], rule: str) -> Input:
    """A yes/no criterion that counts as absent unless documented, by ``rule`` (the score's own)."""
    return Input(name=name, label=label, kind="boolean", default=False, default_rule=rule, synonyms=synonyms)


def flag(steps: Steps, label: str, present: bool, points: float, total: float) -> float:
    """A scoring step for a criterion met (``points``) or not (0), saying which: the new total."""
    return steps.points(f"{label}: {'yes' if present else 'no'}", points if present else 0, total)
