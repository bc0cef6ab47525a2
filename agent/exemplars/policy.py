"""Exemplar memory (Synapse), adapted to Android: retrieved demonstrations, state abstraction and
trajectory-as-exemplar prompting.

At the first step the goal is embedded and the nearest task family of an exemplar memory is retrieved
(the key is the goal alone: every Android episode starts from the same home screen, so the state part
of the published key tells nothing apart). Then the episode runs in *pieces*: at the start of each,

1. **state abstraction** turns the screen description into a short task-relevant observation, with the
   retrieved exemplars' own (screen, observation) pairs of the same piece as few-shot examples. It is
   skipped when the exemplars hold no observations; without exemplars (nothing retrieved above the
   similarity floor) it runs on its instruction alone, so that episodes played without exemplars
   still leave observations a later memory can learn from;
2. **action generation** is one multi-turn chat: the exemplars as alternating observation (user) and
   step-list (assistant) turns, then this episode's earlier pieces the same way, then the current
   observation. The answer lists the numbered steps up to the point where a new screen must be seen,
   or ``DONE``.

The steps are handed to the episode loop one per :meth:`ExemplarRun.decide` and grounded there on
the *current* screen like any method's step. The published method runs a piece blind; here a piece
ends early (and the next call is made on the screen as it is) when a step could not be grounded or
executed, or when the next planned tap names a label the changed screen does not show: the cheap
guard the published version lacks. A ``DONE`` step ends the episode once the steps before it ran;
the number of pieces is capped at the retrieved exemplars' piece count + 2 (no cap without
exemplars: the loop's step limit holds).

The goal is the task's own words (``EpisodeSetup.task_goal``), as the published keys and prompts carry
the task's utterance, not the rephrasing the loop makes for the latent-state agents; it is also what a
memory's keys are (the goals episodes were given).

**On a web page** (the device's surface is a web page and the observation holds the page) the method runs
as Synapse did on MiniWoB++ (``docs/exemplars.md`` lists what still differs):

* the state is the task area's raw HTML (:attr:`~latent_agent.accessibility.web_page.PageView.task_html`);
* retrieval embeds the task and the first state (:func:`~latent_agent.agent.exemplars.retrieval.page_key`)
  and always takes the nearest task (no floor unless :attr:`ExemplarPolicy.floor` is set), so a task held
  out of the memory gets the nearest task's exemplars; in the per-task setting a task without exemplars of
  its own gets those the authors' code shows it, else the nearest task's (:class:`ExemplarState` records
  which, and how many);
* the state is filtered only on the tasks the paper filters, and the task reformulated only on those whose
  utterance it calls implicit (``synapse_miniwob.json``, read by :mod:`.task_setup`); every other task goes
  from the raw state straight to a plan;
* the plan is in Synapse's syntax (:mod:`.syntax`) and each command is carried out on the page as written,
  with no grounding call; a command that cannot be (an XPath selecting nothing) is a recorded grounding
  error and ends the piece, as a failed action ended the authors' code's piece;
* the model is asked for a plan at most as often as the paper's code asked on the task (its query cap);
  the page, not a ``DONE``, says when the task is done; no grounding guard note is shown.
"""

from __future__ import annotations

import asyncio
import re
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from latent_agent.agent.calls import PromptCall, cut_reason, truncated
from latent_agent.agent.exemplars.memory import ExemplarMemory
from latent_agent.agent.exemplars.purposes import (
    EXEMPLAR_ABSTRACT,
    EXEMPLAR_ACT,
    EXEMPLAR_REFORMULATE,
    SYNAPSE_COMPLEX_CAP,
    SYNAPSE_SIMPLE_CAP,
)
from latent_agent.agent.exemplars.retrieval import NO_FLOOR, Retriever, page_key
from latent_agent.agent.exemplars.syntax import ground_line, parse_plan
from latent_agent.agent.exemplars.task_setup import TaskSetup, synapse_tasks
from latent_agent.agent.placeholders import placeholder_problem
from latent_agent.agent.policy import Decision, EpisodeSetup, Outcome, StepInput, Verdict
from latent_agent.agent.resources import Resource, declare_resource
from latent_agent.agent.trajectory import StopReason, state_kind
from latent_agent.agent.unparsable import UnparsableAnswer
from latent_agent.errors import ConfigError
from latent_agent.llm.embed.registry import embedder_help, load_embedder
from latent_agent.llm.embed.registry import user_only as embedder_user_only
from latent_agent.llm.types import CallOptions, Message
from latent_agent.prompts.render import render

if TYPE_CHECKING:
    from latent_agent.agent.exemplars.memory import Exemplar
    from latent_agent.agent.exemplars.retrieval import Retrieval
    from latent_agent.agent.resources import MethodResources
    from latent_agent.llm.embed.registry import EmbedderOptions

SYSTEM_TEMPLATE = "exemplar_system.j2"
OBSERVATION_TEMPLATE = "exemplar_observation.j2"
STEPS_TEMPLATE = "exemplar_steps.j2"
ABSTRACT_TEMPLATE = "exemplar_abstract.j2"
REFORMULATE_TEMPLATE = "exemplar_reformulate.j2"
#: The call purposes (what the demo stand-in and the reports key on).
#: The exemplar memory the method retrieves from (``latent-agent memory build``), and the embedder it is queried with.
MEMORY = declare_resource(Resource(
    "memory", "--memory", "M", "the exemplar memory the exemplars method retrieves from (latent-agent memory build); "
    "without it that method runs without exemplars"))
EMBEDDER = declare_resource(Resource("embedder", "--embedder", "NAME[:MODEL]", embedder_help(), path=False,
                                     user_only=embedder_user_only))
ABSTRACT_PURPOSE = EXEMPLAR_ABSTRACT
ACT_PURPOSE = EXEMPLAR_ACT
REFORMULATE_PURPOSE = EXEMPLAR_REFORMULATE
#: The input of a web page's calls naming the surface they were made on.
SURFACE_INPUT = "surface_kind"
#: How the exemplars an episode was shown were chosen (:attr:`ExemplarState.chosen_by`).
CHOSEN_RETRIEVED = "retrieved"
CHOSEN_OWN = "own task"
CHOSEN_SUBSTITUTE = "the published code's substitute"
CHOSEN_NEAREST = "nearest task (none of its own)"
#: The word of the explicit done step.
DONE_WORD = "DONE"
#: Most steps one answer may hold.
PIECE_STEP_CAP = 10
#: Pieces allowed beyond the retrieved exemplars' longest (the card's cap: piece count + 2).
EXTRA_PIECES = 2

_NUMBERED = re.compile(r"^\s*(\d+)\s*[.)]\s*(.*)$")
_BULLET = re.compile(r"^\s*[-*•]\s*")
_QUOTED = re.compile(r'"([^"]+)"')
_NEXT_SECTION = re.compile(r"^\s*(Screen|Observation|Example \d+|Steps)\s*:?\s*$", re.IGNORECASE)
#: What starts another section of a web page's filtering or reformulation answer (a model going on with the
#: prompt's next example).
_NEXT_PAGE_SECTION = re.compile(r"^\s*(State|Observation|Task|Explicit task|Plan)\s*:", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class StepList:
    """A parsed action-generation answer.

    Attributes:
        steps: The steps to take, in order (without the done step).
        done: Whether the answer ends with ``DONE`` (the task is complete after ``steps``).
    """

    steps: tuple[str, ...]
    done: bool


def _is_done(text: str) -> bool:
    return text.strip().strip(".!").strip().upper() == DONE_WORD


def parse_steps(text: str) -> StepList:
    """The steps of an action-generation answer.

    Numbered lines are the steps (bulleted ones when none is numbered); any other line is dropped, as
    the published parser drops text around the list. An answer that is only ``DONE`` is the done step.
    A ``DONE`` step ends the list. At most :data:`PIECE_STEP_CAP` steps are kept.

    Raises:
        UnparsableAnswer: The answer lists no step and is not ``DONE`` (prose is not a plan).
    """
    lines = [line for line in text.splitlines() if line.strip()]
    numbered = [m.group(2).strip() for m in map(_NUMBERED.match, lines) if m]
    if not numbered:
        numbered = [_BULLET.sub("", line).strip() for line in lines if _BULLET.match(line)]
    if not numbered and _is_done(text):
        return StepList((), True)
    steps: list[str] = []
    for line in numbered:
        if _is_done(line):
            return StepList(tuple(steps[:PIECE_STEP_CAP]), True)
        if line:
            steps.append(line)
    if not steps:
        raise UnparsableAnswer(f"the answer lists no step and no {DONE_WORD}: {text[:120]!r}")
    return StepList(tuple(steps[:PIECE_STEP_CAP]), False)


def parse_observation(text: str, *, page: bool = False) -> str:
    """The observation of a state-abstraction answer: its text up to a line that starts another section
    (on a web page, ``page``: a ``State:``, ``Task:`` or ``Plan:`` line too).

    Raises:
        UnparsableAnswer: Nothing is left.
    """
    kept: list[str] = []
    for line in text.strip().splitlines():
        if _NEXT_SECTION.match(line) or (page and _NEXT_PAGE_SECTION.match(line)):
            break
        kept.append(line.rstrip())
    observation = "\n".join(kept).strip()
    if not observation:
        raise UnparsableAnswer(f"the state abstraction is empty: {text[:120]!r}")
    return observation


def parse_reformulation(text: str) -> str:
    """The explicit task of a reformulation answer: its text up to a line that starts another section, without
    a leading ``Explicit task:``.

    Raises:
        UnparsableAnswer: Nothing is left.
    """
    kept: list[str] = []
    for number, line in enumerate(text.strip().splitlines()):
        if number == 0 and line.lower().startswith("explicit task:"):
            line = line.split(":", 1)[1]
        elif _NEXT_PAGE_SECTION.match(line):
            break
        kept.append(line.strip())
    task = " ".join(k for k in kept if k).strip()
    if not task:
        raise UnparsableAnswer(f"the reformulated task is empty: {text[:120]!r}")
    return task


def target_of(step: str) -> str | None:
    """The label a tap or long press names, else None."""
    quoted = _QUOTED.search(step)
    return quoted.group(1) if quoted and step.strip().lower().startswith(("tap", "long press", "click")) else None


# -- retrieval ---------------------------------------------------------------------------------


class ExemplarRetriever(Protocol):
    """What the policy retrieves with (:class:`latent_agent.agent.exemplars.retrieval.Retriever`)."""

    def retrieve(self, goal: str, *, floor: float | None = None) -> Retrieval:
        """The family and exemplars nearest ``goal`` (none under the similarity floor: ``floor``, else the
        retriever's own)."""
        ...

    def of_task(self, task_id: str | None) -> Retrieval:
        """The exemplars of the task ``task_id`` itself (none when the memory holds none)."""
        ...


_LOADED: dict[tuple[str, str | None, int, float | None], ExemplarRetriever] = {}
#: Loading is serialised: sweep workers starting together load the memory and the model once.
_LOADING = threading.Lock()


def load_retriever(memory: Path, embedder: str | None, *, k: int, floor: float | None,
                   options: EmbedderOptions | None = None) -> ExemplarRetriever:
    """The retriever over the memory in ``memory``, loaded once per process (sweep workers share it).

    Args:
        memory: The memory directory (``latent-agent memory build``).
        embedder: The embedder spec to query it with (None: the one the memory was built with).
        k: Neighbours that vote.
        floor: Similarity below which nothing is retrieved (None: the retriever's default).
        options: What a remote embedder needs (key, endpoint).

    Raises:
        InputError: The memory is missing or malformed.
        ConfigError: The memory was built with another embedder, or the embedder is unknown.
    """

    key = (str(memory.resolve()), embedder, k, floor)
    with _LOADING:
        loaded = _LOADED.get(key)
        if loaded is None:
            built = ExemplarMemory.load(memory)
            model = load_embedder(embedder or built.embedder, options)
            if model.info != built.embedder:
                model.close()
                # Load again with the check, for its one message naming both embedders.
                ExemplarMemory.load(memory, embedder=model.info)
            loaded = Retriever(built, model, k=k) if floor is None else Retriever(built, model, k=k, floor=floor)
            _LOADED[key] = loaded
        return loaded


# -- the step record ---------------------------------------------------------------------------


@state_kind
@dataclass(frozen=True, slots=True)
class ExemplarState:
    """What a step of the method records.

    Attributes:
        piece: The piece (0-based) the step belongs to.
        source: ``piece`` (the first step of a new answer), ``continue`` (a later step of it), ``done``
            (the done step), ``cap`` (the piece cap stopped the episode) or ``empty`` (the answer listed
            no usable step).
        steps: The answer's steps, on the step that made the call.
        observation: The abstracted observation the piece was decided on (None: the raw screen was used).
        guard: Why the previous piece ended early (a step not grounded or not executed, or its target
            missing from the new screen), on the step that made the next call.
        memory: The memory directory, on the first step (None: run without a memory).
        family: The family (on MiniWoB++ the task) whose exemplars were shown, on the first step (None: none
            were, e.g. nothing above the floor).
        similarity: The best key's similarity, on the first step.
        neighbours: The nearest keys' families and similarities, on the first step.
        exemplars: The ids of the exemplars shown, on the first step (their number is how many the episode
            was given: zero-exemplar episodes are told apart by it).
        cap: The piece cap (None: none, without exemplars).
        chosen_by: How the exemplars were chosen, on the first step with a memory: ``retrieved`` (the
            nearest family by the key), ``own task`` (the task's own), ``the published code's substitute``
            or ``nearest task (none of its own)`` (a task without exemplars of its own in the per-task
            setting on a web page).
        page: The raw state the call was made on (the task area's HTML), on the step that made it (web pages):
            what a memory harvested from the episode stores as the piece's state.
        reformulated: The task as reformulated for the call, on the step that made it (web pages).
    """

    piece: int
    source: str
    steps: tuple[str, ...] = ()
    observation: str | None = None
    guard: str | None = None
    memory: str | None = None
    family: str | None = None
    similarity: float | None = None
    neighbours: tuple[tuple[str, float], ...] = ()
    exemplars: tuple[str, ...] = ()
    cap: int | None = None
    chosen_by: str | None = None
    page: str | None = None
    reformulated: str | None = None

    KIND = "exemplars"

    @property
    def kind(self) -> str:
        return self.KIND


@dataclass(frozen=True, slots=True)
class _Retrieved:
    """What the episode's one retrieval found, recorded on its first step (see :class:`ExemplarState`)."""

    memory: str | None = None
    family: str | None = None
    similarity: float | None = None
    neighbours: tuple[tuple[str, float], ...] = ()
    exemplars: tuple[str, ...] = ()
    cap: int | None = None
    chosen_by: str | None = None

    def state(self, piece: int, source: str, steps: tuple[str, ...] = (), observation: str | None = None,
              guard: str | None = None, *, page: str | None = None,
              reformulated: str | None = None) -> ExemplarState:
        """A step's state carrying these fields."""
        return ExemplarState(piece, source, steps, observation, guard, self.memory, self.family, self.similarity,
                             self.neighbours, self.exemplars, self.cap, self.chosen_by, page, reformulated)


#: Steps after the first carry no retrieval.
_NOT_FIRST = _Retrieved()


# -- the policy --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExemplarPolicy:
    """Exemplar memory with state abstraction and trajectory-as-exemplar prompting.

    Attributes:
        memory: The exemplar memory directory; None runs every episode without exemplars (zero-shot
            prompting, the same loop), e.g. to harvest a first memory.
        embedder: The embedder spec the memory is queried with (None: the one it was built with).
        k: Nearest keys that vote on the family.
        floor: Similarity under which nothing is retrieved (None: the retriever's default on a phone, and no
            floor on a web page, where the published method always takes the nearest task).
        embedder_options: What a remote embedder needs (key, endpoint), from the command line.
        retriever: A retriever to use instead of loading ``memory`` (tests).
        own_task: Show the exemplars harvested from the episode's own task, without retrieval (Synapse's
            per-task setting; on MiniWoB++ the task's train seeds); False retrieves the nearest task
            family by the goal (its multi-task setting).
    """

    memory: Path | None = None
    embedder: str | None = None
    k: int = 3
    floor: float | None = None
    embedder_options: EmbedderOptions | None = field(default=None, compare=False, repr=False)
    retriever: ExemplarRetriever | None = field(default=None, compare=False, repr=False)
    own_task: bool = False

    def __post_init__(self) -> None:
        if self.k < 1:
            raise ConfigError(f"k must be >= 1, got {self.k}")

    def load(self) -> ExemplarRetriever | None:
        """The retriever (loading the memory the first time), or None without a memory.

        Raises:
            InputError: The memory is missing or malformed.
            ConfigError: It was built with another embedder.
        """
        if self.retriever is not None:
            return self.retriever
        if self.memory is None:
            return None
        return load_retriever(self.memory, self.embedder, k=self.k, floor=self.floor, options=self.embedder_options)

    @property
    def resources_used(self) -> frozenset[str]:
        """It reads the exemplar memory and the embedder that queries it."""
        return frozenset({MEMORY.name, EMBEDDER.name})

    def configured(self, resources: MethodResources) -> ExemplarPolicy:
        """The policy over the resources' memory (loaded once per process); without one, as registered.

        Raises:
            ConfigError: ``--embedder`` without ``--memory``, or a memory built with another embedder.
            InputError: The memory is missing or malformed.
        """
        memory = resources.path(MEMORY.name)
        embedder = resources.spec(EMBEDDER.name)
        if memory is None and embedder is not None:
            raise ConfigError("--embedder needs --memory (the memory it queries)")
        if memory is None:
            return self
        policy = replace(self, memory=memory, embedder=embedder, embedder_options=resources.embedder_options)
        policy.load()
        return policy

    def resources_notice(self, resources: MethodResources) -> str:
        """Say that without a memory every episode runs without exemplars."""
        given = resources.get(MEMORY.name) is not None
        return "" if given or self.memory is not None or self.retriever is not None else \
            "no --memory, so every episode runs without exemplars (build one with `latent-agent memory build`)"

    def begin(self, setup: EpisodeSetup) -> ExemplarRun:
        return ExemplarRun(setup, self)


@dataclass(slots=True)
class _Piece:
    """One piece of the episode: the observation it was decided on and what became of its steps."""

    observation: str
    answer: StepList
    taken: list[str] = field(default_factory=list)
    note: str | None = None
    task: str | None = None


class ExemplarRun:
    """One episode of :class:`ExemplarPolicy`."""

    def __init__(self, setup: EpisodeSetup, policy: ExemplarPolicy) -> None:
        self.setup = setup
        self.policy = policy
        self.retrieval: Retrieval | None = None
        self.retrieved = False
        self.exemplars: tuple[Exemplar, ...] = ()
        self.cap: int | None = None
        self.pieces: list[_Piece] = []
        self.queue: list[str] = []
        self.done_after = False
        self.guard: str | None = None
        #: Synapse's choices for the task, on a web page (None on a phone).
        self.published: TaskSetup | None = synapse_tasks().of(setup.task_id) if setup.surface.web else None

    # -- one step ----------------------------------------------------------------------------

    async def decide(self, step: StepInput) -> Decision:
        first = _NOT_FIRST
        if not self.retrieved:
            first = await step.phases.timed("retrieve", self._retrieve(step))
        if self.published is not None:
            return await self._decide_on_page(step, first, self.published)
        if self.queue and step.screen_changed:
            target = target_of(self.queue[0])
            if target is not None and f'"{target}"' not in step.observation.description:
                self._end_piece(f'the next step ({self.queue[0]}) names "{target}", which the new screen does '
                                "not show")
        if self.queue:
            return Decision(self.queue.pop(0), state=first.state(len(self.pieces) - 1, "continue"))
        if self.done_after:
            return self._stop(StopReason.DONE, "done", "the agent listed DONE after its last steps", first)
        if self.cap is not None and len(self.pieces) >= self.cap:
            return self._stop(StopReason.METHOD_CAP, "cap", f"the piece cap ({self.cap}) was reached", first)
        guard, self.guard = self.guard, None
        observation = await step.phases.timed("abstract", self._abstract(step, step.observation.description))
        shown = observation if observation is not None else step.observation.description
        try:
            answer = await step.phases.timed("act", self._act(step, shown, guard))
        except UnparsableAnswer as exc:
            # The answer named nothing to do: this piece is empty, and the next step asks again.
            self.pieces.append(_Piece(shown, StepList((), False), note=guard))
            state = first.state(len(self.pieces) - 1, "empty", observation=observation, guard=guard)
            return Decision(str(exc), state=state, has_action=False)
        self.pieces.append(_Piece(shown, answer, note=guard))
        index = len(self.pieces) - 1
        if not answer.steps:
            return self._stop(StopReason.DONE, "done", "the agent answered DONE", first, observation=observation,
                              guard=guard, steps=(DONE_WORD,))
        self.queue, self.done_after = list(answer.steps[1:]), answer.done
        listed = answer.steps + ((DONE_WORD,) if answer.done else ())
        state = first.state(index, "piece", listed, observation, guard)
        return Decision(answer.steps[0], samples=(), state=state)

    async def _decide_on_page(self, step: StepInput, first: _Retrieved, published: TaskSetup) -> Decision:
        """A step on a web page: the next command of the plan, carried out on the page as written, or a new plan
        (filtered state and reformulated task where the paper used them) while the query cap allows one."""
        page = step.observation.page
        if self.queue:
            line = self.queue.pop(0)
            state = first.state(len(self.pieces) - 1, "continue")
            return Decision(line, state=state, grounding=ground_line(line, page))
        if self.cap is not None and len(self.pieces) >= self.cap:
            return self._stop(StopReason.METHOD_CAP, "cap", f"the query cap ({self.cap}) was reached", first)
        guard, self.guard = self.guard, None
        raw = page.task_html if page is not None else step.observation.description
        cap = SYNAPSE_COMPLEX_CAP if published.filter or published.reformulate else SYNAPSE_SIMPLE_CAP
        observation = (await step.phases.timed("abstract", self._abstract(step, raw, cap))
                       if published.filter else None)
        shown = observation if observation is not None else raw
        task = (await step.phases.timed("reformulate", self._reformulate(step, shown, cap))
                if published.reformulate else None)
        try:
            answer = await step.phases.timed("act", self._act(step, shown, None, task=task, cap=cap))
        except UnparsableAnswer as exc:
            self.pieces.append(_Piece(shown, StepList((), False), task=task))
            state = first.state(len(self.pieces) - 1, "empty", (), observation, guard, page=raw, reformulated=task)
            return Decision(str(exc), state=state, has_action=False)
        self.pieces.append(_Piece(shown, answer, task=task))
        self.queue = list(answer.steps[1:])
        state = first.state(len(self.pieces) - 1, "piece", answer.steps, observation, guard, page=raw,
                            reformulated=task)
        return Decision(answer.steps[0], samples=(), state=state, grounding=ground_line(answer.steps[0], page))

    def record(self, outcome: Outcome) -> None:
        state = outcome.state
        if not isinstance(state, ExemplarState) or state.source in ("done", "cap", "empty"):
            return
        if outcome.executed:
            self.pieces[-1].taken.append(outcome.decision.step)
            return
        self._end_piece(f"the step {outcome.decision.step!r} could not be carried out "
                        f"({outcome.error or 'no action was grounded'})")

    def _end_piece(self, why: str) -> None:
        """The guard: drop the rest of the piece (and its DONE); the next step asks again."""
        self.queue, self.done_after, self.guard = [], False, why

    def _stop(self, reason: StopReason, source: str, detail: str, first: _Retrieved, *,
              observation: str | None = None, guard: str | None = None,
              steps: tuple[str, ...] = ()) -> Decision:
        index = max(len(self.pieces) - 1, 0)
        state = first.state(index, source, steps, observation, guard)
        return Decision(DONE_WORD if reason is StopReason.DONE else f"stop ({detail})", state=state,
                        stop=Verdict(reason, detail))

    # -- retrieval ---------------------------------------------------------------------------

    async def _retrieve(self, step: StepInput) -> _Retrieved:
        """Retrieve once; returns the retrieval's fields for the first step's record."""
        self.retrieved = True
        retriever = self.policy.load()
        memory = str(self.policy.memory) if self.policy.memory is not None else None
        if self.published is not None:
            # The paper's code asks for a plan at most this often on the task, with or without exemplars.
            self.cap = self.published.query_cap
        if retriever is None:
            return _Retrieved(memory, cap=self.cap)
        if self.published is not None:
            self.retrieval, chosen = await self._retrieve_for_page(retriever, step, self.published)
        elif self.policy.own_task:
            self.retrieval, chosen = retriever.of_task(self.setup.task_id), CHOSEN_OWN
        else:
            self.retrieval = await asyncio.to_thread(retriever.retrieve, self.setup.task_goal)
            chosen = CHOSEN_RETRIEVED
        # Every exemplar of the voted family is shown, as the published method loads the matched task's whole
        # bundle (k counts the keys that vote, not the exemplars shown).
        self.exemplars = tuple(self.retrieval.exemplars)
        if self.exemplars and self.published is None:
            self.cap = max(len(x.pieces) for x in self.exemplars) + EXTRA_PIECES
        return _Retrieved(memory or "(given)", self.retrieval.family, round(float(self.retrieval.similarity), 4),
                          tuple((f, round(float(s), 4)) for f, s in self.retrieval.neighbours),
                          tuple(x.id for x in self.exemplars), self.cap, chosen)

    async def _retrieve_for_page(self, retriever: ExemplarRetriever, step: StepInput,
                                 published: TaskSetup) -> tuple[Retrieval, str]:
        """Synapse's retrieval on a web page: by the task and the first state, always the nearest task (unless the
        policy sets a floor). In the per-task setting the task's own exemplars; for a task without any, those the
        authors' code shows it instead, else the nearest task's: the paper's per-task column covers tasks that had
        no exemplars of their own, so they too were shown another task's."""
        page = step.observation.page
        key = page_key(self.setup.task_goal, page.task_html if page is not None else step.observation.description)
        floor = self.policy.floor if self.policy.floor is not None else NO_FLOOR
        if self.policy.own_task:
            own = retriever.of_task(self.setup.task_id)
            if own.exemplars:
                return own, CHOSEN_OWN
            if published.own_exemplars_from is not None:
                substitute = retriever.of_task(published.own_exemplars_from)
                if substitute.exemplars:
                    return substitute, CHOSEN_SUBSTITUTE
            return await asyncio.to_thread(retriever.retrieve, key, floor=floor), CHOSEN_NEAREST
        return await asyncio.to_thread(retriever.retrieve, key, floor=floor), CHOSEN_RETRIEVED

    # -- the calls ---------------------------------------------------------------------------

    def _examples(self, index: int) -> list[dict[str, str]]:
        """The exemplars' (screen, observation) pairs for piece ``index`` (their last piece past their end)."""
        out: list[dict[str, str]] = []
        for exemplar in self.exemplars:
            piece = exemplar.pieces[min(index, len(exemplar.pieces) - 1)]
            if piece.observation is not None:
                out.append({"screen": piece.screen, "observation": piece.observation})
        return out

    def _surface_inputs(self) -> dict[str, str]:
        """What a web page's calls add to their inputs: the kind of surface the prompt was rendered for."""
        return {SURFACE_INPUT: self.setup.surface.kind} if self.published is not None else {}

    async def _abstract(self, step: StepInput, screen: str, cap: int | None = None) -> str | None:
        """The task-relevant observation of ``screen`` (the description, or a web page's raw HTML), or None where
        abstraction is skipped (the exemplars hold no observation) or its answer was empty."""
        examples = self._examples(len(self.pieces))
        if self.exemplars and not examples:
            return None
        inputs = {"goal": self.setup.task_goal, "screen": screen, "examples": examples, **self._surface_inputs()}
        call = PromptCall.of(ABSTRACT_PURPOSE, ABSTRACT_TEMPLATE, self.setup.surface, **inputs)
        answer = await step.caller.send(call, CallOptions(max_output_tokens=cap))
        try:
            # A cut observation may have lost what the task needs: the raw screen is shown instead.
            if truncated(answer):
                raise UnparsableAnswer(cut_reason(answer))
            return parse_observation(answer.texts[0] if answer.texts else "", page=self.published is not None)
        except UnparsableAnswer as exc:
            step.caller.unparsable(answer, str(exc))
            return None

    async def _reformulate(self, step: StepInput, observation: str, cap: int) -> str | None:
        """The task restated explicitly from ``observation`` (Synapse's task reformulation), with the exemplars'
        own reformulations of the same piece as examples; None where it is skipped (the exemplars hold none) or
        its answer was unusable (the utterance is planned from as it is)."""
        index = len(self.pieces)
        examples: list[dict[str, str]] = []
        for exemplar in self.exemplars:
            piece = exemplar.pieces[min(index, len(exemplar.pieces) - 1)]
            if piece.task is not None:
                examples.append({"observation": piece.observation if piece.observation is not None else piece.screen,
                                 "goal": exemplar.goal, "task": piece.task})
        if self.exemplars and not examples:
            return None
        inputs = {"goal": self.setup.task_goal, "observation": observation, "examples": examples,
                  **self._surface_inputs()}
        call = PromptCall.of(REFORMULATE_PURPOSE, REFORMULATE_TEMPLATE, self.setup.surface, **inputs)
        answer = await step.caller.send(call, CallOptions(max_output_tokens=cap))
        try:
            if truncated(answer):
                raise UnparsableAnswer(cut_reason(answer))
            return parse_reformulation(answer.texts[0] if answer.texts else "")
        except UnparsableAnswer as exc:
            step.caller.unparsable(answer, str(exc))
            return None

    def _turns(self, observation: str, note: str | None,
               task: str | None = None) -> tuple[list[Message], str, dict[str, Any]]:
        """The chat before the last user turn, the last user turn, and the inputs it was rendered from.

        A demonstration's task, and the episode's, is the reformulated one where there is one (a web page's
        implicit tasks), as the paper's plans are made from the explicit task."""
        surface = self.setup.surface
        messages = [Message("system", render(SYSTEM_TEMPLATE, surface, demonstrations=len(self.exemplars)))]
        shown: list[dict[str, Any]] = []
        for exemplar in self.exemplars:
            pieces = [{"observation": p.observation if p.observation is not None else p.screen,
                       "steps": [s.words for s in p.steps]} for p in exemplar.pieces]
            goal = exemplar.pieces[0].task or exemplar.goal
            shown.append({"goal": goal, "pieces": pieces})
            for i, piece in enumerate(pieces):
                messages.append(Message("user", render(OBSERVATION_TEMPLATE, surface,
                                                       goal=goal if i == 0 else "",
                                                       demonstration=True, note=None,
                                                       observation=piece["observation"])))
                messages.append(Message("assistant", render(STEPS_TEMPLATE, surface, steps=piece["steps"],
                                                            done=i == len(pieces) - 1)))
        goal = (self.pieces[0].task if self.pieces else task) or self.setup.task_goal
        turns: list[dict[str, Any]] = []
        for i, earlier in enumerate(self.pieces):
            messages.append(Message("user", render(OBSERVATION_TEMPLATE, surface,
                                                   goal=goal if i == 0 else "",
                                                   demonstration=False, note=earlier.note,
                                                   observation=earlier.observation)))
            messages.append(Message("assistant", render(STEPS_TEMPLATE, surface, steps=list(earlier.answer.steps),
                                                        done=earlier.answer.done)))
            turns.append({"observation": earlier.observation, "steps": list(earlier.taken)})
        prompt = render(OBSERVATION_TEMPLATE, surface, goal=goal if not self.pieces else "",
                        demonstration=False, note=note, observation=observation)
        inputs = {"goal": self.setup.task_goal, "observation": observation, "exemplars": shown, "turns": turns,
                  "piece": len(self.pieces), "note": note}
        if self.published is not None:
            inputs.update({"task": task, **self._surface_inputs()})
        return messages, prompt, inputs

    async def _act(self, step: StepInput, observation: str, note: str | None, *, task: str | None = None,
                   cap: int | None = None) -> StepList:
        messages, prompt, inputs = self._turns(observation, note, task)
        answer = await step.caller.ask(ACT_PURPOSE, prompt, inputs=inputs,
                                       options=CallOptions(messages=tuple(messages), max_output_tokens=cap))
        text = answer.texts[0] if answer.texts else ""
        try:
            if truncated(answer):
                raise UnparsableAnswer(cut_reason(answer))
            if self.published is not None:
                # Synapse's plan: numbered commands, each read when it is carried out.
                return StepList(parse_plan(text), False)
            # A list copying the step vocabulary ("Open the NAME app") is no plan.
            problem = placeholder_problem(text, SYSTEM_TEMPLATE)
            if problem is not None:
                raise UnparsableAnswer(problem)
            return parse_steps(text)
        except UnparsableAnswer as exc:
            step.caller.unparsable(answer, str(exc))
            raise
