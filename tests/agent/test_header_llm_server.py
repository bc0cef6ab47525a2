"""The trajectory header keeps what the LLM's server said about itself; headers without it still read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from latent_agent.agent.trajectory import SCHEMA_VERSION, EpisodeHeader, TrajectoryWriter, read_trajectory
from latent_agent.llm.discovery import ServerProfile

HEADER: dict[str, Any] = {
    "episode_id": "ep", "goal": "Turn off data roaming", "normalized_goal": "Turn off data roaming",
    "method": "zero-shot+", "grounder": "paper", "llm": "llamacpp qwen2.5-coder-0.5b", "device": "SimDevice",
    "max_steps": 2, "started_at": 0.0,
}


def test_the_discovered_server_is_written_and_read_back(tmp_path: Path) -> None:
    profile = ServerProfile("llama.cpp", 8192, "GET /props default_generation_settings.n_ctx", False, False, "server")
    writer = TrajectoryWriter(tmp_path / "ep", EpisodeHeader(**HEADER, llm_server=profile.to_json()))
    writer.close()
    line = json.loads((tmp_path / "ep" / "trajectory.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert line["llm_server"]["context_window"] == 8192 and line["llm_server"]["native_n"] is False
    header = read_trajectory(tmp_path / "ep").header
    assert header.llm_server is not None and ServerProfile.from_json(header.llm_server) == profile


def test_a_header_without_it_reads_as_none(tmp_path: Path) -> None:
    (tmp_path / "ep").mkdir()
    (tmp_path / "ep" / "trajectory.jsonl").write_text(
        json.dumps({"record": "episode", "schema_version": SCHEMA_VERSION, **HEADER}) + "\n", encoding="utf-8")
    assert read_trajectory(tmp_path / "ep").header.llm_server is None
