"""The parsers beside the templates: latent-state answers, selector answers, votes, goal rephrasing."""

from __future__ import annotations

from agent.goal import parse_normalized_goal
from agent.latent import (
    NO_MISTAKES,
    NOTHING_YET,
    is_complete,
    no_mistakes,
    nothing_performed,
    parse_mistakes,
    parse_previous_action,
    parse_progression,
    progression_items,
)
from agent.select_cot_sc import extract_answer, majority, vote_key
from agent.select_react import kept_turns, parse_react
from agent.select_zero_shot import parse_zero_shot
from agent.selection import UNKNOWN, ReactTurn, is_done


def test_previous_action_keeps_the_first_paragraph() -> None:
    assert parse_previous_action('Tapped "SIMs".\n\nThe screen changed.') == 'Tapped "SIMs".'
    assert parse_previous_action("Performed action: Went back.") == "Went back."
    assert parse_previous_action("   ") == "Unknown."
    assert nothing_performed("Nothing was performed: the screen did not change.")
    assert nothing_performed('"Nothing."')
    assert not nothing_performed('Tapped "Nothing phone".')


def test_progression_is_renumbered_and_nothing_is_canonical() -> None:
    text = "Here is the list:\n1. Opened Settings.\n3) Tapped \"SIMs\".\nThat is all."
    assert parse_progression(text) == '1. Opened Settings.\n2. Tapped "SIMs".'
    assert progression_items(parse_progression(text)) == ("Opened Settings.", 'Tapped "SIMs".')
    assert parse_progression("Nothing. You are just starting.") == NOTHING_YET
    assert parse_progression("nothing has been done") == NOTHING_YET
    assert progression_items(NOTHING_YET) == ()
    assert parse_progression("Opened the Settings app") == "Opened the Settings app"


def test_mistakes_and_completion() -> None:
    assert no_mistakes(parse_mistakes("No mistakes have been made."))
    assert parse_mistakes("") == NO_MISTAKES
    assert not no_mistakes("Mobile data was turned off by mistake. To correct it: Tap \"Mobile data\"")
    assert is_complete("Yes. The roaming switch is off.")
    assert is_complete("**Yes**, it is done")
    assert not is_complete("No. Roaming is still on.")
    assert not is_complete("The answer is yes")


def test_zero_shot_and_done() -> None:
    assert parse_zero_shot('\n- Tap "Roaming"\nbecause it is there') == 'Tap "Roaming"'
    assert parse_zero_shot("Next action: Scroll down") == "Scroll down"
    assert is_done("done") and is_done("Done.") and is_done('"done" - the task is complete')
    assert not is_done("Tap \"Done\"") and not is_done("doneness")


def test_cot_answer_extraction_and_majority_vote() -> None:
    assert extract_answer("Reasoning...\nAnswer: Tap \"SIMs\"\nextra") == 'Tap "SIMs"'
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
    assert parse_react(" Roaming is here.\nAction: Tap \"Roaming\"\nObservation: x") == (
        "Roaming is here.", 'Tap "Roaming"')
    assert parse_react("Thought: hmm\nAction:\n  Go back") == ("hmm", "Go back")
    assert parse_react("I am not sure what to do.") == ("I am not sure what to do.", UNKNOWN)
    assert parse_react("Thinking.\nAction:   ") == ("Thinking.", UNKNOWN)


def test_react_keeps_only_the_last_two_observations() -> None:
    turns = tuple(ReactTurn(f"screen {i}", f"t{i}", f"a{i}") for i in range(4))
    kept = kept_turns(turns)
    # The current observation is the second one kept; of the earlier turns only the last keeps its own.
    assert [t.observation for t in kept] == [None, None, None, "screen 3"]
    assert [t.action for t in kept] == ["a0", "a1", "a2", "a3"]
    assert kept_turns(()) == ()


def test_goal_rephrasing() -> None:
    assert parse_normalized_goal("Rephrased: Turn off data roaming.\n", "x") == "Turn off data roaming."
    assert parse_normalized_goal('"Turn on Wi-Fi."', "x") == "Turn on Wi-Fi."
    assert parse_normalized_goal("\n\n", "turn wifi on") == "turn wifi on"
