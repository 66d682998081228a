"""MEDLINE XML parsing (issue 20): records per second and peak memory reading a 30,000-record file (synthetic,
written to the PubMed DTD by `clinrag.ingest.synthetic.medline`), plain and gzipped.

Baseline in the same run: the same file parsed whole (``lxml.etree.parse``, then every ``<PubmedArticle>`` read with
the same field reader) — what a reader that does not stream needs in memory. Each step runs in a fresh process, so
its peak RSS is its own.

    python benchmarks/bench_medline.py [--records 30000] [--work /tmp/clinrag-medline]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from common import run_measured, write

STREAMED = """
import time
from pathlib import Path
from clinrag.ingest.medline import MedlineRecord, read_medline
started = time.perf_counter()
count = sum(1 for event in read_medline(Path({path!r})) if isinstance(event, MedlineRecord))
RESULT = {{"records": count, "parse_seconds": round(time.perf_counter() - started, 3)}}
"""
WRITE = """
from pathlib import Path
from clinrag.ingest.synthetic.medline import synthetic_records, write_medline
records = synthetic_records({records}, seed=20)
for path in {paths!r}:
    write_medline(Path(path), records)
"""
WHOLE = """
import gzip, time
from pathlib import Path
from lxml import etree
from clinrag.ingest.medline import parse_article
started = time.perf_counter()
path = Path({path!r})
tree = etree.parse(gzip.open(path) if path.suffix == ".gz" else str(path))
count = sum(1 for element in tree.iter("PubmedArticle") if parse_article(element))
RESULT = {{"records": count, "parse_seconds": round(time.perf_counter() - started, 3)}}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=30_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/clinrag-medline"))
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    files = {"plain": args.work / "baseline.xml", "gzip": args.work / "baseline.xml.gz"}
    # written by a process of its own: Linux carries a parent's peak RSS into the children it forks and execs, so
    # this process must never hold the 30,000 records itself
    run_measured(WRITE.format(records=args.records, paths=[str(p) for p in files.values()]))
    runs = {}
    for kind, path in files.items():
        for name, code in (("streamed", STREAMED), ("whole_tree", WHOLE)):
            measured = run_measured(code.format(path=str(path)))
            measured["records_per_second"] = round(measured["records"] / measured["parse_seconds"])
            measured["file_mib"] = round(path.stat().st_size / 2**20, 1)
            runs[f"{name}_{kind}"] = measured
            print(name, kind, measured)
    write(
        "medline",
        {
            "benchmark": "medline",
            "records": args.records,
            "baseline": "the same file parsed whole (lxml.etree.parse), same field reader",
            "runs": runs,
        },
    )


if __name__ == "__main__":
    main()
