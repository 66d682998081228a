"""Every storyline and comorbidity of the synthetic cohort, gathered from the per-specialty modules.

Example:
    >>> storyline_by_key("hip_fracture").diagnosis.code
    'S72001A'
"""

from clinrag.ingest.synthetic.model import Storyline
from clinrag.ingest.synthetic.storylines import (
    cardiology,
    medicine,
    neurology,
    obstetrics,
    orthopaedics,
    psychiatry,
    surgery,
    urology,
)
from clinrag.ingest.synthetic.storylines.comorbidities import COMORBIDITIES

__all__ = ["COMORBIDITIES", "STORYLINES", "storyline_by_key"]

STORYLINES: tuple[Storyline, ...] = (
    *medicine.STORYLINES,
    *cardiology.STORYLINES,
    *surgery.STORYLINES,
    *orthopaedics.STORYLINES,
    *psychiatry.STORYLINES,
    *neurology.STORYLINES,
    *obstetrics.STORYLINES,
    *urology.STORYLINES,
)
"""All storylines, in a stable order (by module, then as each module lists them)."""

_BY_KEY: dict[str, Storyline] = {storyline.key: storyline for storyline in STORYLINES}


def storyline_by_key(key: str) -> Storyline:
    """The storyline with this ``key``; raises ``KeyError`` naming the known keys when there is none."""
    try:
        return _BY_KEY[key]
    except KeyError:
        known = ", ".join(sorted(_BY_KEY))
        raise KeyError(f"unknown storyline key {key!r}; known keys: {known}") from None
