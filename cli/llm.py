"""``latent-agent llm``: check an LLM connection, or serve a local stand-in.

``llm ping --llm SPEC`` sends one short prompt and prints the model that
answered, the latency and the tokens. ``llm standin gemini|openai`` serves a
protocol stand-in on 127.0.0.1 for offline demos (it echoes prompts, or
replies from a JSON list).
"""

from __future__ import annotations

import argparse
import threading
from contextlib import ExitStack

from latent_agent.cli.commands import COMMANDS
from latent_agent.cli.llm_options import add_llm_options, llm_options
from latent_agent.cli.options import add_force_argument
from latent_agent.cli.plain import safe_line
from latent_agent.demo.standins.client import PROTOCOLS
from latent_agent.invocation import command_name
from latent_agent.llm.ping import PING_PROMPT, ping
from latent_agent.llm.scripted import ScriptedModel
from latent_agent.llm.types import GenerationRequest

#: Key the stand-in accepts when none is given; a local test value, not a credential.
STANDIN_KEY = "standin-local-key"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("llm", help=COMMANDS["llm"].help,
                       description="LLM utilities.")
    llm_sub = p.add_subparsers(dest="llm_command", metavar="SUBCOMMAND", required=True)

    ping = llm_sub.add_parser("ping", help="send one short prompt; print model, latency and tokens",
                              description="Send one short prompt and print model, latency and tokens.")
    add_llm_options(ping)
    ping.add_argument("--prompt", default=PING_PROMPT, help="prompt to send")
    add_force_argument(ping)
    ping.set_defaults(func=run_ping)

    standin = llm_sub.add_parser(
        "standin",
        help="serve a local Gemini or OpenAI protocol stand-in (offline demos)",
        description="Serve a stand-in on 127.0.0.1 until interrupted. It echoes the last message, "
        "or answers from --replies (a JSON list of texts).",
    )
    standin.add_argument("protocol", choices=list(PROTOCOLS))
    standin.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    standin.add_argument("--api-key", help=f"key clients must send (default: {STANDIN_KEY})")
    standin.add_argument("--replies", metavar="FILE", help="JSON list of reply texts")
    standin.set_defaults(func=run_standin)


def run_ping(args: argparse.Namespace) -> int:
    options = llm_options(args)
    options.claim_record(force=args.force)
    with ExitStack() as stack:
        client = options.open()
        stack.callback(client.close)
        completion = ping(client, args.prompt)
    u = completion.usage
    print(f"model:    {safe_line(completion.model)}")
    print(f"latency:  {completion.latency_s * 1000:.0f} ms" + (" (replayed)" if completion.cached else ""))
    print(f"tokens:   {u.prompt_tokens} prompt + {u.output_tokens} output = {u.total_tokens} total")
    print(f"retries:  {completion.retries}")
    print(f"finish:   {completion.finish_reasons[0]}")
    print(f"reply:    {safe_line(completion.text.strip()[:200])}")
    return 0


def run_standin(args: argparse.Namespace) -> int:
    def echo(request: GenerationRequest) -> str:
        return request.chat()[-1].text

    model = ScriptedModel.from_file(args.replies) if args.replies else ScriptedModel(responder=echo)
    server = PROTOCOLS[args.protocol].server(model, api_key=args.api_key or STANDIN_KEY, port=args.port)
    with server:
        url = server.base_url
        key_hint = "the key you passed" if args.api_key else STANDIN_KEY
        print(f"{args.protocol} stand-in on {url} (key: {key_hint}); Ctrl-C stops it", flush=True)
        print(f"try: {command_name()} llm ping --llm {args.protocol}:demo-model --llm-base-url {url} "
              "--api-key KEY", flush=True)
        threading.Event().wait()
    return 0
