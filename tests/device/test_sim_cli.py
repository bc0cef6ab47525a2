"""``latent-agent sim screen`` and ``sim tasks``, and the renderer's font fallback."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from latent_agent.accessibility.parse_xml import parse_xml
from latent_agent.cli import main


def test_sim_screen_with_a_screenshot_prints_nothing_else(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shot = tmp_path / "clock.png"
    assert main(["sim", "screen", "--app", "the clock app", "--seed", "3", "--screenshot", str(shot)]) == 0
    assert capsys.readouterr().out == ""  # only the screenshot was asked for, not 30 KB of XML as well
    assert Image.open(io.BytesIO(shot.read_bytes())).size == (1080, 2400)


def test_sim_screen_prints_the_dump_by_default_and_beside_a_screenshot_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sim", "screen", "--app", "the clock app", "--seed", "3"]) == 0
    tree = parse_xml(capsys.readouterr().out.encode())
    assert {n.package for n in tree.iter()} == {"com.google.android.deskclock"}
    shot = tmp_path / "clock.png"
    assert main(["sim", "screen", "--app", "clock", "--screenshot", str(shot), "--format", "xml"]) == 0
    assert {n.package for n in parse_xml(capsys.readouterr().out.encode()).iter()} == {"com.google.android.deskclock"}
    assert shot.is_file()


def test_sim_screen_without_app_shows_home_and_nl_format(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "screen", "--format", "nl"]) == 0
    out = capsys.readouterr().out
    assert '"Play Store"' in out and "<node" not in out


def test_sim_screen_with_noise(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "screen", "--app", "clock", "--format", "nl"]) == 0
    assert '"More options"' in capsys.readouterr().out
    assert main(["sim", "screen", "--app", "clock", "--format", "nl", "--noise", "unlabeled_buttons=1"]) == 0
    assert '"More options"' not in capsys.readouterr().out
    assert main(["sim", "screen", "--noise", "paper,loudness=2"]) == 2
    err = capsys.readouterr().err
    assert "unknown knob 'loudness'" in err and err.count("\n") == 1


def test_sim_screen_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "screen", "--app", "Zzyzx"]) == 2
    assert "no installed app matches 'Zzyzx'" in capsys.readouterr().err
    assert main(["sim", "screen", "--screenshot", str(tmp_path / "x.jpg")]) == 2
    assert ".png" in capsys.readouterr().err
    assert main(["sim", "screen", "--screenshot", str(tmp_path / "missing" / "x.png")]) == 2
    assert "cannot write screenshot" in capsys.readouterr().err
    for argv in (["sim", "screen", "--seed", "-1"], ["sim", "serve", "--port", "0", "--seed", "-1"]):
        assert main(argv) == 2
        captured = capsys.readouterr()
        assert captured.err == "latent-agent: error: sim seed must be an integer >= 0, not -1\n"
        assert captured.out == ""


def test_negative_seeds_are_config_errors() -> None:
    from latent_agent.device.sim.device import SimDevice
    from latent_agent.device.spec import load_device
    from latent_agent.errors import ConfigError

    with pytest.raises(ConfigError, match=">= 0"):
        SimDevice(seed=-3)
    with pytest.raises(ConfigError, match=">= 0"):
        load_device("sim:-3")


def test_sim_tasks_lists_the_suite(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "tasks"]) == 0
    captured = capsys.readouterr()
    assert "settings_roaming_off" in captured.out and "tasks" in captured.err
    assert main(["sim", "tasks", "--app", "clock", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows and {r["app"] for r in rows} == {"Clock"}
    assert main(["sim", "tasks", "--app", "nosuchapp"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("latent-agent: error: no sim tasks for app 'nosuchapp'; apps with tasks: Calendar,")


def test_screenshots_work_without_the_dejavu_font(monkeypatch: pytest.MonkeyPatch) -> None:
    from PIL import ImageFont

    from latent_agent.device.sim import render
    from latent_agent.device.sim.device import SimDevice

    real_truetype = ImageFont.truetype

    def missing(font: object = None, *args: object, **kwargs: object) -> ImageFont.FreeTypeFont:
        # No font files on this "machine"; Pillow's own embedded font (bytes) still loads.
        if isinstance(font, str):
            raise OSError("cannot open resource")
        return real_truetype(font, *args, **kwargs)  # type: ignore[arg-type]

    render.font.cache_clear()
    monkeypatch.setattr(ImageFont, "truetype", missing)
    try:
        fallback = render.font(40)
        assert "DejaVu" not in str(getattr(fallback, "path", ""))
        dev = SimDevice()
        dev.open_app("Settings")
        image = Image.open(io.BytesIO(dev.screenshot())).convert("L")
        darkest = image.crop((150, 300, 900, 500)).getextrema()[0]
        assert isinstance(darkest, int) and darkest < 80  # text was drawn
    finally:
        render.font.cache_clear()


def test_serving_on_a_port_in_use_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    from latent_agent.device.adb_server.cli import main as serve_main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["sim", "serve", "--port", str(port)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"latent-agent: error: cannot listen on 127.0.0.1:{port}: ") and err.count("\n") == 1
        assert serve_main(["--port", str(port)]) == 2
        assert capsys.readouterr().err.startswith(f"error: cannot listen on 127.0.0.1:{port}: ")
