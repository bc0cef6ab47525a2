"""``latent-agent annotate export|import|score``: forms for human raters, and scoring their answers."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from latent_agent.annotation.consensus import consensus, write_ratings
from latent_agent.annotation.export import ExportOptions, export_forms
from latent_agent.annotation.importer import import_answers, load_scores_dir
from latent_agent.annotation.questions import FormKind
from latent_agent.annotation.scoring import format_scores, score, scores_to_json, write_scores
from latent_agent.cli.commands import COMMANDS
from latent_agent.cli.options import add_force_argument
from latent_agent.cli.plain import echo, safe_json
from latent_agent.invocation import command_name
from latent_agent.outputs import FORMS, SCORES, claim
from latent_agent.safe_paths import refuse_links


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "annotate",
        help=COMMANDS["annotate"].help,
        description="Human evaluation as in the method's paper: latent-state accuracy per step (Table 2) and "
        "end-to-end completion and stopping per episode (Table 3).",
    )
    actions = p.add_subparsers(dest="annotate_command", metavar="ACTION", required=True)

    e = actions.add_parser("export", help="write self-contained HTML forms for raters",
                           description="Write one HTML form per episode and rater into FORMS_DIR, plus "
                           "FORMS_DIR/forms.json. Forms open offline; raters save their answers as JSON.")
    e.add_argument("run_dir", metavar="RUN_DIR", help="a sweep's run directory, or one episode directory")
    e.add_argument("--kind", choices=("latent", "e2e", "errors"), required=True,
                   help="latent: one page per step (latent-state estimates); e2e: one page per episode; errors: "
                   "one page per failed episode (primary root cause of the failure)")
    e.add_argument("--out", required=True, metavar="FORMS_DIR", help="new directory for the forms")
    e.add_argument("--raters", type=int, default=1, metavar="N", help="copies of each form, one per rater")
    e.add_argument("--sample", type=int, default=None, metavar="K",
                   help="only K steps (latent) or K episodes (e2e, errors), drawn at random")
    e.add_argument("--ratings", default=None, metavar="FILE",
                   help="errors only: rater verdicts (SCORES_DIR/ratings.jsonl from e2e forms) that decide which "
                   "episodes failed where no automatic check could")
    e.add_argument("--seed", type=int, default=0, metavar="S", help="seed of --sample (default 0)")
    e.add_argument("--redact-passwords", action="store_true",
                   help="mask text typed into password fields and paint password fields over")
    e.add_argument("--image-format", choices=("jpeg", "webp"), default="jpeg",
                   help="screenshot encoding (default jpeg)")
    add_force_argument(e)
    e.set_defaults(func=run_export)

    i = actions.add_parser("import", help="validate raters' answer files and store them",
                           description="Check each answer file against its form (same episode and export, "
                           "every question answered, one answer set per rater and form) and store it in "
                           "SCORES_DIR. Nothing is written unless every file is valid; nothing is overwritten.")
    i.add_argument("paths", nargs="+", metavar="FORMS_ANSWERS",
                   help="answer files (*.answers.json) and the FORMS_DIR(s) they answer")
    i.add_argument("--out", required=True, metavar="SCORES_DIR",
                   help="scores directory (created if missing; one holding earlier imports is added to)")
    add_force_argument(i)
    i.set_defaults(func=run_import)

    s = actions.add_parser("score", help="Table 2 / Table 3, baselines, hard cases and rater agreement",
                           description="Score every answer in SCORES_DIR, print the tables and write "
                           "SCORES_DIR/scores.json and SCORES_DIR/ratings.jsonl (consensus per episode, for "
                           "latent-agent report --ratings).")
    s.add_argument("scores_dir", metavar="SCORES_DIR")
    s.add_argument("--json", action="store_true", help="print scores.json instead of the tables")
    s.set_defaults(func=run_score)


def run_export(args: argparse.Namespace) -> int:
    claim(Path(args.out), FORMS, force=args.force, inputs=(Path(args.run_dir),))
    options = ExportOptions(FormKind(args.kind), raters=args.raters, sample=args.sample, seed=args.seed,
                            redact_passwords=args.redact_passwords, image_format=args.image_format,
                            ratings=Path(args.ratings) if args.ratings else None)
    result = export_forms(Path(args.run_dir), Path(args.out), options)
    forms = result.manifest.forms
    units = sum(len(f.items) for f in forms)
    what = "steps" if options.kind is FormKind.LATENT else "episodes"
    largest = max((size for _, size in result.files), default=0)
    print(f"wrote {len(result.files)} form file(s) for {len(forms)} episode(s) x {len(result.manifest.raters)} "
          f"rater(s) into {args.out}: {units} of {result.units_available} {what}; largest form "
          f"{largest / 1e6:.2f} MB; {result.seconds:.2f} s")
    # Blind raters: the forms name no method; the file that maps them back must not travel with them.
    print(f"send each rater only their own folder ({', '.join(str(Path(args.out) / r) for r in result.manifest.raters)}"
          f"); keep {Path(args.out) / 'forms.json'}: it maps each form to its episode and method")
    return 0


def run_import(args: argparse.Namespace) -> int:
    claim(Path(args.out), SCORES, force=args.force, inputs=[Path(p) for p in args.paths])
    result = import_answers([Path(p) for p in args.paths], Path(args.out))
    for form_id, rater in result.imported:
        echo(f"imported {form_id} ({rater})")
    print(f"{len(result.imported)} answer file(s) stored in {args.out}")
    return 0


def run_score(args: argparse.Namespace) -> int:
    scores_dir = Path(args.scores_dir)
    # Written into again, and possibly someone else's: a link planted in it would take scores.json elsewhere.
    refuse_links(scores_dir, "SCORES_DIR")
    rated = load_scores_dir(scores_dir)
    scores = score(rated)
    path = write_scores(scores, scores_dir)
    ratings = write_ratings(consensus(rated), scores_dir)
    # The tables quote the stored forms (benchmark and method names from a copied folder): plain text only.
    if args.json:
        print(safe_json(json.dumps(scores_to_json(scores), indent=1, ensure_ascii=False)))
    else:
        echo(format_scores(scores))
        echo(f"\nwrote {path} and {ratings} (for: {command_name()} report DIR --ratings {ratings})")
    return 0
