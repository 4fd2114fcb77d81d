"""OUT/report.html: the class at a glance, for instructors (``autograder report OUT``).

Made from OUT/results.json alone; OUT/logs/ (timings, warnings) is read where present. One
self-contained page: figures are PNGs embedded in it, no JavaScript, no network. Sections:

1. at a glance: the few lines to read before the next lecture;
2. misconceptions: a heatmap of unit x mistake id (number of students), the same counts as a
   table, each id linked to its explanation (the catalogue text learners see) and to where its
   unit is taught (the release notebook and its section, in words, in the page: every link of
   the page stays inside it, so it can be moved or mailed); units left unanswered apart;
3. who needs help: the lowest totals, missing or unreadable notebooks, folders in SUBMITTED that
   were not graded (OUT/logs/not-graded.txt), notebooks stopped by the time budget or a sandbox
   limit, tampering;
4. scores: the distribution per assignment, and per unit the share of the class with full marks;
5. the run: what was graded, by which runs (a resumed run's earlier timings are kept in OUT/state/), the
   time per notebook, the run's warnings (as the terminal showed them) and anything graded with warnings.

The package's modules, each importing only those before it: records (reading results.json, OUT/logs/ and
OUT/state/'s timings), sections (where each unit is taught), analysis (the class's figures of merit), figures
(the PNGs and their colours), page (the sections and their rendering). What stopped a notebook is read from the
records' fields (outputs/failures.py). This module gives the names other code uses.
"""
from autograder.grading.outputs.class_report.analysis import (
    OUTSIDE_ONLY,
    ClassData,
    analyse,
    mistake_ranking,
    named_ids,
    unit_labels,
)
from autograder.grading.outputs.class_report.figures import (
    LABEL_PX,
    contrast,
    heatmap_colours,
    text_colour,
)
from autograder.grading.outputs.class_report.page import (
    ReportError,
    course_name,
    render,
    write_report,
)
from autograder.grading.outputs.class_report.records import (
    clean_records,
    parse_log,
    read_logs,
    unit_of,
)
from autograder.grading.outputs.class_report.sections import (
    Section,
    Teaching,
    catalogue,
)
from autograder.grading.outputs.failures import (
    GRADER_TROUBLE,
    LIMITS,
    NOT_GRADED,
    failure_in_messages,
    record_failure,
)

__all__ = ["GRADER_TROUBLE", "LABEL_PX", "LIMITS", "NOT_GRADED", "OUTSIDE_ONLY", "ClassData", "ReportError", "Section",
           "Teaching", "analyse", "catalogue", "clean_records", "contrast", "course_name", "failure_in_messages",
           "heatmap_colours", "mistake_ranking", "named_ids", "parse_log", "read_logs", "record_failure", "render",
           "text_colour", "unit_labels", "unit_of", "write_report"]
