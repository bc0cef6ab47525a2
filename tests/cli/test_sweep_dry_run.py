"""``sweep --dry-run``: the planned episodes and an estimate per method, with nothing run or written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from latent_agent.benchmarks.estimate import CostFigures, MethodFigures, estimate, pricing, render
from latent_agent.llm.accounting import Price, PriceTable
from latent_agent.llm.types import Usage
from tests.cli.helpers import cli


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _row(out: str, method: str) -> list[str]:
    for line in out.splitlines():
        if line.split()[:1] == [method]:
            return line.split()
    raise AssertionError(f"no row for {method}:\n{out}")


def test_a_dry_run_prints_a_row_per_method_and_writes_nothing(tmp_path: Path) -> None:
    before = _tree(tmp_path)
    out_dir, cassette = tmp_path / "sweep", tmp_path / "calls.jsonl"
    # No key: a dry run builds no client, so a hosted model needs none.
    done = cli("sweep", "--suite", "sim", "--methods", "zero-shot+,caap-neither,reflection", "--devices", "sim*2",
               "--llm", "gemini:gemini-2.5-flash", "--out", str(out_dir), "--seeds", "2", "--max-steps", "10",
               "--llm-record", str(cassette), "--dry-run",
               env={"GEMINI_API_KEY": "", "GOOGLE_API_KEY": ""})
    assert done.returncode == 0, done.stderr
    assert _tree(tmp_path) == before and not out_dir.exists() and not cassette.exists()
    out = done.stdout
    tasks = int(re.search(r"\((\d+) task\(s\) x 3 method\(s\) x 2 seed\(s\)\)", out).group(1))  # type: ignore[union-attr]
    assert f"{tasks * 3 * 2:,} episodes planned" in out and "at most 10 steps each" in out
    assert "settings_roaming_off" in out  # the planned tasks are named
    rows = {m: _row(out, m) for m in ("zero-shot+", "caap-neither", "reflection", "total")}
    for method in ("zero-shot+", "caap-neither", "reflection"):
        episodes, calls, prompt, output, price, ceiling, ceiling_price = rows[method][1:]
        assert int(episodes) == tasks * 2
        assert int(calls.replace(",", "")) > 0 and int(prompt.replace(",", "")) > 0
        assert int(output.replace(",", "")) > 0 and price.startswith(("$", "<$"))
        assert int(ceiling.replace(",", "")) >= int(calls.replace(",", "")) and ceiling_price.startswith(("$", "<$"))
    calls = {m: int(rows[m][2].replace(",", "")) for m in rows}
    # The latent-state chain makes several calls a step; CAAP about one.
    assert calls["zero-shot+"] > 3 * calls["caap-neither"]
    assert calls["total"] == calls["zero-shot+"] + calls["caap-neither"] + calls["reflection"]
    # Reflection may take three trials: its ceiling is three times the step limit's.
    per_step = CostFigures.load().methods["reflection"].calls_per_step
    assert int(rows["reflection"][6].replace(",", "")) == round(tasks * 2 * 10 * 3 * per_step)
    assert "Measured on: latent-agent sweep --suite sim" in out
    assert "gemini-2.5-flash: $0.3 / $2.5 per million" in out and "llm/prices.json" in out


def test_a_dry_run_of_a_finished_sweep_estimates_what_is_left_and_changes_nothing(tmp_path: Path) -> None:
    out_dir = tmp_path / "sweep"
    args = ("sweep", "--suite", "sim", "--tasks", "settings_roaming_off,settings_dark_theme", "--methods",
            "zero-shot-", "--devices", "sim", "--llm", "demo", "--out", str(out_dir), "--no-screenshots",
            "--no-progress")
    assert cli(*args).returncode == 0
    before = _tree(out_dir)
    done = cli(*args, "--resume", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert _tree(out_dir) == before
    assert "2 already finished" in done.stdout and "0 still to run" in done.stdout
    assert _row(done.stdout, "total")[1:3] == ["0", "0"]
    assert "calls answered on this machine cost no fees" in done.stdout
    # What --force would replace is left as it is by a dry run.
    forced = cli(*args, "--force", "--dry-run")
    assert forced.returncode == 0, forced.stderr
    assert _tree(out_dir) == before and "2 episodes planned" in forced.stdout


FIGURES = CostFigures({"a": MethodFigures(10, 6.0, 7.0, 400, 20), "b": MethodFigures(10, 30.0, 1.0, 1000, 100)},
                      "a test", "counted")


def test_the_estimate_is_episodes_times_steps_times_calls_and_the_price_tables_rates() -> None:
    table = PriceTable((Price("m-*", 1.0, 10.0),), as_of="now")
    price, basis = pricing("m-1", table, remote=True)
    rows = estimate(["a", "a", "b", "c"], 20, FIGURES, price=price, trials=lambda m: 3 if m == "b" else 1)
    a, b, c = rows
    assert (a.method, a.episodes, a.calls, a.prompt_tokens, a.output_tokens) == ("a", 2, 84, 33_600, 1_680)
    assert a.cost_usd == pytest.approx((33_600 * 1.0 + 1_680 * 10.0) / 1e6)
    assert a.max_calls == 2 * 20 * 7
    # A method measured at more steps than the limit is cut at the limit; its trials raise the ceiling.
    assert (b.calls, b.max_calls) == (20, 60)
    assert c.calls is None and c.cost_usd is None  # no figures: not estimated, and said so
    text = render(rows, figures=FIGURES, price_basis=basis, max_steps=20)
    assert "No figures for c" in text and "$1 / $10 per million" in text
    assert re.search(r"^total\s+4\s+104\s", text, re.MULTILINE)
    assert re.search(r"^total(\s+\S+){4}\s+-\s", text, re.MULTILINE)  # a total with an unknown price is unknown


def test_models_without_a_price_are_not_priced_and_local_ones_are_free() -> None:
    table = PriceTable((Price("m-*", 1.0, 10.0),))
    price, basis = pricing("qwen2.5-7b", table, remote=True)
    assert price(Usage(1000, 100)) is None and "no price in llm/prices.json" in basis
    assert pricing("model.gguf", table, remote=False)[0](Usage(1000, 100)) == 0.0


def test_the_shipped_figures_cover_every_method() -> None:
    from latent_agent.agent.methods import METHODS

    figures = CostFigures.load()
    assert set(METHODS) <= set(figures.methods)
    assert all(m.calls_per_step > 0 and m.prompt_tokens_per_call > 0 for m in figures.methods.values())
