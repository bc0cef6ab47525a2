"""Exemplar memory: the on-disk format, retrieval (vote, floor, paraphrases) and piece cutting."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from latent_agent.agent.exemplars.memory import (
    EXEMPLARS,
    KEYS,
    MANIFEST,
    VECTORS,
    Exemplar,
    ExemplarMemory,
    ExemplarStep,
    GoalKey,
    MemoryFormatError,
    Piece,
    Source,
)
from latent_agent.agent.exemplars.pieces import PieceError, cut, element_at, identity, screen_elements
from latent_agent.agent.exemplars.retrieval import DEFAULT_FLOOR, Retriever
from latent_agent.agent.trajectory import Trajectory, read_trajectory
from latent_agent.cli.main import main
from latent_agent.errors import ConfigError, InputError, OutputPathError
from latent_agent.grounder.actions import Click, InputText, OpenApp, Scroll, point_of
from latent_agent.llm.embed.base import EmbedderInfo, normalise
from latent_agent.llm.embed.hashing import HashingEmbedder
from latent_agent.llm.embed.minilm import MiniLMEmbedder

# ---------------------------------------------------------------- the format


def _exemplar(n: int, family: str, *, observation: str | None = None) -> Exemplar:
    steps = (ExemplarStep('Tap "Network & internet"', Click(440, 375), True),
             ExemplarStep("Type the name", InputText("Zoë Müller", 10, 20), False))
    return Exemplar(
        id=f"x{n}", goal=f"goal number {n}", family=family,
        pieces=(Piece("a screen\n  a button \"OK\"", observation, steps),
                Piece("another screen", None, (ExemplarStep("Open Clock", OpenApp("Clock"), True),))),
        source=Source(run="runs/train", episode=f"task{n}__zero-shot+__s0", task=None if n % 2 else f"task{n}",
                      method="zero-shot+", checked=True, split="train", seed=None if n % 2 else n),
    )


def _memory(dimension: int = 8) -> ExemplarMemory:
    exemplars = (_exemplar(1, "alpha", observation="Roaming switch at index 3, ON"), _exemplar(2, "alpha"),
                 _exemplar(3, "beta"))
    keys = (GoalKey("goal number 1", "alpha", "x1"), GoalKey("goal number 2", "alpha", "x2"),
            GoalKey("a paraphrase", "alpha"), GoalKey("goal number 3", "beta", "x3"))
    vectors = normalise(np.random.default_rng(0).normal(size=(len(keys), dimension)))
    return ExemplarMemory(exemplars, keys, vectors, EmbedderInfo("hash", str(dimension), dimension),
                          runs=("runs/train",), created_at=1_700_000_000.0)


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    path = tmp_path / "M"
    _memory().save(path)
    return path


def test_round_trip_keeps_everything(saved: Path) -> None:
    original = _memory()
    loaded = ExemplarMemory.load(saved)
    assert loaded.exemplars == original.exemplars
    assert loaded.keys == original.keys
    assert np.array_equal(loaded.vectors, original.vectors)
    assert loaded.embedder == original.embedder
    assert loaded.runs == original.runs and loaded.created_at == original.created_at
    assert loaded.exemplars_of("alpha") == original.exemplars[:2]
    assert loaded.exemplars_of("gamma") == ()
    assert loaded.exemplar("x3").family == "beta"
    assert sorted(p.name for p in saved.iterdir()) == sorted([MANIFEST, EXEMPLARS, KEYS, VECTORS])


def test_files_are_versioned_and_one_object_a_line(saved: Path) -> None:
    manifest = json.loads((saved / MANIFEST).read_text())
    assert manifest["schema_version"] == 1 and manifest["kind"] == "latent-agent/exemplar-memory"
    assert manifest["embedder"] == {"name": "hash", "model": "8", "dimension": 8}
    assert manifest["counts"] == {"exemplars": 3, "keys": 4, "families": 2, "pieces": 6, "steps": 9}
    lines = (saved / EXEMPLARS).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and all(json.loads(line)["schema_version"] == 1 for line in lines)
    assert np.load(saved / VECTORS).dtype == np.float32


def test_save_never_overwrites(saved: Path) -> None:
    with pytest.raises(OutputPathError, match="already exists and is not an empty directory"):
        _memory().save(saved)


def test_load_refuses_a_memory_of_another_embedder(saved: Path) -> None:
    other = EmbedderInfo("minilm", "all-MiniLM-L6-v2-int8", 384)
    with pytest.raises(ConfigError, match=r"built with embedder hash:8 \(dimension 8\); it cannot be queried with "
                                          r"minilm:all-MiniLM-L6-v2-int8 \(dimension 384\)"):
        ExemplarMemory.load(saved, embedder=other)
    assert ExemplarMemory.load(saved, embedder=EmbedderInfo("hash", "8", 8)).keys


def _rewrite_line(path: Path, number: int, text: str | None) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    if text is None:
        del lines[number - 1]
    else:
        lines[number - 1] = text
    path.write_text("".join(lines), encoding="utf-8")


@pytest.mark.parametrize(("file", "line", "text", "message"), [
    (EXEMPLARS, 2, "{not json\n", r"exemplars.jsonl:2: not JSON"),
    (EXEMPLARS, 3, "[1, 2]\n", r"exemplars.jsonl:3: not a JSON object"),
    (KEYS, 1, '{"schema_version": 7, "text": "t", "family": "f"}\n', r"keys.jsonl:1: schema_version 7 is not"),
    (KEYS, 2, '{"schema_version": 1, "text": "t", "family": "f", "exemplar": "x9"}\n',
     r"keys.jsonl:2: key names exemplar 'x9'"),
    (KEYS, 3, '{"schema_version": 1, "text": "", "family": "f"}\n', r"keys.jsonl:3: key: 'text' is empty"),
    (EXEMPLARS, 1, None, r"exemplars.jsonl: holds 2 exemplars but manifest.json counts 3"),
    (KEYS, 4, None, r"keys.jsonl: holds 3 keys but manifest.json counts 4"),
])
def test_bad_lines_are_refused_naming_file_and_line(saved: Path, file: str, line: int, text: str | None,
                                                     message: str) -> None:
    _rewrite_line(saved / file, line, text)
    with pytest.raises(MemoryFormatError, match=message):
        ExemplarMemory.load(saved)


def test_a_bad_action_names_the_line(saved: Path) -> None:
    obj = json.loads((saved / EXEMPLARS).read_text().splitlines()[1])
    obj["pieces"][0]["steps"][0]["action"] = {"action_type": "teleport"}
    _rewrite_line(saved / EXEMPLARS, 2, json.dumps(obj) + "\n")
    with pytest.raises(MemoryFormatError, match=r"exemplars.jsonl:2: .*teleport"):
        ExemplarMemory.load(saved)


def test_a_cut_off_file_is_refused(saved: Path) -> None:
    data = (saved / EXEMPLARS).read_bytes()
    (saved / EXEMPLARS).write_bytes(data[: len(data) - 40])
    with pytest.raises(MemoryFormatError, match=r"exemplars.jsonl:3: last line is cut off"):
        ExemplarMemory.load(saved)


@pytest.mark.parametrize("missing", [MANIFEST, EXEMPLARS, KEYS, VECTORS])
def test_a_missing_file_is_named(saved: Path, missing: str) -> None:
    (saved / missing).unlink()
    with pytest.raises(MemoryFormatError, match=f"{missing}: missing"):
        ExemplarMemory.load(saved)


def test_vectors_that_are_not_unit_are_refused(saved: Path) -> None:
    np.save(saved / VECTORS, np.full((4, 8), 3.0, dtype=np.float32))
    with pytest.raises(MemoryFormatError, match=r"vectors\.npy: rows are not unit vectors"):
        ExemplarMemory.load(saved)


def test_a_directory_that_is_not_a_memory(tmp_path: Path) -> None:
    (tmp_path / MANIFEST).write_text('{"schema_version": 1, "suite": "sim"}')
    with pytest.raises(MemoryFormatError, match="not an exemplar memory manifest"):
        ExemplarMemory.load(tmp_path)
    with pytest.raises(MemoryFormatError, match="not a memory directory"):
        ExemplarMemory.load(tmp_path / "nowhere")


def test_unknown_exemplar_id() -> None:
    with pytest.raises(InputError, match="no exemplar 'x42'"):
        _memory().exemplar("x42")


# ---------------------------------------------------------------- retrieval

#: Goal strings of each family (the sim suite's training goals and their listed variants): the keys.
FAMILY_KEYS = {
    "settings-network": ("Turn off data roaming", "Disable data roaming", "Switch data roaming off",
                         "Stop the phone from roaming on other networks", "Turn on airplane mode",
                         "Enable airplane mode", "Switch the phone to flight mode", "Put the phone in airplane mode"),
    "settings-display": ("Turn on dark theme", "Enable the dark theme", "Switch the screen to dark mode",
                         "Make the display dark", "Set the screen timeout to 5 minutes",
                         "Turn the screen off after 5 minutes of inactivity"),
    "settings-connected-devices": ("Turn off Bluetooth", "Disable Bluetooth", "Switch Bluetooth off",
                                   "Turn Bluetooth off in the connection preferences"),
    "quick-settings-tile": ("Turn on the flashlight", "Switch on the torch", "Enable the flashlight"),
    "clock-settings": ("Change the clock display to digital", "Show the clock as digital",
                       "Set the alarm snooze length to 15 minutes", "Snooze alarms for 15 minutes"),
    "clock-new-alarm": ("Set an alarm for 6 AM", "Create an alarm at 6 AM", "Wake me up at 6 in the morning"),
    "clock-tools": ("Start the stopwatch", "Begin timing with the stopwatch", "Run the stopwatch"),
    "chrome-menu": ("Open a new tab in the chrome app", "Open a new Chrome tab", "Create a new browser tab"),
    "chrome-webshop": ("Open shop.example.com in Chrome", "Visit shop.example.com",
                       "Add headphones to my cart on shop.example.com"),
    "play-store-install": ("Install Spotify", "Download Spotify from the Play Store", "Get the Spotify app"),
    "files-new-folder": ("Create a new folder called Projects", "Make a folder named Projects"),
}
#: Paraphrases none of the keys holds, and the family each belongs to.
PARAPHRASES = {
    "Please stop data roaming when I travel": "settings-network",
    "Put the phone into flight mode now": "settings-network",
    "I want the dark appearance for the display": "settings-display",
    "Disable the Bluetooth radio": "settings-connected-devices",
    "Light up the torch": "quick-settings-tile",
    "I would like to be woken at six in the morning": "clock-new-alarm",
    "Use the digital style for the clock": "clock-settings",
    "Time something with the stopwatch": "clock-tools",
    "Open one more tab in the browser": "chrome-menu",
    "Put a pair of headphones in the shopping cart on shop.example.com": "chrome-webshop",
    "Get Spotify onto the phone from the store": "play-store-install",
    "Make a new directory named Projects in Files": "files-new-folder",
}


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def _family_memory(embedder: MiniLMEmbedder | HashingEmbedder) -> ExemplarMemory:
    exemplars, keys = [], []
    for family, goals in FAMILY_KEYS.items():
        exemplar = _exemplar(len(exemplars), family)
        exemplars.append(Exemplar(f"{family}-1", goals[0], family, exemplar.pieces, exemplar.source))
        keys += [GoalKey(goal, family, f"{family}-1" if i == 0 else None) for i, goal in enumerate(goals)]
    return ExemplarMemory(tuple(exemplars), tuple(keys), embedder.embed([k.text for k in keys]), embedder.info)


def test_paraphrased_goals_retrieve_their_family_first(minilm: MiniLMEmbedder) -> None:
    retriever = Retriever(_family_memory(minilm), minilm)
    for goal, family in PARAPHRASES.items():
        found = retriever.retrieve(goal)
        assert (found.family, found.neighbours[0][0]) == (family, family), goal
        assert found.exemplars == retriever.memory.exemplars_of(family)
        assert found.similarity >= DEFAULT_FLOOR


@pytest.mark.parametrize("goal", ["Order a large pepperoni pizza", "What is the capital of France",
                                  "Write a poem about the sea"])
def test_an_unrelated_goal_falls_under_the_floor(minilm: MiniLMEmbedder, goal: str) -> None:
    found = Retriever(_family_memory(minilm), minilm).retrieve(goal)
    assert found.family is None and found.exemplars == ()
    assert found.similarity < DEFAULT_FLOOR
    assert len(found.neighbours) == 3


def _crafted(keys: list[tuple[str, list[float]]]) -> tuple[ExemplarMemory, HashingEmbedder]:
    embedder = HashingEmbedder("3")
    families = sorted({f for f, _ in keys})
    exemplars = tuple(Exemplar(f, f"goal of {f}", f, _exemplar(0, f).pieces, _exemplar(0, f).source)
                      for f in families)
    memory = ExemplarMemory(exemplars, tuple(GoalKey(f"k{i}", f) for i, (f, _) in enumerate(keys)),
                            normalise([v for _, v in keys]), embedder.info)
    return memory, embedder


def test_the_majority_of_the_top_k_beats_the_single_nearest_key() -> None:
    memory, embedder = _crafted([("a", [1, 0, 0]), ("b", [0.9, 0.3, 0]), ("b", [0.9, 0.35, 0]),
                                 ("c", [0, 0, 1])])
    found = Retriever(memory, embedder, floor=0.0).rank(normalise([[1, 0.01, 0]])[0])
    assert found.family == "b"
    assert [f for f, _ in found.neighbours] == ["a", "b", "b"]
    assert found.similarity == pytest.approx(found.neighbours[0][1])


def test_a_tie_in_votes_goes_to_the_most_similar_key() -> None:
    memory, embedder = _crafted([("a", [1, 0.2, 0]), ("b", [1, 0, 0]), ("c", [0, 1, 0])])
    found = Retriever(memory, embedder, floor=0.0).rank(normalise([[1, 0.05, 0]])[0])
    assert found.family == "b"


def test_the_floor_applies_to_the_nearest_key() -> None:
    memory, embedder = _crafted([("a", [1, 0, 0]), ("a", [1, 0.1, 0])])
    found = Retriever(memory, embedder, floor=0.9).rank(normalise([[0.5, 1, 0]])[0])
    assert found.family is None and found.exemplars == () and found.similarity < 0.9


def test_retriever_refuses_another_embedder(minilm: MiniLMEmbedder) -> None:
    with pytest.raises(ConfigError, match=r"built with embedder hash:8 .* cannot be searched with minilm"):
        Retriever(_memory(), minilm)
    with pytest.raises(ConfigError, match="k >= 1"):
        Retriever(_memory(), HashingEmbedder("8"), k=0)


# ---------------------------------------------------------------- piece cutting


@pytest.fixture(scope="module")
def demo_sweep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("sweep") / "train"
    code = main(["sweep", "--suite", "sim", "--methods", "zero-shot+", "--devices", "sim", "--llm", "demo",
                 "--tasks", "settings_roaming_off,clock_alarm_6am,chrome_shop_add_headphones,files_folder_projects",
                 "--out", str(out), "--no-progress", "--no-screenshots"])
    assert code == 0
    yield out


def _episode(sweep: Path, task: str) -> Trajectory:
    return read_trajectory(sweep / "episodes" / f"{task}__zero-shot+__s0")


def test_a_menu_path_is_one_piece_per_menu(demo_sweep: Path) -> None:
    pieces = cut(_episode(demo_sweep, "settings_roaming_off"))
    assert [[s.words for s in p.steps] for p in pieces] == [
        ["Open the Settings app"], ['Tap "Network & internet"'], ['Tap "SIMs"'], ['Tap "Roaming"']]
    assert all(s.screen_changed for p in pieces for s in p.steps)
    assert isinstance(pieces[0].steps[0].action, OpenApp)
    assert "Network & internet" not in pieces[0].screen and "Network & internet" in pieces[1].screen


def test_steps_on_one_screen_stay_in_one_piece(demo_sweep: Path) -> None:
    pieces = cut(_episode(demo_sweep, "clock_alarm_6am"))
    assert [len(p.steps) for p in pieces][-1] == 2
    assert [s.words for s in pieces[-1].steps] == ['Tap "6 o\'clock"', 'Tap "OK"']


@pytest.mark.parametrize("task", ["settings_roaming_off", "clock_alarm_6am", "chrome_shop_add_headphones",
                                  "files_folder_projects"])
def test_every_cut_follows_the_rule(demo_sweep: Path, task: str) -> None:
    trajectory = _episode(demo_sweep, task)
    pieces = cut(trajectory)
    executed = [s for s in trajectory.steps if s.executed and s.action is not None]
    assert [s.words for p in pieces for s in p.steps] == [s.selected_step for s in executed]
    by_words = iter(executed)
    for piece in pieces:
        records = [next(by_words) for _ in piece.steps]
        first = {identity(e) for e in screen_elements(trajectory, records[0])}
        assert piece.screen == records[0].description and piece.observation is None
        for record in records[1:]:
            point = point_of(record.action) if record.action is not None else None
            if point is not None:
                target = element_at(screen_elements(trajectory, record), *point)
                assert target is None or identity(target) in first  # within a piece: on its first screen
    for earlier, later in itertools.pairwise(pieces):
        start = next(s for s in executed if s.description == later.screen)
        point = point_of(start.action) if start.action is not None else None
        assert point is not None  # only a step with an on-screen target starts a piece
        earlier_first = next(s for s in executed if s.description == earlier.screen)
        target = element_at(screen_elements(trajectory, start), *point)
        assert target is not None
        assert identity(target) not in {identity(e) for e in screen_elements(trajectory, earlier_first)}


def test_an_unreadable_screen_is_a_piece_error(demo_sweep: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "episode"
    shutil.copytree(demo_sweep / "episodes" / "settings_roaming_off__zero-shot+__s0", copy)
    (copy / "screens" / "step_002.xml").write_text("<hierarchy><node", encoding="utf-8")
    with pytest.raises(PieceError, match=r"step_002.xml: cannot parse the screen of step 2"):
        cut(read_trajectory(copy))


def test_points_of_actions() -> None:
    assert point_of(Click(1, 2)) == (1, 2)
    assert point_of(InputText("x")) is None
    assert point_of(Scroll("down", 5, 6)) == (5, 6)
    assert point_of(OpenApp("Clock")) is None


def test_async_retrieval_matches_the_blocking_one(minilm: MiniLMEmbedder) -> None:
    import asyncio

    retriever = Retriever(_family_memory(minilm), minilm)
    goal = "Light up the torch"
    assert asyncio.run(retriever.aretrieve(goal)) == retriever.retrieve(goal)
