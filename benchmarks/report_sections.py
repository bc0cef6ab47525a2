"""The registry of report sections: what each section reads, and where it goes among the others.

A section turns the sweep (:class:`ReportInput`) into zero or more tables; :func:`build_report
<latent_agent.benchmarks.report.build_report>` writes the tables of every registered section in the order of
their :attr:`ReportSection.order`, so a method's own section (the exemplar memory's splits, the multi-trial
methods' trials) is registered beside its code rather than written into the report, and a section with
nothing to say (no such method in the sweep) returns no table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from latent_agent.agent.pages.banner import Banner
from latent_agent.benchmarks.metrics import Metrics
from latent_agent.benchmarks.plan import SweepPlan
from latent_agent.benchmarks.report_tables import Table
from latent_agent.benchmarks.results import EpisodeRecord


@dataclass(frozen=True, slots=True)
class ReportInput:
    """What every section reads.

    Attributes:
        sweep: The sweep directory (trajectories are read relative to it).
        plan: The sweep's plan, None when its manifest is missing.
        records: The episodes the main tables count: the latest attempt of each, rater scores applied, the
            reference observation source only when several were run (sources are never pooled).
        everything: The same episodes under every observation source.
        metrics: The measures computed from ``records``.
        suites: The suites of the per-suite tables, the pooled one last when there are several.
        pages: Episode key -> the link of its page (or trajectory), relative to the report.
        out: The report directory (a section that draws a chart puts it under ``out/charts``).
        banner: What every page says of the run's model when it is no language model's (None: it is).
    """

    sweep: Path
    plan: SweepPlan | None
    records: Sequence[EpisodeRecord]
    everything: Sequence[EpisodeRecord]
    metrics: Metrics
    suites: Sequence[str]
    pages: Mapping[str, str]
    out: Path
    banner: Banner | None


@dataclass(frozen=True, slots=True)
class ReportSection:
    """One section of the report.

    Attributes:
        name: Unique name of the section.
        order: Where it goes: sections are written by increasing order (the built-in ones are 10 apart, so a
            new section goes between two of them).
        tables: Its tables for a sweep (none: the section is left out).
    """

    name: str
    order: int
    tables: Callable[[ReportInput], Sequence[Table]]


_SECTIONS: dict[str, ReportSection] = {}


def register_section(section: ReportSection) -> ReportSection:
    """Add ``section`` to the report; returns it.

    Raises:
        ValueError: Another section already has its name.
    """
    known = _SECTIONS.get(section.name)
    # The same section built again (its module reloaded) may register again; another section may not.
    if known is not None and _where(known) != _where(section):
        raise ValueError(f"report section {section.name!r} is already registered")
    _SECTIONS[section.name] = section
    return section


def _where(section: ReportSection) -> tuple[int, str, str]:
    return section.order, section.tables.__module__, section.tables.__qualname__


def report_sections() -> tuple[ReportSection, ...]:
    """The registered sections in the order the report writes them."""
    return tuple(sorted(_SECTIONS.values(), key=lambda s: s.order))
