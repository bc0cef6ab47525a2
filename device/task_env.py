"""A device that hosts a judged task: the task gives the goal, and its own reward judges the episode.

MiniWoB++ is the first such device (:mod:`latent_agent.device.miniwob`): each task page states its goal
(the utterance) and computes its own reward when the episode ends. Callers find such a device by its
capability flag (``device.capabilities.task_reward``), never by its backend's name::

    judged = task_device(device)
    if judged is not None:
        goal = judged.load_task("click-button", seed=1000)
        ...
        reward = judged.task_reward()   # TaskReward(raw=1.0, time_scaled=0.83, done=True)

The judge is the task's reward and nothing of ours: success is a raw reward of exactly 1.0 once the task
is done (partial rewards are not success), and an episode whose agent stops before the task is done has
failed.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass

from latent_agent.device.base import Device

#: The raw reward that counts as success (partial rewards, e.g. some boxes of click-checkboxes, do not).
SUCCESS_REWARD = 1.0


@dataclass(frozen=True, slots=True)
class TaskReward:
    """The task's own judgement of the episode so far.

    Attributes:
        raw: The reward without the time penalty (``WOB_RAW_REWARD_GLOBAL``): 1.0 solved, -1.0 failed,
            in between for partial credit; 0.0 while the task has not ended.
        time_scaled: The reward the task itself reports, scaled down by the time taken (what the papers'
            harness called the reward); 0.0 while the task has not ended.
        done: Whether the task has ended (``WOB_DONE_GLOBAL``): nothing the agent does changes the
            reward any more.
    """

    raw: float
    time_scaled: float
    done: bool

    @property
    def success(self) -> bool:
        """Whether the task ended solved (raw reward 1.0)."""
        return self.done and self.raw == SUCCESS_REWARD


class TaskDevice(Device):
    """A device with the ``task_reward`` capability: it loads a judged task and reports its reward."""

    @property
    @abc.abstractmethod
    def task(self) -> str | None:
        """The task the device was asked for (``miniwob:TASK``), or None when each episode names one."""

    @abc.abstractmethod
    def load_task(self, task: str, seed: int) -> str:
        """Open ``task`` started from ``seed`` and return its utterance, the episode's goal.

        The task is ready for the agent when this returns: its timer does not end it while an agent thinks.

        Raises:
            ConfigError: For a task this device does not have (the message names close matches).
            DeviceError: If the task does not load.
        """

    @abc.abstractmethod
    def task_reward(self) -> TaskReward:
        """The loaded task's reward now (see :class:`TaskReward`).

        Raises:
            DeviceError: If no task is loaded or the page does not answer.
        """


def task_device(device: Device) -> TaskDevice | None:
    """``device`` as a judged-task device when it has the ``task_reward`` capability, else None."""
    if not device.capabilities.task_reward:
        return None
    if not isinstance(device, TaskDevice):
        raise TypeError(f"{type(device).__name__} declares the task_reward capability and is no TaskDevice")
    return device
