"""A trial the page ended is kept with its reward (TrialRecord.reward), so reward > 0 within T is known for
every trial of a multi-trial episode, not only the last (issue 28 item 8)."""

from __future__ import annotations

from pathlib import Path

from latent_agent.agent.trajectory import (
    EpisodeHeader,
    StopReason,
    TrajectoryWriter,
    TrialRecord,
    read_trajectory,
)
from latent_agent.benchmarks.trials import KINDS, TrialEpisode
from latent_agent.device.task_env import TaskReward


def _episode(used: int, raw: float, stops: tuple[StopReason, ...], rewards: tuple[float | None, ...]) -> TrialEpisode:
    return TrialEpisode("reflection-check-t5", "check", 5, used, raw == 1.0, (False,) * len(stops),
                        dict.fromkeys(KINDS, 0), raw, stops, rewards)


def test_a_trial_the_page_ended_is_counted_by_its_own_reward() -> None:
    # First trial ended by the page with a partial reward: reward > 0 at T=1 already.
    partial = _episode(2, 1.0, (StopReason.TASK_ENDED,), (0.5,))
    assert [partial.positive_at(t) for t in (1, 3)] == [True, True]
    # First trial ended with -1: known to be no success at T=1 (it was unknown before trials kept rewards).
    failed = _episode(2, 1.0, (StopReason.TASK_ENDED,), (-1.0,))
    assert [failed.positive_at(t) for t in (1, 3)] == [False, True]
    # An older file whose trial records hold no reward stays unknown, as before.
    old = _episode(2, 1.0, (StopReason.TASK_ENDED,), (None,))
    assert old.positive_at(1) is None


def test_a_trial_records_reward_is_written_and_read_back(tmp_path: Path) -> None:
    header = EpisodeHeader(episode_id="ep", goal="Click on the yes button.", normalized_goal="Click yes.",
                           method="reflection-check", grounder="paper", llm="demo", device="MiniWobDevice",
                           max_steps=5, started_at=0.0)
    writer = TrajectoryWriter(tmp_path / "ep", header)
    writer.trial(TrialRecord(0, 2, StopReason.TASK_ENDED, "the task ended", True, "reset",
                             reward=TaskReward(-1.0, -1.0, True)))
    writer.trial(TrialRecord(1, 4, StopReason.GAVE_UP, "gave up", False))
    writer.close()
    first, second = read_trajectory(tmp_path / "ep").trials
    assert first.reward == TaskReward(-1.0, -1.0, True) and second.reward is None
