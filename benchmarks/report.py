"""The sweep report: Markdown and HTML tables laid out like the paper's Table 3, bar charts, episode links.

``build_report(DIR)`` reads ``DIR/manifest.json`` (if present) and
``DIR/results.jsonl`` - a sweep still running or interrupted is fine - applies
rater scores when given, and writes ``OUT/report.md``, ``OUT/report.html`` and
``OUT/charts/*.png`` (matplotlib, Agg backend). Each episode row links to the
episode's page: the HTML ``latent-agent show`` renders (``latent_agent.agent.pages.episode_page``), or its
trajectory file when pages are not wanted or cannot be rendered.
"""

from __future__ import annotations

import html
import os
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from latent_agent.agent.methods import METHODS
from latent_agent.agent.pages.episode_page import write_pages
from latent_agent.atomic_write import write_atomic
from latent_agent.benchmarks.metrics import MEASURES, POOLED, ErrorCategory, MethodMetrics, Metrics, compute_metrics
from latent_agent.benchmarks.plan import SweepPlan, read_manifest
from latent_agent.benchmarks.ratings import Rating, RootCause, apply_ratings, rated_causes
from latent_agent.benchmarks.report_exemplars import exemplar_rows, exemplars_table
from latent_agent.benchmarks.report_observation import main_records, observation_table
from latent_agent.benchmarks.report_papers import papers_tables
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus, ResultsLog, latest
from latent_agent.benchmarks.trials import KINDS, REPORTED_T, TrialRow, trial_episodes, trial_rows
from latent_agent.errors import InputError, SweepStateError
from latent_agent.safe_paths import path_inside, safe_name

MEASURE_NAMES = {"success": "Task success", "partial": "Partial completion", "strict_success": "Success, strict stop",
                 "premature_stop": "Premature stop"}
CAUSE_NAMES = {RootCause.ACTION_SELECTION: "Action selection", RootCause.GROUNDING: "Grounding",
               RootCause.BOTH: "Both", RootCause.ENVIRONMENT: "Environment"}
CAUSE_COLOURS = {RootCause.ACTION_SELECTION: "#2f6fdf", RootCause.GROUNDING: "#e8912d", RootCause.BOTH: "#8a5cc2",
                 RootCause.ENVIRONMENT: "#9aa5b1"}
#: Bar colours of the paper's two variants; other variants take the next of :data:`SERIES_COLOURS`.
LEGEND_COLOURS = {"without latent state": "#9aa5b1", "with latent state": "#2f6fdf"}
SERIES_COLOURS = ("#e8912d", "#8a5cc2", "#2a9d8f", "#c44e52", "#6b8e23")
PARTIAL_NOTE = ("Partial completion: the share of the task's partial-completion questions answered yes, for every "
                "episode including successes (the paper's definition; one function, benchmarks/partial.py, for "
                "automatic checks and raters alike).")


@dataclass(frozen=True, slots=True)
class Link:
    """A table cell that links somewhere (relative to the report)."""

    text: str
    href: str


Cell = str | Link


@dataclass(frozen=True, slots=True)
class Table:
    """One table, rendered both as Markdown and as HTML."""

    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    note: str = ""


@dataclass(frozen=True, slots=True)
class ReportFiles:
    """What :func:`build_report` wrote."""

    markdown: Path
    html: Path
    charts: tuple[Path, ...]
    episode_pages: int


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _num(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def _p(value: float | None) -> str:
    if value is None:
        return "–"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _label(method: str) -> str:
    """The registry's label of ``method`` (its name when it is no longer registered)."""
    known = METHODS.get(method)
    return known.label if known is not None else method


def _family_label(family: str) -> str:
    return next((m.family.label for m in METHODS.values() if m.family.name == family), family)


def metrics_table(metrics: Metrics, suite: str) -> Table:
    """Table 3's layout for one suite: one row per agent, ``-`` and ``+`` of each reasoning method together.

    Each of the four measures is followed by the p-value of its paired test, on the ``+`` row.
    """
    rows: list[tuple[Cell, ...]] = []
    for m in metrics.methods:
        if m.suite != suite:
            continue
        cells: list[Cell] = [_label(m.method)]
        for measure, value in zip(MEASURES, (m.success, m.partial, m.strict_success, m.premature_stop), strict=True):
            test = metrics.test_of(suite, m.method, measure)
            cells += [_pct(value), _p(test.p_value) if test else ""]
        cells += [_num(m.steps), _num(m.llm_calls), _num(m.tokens, 0), _num(m.s_per_step, 2),
                  f"{m.scored}/{m.episodes}" + (f" ({m.errored} err)" if m.errored else "")]
        rows.append(tuple(cells))
    return Table(
        title=f"Suite: {suite}",
        headers=("Agent", *(h for measure in MEASURES for h in (MEASURE_NAMES[measure], "p")), "Steps", "LLM calls",
                 "Tokens", "s / step", "Scored / episodes"),
        rows=tuple(rows),
        note="p: paired two-sided permutation test over tasks (each task's mean over seeds) of the measure to its "
             "left, + against - of the same reasoning method. Rates count finished episodes with a known value; "
             "errored episodes are excluded. Premature stop: share of the episodes whose stopping is judged. "
             + PARTIAL_NOTE,
    )


def tests_table(metrics: Metrics) -> Table:
    rows = tuple(
        (t.suite, _family_label(t.reasoning), MEASURE_NAMES.get(t.metric, t.metric), str(t.n),
         _pct(t.minus), _pct(t.plus), _p(t.p_value))
        for t in metrics.tests
    )
    return Table("Paired permutation tests (+ against -)",
                 ("Suite", "Reasoning", "Measure", "Tasks paired", "Without latent state", "With latent state",
                  "p (two-sided)"), rows,
                 note="Every Table 3 measure is tested per suite and pooled over suites; a task is paired when both "
                      "variants have a value for the measure.")


def stops_table(metrics: Metrics) -> Table:
    """The stop analysis: how often each agent stopped on its own, and how often such a stop was premature."""
    rows = tuple(
        (m.suite, _label(m.method), str(m.episodes - m.errored), str(m.stopped), _pct(m.stop_rate),
         _pct(m.premature_among_stopped))
        for m in metrics.methods
    )
    return Table("Stop analysis", ("Suite", "Agent", "Finished", "Stopped", "Stopped before the step limit",
                                   "Premature among stopped"), rows,
                 note="Stopped: the agent ended the episode itself (completion estimate or \"done\"), not the step "
                      "limit or repeated actions. Premature among stopped: share of those episodes, with a judged "
                      "stop, that stopped before the task was done.")


def trials_table(rows: Sequence[TrialRow]) -> Table:
    """Methods that try a goal several times: success at T trials per feedback protocol, trials, calls by kind."""
    cells = tuple(
        (_label(r.method), r.feedback, str(r.episodes),
         *(f"{_pct(c[0] / c[1])} ({c[0]}/{c[1]})" if c else "-" for c in r.success_at),
         _num(r.trials_used, 2), *(_num(r.calls[k]) for k in KINDS))
        for r in rows
    )
    return Table("Multi-trial methods", ("Agent", "Feedback", "Episodes", *(f"Success, T={t}" for t in REPORTED_T),
                                         "Trials used", *(f"{k.capitalize()} calls" for k in KINDS)), cells,
                 note="Feedback: what told the agent a trial had succeeded (self: its own completion judgement, "
                      "deployable; check: the task's automatic check, the published protocol); the two are never "
                      "pooled. Success, T=n: the task succeeded within the first n trials, read from each "
                      "episode's trials (an episode still going after trial n had not succeeded by then); - where "
                      "the method's trial budget is too small to tell. Calls are per episode, by the calls' "
                      "purposes: planning (one per screen), paraphrase (one per executed action in the published "
                      "method; none here, where the steps are already words), reflection (one per failed trial), "
                      "grounding, other (the goal's normalization).")


def errors_table(metrics: Metrics) -> Table:
    rows = tuple(
        (e.suite, e.method, *(str(e.get(c)) for c in ErrorCategory)) for e in metrics.errors
        if any(n for _, n in e.counts)
    )
    return Table("Error categories, automatic guess (failed and errored episodes)",
                 ("Suite", "Agent", *(str(c) for c in ErrorCategory)), rows,
                 note="An automatic guess from the trajectory, not a rater's judgement: grounding: a step could not "
                      "be turned into an action; environment: the device failed; action selection: any other "
                      "failure; undetermined: not scored yet or the LLM failed. The error analysis proper is the "
                      "raters' (annotate export --kind errors).")


def causes_table(metrics: Metrics) -> Table:
    """The raters' error analysis: share of each method's rated failures per primary root cause."""
    rows = tuple(
        (c.suite, _label(c.method), str(c.failures), str(c.rated), *(_pct(c.share(cause)) for cause in RootCause))
        for c in metrics.causes
    )
    return Table("Error analysis (raters' primary root cause of each failure)",
                 ("Suite", "Agent", "Failures", "Rated", *(CAUSE_NAMES[c] for c in RootCause)), rows,
                 note="Shares of the rated failures. Failures: finished episodes that did not complete the task; "
                      "rated: those a rater assigned a cause (consensus of raters; ties are not counted).")


def episodes_table(records: Sequence[EpisodeRecord], pages: dict[str, str]) -> Table:
    rows: list[tuple[Cell, ...]] = []
    for r in sorted(records, key=lambda r: (r.suite, r.task_id, r.seed, r.method)):
        outcome = ("error" if r.status is EpisodeStatus.ERROR
                   else "to rate" if r.success is None else "success" if r.success else "failure")
        page = pages.get(r.key)
        rows.append((
            Link(r.key, page) if page else r.key, r.method, str(r.seed), outcome,
            r.stop_judgement.value if r.stop_judgement else (r.stop_reason or "–"), str(r.steps),
            r.device, r.error[:120],
        ))
    return Table("Episodes", ("Episode", "Agent", "Seed", "Outcome", "Stop", "Steps", "Device", "Error"), tuple(rows))


def _md_cell(cell: Cell) -> str:
    text = cell.text if isinstance(cell, Link) else cell
    text = text.replace("|", "\\|").replace("\n", " ")
    return f"[{text}]({cell.href})" if isinstance(cell, Link) else text


def table_markdown(table: Table) -> str:
    lines = [f"### {table.title}", "", "| " + " | ".join(table.headers) + " |",
             "|" + "|".join("---" for _ in table.headers) + "|"]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in table.rows]
    if not table.rows:
        lines.append("| " + " | ".join("–" for _ in table.headers) + " |")
    if table.note:
        lines += ["", f"_{table.note}_"]
    return "\n".join(lines) + "\n"


def _html_cell(cell: Cell) -> str:
    if isinstance(cell, Link):
        return f'<a href="{html.escape(cell.href)}">{html.escape(cell.text)}</a>'
    return html.escape(cell)


def table_html(table: Table) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in table.headers)
    body = "".join("<tr>" + "".join(f"<td>{_html_cell(c)}</td>" for c in row) + "</tr>\n" for row in table.rows)
    if not table.rows:  # say so, rather than leave a bare header row
        body = f"<tr><td colspan={len(table.headers)}>none</td></tr>\n"
    note = f"<p class=note>{html.escape(table.note)}</p>" if table.note else ""
    return (f"<h3>{html.escape(table.title)}</h3>\n<table><thead><tr>{head}</tr></thead><tbody>\n{body}"
            f"</tbody></table>{note}\n")


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
    labels = [f"{_label(c.method)} (n={c.rated})" for c in rows]
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


def _chart_path(sweep: Path, out: Path, kind: str, suite: str) -> Path:
    """Where the ``kind`` chart of ``suite`` goes: suite names come from results.jsonl, so they are checked."""
    try:
        return path_inside(out / "charts", f"{kind}_{safe_name(suite.replace(' ', '_'), 'suite name')}.png", "chart")
    except InputError as exc:
        raise SweepStateError(f"{sweep / 'results.jsonl'}: {exc}") from None


def episode_pages(sweep: Path, out: Path, records: Sequence[EpisodeRecord], *, render: bool = True) -> dict[str, str]:
    """Episode key -> link (relative to ``out``): its rendered page, else its trajectory file.

    The pages still to render are rendered together, so that screenshots shared
    between episodes are thumbnailed once (``latent_agent.agent.pages.episode_page.write_pages``).
    """
    links: dict[str, tuple[Path, Path]] = {}  # key -> (episode directory, what to link)
    to_render: dict[str, tuple[Path, Path]] = {}  # key -> (episode directory, page)
    for r in records:
        if not r.trajectory:
            continue
        # results.jsonl may come from a copied folder: its key names a file and its path is read.
        try:
            path_inside(out / "episodes", f"{safe_name(r.key, 'episode key')}.html", "episode page")
            directory = path_inside(sweep, r.trajectory, f"trajectory of episode {r.key}")
        except InputError as exc:
            raise SweepStateError(f"{sweep / 'results.jsonl'}: {exc}") from None
        target = directory / "trajectory.jsonl"
        if render and target.exists():
            page = out / "episodes" / f"{r.key}.html"
            # A finished episode's trajectory never changes: a page newer than it is current.
            if page.exists() and page.stat().st_mtime >= target.stat().st_mtime:
                target = page
            else:
                to_render[r.key] = (directory, page)
        links[r.key] = (directory, target)
    written = write_pages(list(to_render.values())) if to_render else set()
    pages: dict[str, str] = {}
    for key, (directory, target) in links.items():
        if key in to_render and to_render[key][1] in written:
            target = to_render[key][1]  # else an unreadable trajectory: its file is linked
        if target.exists() or (directory / "error.txt").exists():
            if not target.exists():
                target = directory / "error.txt"
            pages[key] = Path(os.path.relpath(target, out)).as_posix()
    return pages


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:80em;color:#1d2430}
table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{border:1px solid #cfd6de;padding:.25em .6em;text-align:left}
th{background:#eef2f6}tbody tr:nth-child(even){background:#f8fafc}.note{color:#5b6673;font-size:.9em}
img{max-width:100%;border:1px solid #e3e8ee;margin:.5em 1em .5em 0}"""


def load_sweep(directory: Path) -> tuple[SweepPlan | None, list[EpisodeRecord]]:
    """A sweep's plan (None if the manifest is missing) and its records (a torn last line is ignored).

    Raises:
        SweepStateError: If there is neither a manifest nor results, or a file is malformed.
    """
    try:
        plan: SweepPlan | None = read_manifest(directory)
    except SweepStateError:
        if not (directory / "results.jsonl").exists():
            raise
        plan = None
    return plan, ResultsLog(directory).load()


def build_report(directory: Path, out: Path | None = None, *, ratings: dict[str, Rating] | None = None,
                 n_resamples: int = 20_000, render_episodes: bool = True) -> ReportFiles:
    """Write the report of the sweep in ``directory`` (see the module docstring).

    Raises:
        SweepStateError: If ``directory`` is not a sweep directory.
    """
    plan, records = load_sweep(directory)  # first: a wrong DIR must not get a report folder
    out = out or directory / "report"
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the report directory {out} ({exc.strerror})") from None
    # First a placeholder, so a report killed half-way is still recognized as one and a rerun replaces it.
    md_path = out / "report.md"
    if not md_path.exists():
        write_atomic(md_path, "# Sweep report\n\nUnfinished: the report was interrupted; run the same "
                              "`latent-agent report` again.\n")
    records = list(latest(records).values())
    rated = 0
    causes = rated_causes(ratings) if ratings else {}
    if ratings:
        rated = len(ratings.keys() & {r.key for r in records})
        if not rated and records:
            raise InputError(f"none of the {len(ratings)} rating(s) names an episode of the sweep in {directory} "
                             f"(e.g. {next(iter(ratings))!r}); are they from another sweep?")
        records = apply_ratings(records, ratings)
    observed = observation_table(records)
    everything, records = records, main_records(records)  # sources are never pooled in the main tables
    metrics = compute_metrics(records, n_resamples=n_resamples, causes=causes)
    suites = list(metrics.suites) + ([POOLED] if len(metrics.suites) > 1 else [])
    charts = [c for s in suites
              if (c := success_chart(metrics, s, _chart_path(directory, out, "success", s))) is not None]
    charts += [c for s in suites
               if (c := causes_chart(metrics, s, _chart_path(directory, out, "causes", s))) is not None]
    pages = episode_pages(directory, out, everything, render=render_episodes)
    tables = [metrics_table(metrics, s) for s in suites]
    tables += papers_tables(directory, everything, plan.llm if plan else "model not recorded")
    tables += [tests_table(metrics), stops_table(metrics)]
    tables += [causes_table(metrics)] if metrics.causes else []
    multi = trial_rows(trial_episodes(directory, records))
    tables += [trials_table(multi)] if multi else []
    exemplar_split = exemplar_rows(directory, records)
    tables += [exemplars_table(exemplar_split)] if exemplar_split else []
    tables += [observed] if observed is not None else []
    tables += [errors_table(metrics), episodes_table(everything, pages)]
    planned = len(plan.episodes) if plan else None
    counted = sum(c.rated for c in metrics.causes if c.suite != POOLED)
    errored = sum(r.status is EpisodeStatus.ERROR for r in records)
    to_rate = sum(r.status is EpisodeStatus.FINISHED and r.success is None for r in records)
    summary = [
        f"Sweep directory: {directory.name}",
        f"Episodes recorded: {len(records)}" + (f" of {planned} planned" if planned is not None else "")
        + (f" (partial sweep: {planned - len(records)} not run yet)" if planned and planned > len(records) else ""),
        f"Errored: {errored}; awaiting raters: {to_rate}"
        + (f"; rater scores applied to {rated} episode(s)" if ratings else "")
        + (f" ({len(ratings) - rated} rating(s) name episodes not recorded here)"
           if ratings and len(ratings) > rated else "")
        + (f"; raters' root causes for {counted} failure(s)" if causes else "")
        + (f" ({len(causes) - counted} root cause(s) not counted: their episodes are not failures here)"
           if len(causes) > counted else ""),
    ]
    if plan:
        summary.append(f"Plan: suite {plan.suite}, methods {', '.join(plan.methods)}, {plan.seeds} seed(s), "
                       f"max {plan.max_steps} steps, LLM {plan.llm}"
                       + (f" (answers cut at {plan.llm_max_output} tokens)" if plan.llm_max_output else "")
                       + f", grounder {plan.grounder}, "
                       f"noise {plan.noise_label}, observation {', '.join(plan.observations)}"
                       + (" (icons named on the screen sources)" if plan.name_icons else ""))
    chart_rel = [(Path(os.path.relpath(c, out)).as_posix(),
                  "primary root causes of failures" if c.name.startswith("causes_") else "task success")
                 for c in charts]

    md = ["# Sweep report", "", *(f"- {line}" for line in summary), ""]
    md += [f"![{alt}]({c})" for c, alt in chart_rel] + [""]
    md += [table_markdown(t) for t in tables]
    write_atomic(md_path, "\n".join(md))

    body = ["<h1>Sweep report</h1><ul>", *(f"<li>{html.escape(line)}</li>" for line in summary), "</ul>"]
    body += [f'<img src="{html.escape(c)}" alt="{html.escape(alt)} chart">' for c, alt in chart_rel]
    body += [table_html(t) for t in tables]
    html_path = out / "report.html"
    write_atomic(html_path,
                 "<!doctype html><html lang=en><head><meta charset=utf-8><title>Sweep report</title>"
                 f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
    rendered = sum(1 for p in pages.values() if p.endswith(".html"))
    return ReportFiles(md_path, html_path, tuple(charts), rendered)
