"""The episode settings: one record that run, sweep, the plan and the job share; one merge and one comparison for
a resume; the options come from one function, with the grounders of the registry."""

from __future__ import annotations

import argparse
from dataclasses import fields
from pathlib import Path

import pytest

from latent_agent.agent.episode import EpisodeConfig
from latent_agent.agent.resources import MethodResources
from latent_agent.agent.settings import EpisodeSettings
from latent_agent.benchmarks.episodes import EpisodeJob
from latent_agent.benchmarks.plan import SweepPlan
from latent_agent.cli.main import build_parser
from latent_agent.cli.settings import add_settings_arguments, settings_from_args
from latent_agent.errors import ConfigError, SweepStateError
from latent_agent.grounder.registry import DEFAULT_GROUNDER, GROUNDERS

SETTINGS = {f.name for f in fields(EpisodeSettings)}


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_settings_arguments(parser)
    return parser.parse_args(list(argv))


@pytest.mark.parametrize("record", [EpisodeConfig, SweepPlan, EpisodeJob])
def test_every_record_that_carries_settings_is_the_record(record: type) -> None:
    assert issubclass(record, EpisodeSettings)
    assert {f.name for f in fields(record)} >= SETTINGS


def test_given_options_override_the_planned_ones_and_the_rest_stay() -> None:
    planned = EpisodeSettings(max_steps=7, grounder="llm", stop_rule="strict", name_icons=True)
    assert settings_from_args(_args(), planned) == planned
    assert settings_from_args(_args("--max-steps", "3"), planned) == EpisodeSettings(
        max_steps=3, grounder="llm", stop_rule="strict", name_icons=True)
    assert settings_from_args(_args()) == EpisodeSettings()
    assert EpisodeSettings().grounder == DEFAULT_GROUNDER


def test_a_resource_given_again_must_be_the_planned_one(tmp_path: Path) -> None:
    planned = EpisodeSettings(resources=MethodResources(demos=tmp_path / "demos"))
    assert settings_from_args(_args(), planned).resources.path("demos") == tmp_path / "demos"
    with pytest.raises(ConfigError, match=r"--demos .*differs from the sweep's own"):
        settings_from_args(_args("--demos", str(tmp_path / "other")), planned)


def test_differences_name_each_setting_as_the_manifest_does() -> None:
    planned, asked = EpisodeSettings(), EpisodeSettings(max_steps=3, stop_rule="strict")
    assert planned.differences_to(asked) == ["max_steps: planned 20, asked 3",
                                             "stop_rule: planned 'paper', asked 'strict'"]
    assert planned.differences_to(EpisodeSettings()) == []


def test_bad_settings_are_refused_wherever_they_are_made() -> None:
    with pytest.raises(ConfigError, match="unknown grounder"):
        EpisodeSettings(grounder="magic")
    with pytest.raises(ConfigError, match="stop rule"):
        SweepPlan.build("sim", [("t", "goal")], ["zero-shot+"], 1, "demo", EpisodeSettings(stop_rule="sometimes"))
    with pytest.raises(ConfigError, match="max_steps"):
        EpisodeConfig("Turn off data roaming", "zero-shot+", max_steps=0)


def test_run_and_sweep_offer_the_same_settings_options_with_the_registrys_grounders() -> None:
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for name in ("run", "sweep"):
        options = {a.dest: a for a in commands[name]._actions}
        assert SETTINGS - {"resources"} <= set(options), name
        assert list(options["grounder"].choices) == list(GROUNDERS)
        assert all(options[dest].default is None for dest in SETTINGS - {"resources"}), name


def test_a_manifest_reads_back_and_a_malformed_one_names_the_field(tmp_path: Path) -> None:
    plan = SweepPlan.build("sim", [("t", "goal")], ["zero-shot+"], 1, "demo",
                           EpisodeSettings(max_steps=4, resources=MethodResources(memory=tmp_path / "m")))
    assert SweepPlan.from_json(plan.to_json(), "manifest.json") == plan
    assert plan.to_json()["max_steps"] == 4 and plan.to_json()["resources"] == {"memory": str(tmp_path / "m")}
    with pytest.raises(SweepStateError, match="max_steps is a str"):
        SweepPlan.from_json({**plan.to_json(), "max_steps": "4"}, "manifest.json")
