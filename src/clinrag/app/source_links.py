"""How every face (the CLI's sources table and ``--json``, the OpenAI-compatible API's source info, the web app's
evidence panel) names and links a literature source: a citation as "First author et al., Journal Year · Title ·
PMID n" linked to its PubMed page, a guideline as "Publisher · Title · Date" linked to its URL.

A link is given only for an absolute ``http``/``https`` URL with a host: a guideline's URL comes from its manifest
(checked at ingestion) or from another organisation's node, and a ``javascript:`` or ``data:`` URL is never a link.

Example:
    >>> from clinrag.types import Citation
    >>> citation = Citation(pmid=31535829, title="Dapagliflozin in heart failure.",
    ...                     authors=("McMurray JJV", "Solomon SD"), year=2019, journal_abbrev="N Engl J Med")
    >>> citation_reference(citation)
    'McMurray JJV et al., N Engl J Med 2019 · Dapagliflozin in heart failure. · PMID 31535829'
    >>> safe_link("javascript:alert(1)") is None, safe_link(citation.url)
    (True, 'https://pubmed.ncbi.nlm.nih.gov/31535829/')
"""

from __future__ import annotations

from urllib.parse import urlsplit

from clinrag.types import Chunk, Citation, Guideline

MAX_LINK_CHARS = 2000
"""A longer URL is not shown as a link (no manifest or PubMed page needs one)."""


def safe_link(url: str | None) -> str | None:
    """``url`` when it is an absolute ``http``/``https`` URL with a host and no blanks or control characters, else
    None: what may be shown as a link.

    Example:
        >>> safe_link("https://guidelines.example.org/af"), safe_link("data:text/html,x"), safe_link("//x.org/a")
        ('https://guidelines.example.org/af', None, None)
    """
    if not url or len(url) > MAX_LINK_CHARS or any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return url


def citation_reference(citation: Citation) -> str:
    """ "First author et al., Journal Year · Title · PMID n" (the journal's abbreviation when it has one).

    Example:
        >>> citation_reference(Citation(pmid=1, title="A trial.", authors=("Meyer M",), year=2025, journal="Chest"))
        'Meyer M, Chest 2025 · A trial. · PMID 1'
    """
    pmid = f"PMID {citation.pmid}"
    lead = citation.short.removesuffix(pmid).removesuffix(", ")  # `Citation.short` less its PMID: author, journal year
    return " · ".join(part for part in (lead, citation.title, pmid) if part)


def guideline_reference(guideline: Guideline) -> str:
    """ "Publisher · Title · Date".

    Example:
        >>> from datetime import date
        >>> guideline_reference(Guideline(title="AF", publisher="Example Cardiology Society",
        ...                               url="https://guidelines.example.org/af", date=date(2024, 3, 15), licence="x"))
        'Example Cardiology Society · AF · 2024-03-15'
    """
    return f"{guideline.publisher} · {guideline.title} · {guideline.date.isoformat()}"


def source_reference(chunk: Chunk) -> str | None:
    """The one-line reference of a literature chunk (citation or guideline), None for a record.

    Example:
        >>> from clinrag.types import SourceKind
        >>> source_reference(Chunk.create(source_id="n", text="x", org="A", dept="d", source_kind=SourceKind.NOTE))
    """
    if chunk.citation is not None:
        return citation_reference(chunk.citation)
    if chunk.guideline is not None:
        return guideline_reference(chunk.guideline)
    return None


def source_link(chunk: Chunk) -> str | None:
    """The link of a literature chunk: its PubMed page, or its guideline's URL when safe; None for a record.

    Example:
        >>> from clinrag.types import SourceKind
        >>> chunk = Chunk.create(source_id="pmid:7", text="x", org="LIB", dept="literature",
        ...                      source_kind=SourceKind.ABSTRACT, citation=Citation(pmid=7, title="T."))
        >>> source_link(chunk)
        'https://pubmed.ncbi.nlm.nih.gov/7/'
    """
    if chunk.citation is not None:
        return safe_link(chunk.citation.url)
    if chunk.guideline is not None:
        return safe_link(chunk.guideline.url)
    return None
