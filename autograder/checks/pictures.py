"""Attention maps: the learner's beside the reference's, when they differ, in a notebook.

Drawn in the failing test cell's output (graded or not) just before the message; one
small figure, and nothing at all outside IPython. A picture must never hide the message,
so any problem while drawing is swallowed.
"""
import io
import sys
import warnings

import torch

from learner_kit import harness
from learner_kit.i18n import tr


def in_notebook():
    ipython = sys.modules.get("IPython")
    return ipython is not None and ipython.get_ipython() is not None


def show_attention(mine, theirs, name):
    """Draw result `name` of `mine` and `theirs` (dicts of results) if both hold it and they differ."""
    if name not in mine or name not in theirs or not in_notebook():
        return
    if mine[name].shape != theirs[name].shape or harness.close(mine[name], theirs[name]):
        return
    try:
        from IPython.display import Image, display

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            png = io.BytesIO()
            attention_figure(mine[name], theirs[name], name).savefig(png, format="png", dpi=80)
            display(Image(data=png.getvalue()))  # a PNG shows whatever matplotlib backend is active
    except Exception:  # noqa: BLE001 - drawing is a bonus; the message must still come
        pass


def attention_figure(mine, theirs, name):
    """A matplotlib Figure: yours | expected | difference, for the map where they differ most."""
    from matplotlib.figure import Figure

    mine, theirs = (t.detach().cpu().double() for t in (mine, theirs))
    lead, (rows, cols) = mine.shape[:-2], mine.shape[-2:]
    mine, theirs = mine.reshape(-1, rows, cols), theirs.reshape(-1, rows, cols)
    worst = int((mine - theirs).abs().nan_to_num(nan=2.0).amax(dim=(-2, -1)).argmax())
    figure = Figure(figsize=(8.4, 2.6))
    axes = figure.subplots(1, 3)
    # Weights lie in [0, 1]: the colour scales are the expected map's, and anything of yours
    # outside them (scores, -inf, NaN) saturates rather than flattening the picture.
    difference = (mine[worst] - theirs[worst]).nan_to_num(nan=1.0).clamp(-1, 1)
    maps = (mine[worst].nan_to_num(nan=1.0), theirs[worst], difference)
    titles = (tr("your {name}", name=name), tr("expected {name}", name=name), tr("yours − expected"))
    top = max(float(theirs[worst].max()), 1e-6)
    spread = max(float(difference.abs().max()), 1e-6)
    for axis, data, title, limits, colours in zip(
        axes, maps, titles, ((0, top), (0, top), (-spread, spread)), ("viridis", "viridis", "RdBu_r")
    ):
        image = axis.imshow(data.clamp(-1e6, 1e6).numpy(), vmin=limits[0], vmax=limits[1], cmap=colours)
        axis.set_title(title, fontsize=9)
        axis.set_xlabel(tr("key"))
        axis.set_ylabel(tr("query"))
        figure.colorbar(image, ax=axis, fraction=0.046, pad=0.04)
    if lead:
        figure.suptitle(harness.position([int(i) for i in torch.unravel_index(torch.tensor(worst), tuple(lead))]), fontsize=8)
    figure.tight_layout()
    return figure
