"""Each call kind's answer shape (issue 31 item 1) admits only answers its parser reads, in full, and the competent
answers the demo stand-in gives; the placeholder copies that made a small model's plans unusable are not in it."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

import latent_agent.agent.methods  # noqa: F401 - registers the built-in methods' shapes
from latent_agent.agent.caap.answer import Malformed, catalogue, parse_answer
from latent_agent.agent.caap.purposes import CAAP, CAAP_RATIONALE
from latent_agent.agent.exemplars import syntax as synapse
from latent_agent.agent.exemplars.policy import SYSTEM_TEMPLATE, parse_steps
from latent_agent.agent.exemplars.purposes import EXEMPLAR_ABSTRACT, EXEMPLAR_ACT
from latent_agent.agent.goal import NORMALIZE_GOAL
from latent_agent.agent.latent_state.chain import is_complete
from latent_agent.agent.latent_state.cot_sc import extract_answer
from latent_agent.agent.latent_state.purposes import (
    COMPLETION,
    MISTAKES,
    PREVIOUS_ACTION,
    PROGRESSION,
    SCREEN_SUMMARY,
    SELECT,
)
from latent_agent.agent.latent_state.react import parse_react
from latent_agent.agent.latent_state.shapes import COT_SC_SHAPE, REACT_SHAPE
from latent_agent.agent.placeholders import placeholder_problem
from latent_agent.agent.reflection import syntax as page_syntax
from latent_agent.agent.reflection.policy import (
    PLAN_TEMPLATE,
    STAGE_CAP,
    _web_placeholder,
    parse_plan,
    parse_reflection,
)
from latent_agent.agent.reflection.purposes import PARAPHRASE, PLAN, REFLECT
from latent_agent.agent.trajectory import read_trajectory
from latent_agent.cli import main
from latent_agent.grounder.actions import WEB_ONLY, parse_action
from latent_agent.grounder.base import GROUND
from latent_agent.grounder.shapes import ground_shape
from latent_agent.purposes import Purpose
from latent_agent.shapes import AnswerShape, shape_for, shaped_purposes
from latent_agent.surfaces import PHONE, WEB_PAGE, Surface

from ..shape_samples import sample_json, sample_text

#: Answers drawn per shape.
DRAWS = 150


def _phone_plan(text: str) -> None:
    assert placeholder_problem(text, PLAN_TEMPLATE) is None
    steps = parse_plan(text)
    assert steps and len(steps) <= STAGE_CAP and (steps == ("DONE",) or len(steps) == len(text.splitlines()))


def _web_plan(text: str) -> None:
    assert _web_placeholder(text) is None
    for line in parse_plan(text):
        assert page_syntax.parse_command(line) is not None, line


def _phone_reflection(text: str) -> None:
    suggestion = parse_reflection(text)
    assert suggestion.index >= 0 and suggestion.step and suggestion.step != "DONE"


def _web_reflection(text: str) -> None:
    suggestion = parse_reflection(text)
    assert _web_placeholder(suggestion.step) is None
    assert page_syntax.parse_command(suggestion.step) is not None


def _phone_steps(text: str) -> None:
    assert placeholder_problem(text, SYSTEM_TEMPLATE) is None
    parsed = parse_steps(text)
    assert parsed.steps or parsed.done


def _web_steps(text: str) -> None:
    lines = synapse.parse_plan(text)
    assert len(lines) == len(text.splitlines())
    for line in lines:
        synapse.parse_command(line)  # raises CommandError for a line that is no command


def _caap(surface: Surface) -> Callable[[str], None]:
    def check(text: str) -> None:
        actions = parse_answer(text)
        assert all(not isinstance(a, Malformed) for a in actions), actions
        assert all(a.name in catalogue(surface) for a in actions if not isinstance(a, Malformed))
    return check


def _completion(text: str) -> None:
    assert is_complete(text) == text.startswith("Yes")


#: What reads each registered call kind's answer, on each surface.
READERS: dict[tuple[Purpose, str], Callable[[str], None]] = {
    (PLAN, "phone"): _phone_plan,
    (PLAN, "web_page"): _web_plan,
    (REFLECT, "phone"): _phone_reflection,
    (REFLECT, "web_page"): _web_reflection,
    (EXEMPLAR_ACT, "phone"): _phone_steps,
    (EXEMPLAR_ACT, "web_page"): _web_steps,
    (CAAP, "phone"): _caap(PHONE),
    (CAAP, "web_page"): _caap(WEB_PAGE),
    (COMPLETION, "phone"): _completion,
    (COMPLETION, "web_page"): _completion,
}


def test_every_call_kind_the_issue_names_has_a_shape_and_the_free_estimates_none() -> None:
    assert set(shaped_purposes()) >= {GROUND, PLAN, REFLECT, EXEMPLAR_ACT,
                                      CAAP, COMPLETION}
    free = (PREVIOUS_ACTION, SCREEN_SUMMARY, PROGRESSION, MISTAKES, SELECT,
            NORMALIZE_GOAL, EXEMPLAR_ABSTRACT, PARAPHRASE, CAAP_RATIONALE)
    assert all(shape_for(p, s) is None for p in free for s in (PHONE, WEB_PAGE))
    text_kinds = {(p, s.kind) for p in shaped_purposes() if p is not GROUND for s in (PHONE, WEB_PAGE)}
    assert text_kinds == set(READERS)


@pytest.mark.parametrize(("purpose", "kind"), sorted(READERS), ids=lambda v: str(v))
def test_every_answer_a_text_shape_admits_is_read_by_its_parser(purpose: Purpose, kind: str) -> None:
    surface = PHONE if kind == "phone" else WEB_PAGE
    shape = shape_for(purpose, surface)
    assert shape is not None and shape.source is not None
    matcher = re.compile(shape.expression)
    rng = random.Random(f"{purpose}/{kind}")
    for _ in range(DRAWS):
        text = sample_text(shape.source, rng)
        assert matcher.fullmatch(text), text  # the regular expression and the pattern agree
        READERS[(purpose, kind)](text)


@pytest.mark.parametrize(("shape", "read"), [
    (COT_SC_SHAPE, lambda text: bool(extract_answer(text)) and "\n" not in extract_answer(text)),
    (REACT_SHAPE, lambda text: parse_react(text)[1] is not None),
], ids=["cot-sc", "react"])
def test_the_selectors_own_shapes_are_read_too(shape: AnswerShape, read: Callable[[str], bool]) -> None:
    assert shape.source is not None
    rng = random.Random(shape.name)
    for _ in range(DRAWS):
        text = sample_text(shape.source, rng)
        assert re.fullmatch(shape.expression, text) and read(text), text


@pytest.mark.parametrize("surface", [PHONE, WEB_PAGE], ids=lambda s: s.kind)
def test_every_action_the_grounders_schema_admits_is_parsed(surface: Surface) -> None:
    shape = ground_shape(surface)
    rng = random.Random(surface.kind)
    kinds = set()
    for _ in range(DRAWS * 2):
        action = parse_action(json.dumps(sample_json(shape.schema, rng)))
        kinds.add(type(action))
        assert surface.web or not isinstance(action, WEB_ONLY)  # a phone's schema offers no web action
    assert len(kinds) >= 7


@pytest.mark.parametrize("text", [
    'Open the NAME app', 'Tap "label"', 'Type "text"', 'Tap "NAME"', 'Open the Clock NAME app', '1. Tap "label"',
    'Tap "x"\n\nGo back', '- Tap "x"', 'Press "label" twice', " Go back", "DONE\nGo back",
    # The list copied without its quotes, as the packaged model answered with shapes on before they were kept out.
    "Tap the label (Apps list)", "Scroll up / Scroll down", "Type text", "DONE (the task is complete; write it alone)",
])
def test_the_phone_vocabulary_shape_refuses_copied_placeholders_and_stray_forms(text: str) -> None:
    for purpose in (PLAN, EXEMPLAR_ACT):
        shape = shape_for(purpose, PHONE)
        assert shape is not None and not re.fullmatch(shape.expression, text)


def test_the_shapes_admit_well_formed_answers() -> None:
    def admits(purpose: Purpose, surface: Surface, text: str) -> bool:
        shape = shape_for(purpose, surface)
        return shape is not None and re.fullmatch(shape.expression, text) is not None

    assert admits(PLAN, PHONE, 'Open the Settings app\nTap "Network & internet"\nTap "Roaming"')
    assert admits(PLAN, PHONE, "DONE")
    assert admits(PLAN, PHONE, "Open quick settings\nTap \"Flashlight\"")  # words the list does not name
    assert admits(PLAN, WEB_PAGE, 'click id=12\nenter "Bob" to id=7\nhold CTRL\npress ARROWDOWN x 3')
    assert admits(PLAN, WEB_PAGE, "")
    assert admits(REFLECT, PHONE, 'For action index=2, you should Tap "Roaming".')
    assert admits(EXEMPLAR_ACT, PHONE, '1. Open the Clock app\n2. Tap "Alarm"\n3. DONE')
    assert admits(EXEMPLAR_ACT, WEB_PAGE,
                  '1. clickxpath //label[text()="kc"]/input\n2. type "Bob"\n3. press enter\n'
                  '4. clickoption //select[@id="options"]/option[text()="Sudan"]\n5. movemouse (//span)[2]')
    assert admits(CAAP, PHONE, "First, nothing was done.\nSecondly, the screen shows Wi-Fi.\n\n"
                  "Action_1=(Action: functions.click_element, Argument: {element_id: element_5})\n"
                  'Action_2=(Action: functions.type_text, Argument: {element_id: element_2, text: "hello"})\n'
                  "Action_3=(Action: functions.press_enter, Argument: {})")
    assert admits(CAAP, WEB_PAGE, "Action_4=(Action: functions.click_new_point, Argument: {x: 10, y: 20})")
    assert admits(COMPLETION, PHONE, "Yes") and admits(COMPLETION, PHONE, "No.")


def test_a_shape_reads_back_from_its_record() -> None:
    for purpose in shaped_purposes():
        shape = shape_for(purpose, PHONE)
        assert shape is not None
        again = AnswerShape.from_json(json.loads(json.dumps(shape.to_json())))
        assert again == shape and again.schema == shape.schema


@pytest.mark.parametrize("method", ["zero-shot+", "reflection", "caap"])
def test_the_demo_stand_ins_answers_fit_their_shapes(tmp_path: Path, method: str) -> None:
    """The stand-in plays a competent model: a shape that refused its answers would refuse a good model's too."""
    out = tmp_path / method
    assert main(["run", "Turn on the flashlight", "--device", "sim", "--llm", "demo", "--method", method,
                 "--out", str(out), "--no-screenshots", "--max-steps", "6"]) in (0, 1)
    trajectory = read_trajectory(out)
    checked = 0
    for call in (c for s in trajectory.steps for c in s.calls):
        shape = shape_for(call.purpose, PHONE)
        if shape is None:
            continue
        for text in call.outputs:
            if shape.kind == "json":
                parse_action(text)
            else:
                assert re.fullmatch(shape.expression, text.strip()), (call.purpose, text)
            checked += 1
    assert checked
