"""The ``--llm`` options of a command, with the demo among their providers, and the options record they give.

The LLM layer sits below the demo and cannot name it; the command line, above both, adds the demo to the
one provider registry. It does so when a command that takes ``--llm`` builds its parser, not when
``latent-agent`` starts: the demo's stand-ins import the LLM clients, which ``latent-agent --help`` and
the commands without an LLM do not need.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from latent_agent.demo.client import register as register_demo
from latent_agent.llm.llamacpp.options import DEFAULT_CTX, ServerOptions
from latent_agent.llm.spec import SERVER_FLAGS, STRUCTURED_CHOICES, LLMOptions, llm_help


def add_llm_options(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
    """Register the demo provider, then add ``--llm``, ``--llm-base-url``, ``--api-key``, ``--llm-timeout``,
    ``--llm-max-output``, ``--llm-structured``, ``--llm-record`` and the options of a server the provider starts
    (``--llm-ctx``, ``--llm-threads``, ``--llm-gpu-layers``, ``--llm-parallel``); :func:`llm_options` reads them."""
    register_demo()
    parser.add_argument("--llm", required=required, metavar="SPEC", help=llm_help())
    parser.add_argument("--llm-base-url", metavar="URL", help="endpoint override (proxy or local server)")
    parser.add_argument(
        "--api-key",
        metavar="KEY",
        help="API key (prefer GEMINI_API_KEY / GOOGLE_API_KEY / OPENAI_API_KEY: command lines are visible)",
    )
    parser.add_argument("--llm-timeout", type=float, default=60.0, metavar="S", help="per-attempt timeout")
    parser.add_argument("--llm-max-output", type=int, metavar="TOKENS",
                        help="lower every call's output cap to this (a slow CPU model's runaway answer costs its "
                             "cap; default: each call kind's own cap)")
    parser.add_argument("--llm-structured", choices=STRUCTURED_CHOICES, metavar="off|on",
                        help="hold each answer with a form to its shape, where the server takes one (a JSON schema, a "
                             "grammar); off by default: the papers' models answered free text (docs/local-models.md)")
    parser.add_argument("--llm-record", metavar="CASSETTE",
                        help="record every call to this JSONL cassette (a new file, or a cassette to add to)")
    local = parser.add_argument_group("a server started for the command (--llm llamacpp:...)")
    local.add_argument("--llm-ctx", type=int, metavar="TOKENS",
                       help=f"context window of each server slot (default {DEFAULT_CTX})")
    local.add_argument("--llm-threads", type=int, metavar="N",
                       help="CPU threads (default: one per core but one, left to the agent)")
    local.add_argument("--llm-gpu-layers", type=int, metavar="N", help="layers offloaded to a GPU (default 0)")
    local.add_argument("--llm-parallel", type=int, metavar="N",
                       help="requests decoded at once, one slot each (default 1)")


def llm_options(args: argparse.Namespace) -> LLMOptions:
    """The :class:`~latent_agent.llm.spec.LLMOptions` the options of :func:`add_llm_options` give.

    Raises:
        ConfigError: A server option out of range.
    """
    server = {name: getattr(args, flag[2:].replace("-", "_")) for name, flag in SERVER_FLAGS.items()
              if getattr(args, flag[2:].replace("-", "_"), None) is not None}
    return LLMOptions(spec=args.llm, api_key=args.api_key, base_url=args.llm_base_url, timeout_s=args.llm_timeout,
                      output_ceiling=args.llm_max_output, structured=args.llm_structured == "on",
                      record=Path(args.llm_record) if args.llm_record else None,
                      server=ServerOptions(**server) if server else None)
