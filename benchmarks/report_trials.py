"""The report's multi-trial section: methods that try a goal several times (structured reflection).

Per method and feedback protocol: success within T trials, trials used and LLM calls by kind, read from each
episode's trials (:mod:`latent_agent.benchmarks.trials`); no table when the sweep ran no such method.
"""

from __future__ import annotations

from collections.abc import Sequence

from latent_agent.benchmarks.report_sections import ReportInput, ReportSection
from latent_agent.benchmarks.report_tables import Table, method_label, num, pct
from latent_agent.benchmarks.trials import KINDS, REPORTED_T, TrialRow, trial_episodes, trial_rows


def trials_table(rows: Sequence[TrialRow]) -> Table:
    """Methods that try a goal several times: success at T trials per feedback protocol, trials, calls by kind."""
    cells = tuple(
        (method_label(r.method), r.feedback, str(r.episodes),
         *(f"{pct(c[0] / c[1])} ({c[0]}/{c[1]})" if c else "-" for c in r.success_at),
         num(r.trials_used, 2), *(num(r.calls[k]) for k in KINDS))
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


def _tables(data: ReportInput) -> list[Table]:
    rows = trial_rows(trial_episodes(data.sweep, data.records))
    return [trials_table(rows)] if rows else []


SECTION = ReportSection("trials", 60, _tables)
