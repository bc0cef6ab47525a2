"""Running a few coroutines at once, with the first failure raised as itself."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

A = TypeVar("A")
B = TypeVar("B")


def _first(group: BaseExceptionGroup[BaseException]) -> BaseException:
    first = group.exceptions[0]
    return _first(first) if isinstance(first, BaseExceptionGroup) else first


async def both(a: Coroutine[Any, Any, A], b: Coroutine[Any, Any, B]) -> tuple[A, B]:
    """Run ``a`` and ``b`` concurrently; if one fails the other is cancelled and the failure raised.

    Raises:
        BaseException: The first failure, unwrapped from the task group's exception group.
    """
    try:
        async with asyncio.TaskGroup() as group:
            ta = group.create_task(a)
            tb = group.create_task(b)
    except BaseExceptionGroup as error:
        raise _first(error) from None
    return ta.result(), tb.result()
