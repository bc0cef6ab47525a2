"""Harvesting a memory from sweeps, and the ``memory`` command line."""

from __future__ import annotations

import json
import shutil
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from latent_agent.agent.episode import MAX_GOAL_CHARS
from latent_agent.agent.episode_files import MAX_SCREEN_BYTES, MAX_TRAJECTORY_BYTES
from latent_agent.agent.exemplars.memory import ExemplarMemory
from latent_agent.benchmarks.demos_episodes import demos_from_sweeps
from latent_agent.benchmarks.harvest import build_memory, check_splits, harvest
from latent_agent.benchmarks.results import RESULTS_FILE
from latent_agent.benchmarks.sim_tasks import load_suite
from latent_agent.cli.main import main
from latent_agent.demo.standins.gemini import GeminiStandIn
from latent_agent.errors import ConfigError, InputError, SweepStateError
from latent_agent.llm.embed.hashing import HashingEmbedder
from latent_agent.llm.scripted import ScriptedModel

TRAIN = ("settings_roaming_off", "settings_airplane_on", "clock_alarm_6am")
EVAL = ("settings_mobile_data_off",)
KEY = "sk-harvest-test-3c9d1e"


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A demo sweep over three training tasks and one evaluation task (every check passes)."""
    out = tmp_path_factory.mktemp("harvest") / "sweep"
    assert main(["sweep", "--suite", "sim", "--methods", "zero-shot+", "--devices", "sim", "--llm", "demo",
                 "--tasks", ",".join(TRAIN + EVAL), "--out", str(out), "--no-progress", "--no-screenshots"]) == 0
    yield out


def _edit_results(sweep: Path, tmp_path: Path, edits: dict[str, dict[str, object]]) -> Path:
    copy = tmp_path / "copy"
    shutil.copytree(sweep, copy)
    lines = []
    for line in (copy / RESULTS_FILE).read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        obj.update(edits.get(obj["task_id"], {}))
        lines.append(json.dumps(obj) + "\n")
    (copy / RESULTS_FILE).write_text("".join(lines), encoding="utf-8")
    return copy


def test_only_checked_training_episodes_become_exemplars(sweep: Path) -> None:
    found = harvest([sweep])
    assert sorted(x.source.task or "" for x in found.exemplars) == sorted(TRAIN)
    assert found.skip_counts() == {"eval split": 1}
    assert all(x.source.split == "train" and x.source.checked for x in found.exemplars)
    assert {x.family for x in found.exemplars} == {"settings-network", "clock-new-alarm"}
    assert found.families == {"settings-network": 2, "clock-new-alarm": 1}


def test_an_episode_repeating_a_kept_exemplars_goal_and_actions_is_left_out(sweep: Path) -> None:
    # The same sweep harvested twice: every episode of the second repeats one of the first.
    found = harvest([sweep, sweep])
    assert len(found.exemplars) == len(TRAIN)
    repeats = [s for s in found.skipped if s.reason == "same goal and actions as an exemplar kept"]
    assert len(repeats) == len(TRAIN) and {s.detail for s in repeats} == {x.id for x in found.exemplars}


def test_keys_are_the_goals_and_the_training_tasks_paraphrases(sweep: Path) -> None:
    found = harvest([sweep])
    suite = {t.id: t for t in load_suite()}
    texts = {k.text for k in found.keys}
    for task in TRAIN:
        assert {suite[task].goal, *suite[task].goal_variants} <= texts
    for task in EVAL:
        assert not ({suite[task].goal, *suite[task].goal_variants} & texts)
    by_goal = {k.text: k for k in found.keys}
    assert by_goal[suite["clock_alarm_6am"].goal].exemplar == "clock_alarm_6am__zero-shot+__s0"
    assert all(by_goal[v].exemplar is None for v in suite["clock_alarm_6am"].goal_variants)


def test_failed_errored_and_unjudged_episodes_are_skipped(sweep: Path, tmp_path: Path) -> None:
    copy = _edit_results(sweep, tmp_path, {"settings_roaming_off": {"success": False},
                                           "settings_airplane_on": {"status": "error"},
                                           "clock_alarm_6am": {"success": None}})
    found = harvest([copy])
    assert found.exemplars == ()
    assert found.skip_counts() == {"check failed": 1, "errored": 1, "no automatic check": 1, "eval split": 1}
    with pytest.raises(InputError, match=r"can be an exemplar \(1 check failed, 1 errored, 1 eval split, "
                                         r"1 no automatic check\)"):
        build_memory(found, HashingEmbedder())


def test_a_task_whose_split_changed_to_eval_is_no_longer_harvested(sweep: Path) -> None:
    tasks = [t if t.id != "clock_alarm_6am" else type(t)(**{**{f: getattr(t, f) for f in t.__dataclass_fields__},
                                                           "split": "eval"})
             for t in load_suite()]
    found = harvest([sweep], tasks=tasks)
    assert "clock_alarm_6am" not in {x.source.task for x in found.exemplars}
    assert found.skip_counts()["eval split"] == 2


def test_an_unreadable_trajectory_is_skipped_with_its_reason(sweep: Path, tmp_path: Path) -> None:
    copy = _edit_results(sweep, tmp_path, {})
    (copy / "episodes" / "clock_alarm_6am__zero-shot+__s0" / "trajectory.jsonl").write_text("{", encoding="utf-8")
    found = harvest([copy])
    assert found.skip_counts()["trajectory unreadable"] == 1
    assert len(found.exemplars) == 2


@pytest.mark.parametrize(("splits", "message"), [
    (["eval"], "never harvested from the evaluation splits"),
    (["train", "heldout"], "never harvested from the evaluation splits"),
    (["dev"], "unknown split"),
    ([""], "unknown split"),
])
def test_evaluation_and_unknown_splits_are_refused(splits: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        check_splits(splits)


def test_a_directory_that_is_not_a_sweep(tmp_path: Path) -> None:
    with pytest.raises(SweepStateError, match="is not a sweep directory"):
        harvest([tmp_path])


# ---------------------------------------------------------------- the command line


def test_memory_build_stats_show_query(sweep: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "M"
    assert main(["memory", "build", str(sweep), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "3 exemplar(s) of 2 families" in printed and "skipped 1 episode(s): eval split" in printed
    memory = ExemplarMemory.load(out)
    assert memory.embedder.spec == "minilm:all-MiniLM-L6-v2-int8"

    assert main(["memory", "stats", str(out)]) == 0
    stats = capsys.readouterr().out
    assert "exemplars: 3, families: 2" in stats and "settings-network" in stats

    assert main(["memory", "show", str(out)]) == 0
    assert "clock_alarm_6am__zero-shot+__s0\tclock-new-alarm" in capsys.readouterr().out
    assert main(["memory", "show", str(out), "settings_roaming_off__zero-shot+__s0"]) == 0
    shown = capsys.readouterr().out
    assert 'piece 2: screen of' in shown and '- Tap "Network & internet"  ->  {"action_type": "click"' in shown

    assert main(["memory", "query", str(out), "Wake me up at seven"]) == 0
    assert "family clock-new-alarm" in capsys.readouterr().out
    assert main(["memory", "query", str(out), "Order a pizza"]) == 0
    assert "no family" in capsys.readouterr().out
    assert main(["memory", "query", str(out), "  "]) == 2
    assert capsys.readouterr().err.strip() == "latent-agent: error: memory query: the goal is empty"

    assert main(["memory", "stats", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["exemplars"] == 3


def test_memory_build_refuses_an_existing_memory_and_an_evaluation_split(
        sweep: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "M"
    assert main(["memory", "build", str(sweep), "--out", str(out), "--embedder", "hash"]) == 0
    assert main(["memory", "build", str(sweep), "--out", str(out), "--embedder", "hash"]) == 2
    assert "already holds an exemplar memory" in capsys.readouterr().err
    assert main(["memory", "build", str(sweep), "--out", str(out), "--embedder", "hash:64", "--force"]) == 0
    assert ExemplarMemory.load(out).embedder.dimension == 64
    assert main(["memory", "build", str(sweep), "--out", str(tmp_path / "N"), "--split", "eval"]) == 2
    assert "never harvested from the evaluation splits" in capsys.readouterr().err
    assert not (tmp_path / "N").exists()
    assert main(["memory", "show", str(out), "nope"]) == 2
    assert "no exemplar 'nope'" in capsys.readouterr().err


def test_memory_build_force_keeps_the_old_memory_when_the_new_one_cannot_be_built(
        sweep: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "M"
    assert main(["memory", "build", str(sweep), "--out", str(out), "--embedder", "hash"]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    for variable in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    capsys.readouterr()
    # The Gemini embedder has no key here: the build fails before anything is replaced.
    assert main(["memory", "build", str(sweep), "--out", str(out), "--embedder", "gemini", "--force"]) != 0
    assert "key" in capsys.readouterr().err.lower()
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert ExemplarMemory.load(out).embedder.spec.startswith("hash")


def test_memory_with_gemini_embeddings_through_the_stand_in(
        sweep: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "G"
    with GeminiStandIn(ScriptedModel(responder=lambda r: "", model="m"), api_key=KEY) as server:
        assert main(["memory", "build", str(sweep), "--out", str(out), "--embedder", "gemini",
                     "--embedder-base-url", server.url, "--embedder-api-key", KEY]) == 0
        assert main(["memory", "query", str(out), "Turn off data roaming", "--embedder-base-url", server.url,
                     "--embedder-api-key", KEY]) == 0
        assert "family settings-network" in capsys.readouterr().out
        assert all(s.path.endswith(":batchEmbedContents") for s in server.seen)
    memory = ExemplarMemory.load(out)
    assert memory.embedder.spec == "gemini:gemini-embedding-001" and memory.embedder.dimension == 768
    assert KEY not in "".join(p.read_text(encoding="utf-8", errors="replace") for p in out.iterdir()
                              if p.suffix != ".npy")
    with pytest.raises(ConfigError, match="built with embedder gemini:gemini-embedding-001"):
        ExemplarMemory.load(out, embedder=HashingEmbedder().info)


# -- a copied sweep read by memory build and demos build (issue 29 item 3) --------------------------------


SECRET = "Turn off data roaming, says another episode"


def _elsewhere_episode(sweep: Path, where: Path) -> Path:
    """A copy of one of the sweep's episodes outside it, with a goal of its own."""
    episode = shutil.copytree(sweep / "episodes" / "settings_roaming_off__zero-shot+__s0", where)
    lines = (episode / "trajectory.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header["goal"] = header["normalized_goal"] = SECRET
    (episode / "trajectory.jsonl").write_text(json.dumps(header) + "\n" + "".join(lines[1:]), encoding="utf-8")
    return Path(episode)


@pytest.mark.parametrize("planted", ["absolute", "climbing", "linked"])
def test_memory_and_demos_build_read_no_trajectory_outside_the_sweep(sweep: Path, tmp_path: Path, planted: str,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    outside = _elsewhere_episode(sweep, tmp_path / "other" / "episode")
    value = {"absolute": str(outside), "climbing": "../other/episode", "linked": "episodes/linked"}[planted]
    copy = _edit_results(sweep, tmp_path, {"settings_roaming_off": {"trajectory": value}})
    if planted == "linked":
        (copy / "episodes" / "linked").symlink_to(outside, target_is_directory=True)
    for build in (harvest, demos_from_sweeps):
        with pytest.raises(SweepStateError, match=r"results\.jsonl: trajectory of episode .*(not a relative path "
                                                  r"inside|leads outside)"):
            build([copy])
    out = tmp_path / "memory"
    assert main(["memory", "build", str(copy), "--out", str(out), "--embedder", "hash"]) == 2
    assert main(["demos", "build", "--from", str(copy), "--llm", "scripted:echo", "--out", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and SECRET not in err, err
    assert not out.exists() and not (tmp_path / "d" / "demos.json").exists()


def _grown(path: Path, size: int) -> None:
    """``path`` made ``size`` bytes long without writing them (a sparse file: nothing to read, much to refuse)."""
    with path.open("r+b") as fh:
        fh.truncate(size)


@pytest.mark.parametrize("which", ["dump", "trajectory"])
def test_a_huge_file_in_a_copied_sweep_is_skipped_before_it_is_read(sweep: Path, tmp_path: Path, which: str) -> None:
    copy = _edit_results(sweep, tmp_path, {})
    episode = copy / "episodes" / "settings_roaming_off__zero-shot+__s0"
    if which == "dump":
        _grown(sorted((episode / "screens").glob("*.xml"))[0], MAX_SCREEN_BYTES + 1)
    else:
        _grown(episode / "trajectory.jsonl", MAX_TRAJECTORY_BYTES + 1)
    tracemalloc.start()
    try:
        found = harvest([copy])
        demos = demos_from_sweeps([copy])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found.skip_counts()["too large"] == 1
    assert "settings_roaming_off" not in {x.source.task for x in found.exemplars} and len(found.exemplars) == 2
    assert demos.skipped["too large"] == 1 and len(demos.demos) == 2
    assert peak < 16_000_000, peak  # the file's 32 or 64 MB were never read


def test_a_goal_longer_than_a_run_accepts_is_not_harvested(sweep: Path, tmp_path: Path) -> None:
    copy = _edit_results(sweep, tmp_path, {})
    trajectory = copy / "episodes" / "settings_roaming_off__zero-shot+__s0" / "trajectory.jsonl"
    lines = trajectory.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header["goal"] = "Turn off data roaming " * (MAX_GOAL_CHARS // 10)
    trajectory.write_text(json.dumps(header) + "\n" + "".join(lines[1:]), encoding="utf-8")
    assert harvest([copy]).skip_counts()["goal longer than a run accepts"] == 1
    assert demos_from_sweeps([copy]).skipped["goal longer than a run accepts"] == 1
