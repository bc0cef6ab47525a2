#!/usr/bin/env python3
"""Benchmark ``latent-agent report`` against the sweep it reports on.

Target: a 306-episode sim sweep (the whole sim suite x the six methods,
``--llm demo``) reports, episode pages included, in at most a quarter of the
sweep's own wall time and in at most 30 MB.

Both commands run as the user runs them (``latent-agent sweep``, then
``latent-agent report``, each a fresh process), back to back on the same
machine, so a loaded machine slows both: the ratio is the figure. Also timed:
the report without episode pages, and a second report into the same folder
(finished episodes' pages are kept). The pages are checked as well: one page
per episode, one screenshot per step that has one, the LLM calls packed in.

With ``--distinct`` every screenshot is made unique before reporting (a text
chunk naming the file is added, the pixels are untouched), so no two steps
share a thumbnail: the cost when screens never repeat, as on a real phone
whose status-bar clock moves.

    python scripts/bench_report.py [--devices 'sim*4'] [--tasks PATTERN] [--distinct] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

CLI = [sys.executable, "-m", "latent_agent.cli"]


def timed(args: list[str]) -> tuple[float, float]:
    """Wall time (s) and the command's peak resident memory (MB); the command must succeed."""
    t0 = time.perf_counter()
    child = subprocess.Popen(CLI + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert child.stderr is not None
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - t0
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(args[:2])} failed ({child.returncode}):\n{err[-2000:]}")
    # wait4's usage is this child's own (and its worker processes'), unlike RUSAGE_CHILDREN's running maximum.
    return elapsed, usage.ru_maxrss / 1024


def make_distinct(sweep: Path) -> int:
    """Add a ``tEXt`` chunk naming each screenshot before its ``IEND``: same pixels, different bytes."""
    count = 0
    for png in sweep.rglob("screens/*.png"):
        data = png.read_bytes()
        end = data.rfind(b"IEND") - 4
        body = b"tEXt" + b"bench\0" + png.relative_to(sweep).as_posix().encode()
        chunk = (len(body) - 4).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")
        png.write_bytes(data[:end] + chunk + data[end:])
        count += 1
    return count


def folder_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def check_pages(sweep: Path, report: Path) -> tuple[int, int, int]:
    """Pages, embedded screenshots and packed LLM calls; fails when a page lacks what its episode holds."""
    from latent_agent.agent.pages.episode_page import unpack_folds

    pages = shots = calls = 0
    for line in (sweep / "results.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        episode = sweep / record["trajectory"]
        page = (report / "episodes" / f"{record['key']}.html").read_text(encoding="utf-8")
        steps = [json.loads(s) for s in (episode / "trajectory.jsonl").read_text(encoding="utf-8").splitlines()]
        want_shots = sum(1 for s in steps if s["record"] == "step" and s.get("screenshot_file"))
        want_calls = sum(len(s.get("calls", s.get("setup_calls", []))) for s in steps)
        got_shots = len(re.findall(r'href="data:image/webp;base64,', page))
        got_calls = sum(1 for fold in unpack_folds(page) if fold["kind"] == "call") if want_calls else 0
        if (got_shots, got_calls) != (want_shots, want_calls):
            raise SystemExit(f"{record['key']}: page has {got_shots} screenshots and {got_calls} LLM calls, "
                             f"the episode {want_shots} and {want_calls}")
        pages, shots, calls = pages + 1, shots + got_shots, calls + got_calls
    return pages, shots, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devices", default="sim*4", help="sweep device pool (default sim*4)")
    parser.add_argument("--tasks", help="only these tasks (fnmatch), for a quick run")
    parser.add_argument("--distinct", action="store_true", help="make every screenshot unique before reporting")
    parser.add_argument("--keep", type=Path, help="keep the sweep and report here instead of a temporary folder")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench_report_"))
    sweep = root / "sweep"
    try:
        load = os.getloadavg()[0]
        sweep_s, sweep_mb = timed(["sweep", "--suite", "sim", "--methods", "all", "--devices", args.devices,
                                   "--llm", "demo", "--out", str(sweep), "--no-progress",
                                   *(["--tasks", args.tasks] if args.tasks else [])])
        if args.distinct:
            print(f"{make_distinct(sweep)} screenshots made distinct")
        bare_s, _ = timed(["report", str(sweep), "--out", str(root / "bare"), "--no-episode-pages"])
        report_s, report_rss = timed(["report", str(sweep), "--out", str(root / "report")])
        again_s, _ = timed(["report", str(sweep), "--out", str(root / "report")])
        load = max(load, os.getloadavg()[0])
        size = folder_mb(root / "report")
        print(f"machine: {os.cpu_count()} cores, load average (1 min) up to {load:.1f} while measuring")
        print(f"sweep: on {args.devices} in {sweep_s:.1f} s (peak RSS {sweep_mb:.0f} MB)")
        print(f"report without episode pages: {bare_s:.1f} s")
        print(f"report: {report_s:.1f} s = {report_s / sweep_s:.2f} of the sweep (target <= 0.25), "
              f"{size:.1f} MB (target <= 30), peak RSS {report_rss:.0f} MB")
        print(f"report again into the same folder: {again_s:.1f} s", flush=True)
        pages, shots, calls = check_pages(sweep, root / "report")
        print(f"checked: {pages} pages, {shots} screenshots, {calls} LLM calls, as the episodes hold them")
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
