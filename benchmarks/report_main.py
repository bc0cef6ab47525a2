"""The report's main sections: Table 3 per suite, the paired tests, stops, root causes, error guesses, episodes.

Each is registered in :mod:`latent_agent.benchmarks.report_sections` at its place among the others (see
:data:`MAIN_SECTIONS`); the methods' own sections sit between them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from latent_agent.agent.trajectory import StopReason
from latent_agent.benchmarks.metrics import MEASURES, ErrorCategory, Metrics
from latent_agent.benchmarks.ratings import RootCause
from latent_agent.benchmarks.report_sections import ReportSection
from latent_agent.benchmarks.report_tables import Cell, Link, Table, family_label, method_label, num, p_value, pct
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus, StopJudgement

MEASURE_NAMES = {"success": "Task success", "partial": "Partial completion", "strict_success": "Success, strict stop",
                 "premature_stop": "Premature stop"}
CAUSE_NAMES = {RootCause.ACTION_SELECTION: "Action selection", RootCause.GROUNDING: "Grounding",
               RootCause.BOTH: "Both", RootCause.ENVIRONMENT: "Environment"}
PARTIAL_NOTE = ("Partial completion: the share of the task's partial-completion questions answered yes, for every "
                "episode including successes (the paper's definition; one function, benchmarks/partial.py, for "
                "automatic checks and raters alike).")


def metrics_table(metrics: Metrics, suite: str) -> Table:
    """Table 3's layout for one suite: one row per agent, ``-`` and ``+`` of each reasoning method together.

    Each of the four measures is followed by the p-value of its paired test, on the ``+`` row.
    """
    rows: list[tuple[Cell, ...]] = []
    for m in metrics.methods:
        if m.suite != suite:
            continue
        cells: list[Cell] = [method_label(m.method)]
        for measure, value in zip(MEASURES, (m.success, m.partial, m.strict_success, m.premature_stop), strict=True):
            test = metrics.test_of(suite, m.method, measure)
            cells += [pct(value), p_value(test.p_value) if test else ""]
        cells += [num(m.steps), num(m.llm_calls), num(m.tokens, 0), num(m.s_per_step, 2),
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
    """The paired permutation tests of every measure, per suite and pooled."""
    rows = tuple(
        (t.suite, family_label(t.reasoning), MEASURE_NAMES.get(t.metric, t.metric), str(t.n),
         pct(t.minus), pct(t.plus), p_value(t.p_value))
        for t in metrics.tests
    )
    return Table("Paired permutation tests (+ against -)",
                 ("Suite", "Reasoning", "Measure", "Tasks paired", "Without latent state", "With latent state",
                  "p (two-sided)"), rows,
                 note="Every Table 3 measure is tested per suite and pooled over suites; a task is paired when both "
                      "variants have a value for the measure.")


#: What a stop judgement says, in words (the results line keeps the value).
STOP_WORDS = {StopJudgement.RIGHT_TIME: "at the right time", StopJudgement.PREMATURE: "premature",
              StopJudgement.EXTRA_STEPS: "after extra steps", StopJudgement.DID_NOT_STOP: "did not stop"}


def stops_table(metrics: Metrics) -> Table:
    """The stop analysis: how often each agent stopped on its own, and how often such a stop was premature.

    An episode its task page ended (MiniWoB++) gave the agent nothing to stop: it is counted apart, and the
    rates are over the others, "–" when there were none (not a 0% that would read as an agent that never
    stopped).
    """
    rows = tuple(
        (m.suite, method_label(m.method), str(m.episodes - m.errored), str(m.task_ended), str(m.stopped),
         pct(m.stop_rate), pct(m.premature_among_stopped) if m.stopped else "– (none stopped)")
        for m in metrics.methods
    )
    return Table("Stop analysis", ("Suite", "Agent", "Finished", "Ended by the task", "Stopped",
                                   "Stopped before the step limit", "Premature among stopped"), rows,
                 note="Ended by the task: the task's page ended the episode once its task was over (MiniWoB++), so "
                      "the agent had nothing to stop. Stopped: the agent ended the episode itself (completion "
                      "estimate or \"done\"), not the step limit or repeated actions; stopped before the step "
                      "limit: their share of the finished episodes the task did not end (– when it ended them "
                      "all). Premature among stopped: share of those episodes, with a judged stop, that stopped "
                      "before the task was done.")


def errors_table(metrics: Metrics) -> Table:
    """The automatic guess of each failure's error category."""
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
        (c.suite, method_label(c.method), str(c.failures), str(c.rated), *(pct(c.share(cause)) for cause in RootCause))
        for c in metrics.causes
    )
    return Table("Error analysis (raters' primary root cause of each failure)",
                 ("Suite", "Agent", "Failures", "Rated", *(CAUSE_NAMES[c] for c in RootCause)), rows,
                 note="Shares of the rated failures. Failures: finished episodes that did not complete the task; "
                      "rated: those a rater assigned a cause (consensus of raters; ties are not counted).")


def _stop_words(record: EpisodeRecord) -> str:
    """When the episode stopped, in words: its judgement, and who ended it when the task's page did."""
    reason = record.stop_reason
    ended = " (the task's page ended it)" if reason is StopReason.TASK_ENDED else ""
    if record.stop_judgement is not None:
        return STOP_WORDS[record.stop_judgement] + ended
    return reason.value.replace("_", " ") if reason is not None else "–"


def episodes_table(records: Sequence[EpisodeRecord], pages: Mapping[str, str]) -> Table:
    """Every episode with its outcome, stop and error, linked to its page."""
    rows: list[tuple[Cell, ...]] = []
    for r in sorted(records, key=lambda r: (r.suite, r.task_id, r.seed, r.method)):
        outcome = ("error" if r.status is EpisodeStatus.ERROR
                   else "to rate" if r.success is None else "success" if r.success else "failure")
        page = pages.get(r.key)
        rows.append((
            Link(r.key, page) if page else r.key, r.method, str(r.seed), outcome, _stop_words(r), str(r.steps),
            r.device, r.error[:120],
        ))
    return Table("Episodes", ("Episode", "Agent", "Seed", "Outcome", "Stop", "Steps", "Device", "Error"), tuple(rows))


#: The main sections, 10 apart in the order the report writes them; the methods' own sections take the orders
#: between (the papers' tables 20, multi-trial methods 60, the exemplar memory 70, observation sources 80).
MAIN_SECTIONS = (
    ReportSection("suites", 10, lambda data: [metrics_table(data.metrics, s) for s in data.suites]),
    ReportSection("tests", 30, lambda data: [tests_table(data.metrics)]),
    ReportSection("stops", 40, lambda data: [stops_table(data.metrics)]),
    # The raters' root causes, when ratings gave any.
    ReportSection("causes", 50, lambda data: [causes_table(data.metrics)] if data.metrics.causes else []),
    ReportSection("errors", 90, lambda data: [errors_table(data.metrics)]),
    ReportSection("episodes", 100, lambda data: [episodes_table(data.everything, data.pages)]),
)
