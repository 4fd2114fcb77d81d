"""Small plotting helpers the notebooks share: titled, labelled figures of the learner's own tensors."""
import os

import matplotlib.pyplot as plt

from learner_kit import show_failure
from learner_kit.i18n import tr

show_failure.watch()  # in JupyterLab, a cell that stops on an error brings its message into view (Run All)


def grading() -> bool:
    """True while nbgrader autogrades or validates (it sets NBGRADER_EXECUTION): skip slow figures then."""
    return bool(os.environ.get("NBGRADER_EXECUTION"))


def _to_numpy(weights):
    return weights.detach().float().cpu().numpy()


def attention_heatmap(weights, query_labels=None, key_labels=None, title=None, ax=None, annotate=True,
                      vmax=None):
    """Draw one (L_q, L_k) attention map: rows are queries, columns keys; each row sums to 1.

    The colour scale runs from 0 to `vmax` (default: this map's largest weight); give maps that
    are meant to be compared the same `vmax`, so that one colour means one weight in all of them.
    `title` defaults to "Attention weights" (in the learner's language).
    """
    data = _to_numpy(weights)
    if ax is None:
        _, ax = plt.subplots(figsize=(1 + 0.6 * data.shape[1], 1 + 0.5 * data.shape[0]))
    top = max(1e-9, float(data.max()) if vmax is None else float(vmax))
    image = ax.imshow(data, cmap="viridis", vmin=0.0, vmax=top)
    ax.set_title(tr("Attention weights") if title is None else title)
    _label_axes(ax)
    ax.set_xticks(range(data.shape[1]), key_labels if key_labels is not None else range(data.shape[1]), rotation=45)
    ax.set_yticks(range(data.shape[0]), query_labels if query_labels is not None else range(data.shape[0]))
    if annotate and data.size <= 100:
        for i in range(data.shape[0]):
            for j in range(data.shape[1]):
                ax.text(j, i, f"{data[i, j]:.2f}", ha="center", va="center", color="white" if data[i, j] < 0.6 * top else "black", fontsize=8)
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    return ax


def attention_grid(weights, query_labels=None, key_labels=None, title=None, vmax="shared"):
    """Draw (n_head, L_q, L_k) maps side by side, one panel per head; `title` defaults to "Attention per head".

    The panels share one colour scale, 0 to the largest weight of them all (vmax="shared"), or
    0 to `vmax` when a number is given; vmax=None gives each panel its own scale.
    """
    n_head = weights.shape[0]
    if isinstance(vmax, str):
        vmax = float(_to_numpy(weights).max())
    fig, axes = plt.subplots(1, n_head, figsize=(3.2 * n_head, 3.2), squeeze=False)
    for head, ax in enumerate(axes[0]):
        attention_heatmap(weights[head], query_labels, key_labels, title=tr("head {number}", number=head), ax=ax,
                          annotate=False, vmax=vmax)
    fig.suptitle(tr("Attention per head") if title is None else title)
    fig.tight_layout()
    return fig


def mask_heatmap(mask, query_labels=None, key_labels=None, title=None, ax=None):
    """Draw one bool (L_q, L_k) mask: rows are queries, columns keys; True (may attend) light, False (blocked) dark.
    `title` defaults to "Mask"."""
    from matplotlib.colors import ListedColormap

    data = mask.detach().cpu().bool().numpy()
    if ax is None:
        _, ax = plt.subplots(figsize=(1 + 0.5 * data.shape[1], 1 + 0.5 * data.shape[0]))
    ax.imshow(data, cmap=ListedColormap(["#2f2f3a", "#f2d16b"]), vmin=0, vmax=1)
    ax.set_title(tr("Mask") if title is None else title)
    _label_axes(ax)
    ax.set_xticks(range(data.shape[1]), key_labels if key_labels is not None else range(data.shape[1]), rotation=45)
    ax.set_yticks(range(data.shape[0]), query_labels if query_labels is not None else range(data.shape[0]))
    if data.size <= 144:
        for i in range(data.shape[0]):
            for j in range(data.shape[1]):
                ax.text(j, i, "T" if data[i, j] else "F", ha="center", va="center", color="black" if data[i, j] else "white", fontsize=8)
    return ax


def _label_axes(ax):
    """Keys along the x axis, queries along the y axis."""
    ax.set_xlabel(tr("key (attended to)"))
    ax.set_ylabel(tr("query (attending)"))
