"""A misspelled device, provider or task is answered with the closest names (issue 33 item 6), in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from latent_agent.cli import main


@pytest.mark.parametrize(("args", "expected"), [
    (["--device", "simm", "--llm", "demo"], "unknown --device 'simm'; did you mean sim?"),
    (["--device", "sim", "--llm", "dmeo"],
     "unknown provider 'dmeo'; did you mean demo? the providers: demo, gemini, llamacpp, openai"),
    (["--device", "sim", "--llm", "demo", "--task", "settings_roaming_of"],
     "--task 'settings_roaming_of': the simulated phone has no task of that id; did you mean settings_roaming_off"),
])
def test_a_misspelled_name_is_answered_with_the_closest(args: list[str], expected: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "Turn off data roaming", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert expected in err and len(err.splitlines()) == 1
    # Registered names are listed as names, never as a Python list.
    assert "['" not in err


def test_the_llm_help_names_the_packaged_model_and_what_the_demo_plays(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "llamacpp:qwen2.5-coder-0.5b (the packaged model)" in text
    assert "stand-in for the sim suite and MiniWoB++'s" in text
    assert "sim tasks only" not in text


def test_a_value_is_echoed_as_it_was_typed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "Turn off data roaming", "--device", "sim", "--llm", "demo@abc"]) == 2
    err = capsys.readouterr().err
    assert "--llm demo@abc:" in err and "demo:gemini" not in err


def test_the_methods_list_keeps_its_columns_for_long_names(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = capsys.readouterr().out
    listed = out.split("methods:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    starts = {line.index(line.split()[1], len(line.split()[0]) + 2) for line in listed if not line.startswith("   ")}
    # Every summary (and every wrapped continuation) starts in the same column, the longest name's included.
    continuations = {len(line) - len(line.lstrip()) for line in listed if line.startswith("   ")}
    assert len(starts) == 1 and continuations <= starts
    assert any("reflection-check-t1" in line for line in listed)


def test_sim_screen_says_where_the_screenshot_went(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "s.png"
    assert main(["sim", "screen", "--app", "Settings", "--screenshot", str(target)]) == 0
    captured = capsys.readouterr()
    assert target.read_bytes().startswith(b"\x89PNG")
    assert captured.err.strip() == f"wrote {target} (1080x2400 PNG, {target.stat().st_size:,} bytes)"
    assert captured.out == ""


def test_a_noise_profile_is_named_not_expanded(capsys: pytest.CaptureFixture[str]) -> None:
    # The page refuses the sim's noise before any browser starts; the refusal names the profile as typed.
    assert main(["run", "--device", "miniwob:click-button", "--llm", "demo", "--noise", "paper"]) == 2
    err = capsys.readouterr().err
    assert "--noise paper needs the simulated phone" in err and "unlabeled_buttons=" not in err


@pytest.mark.parametrize(("option", "method", "value"), [("--memory", "exemplars", "no-such-memory"),
                                                          ("--demos", "caap", "no-such-demos.json")])
def test_a_resource_path_is_named_as_typed(option: str, method: str, value: str, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["run", "Turn off data roaming", "--device", "sim", "--llm", "demo", "--method", method,
                 option, value]) == 2
    err = capsys.readouterr().err
    assert value in err and str(tmp_path) not in err
