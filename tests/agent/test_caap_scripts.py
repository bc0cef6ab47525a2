"""CAAP's one table of functions and actions: the policy reads a function as an action, demonstrations write an
action as that function again."""

from __future__ import annotations

from latent_agent.agent.caap.answer import FUNCTIONS
from latent_agent.agent.caap.scripts import FIXED_ACTIONS, script_action
from latent_agent.grounder.actions import LaunchAdbActivity, OpenApp, Scroll, Wait


def test_every_fixed_function_is_in_the_catalogue_and_reads_back_as_itself() -> None:
    for name, action in FIXED_ACTIONS.items():
        assert name in FUNCTIONS and not FUNCTIONS[name].parameters
        assert script_action(action, ()).name == name


def test_a_launched_surface_is_written_as_the_catalogues_function() -> None:
    # It was once written as launch_adb_activity, which the catalogue does not have.
    assert script_action(LaunchAdbActivity("quick_settings"), ()).name == "open_quick_settings"
    assert script_action(LaunchAdbActivity("app_drawer"), ()).name == "open_app_drawer"


def test_actions_with_arguments_keep_them() -> None:
    assert script_action(Wait(3.0), ()).name == "wait"
    assert script_action(Scroll("up"), ()).params == {"direction": "up"}
    assert script_action(OpenApp("Clock"), ()).params == {"app_name": "Clock"}
