"""nbgrader's configuration on the learner's side: what the Validate button of `make lab` runs.

`make lab` puts this folder first on JUPYTER_CONFIG_PATH (the instructor's configuration is
nbgrader_config.py at the repository root). Validate runs the whole notebook and, for each
test cell that fails, shows the cell and its error in a small dialog. Left as nbgrader has it,
a failing visible test there is some forty lines of test code and a full traceback, with the
message that names the mistake at the very bottom; here each failed cell is named in one line
and its error is the exception's last line: the message itself. The line speaks the notebook's language.
"""
import copy

from nbgrader.validator import Validator

from learner_kit.i18n import notebook_language, speaking, tr

c = get_config()  # noqa: F821

# The kernel that Validate starts reports an error as its last line only (`AssertionError: [sdpa-no-scale] ...`).
c.Execute.extra_arguments = ["--InteractiveShell.xmode=Minimal"]
# As when grading (the root nbgrader_config.py): a cell that runs longer than this is interrupted.
c.Execute.timeout = 60


def _named(cell, language="en"):
    """A copy of a failed cell whose source is one line naming it, instead of the whole test code."""
    cell = copy.deepcopy(cell)
    grade_id = (cell.get("metadata", {}).get("nbgrader", {}) or {}).get("grade_id", "")
    unit, _, kind = grade_id.partition("-")
    with speaking(language):
        if kind == "visible":
            cell.source = tr("The test cell of {unit} (below its answer cell) stops with:", unit=unit)
        else:
            cell.source = tr("The graded cell {grade_id} stops with:", grade_id=grade_id or "(no id)")
    return cell


if not getattr(Validator, "_course_names_failed_cells", False):  # this file is read again on every Validate
    _failed_cells = Validator._get_failed_cells

    def _get_failed_cells(self, nb):
        return [_named(cell, notebook_language(nb)) for cell in _failed_cells(self, nb)]

    Validator._get_failed_cells = _get_failed_cells
    Validator._course_names_failed_cells = True
