"""Every storyline and comorbidity of the synthetic cohort, read from the YAML files beside this module.

The content (phrasings, codes, medications) is data, one file a specialty (``01-medicine.yaml``, ...) and
``comorbidities.yaml``; :mod:`.loader` reads and checks them, and :mod:`clinrag.ingest.synthetic.model` is their
schema. A new storyline is a new entry in a file (or a new file), no Python.

Example:
    >>> storyline_by_key("hip_fracture").diagnosis.code
    'S72001A'
"""

from importlib import resources

from clinrag.ingest.synthetic.model import Comorbidity, Storyline
from clinrag.ingest.synthetic.storylines.loader import load_storylines

__all__ = ["COMORBIDITIES", "STORYLINES", "storyline_by_key"]

_CONTENT = load_storylines(resources.files(__name__))

STORYLINES: tuple[Storyline, ...] = _CONTENT.storylines
"""All storylines, in a stable order (by file name, then as each file lists them)."""

COMORBIDITIES: tuple[Comorbidity, ...] = _CONTENT.comorbidities
"""The chronic conditions a patient may carry, as ``comorbidities.yaml`` lists them."""

_BY_KEY: dict[str, Storyline] = {storyline.key: storyline for storyline in STORYLINES}


def storyline_by_key(key: str) -> Storyline:
    """The storyline with this ``key``; raises ``KeyError`` naming the known keys when there is none."""
    try:
        return _BY_KEY[key]
    except KeyError:
        known = ", ".join(sorted(_BY_KEY))
        raise KeyError(f"unknown storyline key {key!r}; known keys: {known}") from None
