"""A plain feedback page for a notebook that nbgrader could not turn into feedback HTML."""
import html
from pathlib import Path


def write_fallback(path: Path, records, title):
    rows = "".join(
        f"<tr><td>{html.escape(r['grade_id'])}</td><td>{r['points']} / {r['max_points']}</td>"
        f"<td><pre>{html.escape(chr(10).join(r['feedback']))}</pre></td></tr>"
        for r in records
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head><body>"
        f"<h1>{html.escape(title)}</h1><table border='1'><tr><th>test</th><th>points</th><th>feedback</th></tr>{rows}</table>"
        "</body></html>\n",
        encoding="utf-8",
    )


def feedback_folder(out: Path, submission):
    return out / "feedback" / submission.student / submission.assignment


def write_fallbacks(out: Path, submission, records):
    """A fallback page under OUT/feedback/ for each notebook in ``records``."""
    for notebook in sorted({r["notebook"] for r in records}):
        page = feedback_folder(out, submission) / f"{notebook}.html"
        write_fallback(page, [r for r in records if r["notebook"] == notebook], f"{submission.student} / {submission.assignment} / {notebook}")
