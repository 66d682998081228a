"""Guideline documents for the tests, all written for clinrag (fictional publishers, no real guideline text): the
HTML and Markdown ones the demo library ingests too (`clinrag.ingest.synthetic.library.GUIDELINES`), the PDF one
written here with fpdf2."""

from __future__ import annotations

import shutil
from pathlib import Path

from fpdf import FPDF

from clinrag.ingest.synthetic.library import GUIDELINE_PUBLISHERS, GUIDELINES

FIXTURES = GUIDELINES
PUBLISHERS = (*GUIDELINE_PUBLISHERS, "Example Kidney Foundation")
PDF_MANIFEST = """title = "Chronic kidney disease: monitoring"
publisher = "Example Kidney Foundation"
url = "https://kidney.example.org/ckd-monitoring"
date = 2022-06-30
licence = "CC BY-NC 4.0"
"""


def write_ckd_pdf(path: Path, extra: str = "") -> Path:
    """A two-page PDF guideline: a title, numbered headings, paragraphs wrapped over several lines, a list, a ruled
    table, and a paragraph running on to the second page; ``extra`` adds a sentence (a changed document)."""
    pdf = FPDF()
    pdf.set_auto_page_break(auto=True, margin=15)
    pdf.add_page()

    def heading(text: str, size: int) -> None:
        pdf.set_font("Helvetica", "B", size)
        pdf.cell(0, 10, text, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 11)

    def paragraph(text: str) -> None:
        pdf.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(4)

    heading("Chronic kidney disease: monitoring", 18)
    paragraph("A fictional guideline written for clinrag's tests. It is not clinical advice.")
    heading("1. Measuring kidney function", 14)
    paragraph(
        "Estimate the glomerular filtration rate from serum creatinine with the CKD-EPI equation. Measure the "
        "albumin to creatinine ratio in an early morning urine sample to detect albuminuria. " + extra
    )
    heading("2. Frequency of monitoring", 14)
    paragraph("Monitor the estimated glomerular filtration rate at least as often as the table below says.")
    with pdf.table() as table:
        for cells in (
            ("GFR category", "eGFR (ml/min/1.73 m2)", "Monitoring per year"),
            ("G3a", "45 to 59", "1 to 2 times"),
            ("G3b", "30 to 44", "2 times"),
            ("G4", "15 to 29", "3 times"),
        ):
            row = table.row()
            for cell in cells:
                row.cell(cell)
    pdf.ln(4)
    heading("3. Referral", 14)
    paragraph("- Refer adults with an eGFR below 30 ml/min/1.73 m2 to a kidney specialist.")
    paragraph("- Refer adults whose albumin to creatinine ratio is 70 mg/mmol or more.")
    pdf.add_page()
    heading("4. Blood pressure", 14)
    paragraph(
        "Aim for a clinic systolic blood pressure below 140 mmHg in adults with chronic kidney disease, and below "
        "130 mmHg when the albumin to creatinine ratio is 70 mg/mmol or more."
    )
    pdf.output(str(path))
    return path


def guideline_folder(root: Path) -> Path:
    """A guidelines folder under ``root``: the committed HTML and Markdown guidelines, and the PDF one."""
    folder = root / "guidelines"
    shutil.copytree(FIXTURES, folder)
    (folder / "kidney").mkdir()
    write_ckd_pdf(folder / "kidney" / "ckd-monitoring.pdf")
    (folder / "kidney" / "ckd-monitoring.toml").write_text(PDF_MANIFEST)
    return folder
