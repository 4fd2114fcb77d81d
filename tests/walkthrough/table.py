"""Write notebooks/WALKTHROUGH.md: every walkthrough row, the message it gets, and its totals.

    python -m tests.walkthrough.table
"""
from collections import Counter
from pathlib import Path

from tests.walkthrough.rows import all_rows
from tests.walkthrough.runner import ROOT, named_id, play

HEADER = """# The learner walkthrough

Every release notebook worked as a learner would, one realistic mistake at a time: what the
learner wrote, the message the unit's visible test shows (its first line and its detail), whether it names
the right mistake, whether it helps, and whether it gives the answer away. The rows live in
`tests/walkthrough/cases_<notebook>.py` and `make test` plays every one of them
(`tests/walkthrough/test_walkthrough.py`); this file is written from them by
`python -m tests.walkthrough.table`.

A row whose visible test passes is a mistake the visible test cannot see from its cases (said
why); the grader's hidden checks name it.
"""


def _gist(message):
    """The message's first line (its id and what is wrong) and its detail (the last line before any
    static hints), shortened: what a reader of the table needs to judge it."""
    lines = [line for line in message.split("\n\nAlso, a static look")[0].splitlines() if line.strip()]
    if not lines:
        return ""
    detail = lines[-1] if len(lines) > 2 else ""
    detail = detail if len(detail) <= 220 else detail[:217] + "..."
    return lines[0] + (f" / {detail}" if detail else "")


def _cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def main():
    lines, totals = [HEADER], Counter()
    notebook = None
    for row in all_rows():
        if row.notebook != notebook:
            notebook = row.notebook
            lines += [f"\n## {notebook}\n", "| unit | the learner's mistake | message (first line / detail) | named right? | helpful? | gives the answer away? |",
                      "|---|---|---|---|---|---|"]
        played = play(row)
        if row.expect:
            named = "yes" if named_id(played.message) == row.expect and not played.later_error else "**no**"
            first = _gist(played.message)
        else:
            named = "not seen" if played.passed else "**no**"
            first = f"(passes the visible test: {row.why_unseen})"
        totals[f"named right: {named}"] += 1
        totals["rows"] += 1
        totals[f"helpful: {row.helpful}"] += 1
        totals[f"gives the answer away: {row.gives_away}"] += 1
        lines.append(f"| `{row.unit}` | {_cell(row.what)} | {_cell(first)} | {named} | {row.helpful} | {row.gives_away} |")
    lines.append("\n## Totals\n")
    lines += [f"- {key} -> {value}" for key, value in sorted(totals.items())]
    (ROOT / "notebooks" / "WALKTHROUGH.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[-len(totals):]))


if __name__ == "__main__":
    main()
