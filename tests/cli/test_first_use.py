"""What a new user meets first (issue 24 items 1-3): one-line answers to command-line mistakes, a
missing extra reported once, in one line, with the command that installs it where the user is, and
the command that runs latent-agent spelled as it can be typed."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from latent_agent import extras, invocation
from latent_agent.benchmarks.plan import SweepPlan, write_manifest
from latent_agent.errors import MissingExtraError
from tests.cli.helpers import ROOT, cli, one_line
from tests.test_layers import FOLDERS

#: Put on PYTHONPATH, it makes the modules named in LATENT_TEST_HIDE look uninstalled (to imports and
#: to importlib.util.find_spec alike), as in an environment without their extra.
HIDER = '''
import os, sys
HIDDEN = tuple(n for n in os.environ.get("LATENT_TEST_HIDE", "").split(",") if n)
class _Hide:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if any(name == h or name.startswith(h + ".") for h in HIDDEN):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, _Hide())
'''


def _from_root(path: Path) -> str:
    """``path`` as written from the repository's root (relative below it), where the CLI tests run."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


#: The virtual environment's bin folder (.venv/bin after the quick start), as written from the root.
BIN = _from_root(Path(sys.executable).absolute().parent)


@pytest.fixture
def hide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    """``hide("onnxruntime", ...)``: the CLI subprocesses of the test run without those modules."""
    folder = tmp_path / "hider"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(HIDER)
    monkeypatch.setenv("PYTHONPATH", str(folder))

    def hide_modules(*names: str) -> None:
        monkeypatch.setenv("LATENT_TEST_HIDE", ",".join(names))

    return hide_modules


# -- item 3: one-line errors -------------------------------------------------------------------------------


def test_an_unknown_method_is_one_line_naming_the_closest() -> None:
    done = cli("run", "Turn off data roaming", "--device", "sim", "--llm", "demo", "--method", "zero-shot")
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert done.stderr.count("\n") == 1 and "usage:" not in done.stderr
    assert "unknown method 'zero-shot'; did you mean zero-shot- or zero-shot+?" in line, line
    assert line.endswith("latent-agent run --help shows every option)")


def test_run_without_llm_is_one_line_suggesting_the_demo() -> None:
    done = cli("run", "Turn off data roaming", "--device", "sim")
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert done.stderr.count("\n") == 1
    assert "--llm is required, e.g. --llm demo (the offline stand-in, no key) or --llm gemini:" in line, line


def test_a_misspelt_command_is_one_line() -> None:
    done = cli("rn", "Turn off data roaming")
    assert done.returncode == 2
    assert "unknown command 'rn'; did you mean run?" in one_line(done.stderr)
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize(("spec", "example"), [("gemini", "--llm gemini:gemini-2.5-flash"),
                                               ("openai", "--llm openai:gpt-4o-mini@")])
def test_a_provider_without_a_model_says_the_model_is_missing(spec: str, example: str) -> None:
    done = cli("llm", "ping", "--llm", spec)
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert f"--llm '{spec}': the model name is missing ({spec}:MODEL" in line and example in line, line
    assert "unknown provider" not in line


# -- item 2: extras ------------------------------------------------------------------------------------------


def test_run_without_the_ocr_extra_is_one_line_and_writes_nothing(tmp_path: Path, hide: object) -> None:
    hide("rapidocr_onnxruntime")  # type: ignore[operator]
    out = tmp_path / "episode"
    argv = ("run", "Turn off data roaming", "--device", "sim", "--llm", "demo", "--observation", "screen",
            "--out", str(out))
    done = cli(*argv)
    assert done.returncode == 2, done.stderr
    line = one_line(done.stderr)
    # The checkout's own pip, from where the command ran (the repository's root), installs it.
    assert line == ("latent-agent: error: --observation screen needs the ocr extra (rapidocr_onnxruntime not "
                    f"installed); install it with: {BIN}/pip install -e '.[ocr]'"), line
    assert not out.exists()  # nothing written, so the same command runs once the extra is installed
    assert cli(*argv).stderr == done.stderr  # and until then it says the same, not "holds an episode"


def test_report_without_the_stats_extra_is_the_same_line_and_status(tmp_path: Path, hide: object) -> None:
    hide("matplotlib")  # type: ignore[operator]
    done = cli("report", str(tmp_path / "sweep"))
    assert done.returncode == 2
    assert one_line(done.stderr).endswith("latent-agent report needs the stats extra (matplotlib not installed); "
                                          f"install it with: {BIN}/pip install -e '.[stats]'")


def test_an_adb_device_without_its_extra_is_the_same_line_and_status(hide: object) -> None:
    hide("adbutils")  # type: ignore[operator]
    done = cli("run", "Open Settings", "--device", "adb:emulator-5554", "--llm", "demo")
    assert done.returncode == 2  # usage, as every missing extra: not the device failing (3)
    assert "--device adb needs the adb extra (adbutils not installed)" in one_line(done.stderr)


def test_a_missing_extra_met_on_another_path_is_the_same_line() -> None:
    found = extras.missing_extra(ModuleNotFoundError("No module named 'scipy'", name="scipy"))
    assert isinstance(found, MissingExtraError) and found.extra == "stats" and found.exit_code == 2
    # "from google import genai" without google-genai fails on the namespace package.
    google = extras.missing_extra(ImportError("cannot import name 'genai' from 'google'", name="google"))
    assert google is not None and google.extra == "llm"
    assert extras.missing_extra(ModuleNotFoundError("x", name="latent_agent.nothing")) is None  # a bug: traceback
    assert extras.missing_extra(ModuleNotFoundError("x", name="scipyx")) is None


def test_every_extra_and_each_of_its_packages_is_known() -> None:
    """The table of extras follows pyproject.toml: each extra, and a module of each package it installs."""
    optional = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(extras.EXTRAS) == set(optional) - {"test", "all"}
    modules_of: dict[str, set[str]] = {}
    for module, dists in packages_distributions().items():
        for dist in dists:
            modules_of.setdefault(re.sub(r"[-_.]+", "-", dist).lower(), set()).add(module)
    for extra, requirements in optional.items():
        if extra in ("test", "all"):
            continue
        tops = {m.split(".")[0] for m in extras.EXTRAS[extra]}
        for requirement in requirements:
            dist = re.sub(r"[-_.]+", "-", re.split(r"[<>=!~\[; ]", requirement)[0]).lower()
            if dist in modules_of:  # installed here (./scripts/check installs every extra)
                assert modules_of[dist] & tops, (extra, dist, modules_of[dist])


def test_no_other_install_hint_in_the_code() -> None:
    """Every missing extra is reported by latent_agent.extras, so no message spells its own pip command."""
    hints = [str(path.relative_to(ROOT)) for folder in FOLDERS for path in (ROOT / folder).rglob("*.py")
             if "pip install" in path.read_text(encoding="utf-8")]
    assert hints == []


def test_install_command_where_the_user_is(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(ROOT)
    assert invocation.install_command("ocr") == f"{BIN}/pip install -e '.[ocr]'"  # .venv/bin/pip ...
    monkeypatch.chdir(tmp_path)  # elsewhere: the paths are written so that they work from there
    venv_bin = Path(sys.executable).absolute().parent
    assert invocation.install_command("ocr") == f"{venv_bin}/pip install -e '{ROOT}[ocr]'"
    monkeypatch.setattr(invocation, "checkout_root", lambda: None)  # an installed package
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:/usr/bin:/bin")  # its venv activated
    assert invocation.install_command("ocr") == "pip install 'latent-agent[ocr]'"


# -- item 1: the command, as the user can type it ------------------------------------------------------------


def test_the_command_is_named_as_it_can_be_typed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    venv_bin = Path(sys.executable).parent
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # right after the quick start: the venv is not activated
    assert invocation.command_name() == f"{BIN}/latent-agent"  # .venv/bin/latent-agent
    monkeypatch.setenv("PATH", f"{venv_bin}:/usr/bin:/bin")  # source .venv/bin/activate
    assert invocation.command_name() == "latent-agent"
    # What it prints runs: the printed command answers --version.
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    shown = invocation.command_name()
    ran = subprocess.run(f"{shown} --version", shell=True, cwd=ROOT, capture_output=True, text=True, check=False,
                         env={"PATH": "/usr/bin:/bin"})
    assert ran.returncode == 0 and ran.stdout.startswith("latent-agent "), ran.stderr


def _readme_commands() -> list[str]:
    """Every ``latent-agent ...`` line of the README's bash blocks, without its comment and optional ``[...]``."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.splitlines():
            command = line.split("  #")[0].strip()
            if command.startswith("latent-agent ") and not command.endswith("..."):
                while re.search(r"\s\[[^\[\]]*\]", command) or re.search(r"\[[^\[\]]*\]\]", command):
                    command = re.sub(r"\s?\[[^\[\]]*\]", "", command)
                commands.append(command)
    return commands


def test_every_readme_command_is_one_the_command_line_takes() -> None:
    """Each command line of the README names a command and options that exist, with values they accept."""
    from latent_agent.cli.main import build_parser

    commands = _readme_commands()
    assert len(commands) >= 15 and "latent-agent sweep --out runs/sim --resume" in commands
    parser = build_parser()
    for command in commands:
        try:
            parser.parse_known_args(shlex.split(command)[1:])
        except SystemExit:
            pytest.fail(f"the README's {command!r} is refused")


def test_the_readmes_offline_commands_run_as_written_in_the_activated_venv(tmp_path: Path) -> None:
    """After the quick start (the venv activated as the README says), its commands are typed as written."""
    activate = Path(sys.executable).parent / "activate"
    if not activate.is_file():
        pytest.skip(f"{sys.executable} is not in a venv made by python -m venv")
    commands = [c for c in _readme_commands() if c.startswith(("latent-agent sim tasks", "latent-agent sim screen"))]
    assert commands
    for command in commands:
        done = subprocess.run(["bash", "-c", f'source "{activate}" && {command}'], cwd=ROOT, capture_output=True,
                              text=True, timeout=120, check=False, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
        assert done.returncode == 0, (command, done.stderr)
        assert done.stdout.strip(), command


def test_sweep_force_without_an_extra_keeps_the_sweep_it_would_replace(tmp_path: Path, hide: object) -> None:
    out = tmp_path / "sweep"
    out.mkdir()
    write_manifest(out, SweepPlan.build("sim", [("settings_roaming_off", "Turn off data roaming")], ["zero-shot+"],
                                        1, "scripted:echo"))
    before = (out / "manifest.json").read_bytes()
    hide("rapidocr_onnxruntime")  # type: ignore[operator]
    done = cli("sweep", "--suite", "sim", "--tasks", "settings_roaming_off", "--methods", "zero-shot+", "--devices",
               "sim", "--llm", "scripted:echo", "--observation", "screen", "--out", str(out), "--force")
    assert done.returncode == 2
    assert "--observation screen needs the ocr extra" in one_line(done.stderr)
    assert (out / "manifest.json").read_bytes() == before  # --force removes nothing when the sweep is refused
