"""Fixtures: real trajectories recorded on the simulated phone (no LLM), and a forms helper."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from latent_agent.annotation.answers import AnswerSet, answers_to_json
from latent_agent.annotation.forms import MANIFEST_FILE, FormsManifest, FormSpec, manifest_to_json
from latent_agent.annotation.questions import FormKind
from latent_agent.benchmarks.results import EpisodeRecord, EpisodeStatus, ResultsLog, StopJudgement
from latent_agent.demo.episodes import record_sim_episode


@pytest.fixture(scope="session")
def sim_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run directory with two episodes: roaming off (5 steps) and the flashlight (short)."""
    run = tmp_path_factory.mktemp("run")
    record_sim_episode(run / "ep_roaming", "settings_roaming_off", seed=1)
    record_sim_episode(run / "ep_flash", "qs_flashlight_on", seed=2, method="-ZS")
    return run


ROAMING = "settings_roaming_off__zero-shot+__s1"
FLASH = "qs_flashlight_on__zero-shot-__s2"


@pytest.fixture(scope="session")
def recorded_failures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("errors_sweep")
    record_sim_episode(root / "episodes" / ROAMING, "settings_roaming_off", seed=1, method="zero-shot+")
    record_sim_episode(root / "episodes" / FLASH, "qs_flashlight_on", seed=2, method="zero-shot-")
    return root


@pytest.fixture()
def failed_sweep(recorded_failures: Path, tmp_path: Path) -> Path:
    """A sweep of two episodes: roaming failed (two grounding errors), the flashlight's outcome left to raters.

    A fresh copy per test (tests add forms, ratings and reports to it).
    """
    out = tmp_path / "sweep"
    shutil.copytree(recorded_failures, out)
    log = ResultsLog(out)
    common = {"suite": "sim", "device": "sim#1", "attempt": 1, "status": EpisodeStatus.FINISHED, "steps": 5}
    log.append(EpisodeRecord(key=ROAMING, task_id="settings_roaming_off", goal="Turn off data roaming",
                             method="zero-shot+", seed=1, success=False, grounding_errors=2,
                             stop_reason="max_steps", stop_judgement=StopJudgement.DID_NOT_STOP,
                             trajectory=f"episodes/{ROAMING}", **common))  # type: ignore[arg-type]
    log.append(EpisodeRecord(key=FLASH, task_id="qs_flashlight_on", goal="Turn on the flashlight",
                             method="zero-shot-", seed=2, success=None, stop_reason="done",
                             trajectory=f"episodes/{FLASH}", **common))  # type: ignore[arg-type]
    return out


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
