"""The report's charts (matplotlib, Agg backend): task success per suite, the raters' root causes, and each
MiniWoB++ method's per-task success beside a paper's (:func:`paper_chart`).

matplotlib is imported when a chart is drawn, so reading a sweep does not pay for it.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

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


def _pyplot() -> ModuleType:
    """matplotlib's pyplot on the Agg backend (the stats extra: imported when a chart is drawn)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


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


@dataclass(frozen=True, slots=True)
class SuccessBars:
    """Where the success chart puts its bars and what it writes on them.

    Attributes:
        xs: Each bar's position.
        labels: Each bar's name under it: its method, as a sweep is run with it (``zero-shot+``).
        colours: Each bar's colour.
        rates: Each bar's task success (%).
        headings: (centre, family label) over each group of several bars; a group of one bar has none, its
            bar's name says it ("Zero-shot" over zero-shot+ would misname it).
    """

    xs: tuple[float, ...]
    labels: tuple[str, ...]
    colours: tuple[str, ...]
    rates: tuple[float, ...]
    headings: tuple[tuple[float, str, int], ...]


def success_bars(metrics: Metrics, suite: str) -> SuccessBars | None:
    """The success chart's layout (None: no method ran the suite); one group per family (:func:`chart_groups`)."""
    groups, series = chart_groups(metrics, suite)
    if not groups:
        return None
    # One bar per method, families side by side with a gap between them: with many families of
    # different sizes, bars laid out per legend across all groups drift off their group's centre.
    bars_of = [[(legend, by_group[g]) for legend, by_group in series.items() if g in by_group] for g in groups]
    xs: list[float] = []
    labels: list[str] = []
    colours: list[str] = []
    rates: list[float] = []
    headings: list[tuple[float, str, int]] = []
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
            labels.append(m.method)
            colours.append(colour)
            rates.append(100 * (m.success or 0.0))
            x += 1.0
        if len(members) > 1:
            headings.append(((start + x - 1.0) / 2, group, len(members)))
        x += 0.7
    return SuccessBars(tuple(xs), tuple(labels), tuple(colours), tuple(rates), tuple(headings))


def success_chart(metrics: Metrics, suite: str, path: Path, *, banner: str | None = None) -> Path | None:
    """Grouped bars: task success of every method in the suite (:func:`success_bars`), with ``banner`` (a run
    that is no language model's) across the chart."""
    layout = success_bars(metrics, suite)
    if layout is None:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(6.0, 0.42 * len(layout.xs) + 2.0), 4.2), dpi=100)
    bars = ax.bar(layout.xs, layout.rates, 0.8, color=layout.colours)
    ax.bar_label(bars, fmt="%.0f%%", fontsize=7)
    ax.set_xticks(layout.xs, layout.labels, rotation=35, ha="right", fontsize=7)
    ax.set_xlabel("method")
    for centre, group, size in layout.headings:
        # Wrapped to the group's width, so long family names do not run into their neighbours.
        ax.text(centre, 107, textwrap.fill(group, max(10, 8 * size)), ha="center", va="bottom", fontsize=8,
                linespacing=1.0)
    ax.set_ylabel("task success (%)")
    ax.set_ylim(0, 130)
    ax.set_yticks(range(0, 101, 20))
    _title(ax, f"Task success: {suite}", banner)
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
    plt = _pyplot()
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


#: Colours of the chart beside a paper: ours, the published number, and a task the method's actions cannot do.
MEASURED_COLOUR, PUBLISHED_COLOUR, APART_COLOUR, BANNER_COLOUR = "#2f6fdf", "#9aa5b1", "#d9dee4", "#c5221f"


@dataclass(frozen=True, slots=True)
class PaperBar:
    """One task of the chart beside a paper.

    Attributes:
        task: The task.
        measured: Our success, raw reward 1.0 (None: no episode judged).
        interval: Its 95% interval.
        positive: Our success counting a reward above 0, as the papers' code did (None: not told).
        published: The paper's number (None: unreadable).
        comparable: Whether the method's actions can do the task; when not, ours is drawn apart and no
            published bar stands beside it.
        mark: A few words under the task's name (why it is not comparable, or no exemplars shown).
    """

    task: str
    measured: float | None
    interval: tuple[float, float] | None
    positive: float | None
    published: float | None
    comparable: bool = True
    mark: str = ""


def paper_chart(title: str, bars: Sequence[PaperBar], path: Path, *, published: str,
                banner: str | None = None) -> Path:
    """Per task, our success (raw reward 1.0) with its 95% interval beside the published number.

    Our rate counting a reward above 0 is a diamond on our bar; a task the method's actions cannot do has its
    bar greyed, no published bar and its mark under its name; an unreadable published cell reads "n/a". A
    run of a scripted stand-in carries ``banner`` across the chart, in red.

    Args:
        title: The chart's title.
        bars: One per task, in the paper's order.
        path: Where the PNG goes.
        published: The published bars' legend (the paper's model).
        banner: Words saying the run is no language model's, or None.
    """
    plt = _pyplot()
    width = 0.38
    fig, ax = plt.subplots(figsize=(max(6.5, 0.62 * len(bars) + 2.5), 4.8), dpi=100)
    legends = {"ours": "ours, raw reward = 1.0 (95% interval)", "positive": "ours, reward > 0",
               "published": published, "apart": "ours, out of its actions (not compared)"}

    def label(kind: str) -> str:
        # Each kind is named in the legend once, by the first artist of it.
        return legends.pop(kind, "_nolegend_")

    for x, bar in enumerate(bars):
        if bar.measured is not None:
            low, high = bar.interval if bar.interval is not None else (bar.measured, bar.measured)
            ax.bar(x - width / 2, 100 * bar.measured, width, color=MEASURED_COLOUR if bar.comparable else APART_COLOUR,
                   yerr=[[100 * (bar.measured - low)], [100 * (high - bar.measured)]], capsize=3,
                   error_kw={"elinewidth": 1, "ecolor": "#1d2430"}, label=label("ours" if bar.comparable else "apart"))
        if bar.positive is not None:
            ax.plot(x - width / 2, 100 * bar.positive, marker="D", color="#1d2430", markersize=4, linestyle="",
                    label=label("positive"))
        if not bar.comparable:
            ax.text(x + width / 2, 3, "not compared", rotation=90, ha="center", va="bottom", fontsize=7,
                    color="#5b6673")
        elif bar.published is None:
            ax.text(x + width / 2, 3, "n/a", ha="center", va="bottom", fontsize=7, color="#5b6673")
        else:
            ax.bar(x + width / 2, 100 * bar.published, width, color=PUBLISHED_COLOUR, label=label("published"))
    labels = [bar.task + (f"\n({bar.mark})" if bar.mark else "") for bar in bars]
    ax.set_xticks(range(len(bars)), labels, rotation=40, ha="right", fontsize=7)
    ax.set_xlabel("task")
    ax.set_ylabel("task success (%)")
    ax.set_ylim(0, 112)
    ax.set_yticks(range(0, 101, 20))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.38), ncol=2, fontsize=7, frameon=False)
    _title(ax, title, banner, fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    plt.close(fig)
    return path


def _title(ax: Any, title: str, banner: str | None, fontsize: float = 12) -> None:
    """The chart's title, and ``banner`` (a run that is no language model's) under it and across the plot."""
    if banner is None:
        ax.set_title(textwrap.fill(title, 90), fontsize=fontsize)
        return
    ax.set_title(f"{textwrap.fill(title, 90)}\n{banner.upper()}", fontsize=fontsize, color=BANNER_COLOUR)
    ax.text(0.5, 0.5, banner.upper(), transform=ax.transAxes, ha="center", va="center", fontsize=14,
            color=BANNER_COLOUR, alpha=0.35, rotation=20)
