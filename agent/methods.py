"""The one method registry: every agent by name, with the family and baseline sweeps and reports read.

The paper's six agents are its three action selectors, each driven by the history-only policy
(``-``: the selector sees the commanded history and stops when "done" appears in the step it
selects; ``EpisodeConfig.stop_rule="strict"`` is the stricter option) and by the latent-state
policy (``+``: the latent state is estimated every step, the selector sees the progression and
mistakes instead - nothing else differs between the twin prompts - and the episode stops when the
completion estimate begins with "Yes"). All six also stop after three identical actions in a row, the
paper's termination rule; a method carries that rule (``Method.repeat_limit``), so the related methods,
whose papers have no such rule, run without it.

A method names its family (the group it is charted in) and, when it is compared against another
method in the paired tests, that baseline. Adding a method is one :func:`register` call (one entry
in :data:`METHODS` below for a method that ships with the package).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from latent_agent.agent.answer_shapes import register_builtin_shapes
from latent_agent.agent.caap.policy import ACTIONS_ONLY, NO_DEMOS, CaapPolicy
from latent_agent.agent.exemplars.policy import ExemplarPolicy
from latent_agent.agent.latent_state.cot_sc import CotScSelector
from latent_agent.agent.latent_state.history_only import HistoryOnlyPolicy
from latent_agent.agent.latent_state.policy import LatentStatePolicy
from latent_agent.agent.latent_state.react import ReactSelector
from latent_agent.agent.latent_state.selection import Selector
from latent_agent.agent.latent_state.zero_shot import ZeroShotSelector
from latent_agent.agent.observe import ObservationSource
from latent_agent.agent.policy import Policy, TaskChecked
from latent_agent.agent.reflection.policy import ReflectionPolicy
from latent_agent.agent.resources import RESOURCES, MethodResources, Resource, UsesResources
from latent_agent.errors import ConfigError
from latent_agent.suggest import unknown_value
from latent_agent.surfaces import Surface


@dataclass(frozen=True, slots=True)
class Family:
    """Methods charted and tested together.

    Attributes:
        name: Short name (``zero-shot``), the paired tests' ``reasoning``.
        label: As tables and charts show it (``Zero-shot``).
    """

    name: str
    label: str


@dataclass(frozen=True, slots=True)
class Variant:
    """What sets a method apart within its family.

    Attributes:
        legend: The chart legend's words (``with latent state``).
        suffix: Appended to the family label in tables (``+ latent state``).
    """

    legend: str
    suffix: str


#: What an agent can do on a web page, one word per kind of action (the MiniWoB++ report reads which tasks a
#: method's actions cannot do from these, never from its name): ``click`` an element (at its centre, or through
#: its id); ``click_point`` anywhere, not only at an element's centre; ``control_click`` an element with CTRL held
#: (choosing several items); ``hold_modifier``, holding CTRL or SHIFT down across other actions; ``type`` text;
#: ``press_key``, a named key (Enter, an arrow, ...) once or N times; ``hover``, moving the pointer without a
#: click; ``scroll``; ``drag``, pressing the button, moving and releasing it; ``choose_option``, selecting an
#: ``<option>`` of a list directly (several of a multiple list); ``clipboard``, select-all, copy and paste.
WebAction = Literal["click", "click_point", "control_click", "hold_modifier", "type", "press_key", "hover", "scroll",
                    "drag", "choose_option", "clipboard"]
WEB_ACTIONS: tuple[WebAction, ...] = get_args(WebAction)


@dataclass(frozen=True, slots=True)
class ActionSpace:
    """What a method's actions can do on a web page.

    Attributes:
        actions: The kinds of action it has (:data:`WebAction`).
        source: Where they come from, for a reader (the paper's action table, the grounder's actions).
    """

    actions: frozenset[WebAction]
    source: str

    def __post_init__(self) -> None:
        unknown = sorted(set(self.actions) - set(WEB_ACTIONS))
        if unknown:
            raise ConfigError(f"unknown web action(s) {', '.join(map(repr, unknown))}; expected some of "
                              f"{', '.join(WEB_ACTIONS)}")


#: The latent-state agents', and any method's that acts through the grounder: what it offers on a web page.
GROUNDER_WEB_ACTIONS = ActionSpace(frozenset({"click", "type", "press_key", "scroll", "drag"}),
                                   "the grounder's actions on a web page (tap, type, Enter and other keys, scroll, "
                                   "drag)")
#: Structured reflection's (the paper's section 3 and its code): elements clicked by id, text entered into an id,
#: keys pressed N times and CTRL or SHIFT held around clicks; no scrolling (the code skips it), no drag.
REFLECTION_WEB_ACTIONS = ActionSpace(frozenset({"click", "type", "press_key", "hold_modifier"}),
                                     "the structured-reflection paper's actions (click id, enter text to id, press "
                                     "a key N times, hold or release CTRL/SHIFT)")
#: Synapse's (its appendix C): click by XPath, move the mouse, type, press a key, click an option; its code adds
#: select-all, copy and paste as key chords (command+a/c/v).
SYNAPSE_WEB_ACTIONS = ActionSpace(frozenset({"click", "hover", "type", "press_key", "choose_option", "clipboard"}),
                                  "Synapse's actions (clickxpath, movemouse, type, press, clickoption; its code's "
                                  "command+a/c/v)")
#: CAAP's (its Tables 5 and 6): click an element or a point, control-click, type, hover, select-all/copy/paste,
#: and drag as pointer down, move and up.
CAAP_WEB_ACTIONS = ActionSpace(frozenset({"click", "click_point", "control_click", "type", "hover", "clipboard",
                                          "drag"}),
                               "CAAP's action table (click_element, click_new_point, control_click_element, "
                               "type_text, point_element, press_control_A/C/V, drag_mouse_hold_down/move/release)")


@dataclass(frozen=True, slots=True)
class Method:
    """A named agent.

    Attributes:
        name: ``zero-shot-``, ``zero-shot+``, ``cot-sc-``, ``cot-sc+``, ``react-``, ``react+`` or a registered one.
        policy: What it does each step.
        summary: One line for ``--help``.
        family: The group it is charted and tested in.
        variant: What sets it apart in its family.
        baseline: The method it is tested against (paired permutation tests), if any.
        repeat_limit: Identical actions in a row that end an episode, when the method's paper stops on
            them (the latent-state paper's agents: :data:`REPEAT_LIMIT`); None when its paper has no such
            rule. The episode loop reads it from here, never from the name.
        web_actions: What its actions can do on a web page; the report marks the MiniWoB++ tasks that need
            anything else.
        web_observation: What a web page is seen through when no observation source is asked for: its paper's
            (CAAP saw screenshots only, read by its visual observer); the accessibility dump for the others. A
            phone is always seen through the dump unless asked otherwise.
    """

    name: str
    policy: Policy
    summary: str
    family: Family
    variant: Variant
    baseline: str | None = None
    repeat_limit: int | None = None
    web_actions: ActionSpace = GROUNDER_WEB_ACTIONS
    web_observation: ObservationSource = "a11y"

    def __post_init__(self) -> None:
        if self.repeat_limit is not None and self.repeat_limit < 2:
            raise ConfigError(f"method {self.name!r}: repeat_limit must be >= 2 or None, got {self.repeat_limit}")

    def default_observation(self, surface: Surface) -> ObservationSource:
        """The observation source an episode on ``surface`` has when none is asked for."""
        return self.web_observation if surface.web else "a11y"

    @property
    def label(self) -> str:
        """The method as tables show it (``Zero-shot + latent state``)."""
        return f"{self.family.label} {self.variant.suffix}".strip()

    @property
    def plus(self) -> bool:
        """Whether the agent estimates latent state (the paper's ``+`` flow)."""
        return isinstance(self.policy, LatentStatePolicy)

    @property
    def needs_task_check(self) -> bool:
        """Whether it runs only where the task's automatic check can judge each trial."""
        return isinstance(self.policy, TaskChecked) and self.policy.needs_task_check

    @property
    def resources(self) -> tuple[Resource, ...]:
        """What it reads besides the model, as its package declared them (:func:`declare_resource
        <latent_agent.agent.resources.declare_resource>`)."""
        used = self.policy.resources_used if isinstance(self.policy, UsesResources) else frozenset()
        return tuple(r for name, r in RESOURCES.items() if name in used)

    @property
    def selector(self) -> Selector:
        """The action selector of one of the paper's two flows.

        Raises:
            ConfigError: The method is not one of them.
        """
        if isinstance(self.policy, LatentStatePolicy | HistoryOnlyPolicy):
            return self.policy.selector
        raise ConfigError(f"method {self.name!r} has no action selector")


#: The latent-state paper's termination rule: this many identical actions in a row end the episode.
REPEAT_LIMIT = 3

ZERO_SHOT = Family("zero-shot", "Zero-shot")
COT_SC = Family("cot-sc", "CoT-SC")
REACT = Family("react", "ReAct")
WITHOUT = Variant("without latent state", "(no latent state)")
WITH = Variant("with latent state", "+ latent state")
REFLECTION = Family("reflection", "Staged planning + structured reflection")
EXEMPLARS = Family("exemplars", "Exemplar memory")
CAAP = Family("caap", "CAAP")

#: Every registered method, in the order tables and charts list them.
METHODS: dict[str, Method] = {}


def register(method: Method) -> Method:
    """Add ``method`` to the registry; returns it.

    Raises:
        ConfigError: The name is taken, or the baseline is not registered.
    """
    if method.name in METHODS:
        raise ConfigError(f"method {method.name!r} is already registered")
    if method.baseline is not None and method.baseline not in METHODS:
        raise ConfigError(f"method {method.name!r}: its baseline {method.baseline!r} is not registered")
    METHODS[method.name] = method
    return method


def unregister(name: str) -> None:
    """Remove the method called ``name`` (and nothing that names it as baseline may remain).

    Raises:
        ConfigError: No such method, or another method names it as its baseline.
    """
    get_method(name)
    users = [m.name for m in METHODS.values() if m.baseline == name]
    if users:
        raise ConfigError(f"method {name!r} is the baseline of {', '.join(users)}")
    del METHODS[name]


register(Method("zero-shot-", HistoryOnlyPolicy(ZeroShotSelector("select_zero_shot_minus.j2", plus=False)),
                "one greedy answer continuing 'You should'; commanded history; stops on 'done'", ZERO_SHOT, WITHOUT,
                repeat_limit=REPEAT_LIMIT))
register(Method("zero-shot+", LatentStatePolicy(ZeroShotSelector("select_zero_shot_plus.j2", plus=True)),
                "one greedy answer continuing 'You should'; latent state; stops when completion says Yes",
                ZERO_SHOT, WITH, baseline="zero-shot-", repeat_limit=REPEAT_LIMIT))
register(Method("cot-sc-", HistoryOnlyPolicy(CotScSelector("select_cot_sc_minus.j2", plus=False)),
                "8 reasoning samples at T=0.5, majority answer; commanded history", COT_SC, WITHOUT,
                repeat_limit=REPEAT_LIMIT))
register(Method("cot-sc+", LatentStatePolicy(CotScSelector("select_cot_sc_plus.j2", plus=True)),
                "8 reasoning samples at T=0.5, majority answer; latent state", COT_SC, WITH, baseline="cot-sc-",
                repeat_limit=REPEAT_LIMIT))
register(Method("react-", HistoryOnlyPolicy(ReactSelector("select_react_minus.j2", plus=False)),
                "Thought/Action turns, last two earlier observations; commanded history", REACT, WITHOUT,
                repeat_limit=REPEAT_LIMIT))
register(Method("react+", LatentStatePolicy(ReactSelector("select_react_plus.j2", plus=True)),
                "Thought/Action turns, last two earlier observations; latent state", REACT, WITH,
                baseline="react-", repeat_limit=REPEAT_LIMIT))
# The related methods leave repeat_limit off: none of their papers stops on repeated actions (structured
# reflection ends a trial on its own cycle and no-change statuses, Synapse on its piece cap, CAAP on its
# action cap).
register(Method("reflection", ReflectionPolicy(trials=3), "a plan per screen; after a failed trial one reflection "
                "names the wrong step, the next trial forces its fix; up to 3 trials", REFLECTION,
                Variant("T=3", "(T=3)"), web_actions=REFLECTION_WEB_ACTIONS))
register(Method("reflection-t1", ReflectionPolicy(trials=1), "a plan per screen; one trial, no reflection", REFLECTION,
                Variant("T=1", "(T=1)"), web_actions=REFLECTION_WEB_ACTIONS))
register(Method("reflection-t5", ReflectionPolicy(trials=5), "a plan per screen; structured reflection, up to 5 "
                "trials", REFLECTION, Variant("T=5", "(T=5)"), web_actions=REFLECTION_WEB_ACTIONS))
register(Method("reflection-check", ReflectionPolicy(trials=3, feedback="check"), "as reflection, but the task's "
                "automatic check decides whether a trial failed (the paper's oracle feedback; sim and MiniWoB++ tasks)",
                REFLECTION, Variant("T=3, task-check feedback", "(T=3, task check)"),
                web_actions=REFLECTION_WEB_ACTIONS))
# The paper's T-table (success at T = 1, 3 and 5) is under its oracle feedback: one method per budget.
register(Method("reflection-check-t1", ReflectionPolicy(trials=1, feedback="check"), "as reflection-t1, judged by "
                "the task's automatic check (the paper's oracle protocol at T=1)",
                REFLECTION, Variant("T=1, task-check feedback", "(T=1, task check)"),
                web_actions=REFLECTION_WEB_ACTIONS))
register(Method("reflection-check-t5", ReflectionPolicy(trials=5, feedback="check"), "as reflection-t5, but the "
                "task's automatic check decides whether a trial failed (the paper's oracle protocol at T=5)",
                REFLECTION, Variant("T=5, task-check feedback", "(T=5, task check)"),
                web_actions=REFLECTION_WEB_ACTIONS))


# No baseline: the paired tests are the paper's (+ against -, latent state or not). The exemplar
# report (benchmarks/report_exemplars.py) sets it beside zero-shot+ split by split instead, since it
# is only comparable on the eval and held-out tasks the memory was not harvested from.
register(Method("exemplars", ExemplarPolicy(), "retrieved demonstrations of the nearest task family: the screen "
                "abstracted with their (screen, observation) pairs, then all steps up to the next needed "
                "screen in one multi-turn call; a step that cannot be grounded ends the piece; on a web page "
                "Synapse's raw HTML, XPath commands and retrieval by task and state (--memory M)",
                EXEMPLARS, Variant("retrieved exemplars", "(retrieved exemplars)"), web_actions=SYNAPSE_WEB_ACTIONS))
register(Method("exemplars-task", ExemplarPolicy(own_task=True), "exemplar memory with the episode's own task's "
                "exemplars, no retrieval (Synapse's per-task setting; MiniWoB++ tasks' train seeds; a task without "
                "any gets the published code's substitute, else the nearest task's) (--memory M)",
                EXEMPLARS, Variant("the task's own exemplars", "(own task)"), web_actions=SYNAPSE_WEB_ACTIONS))

# CAAP (context-aware action planning) and its published ablations, charted together as one family. No
# paired baseline: the report's paired tests are the paper's + against - (columns "without / with latent
# state"), where CAAP against zero-shot+ or an ablation against the full method would be mislabelled rows;
# the ablation table's contrasts are the family's rows of the main table, side by side (docs/caap.md).
# On a web page they see the screenshot alone by default (the paper's visual observer's input), through the
# screen observer.
register(Method("caap", CaapPolicy(), "expert demos with rationales, the element list and a four-part answer "
                "listing several actions for this screen; asks again when the screen changes, an action fails or "
                "the queue empties (--demos D)", CAAP, Variant("demos with rationales + CoT", "(full)"),
                web_actions=CAAP_WEB_ACTIONS, web_observation="screen"))
register(Method("caap-no-cot", CaapPolicy(cot=False), "CAAP ablation: demos with rationales, no four-part "
                "instructions", CAAP, Variant("no CoT instructions", "(no CoT)"), web_actions=CAAP_WEB_ACTIONS,
                web_observation="screen"))
register(Method("caap-no-rationales", CaapPolicy(demos_mode=ACTIONS_ONLY), "CAAP ablation: four-part "
                "instructions, demos as actions only", CAAP, Variant("action-only demos", "(no rationales)"),
                web_actions=CAAP_WEB_ACTIONS, web_observation="screen"))
register(Method("caap-no-demos", CaapPolicy(demos_mode=NO_DEMOS), "CAAP ablation: four-part instructions, no "
                "demos", CAAP, Variant("no demos", "(no demos)"), web_actions=CAAP_WEB_ACTIONS,
                web_observation="screen"))
register(Method("caap-neither", CaapPolicy(demos_mode=NO_DEMOS, cot=False), "CAAP ablation: neither demos nor "
                "four-part instructions", CAAP, Variant("no demos, no CoT", "(neither)"), web_actions=CAAP_WEB_ACTIONS,
                web_observation="screen"))


# The built-in methods' call kinds declare their answers' shapes in their packages (--llm-structured on).
register_builtin_shapes()


def selector_methods() -> dict[str, Method]:
    """The registered methods of the paper's two flows (each drives an action selector), by name."""
    return {name: m for name, m in METHODS.items() if isinstance(m.policy, LatentStatePolicy | HistoryOnlyPolicy)}


def get_method(name: str) -> Method:
    """The agent called ``name``.

    Raises:
        ConfigError: No such agent; the message lists the names.
    """
    try:
        return METHODS[name]
    except KeyError:
        raise ConfigError(unknown_value("method", name, list(METHODS))) from None


def pairs() -> list[tuple[Method, Method]]:
    """``(method, its baseline)`` for every method that has one, in registry order."""
    return [(m, METHODS[m.baseline]) for m in METHODS.values() if m.baseline is not None]


def policy_for(method: Method, resources: MethodResources) -> Policy:
    """``method``'s policy, configured with ``resources`` when it reads them."""
    policy = method.policy
    return policy.configured(resources) if isinstance(policy, UsesResources) else policy


def prepare(methods: Sequence[Method], resources: MethodResources) -> tuple[str, ...]:
    """Check ``resources`` against the methods of a run or sweep before any episode, loading each once.

    Returns:
        The notices to show (one per kind of shortfall, naming the methods it concerns).

    Raises:
        ConfigError: A resource is given that none of ``methods`` reads (naming the methods that do), or no method
            declares, or a resource is unusable.
        InputError: A resource is missing or malformed.
    """
    for name in resources.given():
        if name not in RESOURCES:
            raise ConfigError(f"no method reads a resource called {name!r}")
        if not any(r.name == name for m in methods for r in m.resources):
            users = [m.name for m in METHODS.values() if any(r.name == name for r in m.resources)]
            readers = ", ".join(users) or "(none registered)"
            raise ConfigError(f"{RESOURCES[name].option} is for the method(s) {readers}; none of "
                              f"{', '.join(m.name for m in methods)} reads it")
    said: dict[str, list[str]] = {}  # one line per notice, naming every method it concerns
    for method in methods:
        if not isinstance(method.policy, UsesResources):
            continue
        method.policy.configured(resources)
        notice = method.policy.resources_notice(resources)
        if notice:
            said.setdefault(notice, []).append(method.name)
    return tuple(f"{', '.join(names)}: {notice}" for notice, names in said.items())
