#!/usr/bin/env python3
"""Benchmark annotation-form export (target: a 20-step episode in <= 2 s and <= 5 MB per form).

Records a 20-step episode on the simulated phone (the alarm task's reference
solution padded with scrolls; real 1080x2400 screenshots), then times
``annotate export`` of it as ``latent`` (20 pages, 20 embedded screenshots)
and ``e2e`` forms, JPEG and WebP, 5 runs each, and the import + scoring of
200 answer files. Prints a markdown section for docs/performance.md. Run from
the repository root: ``python scripts/bench_annotation.py``.
"""

from __future__ import annotations

import json
import platform
import statistics
import tempfile
import time
from pathlib import Path

from latent_agent.annotation.answers import AnswerSet, answers_to_json
from latent_agent.annotation.export import ExportOptions, export_forms
from latent_agent.annotation.forms import load_manifest
from latent_agent.annotation.importer import import_answers, load_scores_dir
from latent_agent.annotation.questions import FormKind
from latent_agent.annotation.scoring import score
from latent_agent.demo.episodes import record_sim_episode

RUNS = 5


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        episode = record_sim_episode(root / "run" / "ep", "clock_alarm_330_argon", min_steps=20)
        steps = len(list((episode / "screens").glob("*.png")))
        png_bytes = sum(p.stat().st_size for p in (episode / "screens").glob("*.png"))
        rows = []
        for kind in (FormKind.LATENT, FormKind.E2E):
            for fmt in ("jpeg", "webp"):
                times, size = [], 0
                for run in range(RUNS):
                    out = root / f"{kind.value}-{fmt}-{run}"
                    t0 = time.perf_counter()
                    result = export_forms(episode, out, ExportOptions(kind, image_format=fmt))  # type: ignore[arg-type]
                    times.append(time.perf_counter() - t0)
                    size = max(s for _, s in result.files)
                rows.append((kind.value, fmt, statistics.median(times), max(times), size))

        # Import + score: 10 raters x 20 latent-form copies' worth of answers (200 files).
        forms = root / "forms200"
        export_forms(episode, forms, ExportOptions(FormKind.LATENT, raters=10))
        (form,) = load_manifest(forms).forms
        answers = root / "answers"
        answers.mkdir()
        files = []
        for r in range(1, 11):
            values = {i.item_id: {q.id: q.choices[r % 2].value for q in i.questions} for i in form.items}
            a = AnswerSet(form.form_id, form.digest, f"r{r}", form.episode.episode_id, form.kind, "now", values, {})
            path = answers / f"{r}.json"
            path.write_text(json.dumps(answers_to_json(a)))
            files.append(path)
        t0 = time.perf_counter()
        import_answers([forms, *files], root / "scores")
        t_import = time.perf_counter() - t0
        t0 = time.perf_counter()
        score(load_scores_dir(root / "scores"))
        t_score = time.perf_counter() - t0

    print("## Annotation")
    print()
    print(f"`python scripts/bench_annotation.py` on {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}; a {steps}-step sim episode (1080x2400 PNG screenshots, "
          f"{png_bytes / 1e6:.1f} MB in total), {RUNS} exports each. Target: <= 2 s and <= 5 MB per form.")
    print()
    print("| form | images | export median | export max | form size |")
    print("| --- | --- | ---: | ---: | ---: |")
    for kind, fmt, median, worst, size in rows:
        print(f"| {kind} | {fmt} | {median:.2f} s | {worst:.2f} s | {size / 1e6:.2f} MB |")
    print()
    n_answers = 10 * sum(len(i.questions) for i in form.items)
    print(f"Import of 10 raters' answers to the {steps}-page latent form (10 files, {n_answers} "
          f"answers): {t_import * 1000:.0f} ms; scoring them (Table 2, baselines, kappa): {t_score * 1000:.0f} ms.")


if __name__ == "__main__":
    main()
