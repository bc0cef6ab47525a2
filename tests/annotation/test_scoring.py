"""Scoring on a hand-made answer set: every expected number is worked out by hand in the comments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from latent_agent.annotation.consensus import consensus, write_ratings
from latent_agent.annotation.forms import EpisodeInfo, FormItem, FormSpec, LatentContext
from latent_agent.annotation.importer import import_answers, load_scores_dir
from latent_agent.annotation.questions import FormKind, e2e_questions, latent_questions
from latent_agent.annotation.scoring import (
    ALL,
    Aspect,
    Scores,
    format_scores,
    load_episode_scores,
    same_action,
    says_complete,
    says_no_mistakes,
    score,
    write_scores,
)
from latent_agent.errors import AnnotationError
from tests.annotation.conftest import write_answers, write_manifest

NONE = "No mistakes have been made."


def _episode(eid: str, bench: str, method: str = "+ZS") -> EpisodeInfo:
    return EpisodeInfo(eid, "goal", method, bench, f"task_{eid}", 0, "completed", 4, eid, f"task_{eid}__{method}__s0")


def _latent_form(fid: str, bench: str, contexts: list[LatentContext]) -> FormSpec:
    items = []
    for n, ctx in enumerate(contexts):
        qs = latent_questions(first=n == 0, last=n == len(contexts) - 1, has_completion=ctx.completion is not None)
        items.append(FormItem(f"step_{n:03d}", n, qs, ctx))
    return FormSpec(fid, FormKind.LATENT, _episode(fid, bench), tuple(items)).with_digest()


def _ans(summary: str, incorrect: str, ignoring: str, mistakes: str, progression: str,
         previous: str | None = None, completion: str | None = None, next_mistake: str | None = None,
         ) -> dict[str, str]:
    out = {"summary_accurate": summary, "summary_incorrect": incorrect,
           "summary_incorrect_ignoring_position": ignoring, "mistakes_correct": mistakes,
           "progression_correct": progression}
    if previous is not None:
        out["previous_action_correct"] = previous
    if completion is not None:
        out["completion_correct"] = completion
    if next_mistake is not None:
        out["next_action_mistake"] = next_mistake
    return out


FORM_A = _latent_form("fA", "A", [
    LatentContext(None, None, NONE, "No, not yet."),                                   # s0
    LatentContext("Click on Wi-Fi", "Clicked on Wi-Fi", NONE, "No, not yet."),         # s1: same action
    LatentContext("Click on Bluetooth", "A tap landed on Battery instead", "The agent opened Battery by mistake.",
                  "No."),                                                               # s2: different action
    LatentContext("Press Back", "Pressed Back", NONE, "Yes, the goal is complete."),   # s3: same action
])
R1_A = {
    "step_000": _ans("yes", "no", "no", "yes", "yes", completion="yes", next_mistake="no"),
    "step_001": _ans("no", "yes", "no", "yes", "yes", previous="yes", completion="yes", next_mistake="yes"),
    "step_002": _ans("yes", "no", "no", "yes", "no", previous="yes", completion="yes", next_mistake="no"),
    "step_003": _ans("yes", "no", "no", "no", "yes", previous="no", completion="no"),
}
# r2 differs from r1 in two answers: s1 summary_accurate (yes) and s2 previous_action_correct (no).
R2_A = json.loads(json.dumps(R1_A))
R2_A["step_001"]["summary_accurate"] = "yes"
R2_A["step_002"]["previous_action_correct"] = "no"

FORM_B = _latent_form("fB", "B", [
    LatentContext(None, None, NONE, None),                                             # t0: no completion estimate
    LatentContext("Open the Clock app", "Opened the Clock app", "Opened the wrong app.", "No, not done."),  # t1
])
R1_B = {
    "step_000": _ans("yes", "no", "no", "yes", "yes", next_mistake="no"),
    "step_001": _ans("yes", "yes", "yes", "yes", "yes", previous="no", completion="no"),
}


def _e2e_form(fid: str, bench: str, method: str, partial: tuple[str, ...]) -> FormSpec:
    item = FormItem("episode", None, e2e_questions(partial))
    return FormSpec(fid, FormKind.E2E, _episode(fid, bench, method), (item,)).with_digest()


E1 = _e2e_form("e1", "A", "+ZS", ("opened Settings", "reached the page"))
E2 = _e2e_form("e2", "A", "-ZS", ())
E3 = _e2e_form("e3", "B", "+ZS", ("a", "b", "c"))


def _e2e(completed: str, stopping: str, *partial: str) -> dict[str, dict[str, str]]:
    values = {"completed": completed, "stopping": stopping}
    values.update({f"partial_{i}": v for i, v in enumerate(partial, 1)})
    return {"episode": values}


@pytest.fixture(scope="module")
def scores(tmp_path_factory: pytest.TempPathFactory) -> tuple[Scores, Path]:
    root = tmp_path_factory.mktemp("hand")
    latent_dir = write_manifest(root / "latent_forms", [FORM_A, FORM_B], ("r1", "r2"))
    e2e_dir = write_manifest(root / "e2e_forms", [E1, E2, E3], ("r1", "r2"))
    answers = root / "answers"
    files = [
        write_answers(answers, FORM_A, "r1", R1_A), write_answers(answers, FORM_A, "r2", R2_A),
        write_answers(answers, FORM_B, "r1", R1_B),
        write_answers(answers, E1, "r1", _e2e("yes", "right_time", "yes", "no")),
        write_answers(answers, E1, "r2", _e2e("yes", "extra_steps", "yes", "yes")),
        write_answers(answers, E2, "r1", _e2e("no", "premature")),
        write_answers(answers, E3, "r1", _e2e("yes", "did_not_stop", "yes", "yes", "yes")),
    ]
    scores_dir = root / "scores"
    import_answers([latent_dir, e2e_dir, *files], scores_dir)
    return score(load_scores_dir(scores_dir)), scores_dir


def test_judgement_rules_on_the_hand_set() -> None:
    # The expectations below rely on these readings of the agent's texts.
    assert same_action("Clicked on Wi-Fi", "Click on Wi-Fi")
    assert not same_action("A tap landed on Battery instead", "Click on Bluetooth")
    assert same_action("Pressed Back", "Press Back")
    assert same_action("Opened the Clock app", "Open the Clock app")
    assert not same_action("Do not open the Clock app", "Open the Clock app")  # ratio 79.07 (below)
    assert says_no_mistakes(NONE) and says_no_mistakes("There are no uncorrected mistakes.")
    assert not says_no_mistakes("The agent opened Battery by mistake.")
    assert not says_no_mistakes("Opened the wrong app.")
    assert says_complete("Yes, the goal is complete.") and says_complete("  yes.")
    assert not says_complete("No, not yet.")
    assert says_complete("**Yes**, everything is done.") and says_complete('"Yes."')  # as the agent stops


# App. J's baseline on raw strings. fuzz.ratio = 200 * LCS / (len(a) + len(b)), LCS = longest common
# subsequence; each ratio below is worked out by hand and checked against the library as well.
APP_J_CASES = [
    # "Click on Wi-Fi" (14) is a subsequence of "Clicked on Wi-Fi" (16): 200 * 14 / 30.
    ("Clicked on Wi-Fi", "Click on Wi-Fi", 200 * 14 / 30, True),
    # "Press Back" (10) inside "Pressed Back" (12): 200 * 10 / 22.
    ("Pressed Back", "Press Back", 200 * 10 / 22, True),
    # Case and punctuation count: common "lick on " (8) + "i-i" (3) = 11 of 15 + 14 -> 75.86, although the two
    # are equal once lower-cased and stripped of punctuation (a processor would give 100).
    ("click on wi-fi.", "Click on Wi-Fi", 200 * 11 / 29, False),
    # Quotes and the full stop are kept: "Tap OK" (6) of 9 + 6 -> exactly 80, which is not above 80.
    ("Tap 'OK'.", "Tap OK", 80.0, False),
    # The threshold is strict: "Tap " (4) of 5 + 5 -> 80.
    ("Tap A", "Tap B", 80.0, False),
    # "do not" in the commanded step only does not matter: "Wait" + "; d" + " not tap" = 15 of 19 + 16.
    ("Waited; did not tap", "Wait; do not tap", 200 * 15 / 35, True),
    # "do not" in the inferred action is never a match, however close: "Scroll down and do not tap" (26)
    # inside the 28 characters of the inferred action -> 96.3.
    ("Scrolled down and do not tap", "Scroll down and do not tap", 200 * 26 / 54, False),
    # The test for "do not" is literal: "Do not" is not "do not" (and the ratio decides: 17 of 25 + 18 -> 79.07).
    ("Do not open the Clock app", "Open the Clock app", 200 * 17 / 43, False),
    ("Do not tap Wi-Fi", "Do not tap Wi-Fi", 100.0, True),
]


@pytest.mark.parametrize(("inferred", "commanded", "ratio", "same"), APP_J_CASES)
def test_app_j_baseline_on_raw_strings(inferred: str, commanded: str, ratio: float, same: bool) -> None:
    from rapidfuzz import fuzz

    assert fuzz.ratio(inferred, commanded) == pytest.approx(ratio)
    assert same_action(inferred, commanded) is same


def _row(s: Scores, bench: str, aspect: Aspect) -> tuple[int, float, float | None, int, int, float | None]:
    (r,) = [r for r in s.table2 if r.benchmark == bench and r.aspect is aspect]
    return r.ratings, r.accuracy, r.baseline, r.baseline_undetermined, r.hard_ratings, r.hard_accuracy


def test_table2_benchmark_a(scores: tuple[Scores, Path]) -> None:
    s, _ = scores
    # previous action: 6 ratings (s1..s3 x 2 raters), right: s1r1 s1r2 s2r1 = 3 -> 0.5.
    # baseline: s1 same -> right for both; s2 differs: r1 judged right -> baseline wrong (hard, agent right),
    # r2 judged wrong -> undetermined, counted right; s3 same, both judged wrong -> baseline wrong (hard x2).
    # baseline right: 3/6; hard: 3 ratings, agent right on 1.
    assert _row(s, "A", Aspect.PREVIOUS_ACTION) == (6, 0.5, 0.5, 1, 3, pytest.approx(1 / 3))
    # summary accurate: 8 ratings, only s1r1 says no -> 7/8.
    assert _row(s, "A", Aspect.SCREEN_SUMMARY)[:2] == (8, 0.875)
    # incorrect info: s1 yes for both raters -> 6/8; disregarding position: none -> 8/8.
    assert _row(s, "A", Aspect.SUMMARY_NO_INCORRECT)[:2] == (8, 0.75)
    assert _row(s, "A", Aspect.SUMMARY_NO_INCORRECT_IGNORING_POSITION)[:2] == (8, 1.0)
    # progression: s2 no for both -> 6/8; no baseline.
    assert _row(s, "A", Aspect.PROGRESSION) == (8, 0.75, None, 0, 0, None)
    # mistakes: s3 judged wrong by both -> 6/8. Agent says "none" at s0, s1, s3, not at s2.
    # baseline (never a mistake) right where (agent says none) == (judged right): s0 x2, s1 x2 -> 4/8.
    # hard (baseline wrong): s2 x2 (agent right) and s3 x2 (agent wrong) -> 4 ratings, 2 right.
    assert _row(s, "A", Aspect.MISTAKES) == (8, 0.75, 0.5, 0, 4, 0.5)
    # completion: s3 judged wrong by both -> 6/8. Agent says "Yes" only at s3.
    # baseline (never complete) right where (agent says No) == (judged right): s0-s2 (No, right) x2 = 6,
    # s3 (Yes, wrong) x2 = 2 -> 8/8; no hard case.
    assert _row(s, "A", Aspect.COMPLETION) == (8, 0.75, 1.0, 0, 0, None)


def test_table2_benchmark_b_and_all(scores: tuple[Scores, Path]) -> None:
    s, _ = scores
    # B, one rater. previous: t1 same action, judged wrong -> accuracy 0, baseline 0, 1 hard case (agent wrong).
    assert _row(s, "B", Aspect.PREVIOUS_ACTION) == (1, 0.0, 0.0, 0, 1, 0.0)
    assert _row(s, "B", Aspect.SUMMARY_NO_INCORRECT)[:2] == (2, 0.5)
    # mistakes: both right; t0 says none (baseline right), t1 names a mistake (baseline wrong, hard, agent right).
    assert _row(s, "B", Aspect.MISTAKES) == (2, 1.0, 0.5, 0, 1, 1.0)
    # completion: only t1 asks it (t0 made no estimate); judged wrong while saying No -> baseline wrong too.
    assert _row(s, "B", Aspect.COMPLETION) == (1, 0.0, 0.0, 0, 1, 0.0)
    # all: A and B pooled.
    assert _row(s, ALL, Aspect.PREVIOUS_ACTION) == (7, pytest.approx(3 / 7), pytest.approx(3 / 7), 1, 4, 0.25)
    assert _row(s, ALL, Aspect.SCREEN_SUMMARY)[:2] == (10, 0.9)
    assert _row(s, ALL, Aspect.SUMMARY_NO_INCORRECT)[:2] == (10, 0.7)
    assert _row(s, ALL, Aspect.MISTAKES) == (10, 0.8, 0.5, 0, 5, 0.6)
    assert _row(s, ALL, Aspect.COMPLETION) == (9, pytest.approx(6 / 9), pytest.approx(8 / 9), 0, 1, 0.0)
    # actions judged mistakes: A s1 (both raters) of 6 ratings; B none of 1; all 2/7.
    rates = {m.benchmark: (m.ratings, m.rate) for m in s.mistake_rates}
    assert rates == {"A": (6, pytest.approx(1 / 3)), "B": (1, 0.0), ALL: (7, pytest.approx(2 / 7))}


def test_table3(scores: tuple[Scores, Path]) -> None:
    s, _ = scores
    rows = {(r.benchmark, r.method): r for r in s.table3}
    assert set(rows) == {("A", "+ZS"), ("A", "-ZS"), ("B", "+ZS"), (ALL, "+ZS"), (ALL, "-ZS")}
    a = rows[("A", "+ZS")]
    # e1: both raters say completed; only r1 says right time -> success 1/2; partial (1/2 + 2/2) / 2.
    assert (a.episodes, a.ratings, a.completed, a.success, a.partial) == (1, 2, 1.0, 0.5, 0.75)
    assert a.stopping == {"right_time": 0.5, "premature": 0.0, "extra_steps": 0.5, "did_not_stop": 0.0}
    m = rows[("A", "-ZS")]
    assert (m.completed, m.success, m.stopping["premature"], m.partial) == (0.0, 0.0, 1.0, None)
    b = rows[("B", "+ZS")]
    assert (b.completed, b.success, b.stopping["did_not_stop"], b.partial) == (1.0, 0.0, 1.0, 1.0)
    t = rows[(ALL, "+ZS")]
    # 3 ratings over 2 episodes: success only e1/r1; partial (0.5 + 1 + 1) / 3.
    assert (t.episodes, t.ratings, t.completed) == (2, 3, 1.0)
    assert t.success == pytest.approx(1 / 3) and t.partial == pytest.approx(2.5 / 3)
    e1 = next(e for e in s.episodes if e.episode_id == "e1")
    assert (e1.raters, e1.completed, e1.success, e1.partial) == (("r1", "r2"), 1.0, 0.5, 0.75)


def test_agreement(scores: tuple[Scores, Path]) -> None:
    s, _ = scores
    agree = {(a.kind.value, a.question): a for a in s.agreement}
    # summary_accurate on s0..s3: r1 y n y y, r2 y y y y. Cohen: po 3/4, pe 3/4*1 -> 0.
    # Fleiss: P-bar 3/4, p_yes 7/8 -> Pe 50/64 -> (0.75 - 0.78125) / 0.21875 = -1/7.
    a = agree[("latent", "summary_accurate")]
    assert (a.items, a.raters, a.percent_agreement, a.cohen_kappa) == (4, 2, 0.75, 0.0)
    assert a.fleiss_kappa == pytest.approx(-1 / 7)
    # previous_action_correct on s1..s3: r1 y y n, r2 y n n. po 2/3, pe 2/3*1/3 + 1/3*2/3 = 4/9 -> 0.4.
    # Fleiss: P-bar 2/3, Pe 1/2 -> 1/3.
    p = agree[("latent", "previous_action_correct")]
    assert p.cohen_kappa == pytest.approx(0.4) and p.fleiss_kappa == pytest.approx(1 / 3)
    # Identical answers everywhere: agreement 100%, kappa undefined.
    same = agree[("latent", "summary_incorrect_ignoring_position")]
    assert (same.percent_agreement, same.cohen_kappa, same.fleiss_kappa) == (1.0, None, None)
    # e2e stopping on e1: right_time vs extra_steps -> Cohen 0, Fleiss -1; completed: undefined.
    st = agree[("e2e", "stopping")]
    assert (st.items, st.cohen_kappa, st.fleiss_kappa) == (1, 0.0, -1.0)
    assert agree[("e2e", "completed")].cohen_kappa is None
    # partial questions pooled: e1 p1 (y, y), p2 (n, y) -> po 1/2, pe 1/2 -> 0.
    assert agree[("e2e", "partial")].cohen_kappa == 0.0
    assert ("latent", "next_action_mistake") in agree  # fB (one rater) contributes nothing


def test_scores_file_round_trip_and_text(scores: tuple[Scores, Path]) -> None:
    s, scores_dir = scores
    path = write_scores(s, scores_dir)
    episodes = load_episode_scores(path)
    assert [e.episode_id for e in episodes] == ["e1", "e2", "e3"]
    assert episodes == s.episodes
    text = format_scores(s)
    assert "Table 2" in text and "Table 3" in text and "Cohen" in text
    assert "33.3%" in text  # the hard-case accuracy of previous actions on A
    path.write_text('{"record": "something else"}', encoding="utf-8")
    with pytest.raises(AnnotationError, match="not an annotation_scores file"):
        load_episode_scores(path)


def test_consensus_ratings_for_the_report(scores: tuple[Scores, Path]) -> None:
    _, scores_dir = scores
    ratings = consensus(load_scores_dir(scores_dir))
    by_key = {r.key: r for r in ratings}
    assert sorted(by_key) == ["task_e1__+ZS__s0", "task_e2__-ZS__s0", "task_e3__+ZS__s0"]
    e1 = by_key["task_e1__+ZS__s0"]
    # e1: both completed; partial_1 yes/yes; partial_2 no/yes ties; stopping right_time/extra_steps ties.
    assert (e1.success, e1.partial, e1.stop_judgement) == (
        True, (("opened Settings", True), ("reached the page", None)), None)
    e2 = by_key["task_e2__-ZS__s0"]
    assert (e2.success, e2.partial, e2.stop_judgement) == (False, (), "premature")
    path = write_ratings(ratings, scores_dir)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["key"] for line in lines] == sorted(by_key)
    assert lines[0] == {"record": "rating", "schema_version": 1, "key": "task_e1__+ZS__s0", "success": True,
                        "partial": [{"question": "opened Settings", "answer": True},
                                    {"question": "reached the page", "answer": None}],
                        "stop_judgement": None, "error_cause": None}  # no errors form answered
    ratings_module = pytest.importorskip("latent_agent.benchmarks.ratings",
                                         reason="the sweep's report is not in this tree")
    loaded = ratings_module.load_ratings(path)
    assert loaded["task_e2__-ZS__s0"].success is False
    assert loaded["task_e2__-ZS__s0"].stop_judgement.value == "premature"
