"""Small-cell protection for what a node reports: the rules, in one place.

1. A count from 1 to ``min_cell - 1`` is shown as ``<min_cell`` (0 is shown: an empty group reveals nobody).
2. A share's numerator whose complement (denominator − numerator) is from 1 to ``min_cell - 1`` is shown only as
   the range that hides the complement ("97 of 100 have X" would say that 3 do not).
3. Difference: when the rows of a table each count a part of the total (groups by hospital, department or year;
   top-N of insurance, admission type or department) and some row is hidden, the total minus the shown rows is what
   the hidden rows hold together. If that remainder is below ``min_cell``, it would reveal a small cell (exactly,
   when one row is hidden), so the query is refused with the reason. The remainder is computed as a reader would,
   from the shown figures, so overlapping groups (a patient admitted in two years) are covered too.
   Rows of multi-valued rankings (diagnoses, procedures, drugs, complaints) overlap by nature and have no total.
Hidden counts are never subtracted back out of totals: the total is counted, not summed from cells.

Example:
    >>> shown(3, 5), shown(0, 5).value, shown(12, 5).value
    (Count(value=None, low=1, high=4), 0, 12)
    >>> difference_refusal(Count.exact(20), [Count.exact(17), shown(3, 5)], 5) is not None
    True
    >>> difference_refusal(Count.exact(40), [Count.exact(30), shown(3, 5), shown(4, 5)], 5) is None
    True
"""

from __future__ import annotations

from collections.abc import Sequence

from clinrag.population.results import Count


def shown(value: int, min_cell: int) -> Count:
    """``value`` as it may be reported (rule 1)."""
    return Count.small(min_cell) if 0 < value < min_cell else Count.exact(value)


def shown_share(numerator: int, denominator: int, min_cell: int) -> tuple[Count, Count]:
    """A share's numerator and denominator as they may be reported (rules 1 and 2)."""
    den = shown(denominator, min_cell)
    if den.suppressed:
        return Count.small(min_cell) if numerator else Count.exact(0), den
    num = shown(numerator, min_cell)
    if not num.suppressed and 0 < denominator - numerator < min_cell:
        num = Count.between(max(denominator - min_cell + 1, 0), denominator - 1)
    return num, den


def difference_refusal(total: Count | None, rows: Sequence[Count], min_cell: int) -> str | None:
    """Why a table whose rows each count a part of ``total`` must not be shown (rule 3), or None."""
    hidden = [row for row in rows if row.suppressed]
    if total is None or total.value is None or not hidden:
        return None
    remainder = total.value - sum(row.value for row in rows if row.value is not None)
    if remainder < min_cell:
        return (
            f"refused: the total ({total.value}) minus the rows shown leaves {max(remainder, 0)} for the "
            f"{len(hidden)} hidden row(s), which would reveal a count below {min_cell}; ask without the grouping "
            "or for a broader cohort"
        )
    return None
