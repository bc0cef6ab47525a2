"""The report's charts (matplotlib, Agg backend): task success per suite, and the raters' root causes.

matplotlib is imported when a chart is drawn, so reading a sweep does not pay for it.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from latent_agent.agent.methods import METHODS
from latent_agent.benchmarks.metrics import MethodMetrics, Metrics
from latent_agent.benchmarks.ratings import RootCause
from latent_agent.benchmarks.report_main import CAUSE_NAMES
from latent_agent.benchmarks.report_tables import method_label

CAUSE_COLOURS = {RootCause.ACTION_SELECTION: "#2f6fdf", RootCause.GROUNDING: "#e8912d", RootCause.BOTH: "#8a5cc2",
                 RootCause.ENVIRONMENT: "#9aa5b1"}
#: Bar colours of the paper's two variants; other variants take the next of :data:`SERIES_COLOURS`.
LEGEND_COLOURS = {"without latent state": "#9aa5b1", "with latent state": "#2f6fdf"}
SERIES_COLOURS = ("#e8912d", "#8a5cc2", "#2a9d8f", "#c44e52", "#6b8e23")


def chart_groups(metrics: Metrics, suite: str) -> tuple[list[str], dict[str, dict[str, MethodMetrics]]]:
    """The success chart's groups (family labels) and series (variant legend -> group -> metrics).

    Within a group, one bar per variant (with and without latent state for the paper's methods);
    a method no longer registered is its own group, so no method in the results is left out.
    """
    series: dict[str, dict[str, MethodMetrics]] = {}
    groups: list[str] = []
    for m in metrics.methods:
        if m.suite != suite:
            continue
        known = METHODS.get(m.method)
        group = known.family.label if known is not None else m.method
        legend = known.variant.legend if known is not None else m.method
        if group in series.get(legend, {}):  # two methods of one family share a variant: tell them apart
            legend = m.method
        if group not in groups:
            groups.append(group)
        series.setdefault(legend, {})[group] = m
    return groups, series


def success_chart(metrics: Metrics, suite: str, path: Path) -> Path | None:
    """Grouped bars: task success of every method in the suite, one group per family (:func:`chart_groups`)."""
    groups, series = chart_groups(metrics, suite)
    if not groups:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # One bar per method, families side by side with a gap between them: with many families of
    # different sizes, bars laid out per legend across all groups drift off their group's centre.
    bars_of = [[(legend, by_group[g]) for legend, by_group in series.items() if g in by_group] for g in groups]
    xs, labels, colours, rates, centres = [], [], [], [], []
    x = 0.0
    palette = iter(SERIES_COLOURS)
    family_colour: dict[str, str] = {}
    for group, members in zip(groups, bars_of, strict=True):
        start = x
        for legend, m in members:
            colour = LEGEND_COLOURS.get(legend) or family_colour.get(group)
            if colour is None:
                colour = family_colour[group] = next(palette, "#555555")
            xs.append(x)
            labels.append(legend if len(members) > 1 else "")
            colours.append(colour)
            rates.append(100 * (m.success or 0.0))
            x += 1.0
        centres.append((start + x - 1.0) / 2)
        x += 0.7
    fig, ax = plt.subplots(figsize=(max(6.0, 0.42 * len(xs) + 2.0), 4.2), dpi=100)
    bars = ax.bar(xs, rates, 0.8, color=colours)
    ax.bar_label(bars, fmt="%.0f%%", fontsize=7)
    ax.set_xticks(xs, labels, rotation=35, ha="right", fontsize=7)
    for centre, group, members in zip(centres, groups, bars_of, strict=True):
        # Wrapped to the group's width, so long family names do not run into their neighbours.
        ax.text(centre, 107, textwrap.fill(group, max(10, 8 * len(members))), ha="center", va="bottom",
                fontsize=8, linespacing=1.0)
    ax.set_ylabel("task success (%)")
    ax.set_ylim(0, 130)
    ax.set_yticks(range(0, 101, 20))
    ax.set_title(f"Task success: {suite}")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    plt.close(fig)
    return path


def causes_chart(metrics: Metrics, suite: str, path: Path) -> Path | None:
    """Stacked bars in the paper's Fig. 3 style: each agent's rated failures split by primary root cause."""
    rows = [c for c in metrics.causes if c.suite == suite and c.rated]
    if not rows:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 0.55 * len(rows) + 1.9), dpi=100)
    labels = [f"{method_label(c.method)} (n={c.rated})" for c in rows]
    left = [0.0] * len(rows)
    for cause in RootCause:
        shares = [100 * (c.share(cause) or 0.0) for c in rows]
        bars = ax.barh(labels, shares, left=left, label=CAUSE_NAMES[cause], color=CAUSE_COLOURS[cause])
        ax.bar_label(bars, labels=[f"{v:.0f}%" if v >= 8 else "" for v in shares], label_type="center",
                     fontsize=8, color="white")
        left = [a + b for a, b in zip(left, shares, strict=True)]
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of rated failures (%)")
    ax.set_title(f"Primary root cause of failures: {suite}")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=4, fontsize=8, frameon=False)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    plt.close(fig)
    return path
