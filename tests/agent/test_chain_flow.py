"""Where each estimate goes: end to end through google-genai and the local Gemini stand-in.

A scripted model answers every call with a token used nowhere else (a ReAct answer gets one
for its thought and one for its action). Nothing is grounded (a token is not an action), so
every step also exercises the grounding-failure path. From the recorded calls the test checks,
for each token, that it reaches exactly the later calls the method's specification lists
(docs of agent/latent_state/chain.py and agent/latent_state/selection.py) - presence and absence, across steps.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.latent_state.state import latent_of
from latent_agent.agent.methods import METHODS, selector_methods
from latent_agent.agent.trajectory import LLMCall, Trajectory, read_trajectory
from latent_agent.demo.standins.client import StandInClient
from latent_agent.device.sim.device import SimDevice
from latent_agent.llm.base import LLMClient
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import GenerationRequest

STEPS = 3
_TOKEN = re.compile(r"Q[XTA]\d{4}Z")


class _Tokens:
    """Answers every sample with a fresh token (``QX0001Z``; ReAct: thought ``QT..`` and action ``QA..``)."""

    def __init__(self) -> None:
        self._count = itertools.count()
        self._lock = threading.Lock()

    def __call__(self, request: GenerationRequest) -> str:
        with self._lock:
            n = next(self._count)
        if request.purpose == "select" and request.inputs is not None and request.inputs.get("selector") == "react":
            return f" QT{n:04d}Z\nAction: QA{n:04d}Z"
        if request.purpose == "normalize_goal":
            # A rephrasing is used only if it keeps the goal's words (agent/goal_guard.py): add one to them.
            return f"{request.inputs['goal']} QX{n:04d}Z"
        return f"QX{n:04d}Z"


@contextmanager
def _token_client() -> Iterator[LLMClient]:
    # The Gemini stand-in, reached through google-genai; it reads each call's purpose and inputs in-process.
    client = StandInClient(ScriptedModel(responder=_Tokens(), model="tokens"), protocol="gemini", model="tokens")
    try:
        yield client
    finally:
        client.close()


@pytest.fixture(scope="module")
def client() -> Iterator[LLMClient]:
    with _token_client() as c:
        yield c


Site = tuple[int, str]  # (step, purpose); step -1 is goal normalization


def _calls(t: Trajectory) -> list[tuple[Site, LLMCall]]:
    out = [((-1, c.purpose), c) for c in t.header.setup_calls]
    out += [((s.index, c.purpose), c) for s in t.steps for c in s.calls]
    return out


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _expected(t: Trajectory, plus: bool, react: bool) -> tuple[dict[str, set[Site]], set[str]]:
    """Token -> the calls it must reach (and no others); plus the tokens that may reach ground retries only."""
    flows: dict[str, set[Site]] = {}
    ground_only: set[str] = set()
    (goal,) = _tokens(t.header.setup_calls[0].outputs[0])
    steps = range(len(t.steps))
    latent_calls = ("mistakes", "select", "completion") if plus else ("select",)
    flows[goal] = {(k, p) for k in steps for p in latent_calls}
    for step in t.steps:
        k = step.index
        later = range(k + 1, len(t.steps))
        for call in step.calls:
            out = [tok for text in call.outputs for tok in _tokens(text)]
            if call.purpose == "previous_action":
                flows[out[0]] = {(k, "screen_summary")} | {(j, p) for j in range(k, len(t.steps))
                                                           for p in ("progression", "completion")}
            elif call.purpose == "screen_summary":
                flows[out[0]] = {(k, "progression"), (k, "completion")}
            elif call.purpose == "progression":
                flows[out[0]] = {(k, "mistakes"), (k, "select")}
            elif call.purpose == "mistakes":
                flows[out[0]] = {(k, "select")}
            elif call.purpose == "completion":
                flows[out[0]] = set()
            elif call.purpose == "ground":
                ground_only.update(out)
            elif call.purpose == "select":
                # The step goes to this step's completion and grounder, to the next step's previous-action
                # call, and into later selector prompts where the selector shows its history.
                chosen = _tokens(step.selected_step)
                assert len(chosen) == 1 and chosen[0] in out, (step.selected_step, out)
                to: set[Site] = {(k, "ground")}
                if plus:
                    to.add((k, "completion"))
                    if later:
                        to.add((k + 1, "previous_action"))
                if react or not plus:
                    to |= {(j, "select") for j in later}
                flows[chosen[0]] = to
                for token in out:
                    if token == chosen[0]:
                        continue
                    # A ReAct thought is shown in every later ReAct prompt; other CoT samples go nowhere.
                    flows[token] = {(j, "select") for j in later} if token.startswith("QT") else set()
    return flows, ground_only


@pytest.mark.parametrize("method", list(selector_methods()))
def test_each_estimate_reaches_exactly_the_calls_the_method_lists(method: str, client: LLMClient,
                                                                  tmp_path: Path) -> None:
    plus = METHODS[method].plus
    react = method.startswith("react")
    result = run_episode_sync(EpisodeConfig("Turn off data roaming", method, max_steps=STEPS, screenshots=False),
                              SimDevice(), client, tmp_path / "ep")
    t = read_trajectory(result.directory)
    assert len(t.steps) == STEPS and all(not s.executed and s.grounding_error for s in t.steps)
    purposes = [sorted({c.purpose for c in s.calls}) for s in t.steps]
    if plus:
        chain = ["completion", "ground", "mistakes", "progression", "screen_summary", "select"]
        assert purposes == [chain] + [sorted([*chain, "previous_action"])] * (STEPS - 1)
    else:
        assert purposes == [["ground", "select"]] * STEPS
    flows, ground_only = _expected(t, plus, react)
    calls = _calls(t)
    produced = {tok for _, c in calls for text in c.outputs for tok in _tokens(text)}
    assert produced == set(flows) | ground_only
    for token, sites in flows.items():
        reached = {site for site, c in calls if token in c.prompt}
        assert reached == sites, (token, sorted(reached ^ sites))
    for token in ground_only:
        reached = {site for site, c in calls if token in c.prompt}
        assert all(p == "ground" for _, p in reached), (token, reached)
    # The record keeps what the chain read: the inferred actions, the commanded step, the grounding error.
    if plus:
        last = latent_of(t.steps[-1])
        assert last is not None
        assert last.inferred_actions == tuple(latent_of(s).previous_action for s in t.steps[1:] if latent_of(s))
        assert last.commanded == t.steps[-2].selected_step
        assert last.previous_step_error == t.steps[-2].grounding_error
