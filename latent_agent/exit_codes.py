"""Exit statuses of the ``latent-agent`` command, for scripts that run it.

One table, used by the CLI, ``run`` and ``sweep`` and printed in ``--help``:

* ``0`` - the command did its work; for ``run``, the agent ran to a stop of its own
  (``completed``, ``done``, ``gave_up``, ``max_steps``, ``method_cap``, ``repeated_actions``), or its judged task ended
  (``task_ended``: the task's own reward says whether it succeeded);
* ``1`` - a bug: an exception latent-agent did not expect (it keeps its traceback);
* ``2`` - usage or input: a bad argument, spec, file or output path (nothing was run);
* ``3`` - infrastructure: the LLM, the device or the LLM budget failed (for ``run``, the
  episode stopped on ``llm_error``, ``device_error`` or ``budget_exhausted``; for ``sweep``,
  at least one episode of the sweep is recorded as errored);
* ``4`` - a sweep paused before its plan was done (the same infrastructure error ended
  several episodes in a row, or every device failed); ``--resume`` continues it;
* ``130`` - interrupted (Ctrl-C).
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """The exit statuses (see the module docstring)."""

    OK = 0
    BUG = 1
    USAGE = 2
    INFRASTRUCTURE = 3
    PAUSED = 4
    INTERRUPTED = 130


#: Stop reasons with which the agent ended an episode itself.
AGENT_STOPS = frozenset({"completed", "done", "gave_up", "max_steps", "method_cap", "repeated_actions",
                         "task_ended"})
#: Stop reasons that mean the LLM, the device or the budget ended the episode.
INFRASTRUCTURE_STOPS = frozenset({"llm_error", "device_error", "budget_exhausted"})

#: The table as ``--help`` prints it.
EPILOG = """exit status:
  0    done; for run: the agent stopped on its own (completed, done, gave_up, max_steps, method_cap,
       repeated_actions) or its judged task ended (task_ended; the task's reward says whether it succeeded)
  1    a bug (an unexpected exception, shown with its traceback)
  2    usage or input error (bad argument, spec, file or output path); nothing was run
  3    infrastructure failure: the LLM, the device or the LLM budget (run: llm_error,
       device_error, budget_exhausted; sweep: at least one episode recorded as errored)
  4    sweep paused before its plan was done (repeated infrastructure errors, or no device
       left); fix the cause and run it again with --resume
  130  interrupted"""


def for_stop_reason(reason: str) -> ExitCode:
    """The exit status of ``run`` for an episode that ended with ``reason``.

    Args:
        reason: A trajectory stop reason (``completed``, ``llm_error``, ...).
    """
    if reason in AGENT_STOPS:
        return ExitCode.OK
    if reason == "interrupted":
        return ExitCode.INTERRUPTED
    return ExitCode.INFRASTRUCTURE
