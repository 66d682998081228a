"""What every suite test checks: two runs of a suite on the same inputs give equal numbers."""

from __future__ import annotations

from clinrag.evaluate.suites import QuietProgress, Suite, SuiteContext, SuiteResult
from clinrag.settings import IngestSettings, Settings, SynthSettings

SETTINGS = Settings(synth=SynthSettings(workers=2), ingest=IngestSettings(tables=("admissions",)))


def twice(suite: Suite, context: SuiteContext) -> SuiteResult:
    """Run ``suite`` twice on ``context`` (the second reusing what the first cached) and require equal metrics,
    tables and plots (but those drawn from timings); returns the first result."""
    first = suite.run(context, QuietProgress())
    second = suite.run(context, QuietProgress())
    assert first.metrics, f"{suite.name} measured nothing"
    assert first.metrics == second.metrics
    assert [t.to_json() for t in first.tables] == [t.to_json() for t in second.tables]
    assert [p.svg for p in first.plots if not p.timed] == [p.svg for p in second.plots if not p.timed]
    assert first.plots
    assert all(p.svg.lstrip().startswith("<?xml") for p in first.plots)
    return first
