"""Figures of methods that try a goal several times: success at T trials, trials used, calls by kind.

They come from the episodes' trajectories, not from ``results.jsonl``: an episode of a multi-trial
method records which trial every step belongs to, the feedback protocol it ran with (``self``: the
agent's own completion judgement; ``check``: the task's automatic check) and every LLM call with
its purpose. Success within the first T trials is read from one episode: an episode that stopped
within T trials scores its final result; one that went on past trial T did not succeed by then,
since a trial judged correct ends the episode (under ``check`` the task's check said no; under
``self`` the agent did not judge the task done, and the phone is not checked between such trials
unless the trial record carries the check). T beyond the method's trial budget is not computable
from a failed episode and is left out. Methods without trials have no row.

On a page that scores itself (MiniWoB++) success is raw reward 1.0, and the papers' code counted a reward
above 0 (:meth:`TrialEpisode.positive_at`): the episode's last trial has its raw reward on the results line,
a trial the page did not end scored 0, and a trial the page ended without raw reward 1.0 (-1, or a partial
reward) is unknown under that criterion, since trial records do not keep the reward.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from latent_agent.agent.methods import METHODS
from latent_agent.agent.reflection.policy import ReflectionPolicy, ReflectionState
from latent_agent.agent.trajectory import StopReason, Trajectory, read_trajectory
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus, episode_directory
from latent_agent.errors import InputError

#: The trial budgets the report gives success at.
REPORTED_T = (1, 3, 5)
#: Call purpose -> the kind the report counts it under; every other purpose counts as ``other`` (the goal's
#: normalization, for one). ``paraphrase`` is the published method's call per executed action; this version makes
#: none (its steps are already in words, docs/reflection.md), and the column says so with its zeros.
CALL_KINDS = {"plan": "planning", "paraphrase": "paraphrase", "reflect": "reflection", "ground": "grounding"}
KINDS = ("planning", "paraphrase", "reflection", "grounding", "other")


@dataclass(frozen=True, slots=True)
class TrialEpisode:
    """One finished episode of a multi-trial method, as the report counts it.

    Attributes:
        method: The method's name.
        feedback: ``self`` or ``check``.
        budget: Most trials the method allows.
        trials_used: Trials the episode ran.
        success: The episode's final result (None when raters have not judged it).
        checked: The task's check at the end of each trial, where the trial record carries it.
        calls: LLM calls by kind (:data:`KINDS`).
        raw_reward: The page's raw reward when the episode ended (None: no page judged it).
        trial_stops: Why each trial with a trial record ended, in trial order.
        trial_rewards: The page's raw reward when each trial with a trial record ended (None where no page
            judged it, or the file was written before trial records kept it).
    """

    method: str
    feedback: str
    budget: int
    trials_used: int
    success: bool | None
    checked: tuple[bool | None, ...]
    calls: dict[str, int]
    raw_reward: float | None = None
    trial_stops: tuple[StopReason, ...] = ()
    trial_rewards: tuple[float | None, ...] = ()

    def success_at(self, t: int) -> bool | None:
        """Whether the task succeeded within the first ``t`` trials (None when not computable)."""
        if self.success is None:
            return None
        if self.trials_used <= t:
            # A failure that used the whole budget says nothing about a larger one.
            if not self.success and t > self.budget and self.trials_used >= self.budget:
                return None
            return self.success
        known = self.checked[t - 1] if t - 1 < len(self.checked) else None
        return bool(known)

    def positive_at(self, t: int) -> bool | None:
        """Whether some trial of the first ``t`` ended with a reward above 0, as the papers' code counted; None
        when not computable (no page judged the episode, or an earlier trial the page ended has no reward)."""
        if self.raw_reward is None:
            return None
        last = self.trials_used - 1
        if self.trials_used <= t and self.raw_reward > 0:
            return True
        if self.trials_used <= t and t > self.budget and self.trials_used >= self.budget:
            return None  # a failure that used the whole budget says nothing about a larger one
        unknown = False
        for trial in range(min(t, self.trials_used)):
            if trial == last:
                continue  # its reward is the episode's, above
            if trial < len(self.checked) and self.checked[trial]:
                return True
            reward = self.trial_rewards[trial] if trial < len(self.trial_rewards) else None
            if reward is not None and self.trial_stops[trial] is StopReason.TASK_ENDED:
                if reward > 0:
                    return True
                continue  # the page ended this trial without credit: known, not unknown
            ended_by_page = trial < len(self.trial_stops) and self.trial_stops[trial] is StopReason.TASK_ENDED
            unknown |= ended_by_page or trial >= len(self.trial_stops)
        return None if unknown else False


def _calls(trajectory: Trajectory) -> dict[str, int]:
    counts: Counter[str] = Counter()
    purposes = [c.purpose for c in trajectory.header.setup_calls]
    purposes += [c.purpose for s in trajectory.steps for c in s.calls]
    purposes += [c.purpose for t in trajectory.trials for c in t.calls]
    for purpose in purposes:
        counts[CALL_KINDS.get(purpose, "other")] += 1
    return {kind: counts[kind] for kind in KINDS}


def trial_episode(record: EpisodeRecord, trajectory: Trajectory) -> TrialEpisode | None:
    """The counts of one episode, or None when its method does not try again."""
    method = METHODS.get(record.method)
    if method is None or not isinstance(method.policy, ReflectionPolicy):
        return None
    states = [s.state for s in trajectory.steps if isinstance(s.state, ReflectionState)]
    feedback = states[0].feedback if states else method.policy.feedback
    used = 1 + max((s.trial for s in trajectory.steps), default=0)
    checked = tuple(t.checked for t in trajectory.trials)
    return TrialEpisode(record.method, feedback, method.policy.trials, used, record.success, checked,
                        _calls(trajectory), record.raw_reward, tuple(t.stop_reason for t in trajectory.trials),
                        tuple(t.reward.raw if t.reward is not None else None for t in trajectory.trials))


def trial_episodes(sweep: Path, records: Iterable[EpisodeRecord]) -> list[TrialEpisode]:
    """The multi-trial episodes among ``records`` whose trajectories can be read (finished ones only)."""
    out: list[TrialEpisode] = []
    for record in records:
        if record.status is not EpisodeStatus.FINISHED or not record.trajectory:
            continue
        method = METHODS.get(record.method)
        if method is None or not isinstance(method.policy, ReflectionPolicy):
            continue
        try:
            trajectory = read_trajectory(episode_directory(sweep, record))  # never a path out of the sweep
        except (InputError, OSError):
            continue  # the episodes table links what is left of it
        episode = trial_episode(record, trajectory)
        if episode is not None:
            out.append(episode)
    return out


@dataclass(frozen=True, slots=True)
class TrialRow:
    """One (method, feedback protocol) line of the report's multi-trial table."""

    method: str
    feedback: str
    episodes: int
    success_at: tuple[tuple[int, int, int] | None, ...]  # per REPORTED_T: (successes, judged, T) or None
    trials_used: float
    calls: dict[str, float]


def trial_rows(episodes: Sequence[TrialEpisode]) -> list[TrialRow]:
    """One row per method and feedback protocol (protocols are never pooled), in first-seen order."""
    groups: dict[tuple[str, str], list[TrialEpisode]] = {}
    for e in episodes:
        groups.setdefault((e.method, e.feedback), []).append(e)
    rows: list[TrialRow] = []
    for (method, feedback), group in groups.items():
        cells: list[tuple[int, int, int] | None] = []
        for t in REPORTED_T:
            judged = [v for e in group if (v := e.success_at(t)) is not None]
            cells.append((sum(judged), len(judged), t) if judged else None)
        n = len(group)
        calls = {kind: sum(e.calls[kind] for e in group) / n for kind in KINDS}
        rows.append(TrialRow(method, feedback, n, tuple(cells), sum(e.trials_used for e in group) / n, calls))
    return rows
