"""How Synapse ran each MiniWoB++ task: where it filtered the state, reformulated the task, how many plans
it asked for, and whose exemplars a task without its own was shown.

The choices are data (``synapse_miniwob.json``, each with the reason and its source in the paper or the
authors' code), never branches on task names in the policy. They apply on a web page only: on a phone every
episode runs as the Android adaptation describes (``docs/exemplars.md``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from types import MappingProxyType

#: The data file, beside this module.
DATA_FILE = "synapse_miniwob.json"


@dataclass(frozen=True, slots=True)
class TaskSetup:
    """How the published method ran one task.

    Attributes:
        filter: Whether the raw state is filtered into a task-relevant observation before planning.
        reformulate: Whether the utterance is rewritten into an explicit task before planning.
        query_cap: How many plans the model is asked for in one episode.
        own_exemplars_from: The task whose exemplars the task is shown in the per-task setting when it has
            none of its own (None: the nearest task by retrieval).
    """

    filter: bool
    reformulate: bool
    query_cap: int
    own_exemplars_from: str | None


@dataclass(frozen=True, slots=True)
class SynapseTasks:
    """The per-task choices of the data file (see the module docstring)."""

    filtered: frozenset[str]
    reformulated: frozenset[str]
    default_cap: int
    caps: Mapping[str, int]
    substitutes: Mapping[str, str]

    def of(self, task_id: str | None) -> TaskSetup:
        """The setup of ``task_id``; a task the data does not name (or none) is a simple task: no filtering, no
        reformulation, the default cap, the nearest task's exemplars."""
        task = task_id or ""
        return TaskSetup(task in self.filtered, task in self.reformulated, self.caps.get(task, self.default_cap),
                         self.substitutes.get(task))


def _tasks(section: object, name: str) -> frozenset[str]:
    tasks = section.get("tasks") if isinstance(section, dict) else None
    if not isinstance(tasks, list) or not all(isinstance(t, str) for t in tasks):
        raise ValueError(f"{DATA_FILE}: {name}.tasks is not a list of task names")
    return frozenset(tasks)


@functools.cache
def synapse_tasks() -> SynapseTasks:
    """The data file, read once.

    Raises:
        ValueError: The file is malformed (it ships with the package; this is a packaging fault).
    """
    raw = json.loads(resources.files("latent_agent.agent.exemplars").joinpath(DATA_FILE).read_text("utf-8"))
    caps = raw["query_caps"]
    substitutes = raw["own_exemplars_from"]["tasks"]
    if not (isinstance(caps.get("default"), int) and isinstance(caps.get("tasks"), dict)
            and all(isinstance(v, int) and v >= 1 for v in caps["tasks"].values())
            and isinstance(substitutes, dict) and all(isinstance(v, str) for v in substitutes.values())):
        raise ValueError(f"{DATA_FILE}: query_caps or own_exemplars_from is malformed")
    return SynapseTasks(_tasks(raw["filter"], "filter"), _tasks(raw["reformulate"], "reformulate"), caps["default"],
                        MappingProxyType(dict(caps["tasks"])), MappingProxyType(dict(substitutes)))
