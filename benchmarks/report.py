"""The sweep report: Markdown and HTML tables laid out like the paper's Table 3, bar charts, episode links.

``build_report(DIR)`` reads ``DIR/manifest.json`` (if present) and
``DIR/results.jsonl`` - a sweep still running or interrupted is fine - applies
rater scores when given, and writes ``OUT/report.md``, ``OUT/report.html`` and
``OUT/charts/*.png`` (:mod:`latent_agent.benchmarks.report_charts`). The tables are those of the registered
sections (:mod:`latent_agent.benchmarks.report_sections`), in their order. Each episode row links to the
episode's page: the HTML ``latent-agent show`` renders (``latent_agent.agent.pages.episode_page``), or its
trajectory file when pages are not wanted or cannot be rendered. A MiniWoB++ sweep compared with the papers
also gets ``OUT/papers.md`` and ``OUT/papers.html``, the beside-the-paper page: those tables and their
charts alone (:mod:`latent_agent.benchmarks.report_papers`).

A run whose model is no language model (a scripted stand-in, :mod:`latent_agent.agent.pages.banner`; read
from the manifest's ``--llm``, else from a trajectory's header) carries a banner at the top of every page.
"""

from __future__ import annotations

import html
import os
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from latent_agent.agent.pages.banner import Banner, model_banner
from latent_agent.agent.pages.episode_page import PageLink, write_pages
from latent_agent.agent.trajectory import read_trajectory
from latent_agent.atomic_write import write_atomic
from latent_agent.benchmarks import (
    report_action_spaces,
    report_exemplars,
    report_observation,
    report_papers,
    report_trials,
)
from latent_agent.benchmarks.metrics import POOLED, Metrics, compute_metrics
from latent_agent.benchmarks.plan import SweepPlan, read_manifest
from latent_agent.benchmarks.ratings import Rating, apply_ratings, rated_causes
from latent_agent.benchmarks.report_charts import causes_chart, success_chart
from latent_agent.benchmarks.report_main import MAIN_SECTIONS
from latent_agent.benchmarks.report_observation import main_records
from latent_agent.benchmarks.report_sections import ReportInput, register_section, report_sections
from latent_agent.benchmarks.report_tables import (
    Cell,
    Link,
    Table,
    cell_html,
    cell_markdown,
    table_html,
    table_markdown,
)
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus, ResultsLog, latest
from latent_agent.errors import InputError, SweepStateError
from latent_agent.plain_text import markdown_text, visible_controls
from latent_agent.safe_paths import output_path, path_inside, refuse_links, safe_name

# The built-in sections: the main ones and those of the methods (and observation sources) that have their own.
for _section in (*MAIN_SECTIONS, report_papers.SECTION, report_action_spaces.SECTION, report_trials.SECTION,
                 report_exemplars.SECTION, report_observation.SECTION):
    register_section(_section)


@dataclass(frozen=True, slots=True)
class ReportFiles:
    """What :func:`build_report` wrote."""

    markdown: Path
    html: Path
    charts: tuple[Path, ...]
    episode_pages: int
    papers: Path | None = None


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


def episode_pages(sweep: Path, out: Path, records: Sequence[EpisodeRecord], report: Path, *,
                  render: bool = True) -> dict[str, str]:
    """Episode key -> link (relative to ``out``): its rendered page, else its trajectory file.

    The pages still to render are rendered together, so that screenshots shared
    between episodes are thumbnailed once (``latent_agent.agent.pages.episode_page.write_pages``),
    each linking back to the ``report`` page.
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
    back = PageLink("Back to the sweep report", Path(os.path.relpath(report, out / "episodes")).as_posix())
    written = write_pages(list(to_render.values()), back=back) if to_render else set()
    pages: dict[str, str] = {}
    for key, (directory, target) in links.items():
        if key in to_render and to_render[key][1] in written:
            target = to_render[key][1]  # else an unreadable trajectory: its file is linked
        if target.exists() or (directory / "error.txt").exists():
            if not target.exists():
                target = directory / "error.txt"
            pages[key] = Path(os.path.relpath(target, out)).as_posix()
    return pages


# Tables a little smaller than the text, so that the widest (the multi-trial methods' twelve columns) fit 1280
# px with a method's name whole (td.name, report_tables.NAME_COLUMNS); a wider one scrolls in its own box (.wide).
_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:80em;color:#1d2430}
@media (max-width:600px){body{margin:1em}}
.banner{background:#fce8e6;border:2px solid #c5221f;color:#a50e0e;font-weight:600;padding:.6em 1em}
.wide{overflow-x:auto}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.875em}
th,td{border:1px solid #cfd6de;padding:.25em .4em;text-align:left}td.name span{white-space:nowrap}
th{background:#eef2f6}tbody tr:nth-child(even){background:#f8fafc}.note{color:#5b6673;font-size:.9em}
img{max-width:100%;box-sizing:border-box;border:1px solid #e3e8ee;margin:.5em 1em .5em 0}"""


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


@contextmanager
def _plain_warnings() -> Iterator[None]:
    """What matplotlib warns about while charts are drawn is passed on with its control characters shown.

    A method or suite name from results.jsonl is drawn as a label, and matplotlib's warning about a glyph
    its font lacks quotes the character: an ESC among them would reach the terminal as it is.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for seen in {(str(w.message), w.category): w for w in caught}.values():
        warnings.warn_explicit(visible_controls(str(seen.message)), seen.category, seen.filename, seen.lineno)


def _charts(directory: Path, out: Path, metrics: Metrics, suites: Sequence[str], banner: Banner | None) -> list[Path]:
    """Draw the per-suite charts."""
    short = banner.short if banner is not None else None
    with _plain_warnings():
        charts = [c for s in suites if (c := success_chart(metrics, s, _chart_path(directory, out, "success", s),
                                                           banner=short)) is not None]
        charts += [c for s in suites
                   if (c := causes_chart(metrics, s, _chart_path(directory, out, "causes", s))) is not None]
    return charts


def run_banner(directory: Path, plan: SweepPlan | None, records: Sequence[EpisodeRecord]) -> Banner | None:
    """The banner of a run whose model is no language model, from what it recorded (None: a model's run).

    The manifest's ``--llm`` spec decides; a sweep without one is decided by the first readable trajectory's
    header, and one with neither cannot be told (its banner says so).
    """
    if plan is not None:
        return model_banner(plan.llm)
    for record in (r for r in records if r.trajectory):
        try:
            header = read_trajectory(path_inside(directory, record.trajectory, "trajectory")).header
        except (InputError, OSError):
            continue
        return model_banner(header.llm)
    return UNRECORDED


#: The banner of a report whose model nothing recorded.
UNRECORDED = Banner("Neither a manifest nor a readable trajectory records this run's model: whether its answers "
                    "came from a language model cannot be told.", "model not recorded")


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
        # The noise's knobs one after another with a space ("paper (unlabeled_buttons=0.1, behind_dialog=true,
        # ...)"): as --noise writes them, eleven make one unbroken string a page scrolls sideways for.
        noise = plan.noise_label.replace(",", ", ")
        summary.append(f"Plan: suite {plan.suite}, methods {', '.join(plan.methods)}, {plan.seeds} seed(s), "
                       f"max {plan.max_steps} steps, LLM {plan.llm}"
                       + (f" (answers cut at {plan.llm_max_output} tokens)" if plan.llm_max_output else "")
                       + (" (answers held to their shapes: --llm-structured on)" if plan.llm_structured else "")
                       + f", grounder {plan.grounder}, "
                       f"noise {noise}, observation {', '.join(plan.observations)}"
                       + (" (icons named on the screen sources)" if plan.name_icons else ""))
    return summary


#: The beside-the-paper page's name (``.md`` and ``.html``) in the report folder.
PAPERS_PAGE = "papers"


def _page(out: Path, name: str, title: str, banner: Banner | None, lead: Sequence[Cell],
          charts: Sequence[tuple[str, str]],
          tables: Sequence[Table]) -> Path:
    """Write one page of the report as ``name.md`` and ``name.html``; returns the HTML file.

    Args:
        out: The report folder.
        name: The page's file name without its suffix.
        title: Its heading.
        banner: What it says first about the run's model, if anything.
        lead: Lines above its charts and tables, each a text or a link (to another page of the report).
        charts: (link, alt text) of the charts above the tables.
        tables: Its tables.
    """
    # The lines quote the manifest and results.jsonl (a copied folder's): inert, as the tables are.
    md = [f"# {title}", ""]
    md += [f"> **{markdown_text(banner.text)}**", ""] if banner is not None else []
    md += [*(f"- {cell_markdown(line)}" for line in lead), ""]
    md += [f"![{markdown_text(alt)}]({quote(c, safe='/+')})" for c, alt in charts] + [""]
    md += [table_markdown(t) for t in tables]
    write_atomic(output_path(out, out / f"{name}.md", "the report"), "\n".join(md))

    body = [f"<h1>{html.escape(title)}</h1>"]
    body += [f"<p class=banner>{html.escape(banner.text)}</p>"] if banner is not None else []
    body += ["<ul>", *(f"<li>{cell_html(line)}</li>" for line in lead), "</ul>"]
    body += [f'<img src="{html.escape(quote(c, safe="/+"))}" alt="{html.escape(alt)} chart">' for c, alt in charts]
    body += [table_html(t) for t in tables]
    html_path = output_path(out, out / f"{name}.html", "the report")
    write_atomic(html_path,
                 f"<!doctype html><html lang=en><head><meta charset=utf-8>"
                 '<meta name=viewport content="width=device-width, initial-scale=1">'
                 f"<title>{html.escape(title)}</title>"
                 f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
    return html_path


def _write(md_path: Path, summary: Sequence[str], charts: Sequence[Path],
           data: ReportInput) -> tuple[Path, Path | None, list[Path]]:
    """Write the report (and the beside-the-paper page, when there are papers' tables) beside each other.

    Returns:
        The report's HTML file, the beside-the-paper page's (None: no table of it), and the sections' charts.
    """
    out = md_path.parent
    chart_rel = [(Path(os.path.relpath(c, out)).as_posix(),
                  "primary root causes of failures" if c.name.startswith("causes_") else "task success")
                 for c in charts]
    with _plain_warnings():  # a section may draw its tables' charts
        sections = [(section.name, section.tables(data)) for section in report_sections()]
    tables = [t for _, tables in sections for t in tables]
    papers = [t for name, tables in sections if name == report_papers.SECTION.name for t in tables]
    lead: list[Cell] = [*summary]
    lead += [Link(f"Beside the papers, alone: {PAPERS_PAGE}.html", f"{PAPERS_PAGE}.html")] if papers else []
    html_path = _page(out, md_path.stem, "Sweep report", data.banner, lead, chart_rel, tables)
    papers_path = None
    if papers:
        papers_path = _page(out, PAPERS_PAGE, "MiniWoB++ beside the papers", data.banner,
                            [f"Sweep directory: {data.sweep.name}",
                             Link(f"The whole report: {md_path.stem}.html", f"{md_path.stem}.html")], [], papers)
    return html_path, papers_path, [out / t.chart for t in tables if t.chart]


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
    banner = run_banner(directory, plan, everything)
    charts = _charts(directory, out, metrics, suites, banner)
    pages = episode_pages(directory, out, everything, md_path.with_suffix(".html"), render=render_episodes)
    data = ReportInput(directory, plan, records, everything, metrics, suites, pages, out, banner)
    html_path, papers, drawn = _write(md_path, _summary(data, ratings, rated, len(causes)), charts, data)
    rendered = sum(1 for p in pages.values() if p.endswith(".html"))
    return ReportFiles(md_path, html_path, (*charts, *drawn), rendered, papers)
