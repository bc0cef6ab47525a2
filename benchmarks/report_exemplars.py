"""The report's exemplar-memory section: every method of the sweep split by the exemplar protocol's splits.

The sim suite gives each task a family and a split (``train``: the memory may be harvested from it;
``eval``: its family has exemplars; ``heldout``: its family has none, the published "novel tasks"),
see :mod:`latent_agent.benchmarks.sim_tasks`. Per method and split the section gives success, steps,
LLM calls and tokens per finished episode, and for the exemplar method what retrieval did, read from
the first step of each trajectory: whether it fetched the task's own family, another family, or
nothing (under the similarity floor). On an ``eval`` task the right answer is the task's family; on a
``heldout`` task no family of the memory is right, so fetching nothing is the right answer there and
fetching another family puts unrelated demonstrations in the prompt. Held-out tasks are never pooled
with the others.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from latent_agent.agent.exemplars.policy import ExemplarPolicy, ExemplarState
from latent_agent.agent.methods import METHODS
from latent_agent.agent.trajectory import read_trajectory
from latent_agent.benchmarks.report_sections import ReportInput, ReportSection
from latent_agent.benchmarks.report_tables import Table
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus, episode_directory
from latent_agent.benchmarks.sim_tasks import SPLITS, Task, load_suite
from latent_agent.errors import InputError

#: What retrieval did in one episode.
OWN, OTHER, NONE = "own family", "another family", "nothing"


@dataclass(frozen=True, slots=True)
class ExemplarRow:
    """One (method, split) line.

    Attributes:
        method: The method.
        split: ``train``, ``eval`` or ``heldout``.
        episodes: Finished episodes.
        successes: Of those, how many succeeded (None: none was judged).
        judged: Episodes with a success verdict.
        steps: Steps per episode.
        calls: LLM calls per episode.
        tokens: Prompt + output tokens per episode.
        retrieval: For the exemplar method, episodes per retrieval outcome (:data:`OWN`, :data:`OTHER`,
            :data:`NONE`); empty for other methods.
    """

    method: str
    split: str
    episodes: int
    successes: int
    judged: int
    steps: float
    calls: float
    tokens: float
    retrieval: dict[str, int]


def retrieval_outcome(state: ExemplarState, family: str | None) -> str:
    """What retrieval did for a task of ``family``, from the episode's first step."""
    if state.family is None:
        return NONE
    return OWN if state.family == family else OTHER


def _first_state(sweep: Path, record: EpisodeRecord) -> ExemplarState | None:
    try:
        trajectory = read_trajectory(episode_directory(sweep, record))  # a copied results.jsonl can name any path
    except (InputError, OSError):
        return None
    first = trajectory.steps[0].state if trajectory.steps else None
    return first if isinstance(first, ExemplarState) else None


def exemplar_rows(sweep: Path, records: Iterable[EpisodeRecord], tasks: Sequence[Task] | None = None
                  ) -> list[ExemplarRow]:
    """The rows of the section, or none when the sweep ran no exemplar method on tasks with a split.

    Args:
        sweep: The sweep directory (trajectories are read relative to it).
        records: The sweep's latest records.
        tasks: The sim tasks (default: the shipped suite).
    """
    by_id = {t.id: t for t in (tasks if tasks is not None else load_suite())}
    finished = [r for r in records if r.status is EpisodeStatus.FINISHED and r.task_id in by_id
                and by_id[r.task_id].split is not None]
    exemplar_methods = {name for name, m in METHODS.items() if isinstance(m.policy, ExemplarPolicy)}
    if not any(r.method in exemplar_methods for r in finished):
        return []
    groups: dict[tuple[str, str], list[EpisodeRecord]] = {}
    for r in finished:
        groups.setdefault((r.method, str(by_id[r.task_id].split)), []).append(r)
    order = {name: i for i, name in enumerate(METHODS)}
    rows: list[ExemplarRow] = []
    for (method, split), group in sorted(groups.items(), key=lambda kv: (order.get(kv[0][0], len(order)),
                                                                         kv[0][0], SPLITS.index(kv[0][1]))):
        retrieval: dict[str, int] = {}
        if method in exemplar_methods:
            for r in group:
                state = _first_state(sweep, r)
                if state is not None:
                    outcome = retrieval_outcome(state, by_id[r.task_id].family)
                    retrieval[outcome] = retrieval.get(outcome, 0) + 1
        judged = [r.success for r in group if r.success is not None]
        n = len(group)
        rows.append(ExemplarRow(method, split, n, sum(judged), len(judged), sum(r.steps for r in group) / n,
                                sum(r.llm_calls for r in group) / n,
                                sum(r.prompt_tokens + r.output_tokens for r in group) / n, retrieval))
    return rows


def _share(count: int, total: int) -> str:
    return f"{100 * count / total:.0f}% ({count}/{total})" if total else "-"


def exemplars_table(rows: Sequence[ExemplarRow]) -> Table:
    """The section as a report table."""
    cells = []
    for r in rows:
        looked = sum(r.retrieval.values())
        cells.append((r.method, r.split, str(r.episodes), _share(r.successes, r.judged), f"{r.steps:.1f}",
                      f"{r.calls:.1f}", f"{r.tokens:,.0f}",
                      *((_share(r.retrieval.get(o, 0), looked) for o in (OWN, OTHER, NONE)) if looked
                        else ("-", "-", "-"))))
    return Table("Exemplar memory by split", ("Agent", "Split", "Episodes", "Success", "Steps", "LLM calls",
                                              "Tokens", "Retrieved: own family", "Retrieved: another family",
                                              "Retrieved: nothing"), tuple(cells),
                 note="Splits of the sim suite's exemplar protocol: train (the memory is harvested from its "
                      "episodes), eval (its family has exemplars in the memory), heldout (its family has none: "
                      "the published novel tasks; never pooled with the rest). Steps, calls and tokens are per "
                      "finished episode. Retrieval (the exemplar method, from each episode's first step): the "
                      "right outcome is its own family on eval tasks and nothing (under the similarity floor) "
                      "on heldout tasks.")


def _tables(data: ReportInput) -> list[Table]:
    rows = exemplar_rows(data.sweep, data.records)
    return [exemplars_table(rows)] if rows else []


SECTION = ReportSection("exemplars", 70, _tables)
