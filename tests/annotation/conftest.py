"""Fixtures: real trajectories recorded on the simulated phone (no LLM), and a forms helper."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from annotation.answers import AnswerSet, answers_to_json
from annotation.forms import MANIFEST_FILE, FormsManifest, FormSpec, manifest_to_json
from annotation.questions import FormKind
from annotation.sim_episodes import record_sim_episode


@pytest.fixture(scope="session")
def sim_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run directory with two episodes: roaming off (5 steps) and the flashlight (short)."""
    run = tmp_path_factory.mktemp("run")
    record_sim_episode(run / "ep_roaming", "settings_roaming_off", seed=1)
    record_sim_episode(run / "ep_flash", "qs_flashlight_on", seed=2, method="-ZS")
    return run


def write_manifest(forms_dir: Path, forms: list[FormSpec], raters: tuple[str, ...]) -> Path:
    """A forms directory as annotate export would leave it (manifest only: no HTML needed to import)."""
    forms_dir.mkdir(parents=True, exist_ok=True)
    kind = forms[0].kind if forms else FormKind.LATENT
    manifest = FormsManifest(kind, raters, tuple(f.with_digest() for f in forms))
    (forms_dir / MANIFEST_FILE).write_text(json.dumps(manifest_to_json(manifest)), encoding="utf-8")
    return forms_dir


WriteAnswers = Callable[[Path, FormSpec, str, dict[str, dict[str, str]]], Path]


def write_answers(directory: Path, form: FormSpec, rater: str, answers: dict[str, dict[str, str]]) -> Path:
    """An answer file for ``form`` exactly as the form's Save button writes it."""
    form = form.with_digest()
    a = AnswerSet(form.form_id, form.digest, rater, form.episode.episode_id, form.kind,
                  "2024-05-17T10:00:00.000Z", answers, {})
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{form.form_id}.{rater}.answers.json"
    path.write_text(json.dumps(answers_to_json(a)), encoding="utf-8")
    return path
