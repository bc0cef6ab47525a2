"""Retrieval: which task family's exemplars a new goal gets.

The query is embedded with the memory's own embedder and compared (cosine: the stored vectors and the
query are unit length, so a dot product) with every key. The ``k`` nearest keys vote on the family,
ties going to the family with the most similar key; if even the nearest key is less similar than the
floor, the goal is taken to belong to no family the memory knows and the agent runs without exemplars.
This is the published method's rule (top 3 keys, majority vote on the task name), with the floor the
Android adaptation adds. Retrieval runs once, at the start of an episode. On a phone the query is the goal
alone: every Android episode starts on the same home screen, so the screen adds nothing to the key. On a
web page it is the task and the first state (:func:`page_key`), as Synapse's code embeds them, and there is
no floor unless one is asked for (:data:`NO_FLOOR`): the published method always takes the nearest task,
which is how its held-out tasks get another task's exemplars.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from latent_agent.agent.exemplars.memory import Exemplar, ExemplarMemory
from latent_agent.errors import ConfigError
from latent_agent.llm.embed.base import Embedder, Vectors

DEFAULT_K = 3
#: The cosine below which no exemplars are used, measured for the default MiniLM embedder on the sim suite
#: (docs/memory.md): 30 requests outside the suite's apps (a flight, a pizza, an email) score at most 0.38
#: against a memory harvested from the training split, so 0.40 keeps them all out; it also drops the
#: evaluation goals that resemble their family's keys least (18 of the 31 right first choices stay).
#: Another embedder has another scale of cosines: measure before relying on this value for it.
DEFAULT_FLOOR = 0.40
#: No floor: the nearest task is always taken (every cosine is at least -1).
NO_FLOOR = -1.0


def page_key(goal: str, state: str) -> str:
    """The retrieval key of a web page's task: its utterance and its first state (the task area's HTML), in
    the form Synapse's code embeds (``Task: {utterance}\nState:\n{raw HTML}``)."""
    return f"Task: {goal}\nState:\n{state}"


@dataclass(frozen=True, slots=True)
class Retrieval:
    """What retrieval found for one goal.

    Attributes:
        family: The family voted for; None when the best similarity is under the floor (or the memory
            is empty): run without exemplars.
        exemplars: That family's exemplars (empty when ``family`` is None).
        neighbours: ``(family, cosine)`` of the top-k keys, most similar first.
        similarity: The cosine of the nearest key (0.0 for an empty memory).
    """

    family: str | None
    exemplars: tuple[Exemplar, ...]
    neighbours: tuple[tuple[str, float], ...]
    similarity: float


class Retriever:
    """Top-k keys by cosine, a vote on the family, a similarity floor.

    Args:
        memory: The memory to search.
        embedder: Embeds the goals; must be the embedder the memory was built with.
        k: How many nearest keys vote.
        floor: Cosine under which the nearest key does not count as a match.

    Raises:
        ConfigError: The embedder is not the memory's, or ``k`` is below 1.
    """

    def __init__(self, memory: ExemplarMemory, embedder: Embedder, *, k: int = DEFAULT_K,
                 floor: float = DEFAULT_FLOOR) -> None:
        if embedder.info != memory.embedder:
            raise ConfigError(f"the memory was built with embedder {memory.embedder.spec} "
                              f"(dimension {memory.embedder.dimension}); it cannot be searched with "
                              f"{embedder.info.spec} (dimension {embedder.info.dimension})")
        if k < 1:
            raise ConfigError(f"retrieval needs k >= 1, got {k}")
        if not -1.0 <= floor <= 1.0:
            raise ConfigError(f"the similarity floor is a cosine, between -1 and 1; got {floor}")
        self.memory = memory
        self.embedder = embedder
        self.k = k
        self.floor = floor

    def retrieve(self, goal: str, *, floor: float | None = None) -> Retrieval:
        """The family and exemplars for ``goal`` (embeds it; blocking).

        Args:
            goal: The query: a goal, or a web page's :func:`page_key`.
            floor: The floor for this query (None: the retriever's; :data:`NO_FLOOR`: none).
        """
        return self.rank(self.embedder.embed([goal])[0], floor=floor)

    def of_task(self, task_id: str | None) -> Retrieval:
        """The exemplars harvested from the task ``task_id`` itself, without retrieval (Synapse's per-task
        setting: each task is shown its own exemplars); none for a task the memory holds none of."""
        own = tuple(x for x in self.memory.exemplars if task_id is not None and x.source.task == task_id)
        return Retrieval(own[0].family if own else None, own, (), 1.0 if own else 0.0)

    async def aretrieve(self, goal: str, *, floor: float | None = None) -> Retrieval:
        """:meth:`retrieve` for async callers (the embedder does not block the event loop)."""
        return self.rank((await self.embedder.aembed([goal]))[0], floor=floor)

    def rank(self, query: Vectors, *, floor: float | None = None) -> Retrieval:
        """The retrieval for an already embedded (unit) query vector (``floor`` as for :meth:`retrieve`)."""
        keys = self.memory.keys
        if not keys:
            return Retrieval(None, (), (), 0.0)
        # einsum's plain loop, not BLAS: one matrix-vector product is too small to gain from OpenBLAS's
        # threads, and on a machine busy with sweep workers those threads made it ten times slower.
        scores = np.einsum("ij,j->i", self.memory.vectors, np.asarray(query, dtype=np.float32))
        k = min(self.k, len(keys))
        top = np.argpartition(-scores, k - 1)[:k] if k < len(keys) else np.arange(len(keys))
        # Ties in score are broken by key order, so the same memory always answers the same way.
        order = sorted(top.tolist(), key=lambda i: (-float(scores[i]), i))
        neighbours = tuple((keys[i].family, float(scores[i])) for i in order)
        best = neighbours[0][1]
        if best < (self.floor if floor is None else floor):
            return Retrieval(None, (), neighbours, best)
        votes = Counter(family for family, _ in neighbours)
        first_seen = {family: rank for rank, (family, _) in reversed(list(enumerate(neighbours)))}
        # Most votes wins; among equal votes, the family whose best key ranks higher (more similar).
        family = min(votes, key=lambda f: (-votes[f], first_seen[f]))
        return Retrieval(family, self.memory.exemplars_of(family), neighbours, best)
