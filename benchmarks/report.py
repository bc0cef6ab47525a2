"""The sweep report: Markdown and HTML tables laid out like the paper's Table 3, bar charts, episode links.

``build_report(DIR)`` reads ``DIR/manifest.json`` (if present) and
``DIR/results.jsonl`` - a sweep still running or interrupted is fine - applies
rater scores when given, and writes ``OUT/report.md``, ``OUT/report.html`` and
``OUT/charts/*.png`` (:mod:`latent_agent.benchmarks.report_charts`). The tables are those of the registered
sections (:mod:`latent_agent.benchmarks.report_sections`), in their order. Each episode row links to the
episode's page: the HTML ``latent-agent show`` renders (``latent_agent.agent.pages.episode_page``), or its
trajectory file when pages are not wanted or cannot be rendered.
"""

from __future__ import annotations

import html
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from latent_agent.agent.pages.episode_page import write_pages
from latent_agent.atomic_write import write_atomic
from latent_agent.benchmarks import report_exemplars, report_observation, report_papers, report_trials
from latent_agent.benchmarks.metrics import POOLED, Metrics, compute_metrics
from latent_agent.benchmarks.plan import SweepPlan, read_manifest
from latent_agent.benchmarks.ratings import Rating, apply_ratings, rated_causes
from latent_agent.benchmarks.report_charts import causes_chart, success_chart
from latent_agent.benchmarks.report_main import MAIN_SECTIONS
from latent_agent.benchmarks.report_observation import main_records
from latent_agent.benchmarks.report_sections import ReportInput, register_section, report_sections
from latent_agent.benchmarks.report_tables import table_html, table_markdown
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus, ResultsLog, latest
from latent_agent.errors import InputError, SweepStateError
from latent_agent.plain_text import markdown_text, visible_controls
from latent_agent.safe_paths import output_path, path_inside, refuse_links, safe_name

# The built-in sections: the main ones and those of the methods (and observation sources) that have their own.
for _section in (*MAIN_SECTIONS, report_papers.SECTION, report_trials.SECTION, report_exemplars.SECTION,
                 report_observation.SECTION):
    register_section(_section)


@dataclass(frozen=True, slots=True)
class ReportFiles:
    """What :func:`build_report` wrote."""

    markdown: Path
    html: Path
    charts: tuple[Path, ...]
    episode_pages: int


def _chart_path(sweep: Path, out: Path, kind: str, suite: str) -> Path:
    """Where the ``kind`` chart of ``suite`` goes: suite names come from results.jsonl, so they are checked, and
    the file is no link (matplotlib would write where it points).

    Raises:
        SweepStateError: The suite name is no plain name.
        OutputPathError: The chart's name or folder is a link.
    """
    try:
        path = path_inside(out / "charts", f"{kind}_{safe_name(suite.replace(' ', '_'), 'suite name')}.png", "chart")
    except InputError as exc:
        raise SweepStateError(f"{sweep / 'results.jsonl'}: {exc}") from None
    return output_path(out, path, "the chart")


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
            page = output_path(out, out / "episodes" / f"{r.key}.html", "the episode page")
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


def _report_directory(out: Path) -> Path:
    """Create ``out`` with a placeholder report, so a report killed half-way is still recognized as one.

    Raises:
        InputError: ``out`` cannot be created.
        OutputPathError: ``out`` is, or holds, a symbolic link (a copied sweep's ``report/`` or
            ``report/episodes`` pointing elsewhere would take the report there).
    """
    refuse_links(out, "the report folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the report directory {out} ({exc.strerror})") from None
    md_path = out / "report.md"
    if not md_path.exists():  # a rerun replaces it
        write_atomic(md_path, "# Sweep report\n\nUnfinished: the report was interrupted; run the same "
                              "`latent-agent report` again.\n")
    return md_path


def _rated(directory: Path, records: list[EpisodeRecord],
           ratings: dict[str, Rating]) -> tuple[list[EpisodeRecord], int]:
    """``records`` with the rater scores applied, and how many of them the ratings name.

    Raises:
        InputError: The ratings name no episode of the sweep (they are from another sweep).
    """
    rated = len(ratings.keys() & {r.key for r in records})
    if not rated and records:
        raise InputError(f"none of the {len(ratings)} rating(s) names an episode of the sweep in {directory} "
                         f"(e.g. {next(iter(ratings))!r}); are they from another sweep?")
    return apply_ratings(records, ratings), rated


def _charts(directory: Path, out: Path, metrics: Metrics, suites: Sequence[str]) -> list[Path]:
    """Draw the charts; what matplotlib warns about is passed on with its control characters shown.

    A method or suite name from results.jsonl is drawn as a label, and matplotlib's warning about a glyph
    its font lacks quotes the character: an ESC among them would reach the terminal as it is.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        charts = [c for s in suites
                  if (c := success_chart(metrics, s, _chart_path(directory, out, "success", s))) is not None]
        charts += [c for s in suites
                   if (c := causes_chart(metrics, s, _chart_path(directory, out, "causes", s))) is not None]
    for seen in {(str(w.message), w.category): w for w in caught}.values():
        warnings.warn_explicit(visible_controls(str(seen.message)), seen.category, seen.filename, seen.lineno)
    return charts


def _summary(data: ReportInput, ratings: dict[str, Rating] | None, rated: int, causes: int) -> list[str]:
    """The lines above the tables: what was recorded, errored, rated, and how the sweep was planned."""
    directory, plan, records, metrics = data.sweep, data.plan, data.records, data.metrics
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
        + (f" ({causes - counted} root cause(s) not counted: their episodes are not failures here)"
           if causes > counted else ""),
    ]
    if plan:
        summary.append(f"Plan: suite {plan.suite}, methods {', '.join(plan.methods)}, {plan.seeds} seed(s), "
                       f"max {plan.max_steps} steps, LLM {plan.llm}"
                       + (f" (answers cut at {plan.llm_max_output} tokens)" if plan.llm_max_output else "")
                       + f", grounder {plan.grounder}, "
                       f"noise {plan.noise_label}, observation {', '.join(plan.observations)}"
                       + (" (icons named on the screen sources)" if plan.name_icons else ""))
    return summary


def _write(md_path: Path, summary: Sequence[str], charts: Sequence[Path], data: ReportInput) -> Path:
    """Write the Markdown and the HTML report beside each other; returns the HTML file."""
    out = md_path.parent
    chart_rel = [(Path(os.path.relpath(c, out)).as_posix(),
                  "primary root causes of failures" if c.name.startswith("causes_") else "task success")
                 for c in charts]
    tables = [t for section in report_sections() for t in section.tables(data)]

    # The summary quotes the manifest and results.jsonl (a copied folder's): inert, as the tables are.
    md = ["# Sweep report", "", *(f"- {markdown_text(line)}" for line in summary), ""]
    md += [f"![{markdown_text(alt)}]({quote(c, safe='/+')})" for c, alt in chart_rel] + [""]
    md += [table_markdown(t) for t in tables]
    write_atomic(output_path(out, md_path, "the report"), "\n".join(md))

    body = ["<h1>Sweep report</h1><ul>", *(f"<li>{html.escape(line)}</li>" for line in summary), "</ul>"]
    body += [f'<img src="{html.escape(c)}" alt="{html.escape(alt)} chart">' for c, alt in chart_rel]
    body += [table_html(t) for t in tables]
    html_path = output_path(out, out / "report.html", "the report")
    write_atomic(html_path,
                 "<!doctype html><html lang=en><head><meta charset=utf-8><title>Sweep report</title>"
                 f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
    return html_path


def build_report(directory: Path, out: Path | None = None, *, ratings: dict[str, Rating] | None = None,
                 n_resamples: int = 20_000, render_episodes: bool = True) -> ReportFiles:
    """Write the report of the sweep in ``directory`` (see the module docstring).

    Raises:
        SweepStateError: If ``directory`` is not a sweep directory.
    """
    plan, records = load_sweep(directory)  # first: a wrong DIR must not get a report folder
    out = out or directory / "report"
    md_path = _report_directory(out)
    records = list(latest(records).values())
    rated = 0
    causes = rated_causes(ratings) if ratings else {}
    if ratings:
        records, rated = _rated(directory, records, ratings)
    everything, records = records, main_records(records)  # sources are never pooled in the main tables
    metrics = compute_metrics(records, n_resamples=n_resamples, causes=causes)
    suites = list(metrics.suites) + ([POOLED] if len(metrics.suites) > 1 else [])
    charts = _charts(directory, out, metrics, suites)
    pages = episode_pages(directory, out, everything, render=render_episodes)
    data = ReportInput(directory, plan, records, everything, metrics, suites, pages)
    html_path = _write(md_path, _summary(data, ratings, rated, len(causes)), charts, data)
    rendered = sum(1 for p in pages.values() if p.endswith(".html"))
    return ReportFiles(md_path, html_path, tuple(charts), rendered)
