"""The parsers beside the templates: latent-state answers, selector answers, votes, stop rules, goal rephrasing."""

from __future__ import annotations

from latent_agent.agent.goal import goal_clause, parse_normalized_goal
from latent_agent.agent.latent_state.chain import (
    NO_MISTAKES,
    UNKNOWN_ACTION,
    is_complete,
    no_action_performed,
    no_mistakes,
    parse_completion,
    parse_mistakes,
    parse_previous_action,
    parse_progression,
    parse_screen_summary,
)
from latent_agent.agent.latent_state.cot_sc import extract_answer, majority, vote_key
from latent_agent.agent.latent_state.react import kept_turns, parse_react
from latent_agent.agent.latent_state.selection import UNKNOWN, ReactTurn, Selection, says_done
from latent_agent.agent.latent_state.zero_shot import parse_zero_shot
from latent_agent.agent.trajectory import StopRule


def test_previous_action_keeps_the_first_paragraph_without_a_repeated_prefix() -> None:
    assert parse_previous_action('Clicked on "SIMs".\n\nThe screen changed.') == 'Clicked on "SIMs".'
    assert parse_previous_action("Real action: Went back.") == "Went back."
    assert parse_previous_action("   ") == UNKNOWN_ACTION
    assert no_action_performed("No action was performed.")
    assert no_action_performed('"Nothing."')
    assert not no_action_performed('Tapped "Nothing phone".')


def test_progression_is_prose_continuing_you_have() -> None:
    assert parse_progression(" opened Settings and\n turned off Wi-Fi.") == (
        "You have opened Settings and turned off Wi-Fi.")
    # Chat models often repeat the prefix; it is not doubled.
    assert parse_progression("You have opened Settings.") == "You have opened Settings."
    assert parse_progression("**You have** opened Settings.") == "You have opened Settings."
    assert parse_progression("") == "You have"


def test_summary_mistakes_and_completion() -> None:
    assert parse_screen_summary("Summary: The Settings app,\n main list.") == "The Settings app, main list."
    assert no_mistakes(parse_mistakes("No mistakes have been made."))
    assert parse_mistakes("") == NO_MISTAKES
    assert not no_mistakes("Mobile data was turned off by mistake; tap it again.")
    assert parse_completion("Answer: Yes.") == "Yes."
    assert is_complete("Yes. The roaming switch is off.")
    assert is_complete("**Yes**, it is done")
    assert not is_complete("No. Roaming is still on.")
    assert not is_complete("The answer is yes")


def test_zero_shot_continues_you_should() -> None:
    assert parse_zero_shot(" tap the Wi-Fi switch.\nbecause it is there") == "Tap the Wi-Fi switch."
    assert parse_zero_shot("You should be done.") == "Be done."
    assert parse_zero_shot('- open the Clock app') == "Open the Clock app"
    assert parse_zero_shot("") == ""


def test_the_papers_stop_rule_is_a_substring_test_and_strict_is_an_option() -> None:
    for step in ("Be done.", "You should be done.", "done.", "Done", "The task is done, nothing to do"):
        assert says_done(step), step
    # The method's rule is a plain substring test: a tap on a "Done" button stops too.
    assert says_done('Tap "Done"') and not says_done('Tap "Save"')
    strict = StopRule.DONE_EXACT
    for step in ("Be done.", "You should be done.", "done.", '"Done"'):
        assert says_done(step, strict), step
    assert not says_done('Tap "Done"', strict) and not says_done("The task is done, nothing to do", strict)


def test_cot_answer_is_everything_after_the_marker_and_the_vote() -> None:
    assert extract_answer("Reasoning...\nAnswer: Tap \"SIMs\"\nthen wait") == 'Tap "SIMs" then wait'
    assert extract_answer("I see it. Answer: first. Answer: Tap \"Roaming\"") == 'Tap "Roaming"'
    assert extract_answer("The list is open. So I will tap it. Tap \"Roaming\"") == 'Tap "Roaming"'
    assert extract_answer("") == ""
    # Markers as sampled models write them: lower case, Markdown bold, "Final answer:".
    assert extract_answer("It is below.\nanswer: Scroll down") == "Scroll down"
    assert extract_answer("So:\n**Answer:** Tap \"SIMs\"") == 'Tap "SIMs"'
    assert extract_answer("Final answer: Go back") == "Go back"
    assert extract_answer("I need the answers list. Tap \"Answers\"") == 'Tap "Answers"'
    assert vote_key('Tap "Roaming".') == vote_key("tap roaming")
    votes = ['Tap "Roaming"', "Scroll down", 'tap "Roaming".', "Scroll down", "Tap Roaming", ""]
    assert majority(votes) == 'Tap "Roaming"'
    # A tie goes to the answer that came first.
    assert majority(["Scroll down", "Go back", "Go back", "Scroll down"]) == "Scroll down"
    assert majority(["", "  "]) == ""


def test_react_thought_action_and_unknown() -> None:
    assert parse_react(" Roaming is here.\nAction: Tap \"Roaming\"\nObservation 5: x") == (
        "Roaming is here.", 'Tap "Roaming"')
    assert parse_react(" Roaming is here. Action: Tap \"Roaming\"") == ("Roaming is here.", 'Tap "Roaming"')
    assert parse_react("Thought: hmm\nAction 4:\n  Go back") == ("hmm", "Go back")
    assert parse_react("I am not sure what to do.") == ("I am not sure what to do.", None)
    assert parse_react("Thinking.\nAction:   ") == ("Thinking.", None)


def test_a_selection_without_an_action_is_recorded_as_unknown_and_flagged() -> None:
    missing = Selection.of(None, ("I am not sure what to do.",))
    assert (missing.step, missing.has_action) == (UNKNOWN, False)
    assert not Selection.of("", ()).has_action
    # A model that literally answers "unknown" named a step: the flag, not the text, says what is missing.
    assert Selection.of("unknown", ()).has_action
    # "action:" in lower case inside the thought is not the marker.
    assert parse_react("I will take action: soon.\nAction: done.") == ("I will take action: soon.", "done.")


def test_react_keeps_every_thought_and_action_but_only_the_last_two_observations() -> None:
    turns = tuple(ReactTurn(f"screen {i}", f"t{i}", f"a{i}") for i in range(4))
    kept = kept_turns(turns)
    assert [t.observation for t in kept] == [None, None, "screen 2", "screen 3"]
    assert [t.thought for t in kept] == ["t0", "t1", "t2", "t3"]
    assert [t.action for t in kept] == ["a0", "a1", "a2", "a3"]
    assert kept_turns(()) == ()


def test_goal_rephrasing_and_the_goal_as_a_clause() -> None:
    assert parse_normalized_goal("Rephrased: Turn off data roaming.\n", "x") == "Turn off data roaming."
    assert parse_normalized_goal('"Turn on Wi-Fi."', "x") == "Turn on Wi-Fi."
    assert parse_normalized_goal("\n\n", "turn wifi on") == "turn wifi on"
    assert goal_clause("Turn off data roaming.") == "turn off data roaming."
    assert goal_clause("Use color inversion") == "use color inversion."
    assert goal_clause("YouTube: play a video") == "YouTube: play a video."
    assert goal_clause("I need the GPS on!") == "I need the GPS on!"
