"""The demo library's content, all written for clinrag: synthetic MEDLINE citations (`synthetic.medline`) and two
fictional guidelines (HTML and Markdown, under ``guidelines/`` beside this module, by fictional publishers). No real
abstract or guideline text is in the repository.

Example:
    >>> sorted(path.name for path in GUIDELINES.rglob("*.toml"))
    ['af-anticoagulation.toml', 'guideline.toml']
    >>> GUIDELINE_PUBLISHERS
    ('Example Cardiology Society', 'Example Health Agency')
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

GUIDELINES: Final = Path(__file__).parent / "guidelines"
"""A guidelines folder ``clinrag guidelines ingest`` reads: one sub-folder per guideline with its manifest."""

GUIDELINE_PUBLISHERS: Final = ("Example Cardiology Society", "Example Health Agency")
"""The publishers of `GUIDELINES`: the demo library's allow-list."""
