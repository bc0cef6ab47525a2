"""What a real small model answered, run through the agent: every recorded answer read as a person would
read it, or recorded as unparsable with its reason; the goal kept; truncation, failures and repeats visible.

The answers are Qwen2.5-Coder-0.5B-Instruct's, recorded on the simulated phone with every method family
(``tests/data/real_model_runs/``, provenance in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from latent_agent.agent.caap.answer import parse_answer
from latent_agent.agent.calls import LLMCaller
from latent_agent.agent.episode import EpisodeConfig, run_episode_sync
from latent_agent.agent.exemplars.policy import SYSTEM_TEMPLATE, parse_steps
from latent_agent.agent.goal import GoalChoice, choose_goal, prompt_examples
from latent_agent.agent.goal_guard import rewrite_problem
from latent_agent.agent.latent_state.chain import parse_progression
from latent_agent.agent.latent_state.cot_sc import extract_answer, extract_cut_answer
from latent_agent.agent.latent_state.purposes import COMPLETION, COT_SC_CAP, SELECT
from latent_agent.agent.latent_state.react import parse_react
from latent_agent.agent.latent_state.zero_shot import parse_zero_shot
from latent_agent.agent.placeholders import placeholder_problem
from latent_agent.agent.reflection.policy import PLAN_TEMPLATE, parse_plan, parse_reflection
from latent_agent.agent.trajectory import StopReason, read_trajectory
from latent_agent.agent.unparsable import UnparsableAnswer
from latent_agent.demo.oracle import DemoOracle
from latent_agent.device.sim.device import SimDevice
from latent_agent.errors import LLMRequestError, LLMTimeoutError
from latent_agent.grounder.actions import parse_action
from latent_agent.llm.scripted import Reply, ScriptedModel
from latent_agent.llm.types import CallOptions, GenerationRequest
from latent_agent.purposes import DEFAULT_OUTPUT_CAP, call_kinds

RUNS = Path(__file__).parents[1] / "data" / "real_model_runs" / "qwen2.5-coder-0.5b-instruct"
GOAL = "Turn off data roaming"


def _answers(purpose: str, method: str | None = None) -> list[str]:
    rows = [json.loads(line) for line in (RUNS / "answers.jsonl").read_text(encoding="utf-8").splitlines()]
    found = [r["output"] for r in rows if r["purpose"] == purpose and (method is None or r["method"] == method)]
    assert found, (purpose, method)
    return found


# -- the goal ------------------------------------------------------------------------------------


def test_every_recorded_goal_rewrite_is_refused_and_the_users_goal_kept() -> None:
    for answer in _answers("normalize_goal"):
        choice = choose_goal(answer, GOAL)
        assert choice.goal == GOAL
        assert choice.rejected is not None and "one of the prompt's own examples" in choice.rejected


def test_the_prompts_own_examples_are_read_from_the_template_and_pass_the_rule() -> None:
    examples = prompt_examples()
    # Three requests and their rephrasings per surface: the phone's and the web page's.
    assert len(examples) == 12 and "Read reviews of Audi Q7 in CarTrade app" in examples
    assert "select blue and red checkbox then click submit" in examples
    for request, rephrased in zip(examples[::2], examples[1::2], strict=True):
        assert rewrite_problem(request, rephrased, examples) is None, (request, rephrased)
        assert choose_goal(f"Rephrased: {rephrased}\n", request) == GoalChoice(rephrased)


@pytest.mark.parametrize(("original", "rewrite", "problem"), [
    ("turn wifi off", "Turn off Wi-Fi.", None),
    ("open settings", "Open the Settings app.", None),
    ('search "Lofi  beats" on youtube', 'Search for "lofi beats" on YouTube.', None),
    ("turn off data roaming", "Turn on data roaming.", "switch word 'off'"),
    ("don't turn off wifi", "Turn off Wi-Fi.", "switch word 'dont'"),
    ("set alarm 7:45am", "Set an alarm for 7:30 AM.", "changes the numbers (7 45 -> 7 30)"),
    ('search "lofi beats"', "Search for lofi music.", "drops the quoted text 'lofi beats'"),
    ("turn off data roaming", "Turn off mobile data.", "drops 'roaming'"),
    ("Turn off data roaming", "Turn off data roaming and read the reviews of the Audi Q7.", "adds 'read'"),
    ("book a table for may 5", "Book a table for 5 May.", None),
    ("book a table for may 5", "Book a table for 5 June.", "drops 'may'"),
])
def test_the_rule_keeps_content_and_says_what_a_rewrite_lost(original: str, rewrite: str, problem: str | None) -> None:
    found = rewrite_problem(original, rewrite)
    assert (found is None) if problem is None else (found is not None and problem in found), found


def _recorded_model(answers: dict[str, str | Reply | Callable[[GenerationRequest], str | Reply]]) -> ScriptedModel:
    def respond(request: GenerationRequest) -> str | Reply:
        answer = answers.get(request.purpose or "")
        if answer is None:
            raise AssertionError(f"no recorded answer for {request.purpose}")
        return answer(request) if callable(answer) else answer
    return ScriptedModel(responder=respond)


def test_a_refused_rewrite_is_recorded_and_shown_before_the_first_step(tmp_path: Path) -> None:
    (normalized,) = [a for a in _answers("normalize_goal") if "\n" in a]
    model = _recorded_model({"normalize_goal": normalized, "select": "You should be done."})
    events: list[str] = []
    result = run_episode_sync(EpisodeConfig(GOAL, "zero-shot-", max_steps=2, screenshots=False), SimDevice(), model,
                              tmp_path / "ep", on_step=lambda s: events.append(f"step {s.index}"),
                              on_goal=lambda c: events.append(f"goal {c.goal}"))
    assert events[0] == f"goal {GOAL}" and events[1:] == ["step 0"]
    t = read_trajectory(result.directory)
    assert t.header.normalized_goal == GOAL and result.normalized_goal == GOAL
    assert t.header.goal_rejected is not None and "Read reviews of Audi Q7" in t.header.goal_rejected
    (call,) = t.header.setup_calls
    assert call.parse_error == t.header.goal_rejected and call.outputs == (normalized,)
    assert all(GOAL.lower() in (r.prompt or "").lower() for r in model.requests if r.purpose == "select")


# -- each parser against the recorded answers ----------------------------------------------------


def test_zero_shot_reads_the_step_after_a_purpose_clause_or_a_preamble() -> None:
    read = {parse_zero_shot(a) for a in _answers("select", "zero-shot+")}
    assert 'Open the Google Play Store and navigate to the "Apps list" section.' in read
    assert not any(r.startswith("To read reviews") and "you should" in r for r in read)
    assert parse_zero_shot(_answers("select", "zero-shot-")[0]) == "Be done."
    # The answer quoted in the issue, which the recorded runs never reached (they pursued another goal).
    preamble = "To turn off data roaming, you should follow these steps:\n\n1. Open the Settings app.\n2. Tap ..."
    assert parse_zero_shot(preamble) == "Open the Settings app."
    assert parse_zero_shot("To turn off data roaming, you should follow these steps:") == ""
    assert parse_zero_shot("Answer: Tap \"Network & internet\".") == 'Tap "Network & internet".'


def test_zero_shot_reads_a_markdown_list_heading_as_the_step() -> None:
    # Qwen2.5-Coder-0.5B's answer once the goal was kept (llamacpp provider, step 2 of "Turn off data roaming").
    answer = ("To turn off data roaming on your Android phone, you should follow these steps:\n\n"
              "1. **Open the Settings app**:\n   - Press and hold the power button on your phone until the "
              "Android logo appears.\n   - Select \"Settings\" from the menu.\n\n"
              "2. **Navigate to the \"Data\" section**:\n")
    assert parse_zero_shot(answer) == "Open the Settings app"
    assert parse_zero_shot("**Tap** the Wi-Fi switch.") == "Tap the Wi-Fi switch."
    assert parse_zero_shot("Tap the 2*3 grid") == "Tap the 2*3 grid"


def test_the_progression_never_reads_you_have_i_have() -> None:
    for answer in _answers("progression"):
        read = parse_progression(answer)
        assert read.startswith("You ") and not read.startswith(("You have I ", "You have I've", "You have We ")), read
    assert parse_progression("I have started by opening the Google Play Store.") == \
        "You have started by opening the Google Play Store."
    assert parse_progression("I opened the Clock app.") == "You opened the Clock app."


def test_cot_sc_reads_the_marked_answers_and_a_cut_chain_does_not_vote() -> None:
    read = {extract_answer(a) for a in _answers("select", "cot-sc+")}
    assert {"Click on the Apps list icon.", 'Click on the "Create new event" button.'} <= read
    assert all(r and "answer" not in r.casefold() and len(r) < 120 for r in read), read
    assert extract_cut_answer("The goal is to open Settings. Answer: Open the Sett") == ""
    assert extract_cut_answer("Reasoning.\nAnswer: Open the Settings app.\nBecause") == "Open the Settings app."
    assert extract_cut_answer("First I tap the icon. Then I") == ""


def test_react_reads_the_action_on_its_own_line_or_after_the_thought() -> None:
    for answer in _answers("select", "react+"):
        thought, action = parse_react(answer)
        assert action == 'Click on the "Apps list" icon.' and thought.startswith("Open the Google Play Store")


def test_copied_step_vocabularies_are_unparsable() -> None:
    for answer in _answers("plan"):
        assert placeholder_problem(answer, PLAN_TEMPLATE) is not None
        assert parse_plan(answer)  # read line by line they would look like a plan: hence the guard
    for answer in _answers("exemplar_act"):
        assert placeholder_problem(answer, SYSTEM_TEMPLATE) == \
            "the answer copies the prompt's placeholder NAME instead of filling it in"
        assert parse_steps(answer).steps[0] == "Open the NAME app"
    (lesson,) = _answers("reflect")
    with pytest.raises(UnparsableAnswer, match='placeholder "label"'):
        parse_reflection(lesson)
    assert placeholder_problem('Tap "Network & internet"', PLAN_TEMPLATE) is None


def test_caap_answers_that_echo_the_element_list_are_unparsable() -> None:
    for answer in _answers("caap"):
        with pytest.raises(UnparsableAnswer, match="no action line"):
            parse_answer(answer)


def test_every_recorded_answer_is_read_or_refused_as_unparsable() -> None:
    """Each recorded answer through its method's parser: a result, or UnparsableAnswer (nothing else)."""
    parsers: dict[str, Callable[[str], object]] = {
        "normalize_goal": lambda a: choose_goal(a, GOAL),
        "previous_action": lambda a: a,  # free text, kept as written (whitespace folded)
        "screen_summary": lambda a: a,
        "mistakes": lambda a: a,
        "completion": lambda a: a,
        "progression": parse_progression,
        "select": parse_zero_shot,
        "ground": parse_action,
        "plan": parse_plan,
        "reflect": parse_reflection,
        "exemplar_act": parse_steps,
        "exemplar_abstract": lambda a: a,
        "caap": parse_answer,
    }
    rows = [json.loads(line) for line in (RUNS / "answers.jsonl").read_text(encoding="utf-8").splitlines()]
    outcomes: dict[str, int] = {}
    for row in rows:
        try:
            parsers[row["purpose"]](row["output"])
            outcome = "read"
        except UnparsableAnswer:
            outcome = "unparsable"
        outcomes[f"{row['purpose']} {outcome}"] = outcomes.get(f"{row['purpose']} {outcome}", 0) + 1
    assert outcomes["caap unparsable"] == 6 and outcomes["reflect unparsable"] == 1
    assert outcomes["ground read"] == 10 and "ground unparsable" not in outcomes


# -- truncation, output caps -----------------------------------------------------------------------


def test_every_call_kind_has_an_output_cap_and_the_request_carries_it() -> None:
    try:
        DemoOracle()(GenerationRequest(prompt="x", purpose="no-such-purpose"))
    except LLMRequestError as exc:
        played = str(exc).rsplit("it plays ", 1)[1].split(", ")
    declared = {str(kind) for kind in call_kinds()}
    assert set(played) <= declared, set(played) - declared
    assert COMPLETION.cap < SELECT.cap < COT_SC_CAP
    model = ScriptedModel(["No.", "Yes.", "x"])
    caller = LLMCaller(model, episode_id="ep")
    model.run_sync(caller.ask("completion", "p"))
    model.run_sync(caller.ask("completion", "p", options=CallOptions(max_output_tokens=7)))
    model.run_sync(caller.ask("a-purpose-from-elsewhere", "p"))
    assert [r.max_output_tokens for r in model.requests] == [COMPLETION.cap, 7, DEFAULT_OUTPUT_CAP]
    assert [c.max_output_tokens for c in caller.calls] == [COMPLETION.cap, 7, DEFAULT_OUTPUT_CAP]


def test_a_cut_plan_is_recorded_as_such_and_never_taken(tmp_path: Path) -> None:
    (lesson,) = _answers("reflect")
    model = _recorded_model({"normalize_goal": "Turn off data roaming.",
                             "plan": Reply('1. Tap "Network & internet"\n2. Tap "Mobile net', "length"),
                             "reflect": lesson})
    result = run_episode_sync(EpisodeConfig(GOAL, "reflection", max_steps=4, screenshots=False), SimDevice(), model,
                              tmp_path / "ep")
    t = read_trajectory(result.directory)
    plans = [c for s in t.steps for c in s.calls if c.purpose == "plan"]
    assert plans and all(c.truncated and c.finish_reasons == ("length",) for c in plans)
    assert all(c.parse_error is not None and "cut at the output cap" in c.parse_error for c in plans)
    assert not any(s.executed for s in t.steps)
    # An empty plan ends each trial "incomplete": the agent gave it up; it never claimed the task done.
    assert result.stop_reason is StopReason.GAVE_UP and "incomplete" in result.detail
    reflections = [c for trial in t.trials for c in trial.calls if c.purpose == "reflect"]
    assert reflections and all(c.parse_error is not None and "placeholder" in c.parse_error for c in reflections)
    # The unreadable lesson taught nothing, and the next trial ran anyway (Algorithm 1).
    assert [trial.again for trial in t.trials] == [True, True, False]


def test_a_trial_whose_step_changed_nothing_gives_up_rather_than_done(tmp_path: Path) -> None:
    (lesson,) = _answers("reflect")
    model = _recorded_model({"normalize_goal": "Turn off data roaming.", "plan": 'Tap "Monday, October 14"',
                             "ground": '```json\n{\n  "action_type": "click",\n  "x": 443,\n  "y": 278\n}\n```',
                             "reflect": lesson})
    result = run_episode_sync(EpisodeConfig(GOAL, "reflection", max_steps=4, screenshots=False), SimDevice(), model,
                              tmp_path / "ep")
    assert result.stop_reason is StopReason.GAVE_UP and "(status: no change)" in result.detail
    t = read_trajectory(result.directory)
    assert t.end is not None and t.end.stop_reason is StopReason.GAVE_UP
    assert {trial.stop_reason for trial in t.trials} == {StopReason.GAVE_UP}


# -- the record keeps what failed; repeats ---------------------------------------------------------


def test_a_step_ending_in_an_llm_error_keeps_its_calls_and_the_failing_prompt(tmp_path: Path) -> None:
    timeout = LLMTimeoutError("openai qwen: no answer within 60 s; gave up after 4 attempts", attempts=4)

    def select(request: GenerationRequest) -> str:
        raise timeout

    model = _recorded_model({"normalize_goal": "Turn off data roaming.",
                             "screen_summary": _answers("screen_summary")[0], "progression": _answers("progression")[0],
                             "mistakes": "No mistakes have been made.", "select": select})
    result = run_episode_sync(EpisodeConfig(GOAL, "zero-shot+", max_steps=3, screenshots=False), SimDevice(), model,
                              tmp_path / "ep")
    assert result.stop_reason is StopReason.LLM_ERROR and result.steps == 0
    t = read_trajectory(result.directory)
    assert t.end is not None
    assert [c.purpose for c in t.end.calls] == ["screen_summary", "progression", "mistakes", "select"]
    failed = t.end.calls[-1]
    assert failed.error is not None and "gave up after 4 attempts" in failed.error and failed.retries == 3
    assert "I asked you to use an Android phone to turn off data roaming." in failed.prompt
    assert t.end.usage.calls == 5 and t.end.usage.retries == 3


def test_the_same_step_failing_to_ground_three_times_ends_the_episode(tmp_path: Path) -> None:
    step = next(a for a in _answers("select", "zero-shot+") if "I opened the Google Play Store" in a)
    model = _recorded_model({"normalize_goal": "Turn off data roaming.", "previous_action": step,
                             "screen_summary": "The home screen.", "progression": "I have opened nothing.",
                             "mistakes": "No mistakes have been made.", "select": step, "completion": "No",
                             "ground": '```json\n{\n  "action_type": "click",\n  "x": 1080,\n  "y": 2400\n}\n```'})
    result = run_episode_sync(EpisodeConfig(GOAL, "zero-shot+", max_steps=6, screenshots=False), SimDevice(), model,
                              tmp_path / "ep")
    t = read_trajectory(result.directory)
    assert result.stop_reason is StopReason.REPEATED_ACTIONS and len(t.steps) == 3
    assert all(not s.executed and s.grounding_error for s in t.steps)
    assert "could not be carried out 3 times in a row" in result.detail


def test_trajectories_written_before_version_4_still_load() -> None:
    for run in ("zs-minus", "reflection"):
        t = read_trajectory(RUNS / run)
        calls = [*t.header.setup_calls, *(c for s in t.steps for c in s.calls)]
        assert calls and all(c.finish_reasons == () and c.parse_error is None and c.max_output_tokens is None
                             for c in calls)
        assert t.header.goal_rejected is None and t.end is not None and t.end.calls == ()
    old: dict[str, Any] = json.loads((RUNS / "reflection" / "trajectory.jsonl").read_text().splitlines()[0])
    assert old["schema_version"] == 3


def test_run_shows_the_goal_in_use_before_the_first_step(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from latent_agent.cli import main

    (normalized,) = [a for a in _answers("normalize_goal") if "\n" in a]
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps([normalized, "You should be done."]), encoding="utf-8")
    out = tmp_path / "ep"
    assert main(["run", GOAL, "--method", "zero-shot-", "--device", "sim", "--llm", f"scripted:{replies}",
                 "--out", str(out)]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    shown = printed.index(f"goal: {GOAL} (the model's rephrasing was not used: the rewrite 'Read reviews of Audi Q7")
    assert shown < printed.index("step 0")
    assert read_trajectory(out).header.normalized_goal == GOAL


def test_a_cut_estimate_keeps_its_finished_sentences_and_says_it_was_cut() -> None:
    from latent_agent.agent.latent_state.chain import LatentInputs, estimate_latent

    long = next(a for a in _answers("progression") if a.count(". ") >= 2)
    cut = long[: long.index(". ") + 12]  # one finished sentence, then a few characters of the next
    model = ScriptedModel(["The home screen.", Reply(cut, "length"), "No mistakes have been made."])
    caller = LLMCaller(model, episode_id="ep")
    latent = model.run_sync(estimate_latent(caller, LatentInputs(GOAL, "a screen")))
    assert latent.progression == parse_progression(long[: long.index(". ") + 1])
    progression = next(c for c in caller.calls if c.purpose == "progression")
    assert progression.truncated and progression.parse_error is not None
    assert "unfinished last sentence was dropped" in progression.parse_error
    assert all(c.parse_error is None for c in caller.calls if c.purpose != "progression")


def test_the_episode_page_shows_cut_samples_parse_errors_the_refused_goal_and_the_unfinished_step(
        tmp_path: Path) -> None:
    from latent_agent.agent.pages.episode_page import render_html, unpack_folds

    (normalized,) = [a for a in _answers("normalize_goal") if "\n" in a]

    def select(request: GenerationRequest) -> str:
        raise LLMTimeoutError("openai qwen: no answer within 60 s; gave up after 4 attempts", attempts=4)

    model = _recorded_model({"normalize_goal": normalized, "screen_summary": Reply("The home screen. It sh", "length"),
                             "progression": "I have done nothing.", "mistakes": "No mistakes have been made.",
                             "select": select})
    result = run_episode_sync(EpisodeConfig(GOAL, "zero-shot+", max_steps=2, screenshots=False), SimDevice(), model,
                              tmp_path / "ep")
    page = render_html(read_trajectory(result.directory))
    shown = page + json.dumps(unpack_folds(page))
    assert "the model&#x27;s rewrite was not used: the rewrite &#x27;Read reviews of Audi Q7" in page
    assert "Step 0, not finished" in page and "3 retries" in page
    assert "sample 1 (cut at the output cap)" in shown and "unparsable: the answer was cut" in shown
