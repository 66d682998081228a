"""Run every benchmark script in this folder (``make bench``); each writes its JSON to benchmarks/results/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

if __name__ == "__main__":
    here = Path(__file__).parent
    for script in sorted(here.glob("bench_*.py")):
        print(f"== {script.name}", flush=True)
        subprocess.run([sys.executable, str(script), *sys.argv[1:]], check=True, cwd=here)
