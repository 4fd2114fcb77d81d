"""The report's figures, as PNGs to embed: the heatmap of mistakes per unit and the score distribution, and the
colour maths that keeps their numbers readable (WCAG contrast)."""
import base64
import io
import warnings
from collections import Counter

from autograder.grading.outputs.class_report.analysis import percent

BOX_FROM = 5  # submissions of an assignment from which the distribution gets a box
HEATMAP_IDS = 30  # ids drawn in the heatmap (the table lists them all)
DISCRETE_UP_TO = 12  # up to this many students in a heatmap cell, one distinct colour per count
# The figures' PNGs: DPI, and their text at matplotlib's default size, LABEL_PX tall at the PNG's own size. The page
# never draws a figure below SMALLEST_SCALE of that size (it scrolls in its box instead): labels of 12 px or more.
DPI, LABEL_PT = 96, 10
LABEL_PX = LABEL_PT * DPI / 72
SMALLEST_SCALE = 0.9


def import_libraries():
    """Import what drawing the figures needs (matplotlib, seaborn, pandas: about a second), so that a client with
    nothing else to do imports it before the report is due (runner.import_what_the_end_needs, while the last
    submissions are graded); importing twice costs nothing."""
    import matplotlib.figure  # noqa: F401
    import pandas  # noqa: F401
    import seaborn  # noqa: F401


def png(figure):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def heatmap_colours(top):
    """(colormap, norm, {count: RGB}) of the heatmap, whose counts run from 1 to ``top``.

    seaborn's "flare" palette: light orange to dark purple, never black, so that a small class (where
    every count is the maximum) still reads. Up to DISCRETE_UP_TO students, one distinct colour per count
    (and a legend with one entry per count); beyond, a continuous scale with whole-number ticks.
    """
    import numpy as np
    import seaborn as sns
    from matplotlib.colors import BoundaryNorm, ListedColormap, Normalize

    top = max(1, int(top))
    if top <= DISCRETE_UP_TO:
        # one colour per count, spread over the palette (a lone count gets the palette's middle)
        palette = sns.color_palette("flare", n_colors=max(top, 1))
        colormap, norm = ListedColormap(palette), BoundaryNorm(np.arange(0.5, top + 1.5), top)
        return colormap, norm, {count: tuple(palette[count - 1]) for count in range(1, top + 1)}
    colormap, norm = sns.color_palette("flare", as_cmap=True), Normalize(vmin=1, vmax=top)
    return colormap, norm, {count: tuple(colormap(norm(count)))[:3] for count in range(1, top + 1)}


def luminance(rgb):
    """WCAG relative luminance of an RGB colour (channels 0..1)."""
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb[:3]]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a, b):
    """WCAG contrast ratio of two colours."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def text_colour(background):
    """Black or white, whichever reads better on ``background``."""
    return max(((0.0, 0.0, 0.0), (1.0, 1.0, 1.0)), key=lambda ink: contrast(ink, background))


def heatmap_figure(ranking, labels):
    """Unit (columns) x mistake id (rows) heatmap of numbers of students, both sorted by frequency."""
    import matplotlib

    with matplotlib.rc_context({"font.size": LABEL_PT}):
        return _heatmap_figure(ranking, labels)


def _heatmap_figure(ranking, labels):
    import numpy as np
    import seaborn as sns
    from matplotlib.figure import Figure

    rows = ranking[:HEATMAP_IDS]
    unit_totals = Counter()
    for _, _, per_unit in rows:
        unit_totals.update(per_unit)
    columns = sorted(unit_totals, key=lambda u: (-unit_totals[u], u))
    counts = np.array([[per_unit.get(u, 0) for u in columns] for _, _, per_unit in rows])
    top = int(counts.max()) if counts.size else 1
    colormap, norm, colours = heatmap_colours(top)
    figure = Figure(figsize=(min(24, 3.6 + 0.55 * len(columns)), min(30, 1.8 + 0.34 * len(rows))))
    axes = figure.subplots()
    annotate = len(rows) * len(columns) <= 1200
    sns.heatmap(counts, ax=axes, mask=counts == 0, annot=annotate, fmt="d", cmap=colormap, norm=norm,
                cbar_kws={"label": "students"}, linewidths=0.5, linecolor="#dddddd",
                xticklabels=[labels[u] for u in columns], yticklabels=[m for m, _, _ in rows])
    for text in axes.texts if annotate else ():  # each number in the ink that reads best on its cell's colour
        text.set_color(text_colour(colours.get(int(text.get_text()), (1.0, 1.0, 1.0))))
    axes.set_xlabel("unit (most frequent mistakes first)")
    axes.set_ylabel("mistake id")
    axes.tick_params(axis="x", labelrotation=45)
    axes.tick_params(axis="y", labelrotation=0)
    colorbar = axes.collections[0].colorbar
    ticks = list(range(1, top + 1)) if top <= DISCRETE_UP_TO else \
        sorted({int(round(t)) for t in np.linspace(1, top, 6)})  # noqa: RUF046 (numpy's round)
    colorbar.set_ticks(ticks)
    colorbar.set_ticklabels([str(t) for t in ticks])
    for tick in axes.get_xticklabels():
        tick.set_horizontalalignment("right")
    axes.set_facecolor("white")
    return png(figure)


def distribution_figure(data):
    """Scores (% of the assignment's max) per assignment: a box per assignment and every submission as a dot."""
    import matplotlib

    with matplotlib.rc_context({"font.size": LABEL_PT}):
        return _distribution_figure(data)


def _distribution_figure(data):
    import pandas as pd
    from matplotlib.figure import Figure

    rows = [{"assignment": a, "score (% of max)": percent(points, maximum)}
            for (_, a), (points, maximum) in data.submissions.items() if maximum > 0]
    if not rows:
        return None
    frame = pd.DataFrame(rows)
    order = [a for a in data.assignments if a in set(frame["assignment"])]
    figure = Figure(figsize=(8, 1.2 + 0.45 * len(order)))
    axes = figure.subplots()
    with warnings.catch_warnings():  # seaborn 0.13 passes matplotlib 3.11 a deprecated argument: not ours to fix
        warnings.simplefilter("ignore")
        draw_distribution(frame, order, axes)
    axes.set_xlim(-3, 103)
    axes.grid(axis="x", color="#eeeeee")
    return png(figure)


def draw_distribution(frame, order, axes):
    import seaborn as sns

    sizes = frame["assignment"].value_counts()
    boxed = frame[frame["assignment"].map(sizes) >= BOX_FROM]  # a box of two or three dots would mislead
    if not boxed.empty:
        sns.boxplot(data=boxed, x="score (% of max)", y="assignment", order=order, ax=axes, color="#c6dbef",
                    showfliers=False, width=0.6)
    dense = len(frame) > 40 * len(order)
    sns.stripplot(data=frame, x="score (% of max)", y="assignment", order=order, ax=axes, color="#08306b",
                  size=2 if dense else 4, alpha=0.35 if dense else 0.8, jitter=0.25)
