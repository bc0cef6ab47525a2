"""A misspelled device, provider or task is answered with the closest names (issue 33 item 6), in one line."""

from __future__ import annotations

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
