"""After a cell stops on an error in JupyterLab, bring that cell's message into view.

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

JupyterLab's Run All scrolls to the notebook's last cell as it starts, and stays there when a cell
fails and the run stops (jupyterlab/jupyterlab#8714, open): a learner who runs a fresh notebook sees
its summary, not the message of the first test that failed. So each cell that ends in an error
displays, after its message, a few lines of JavaScript that scrolls the cell's outputs into view (only as
far as needed: an output already on screen does not move).

JupyterLab runs it because outputs made in the learner's session are trusted; in a notebook reopened
later they are not, and the bundle's empty text is shown instead. The grader's and nbgrader's runs
(NBGRADER_EXECUTION set) and plain IPython get nothing.
"""
import os

# Run once the output is in the page (JupyterLab runs it before attaching it): the cell's outputs, or this one.
SCROLL = ("setTimeout(function () { try { (element.closest('.jp-OutputArea') || element)"
          ".scrollIntoView({block: 'nearest'}); } catch (error) {} }, 100);")


def _kernel_shell():
    """The IPython shell of a Jupyter kernel with a front end, else None."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return shell if type(shell).__name__ == "ZMQInteractiveShell" else None


def _after_cell(result):
    """IPython's post_run_cell event: after a cell that ended in an error, scroll its outputs into view."""
    if getattr(result, "error_in_exec", None) is None and getattr(result, "error_before_exec", None) is None:
        return
    from IPython.display import display
    display({"application/javascript": SCROLL, "text/plain": ""}, raw=True)


def watch():
    """Register the scroll in this kernel (once); nothing where a grader runs the notebook."""
    shell = _kernel_shell()
    if shell is None or os.environ.get("NBGRADER_EXECUTION"):
        return
    if _after_cell not in shell.events.callbacks["post_run_cell"]:
        shell.events.register("post_run_cell", _after_cell)
