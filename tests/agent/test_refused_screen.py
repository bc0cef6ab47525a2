"""A run that started ends with an end record, also when the device sends a screen no agent can use
(issue 29 item 7): a screenshot declaring 400 megapixels is refused before it is decoded, and the episode
stops on the device's account (``device_error``) with the refusal in its record, instead of ending without one."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import pytest

from latent_agent import api
from latent_agent.agent.trajectory import TRAJECTORY_FILE
from latent_agent.cli.main import main
from latent_agent.device.sim.device import SimDevice


def _declaring(width: int, height: int) -> bytes:
    """A PNG of a few dozen bytes whose header declares ``width`` x ``height`` pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")


class BombingPhone(SimDevice):
    """The simulated phone, its screenshots replaced by one declaring 20,000 x 20,000 pixels."""

    def screenshot(self) -> bytes:
        return _declaring(20_000, 20_000)


@pytest.mark.parametrize("observation", ["screen", "both"])
def test_a_refused_screenshot_ends_the_run_with_an_end_record(tmp_path: Path, observation: str,
                                                              monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    # The name the command calls (the API imports it at its top).
    monkeypatch.setattr(api, "load_device", lambda text, noise=None: BombingPhone())
    out = tmp_path / "episode"
    status = main(["run", "Turn off data roaming", "--device", "sim", "--llm", "scripted:echo",
                   "--observation", observation, "--out", str(out)])
    records = [json.loads(line) for line in (out / TRAJECTORY_FILE).read_text(encoding="utf-8").splitlines()]
    assert records[-1]["record"] == "end", records[-1]
    end = records[-1]
    assert end["stop_reason"] == "device_error" and "400000000 pixels" in end["detail"], end
    assert status == 3, capsys.readouterr().err  # the device's failure, as the exit status table says
