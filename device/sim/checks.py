"""Declarative checks on the simulated phone's state.

A check names a dotted state path and one comparison, e.g.::

    {"path": "settings.network.roaming", "equals": false}
    {"path": "history.pages", "contains": "com.android.settings/sims"}
    {"path": "clock.alarms", "any": {"hour": 15, "minute": 30, "sound": "Argon"}}
    {"path": "chrome.tab_count", "at_least": 2}

``any``/``none`` match list items whose fields all equal the given values
(strings compared case-insensitively, ignoring surrounding spaces, since
agents type titles as they please). ``contains`` on ``history.pages`` lets
``pkg/page`` match a page shown with an argument (``pkg/page:arg``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from latent_agent.device.sim.state import PhoneState, get_path
from latent_agent.errors import TaskSuiteError

Op = Literal["equals", "not_equals", "contains", "any", "none", "at_least", "at_most"]
OPS: tuple[Op, ...] = ("equals", "not_equals", "contains", "any", "none", "at_least", "at_most")
JSONScalar = str | int | float | bool | None


@dataclass(frozen=True, slots=True)
class Check:
    """One comparison against the phone state.

    Attributes:
        path: Dotted state path.
        op: The comparison.
        value: The expected value (a field -> value mapping for ``any``/``none``).
        label: What the check means, for reports ("roaming is off").
    """

    path: str
    op: Op
    value: JSONScalar | tuple[tuple[str, JSONScalar], ...]
    label: str = ""

    @classmethod
    def from_json(cls, raw: object, where: str) -> Check:
        """Parse one check.

        Raises:
            TaskSuiteError: If the check is malformed or its path does not exist.
        """
        if not isinstance(raw, Mapping) or not isinstance(raw.get("path"), str):
            raise TaskSuiteError(f"{where}: a check must be an object with a string 'path'")
        ops = [k for k in raw if k in OPS]
        extra = set(raw) - {"path", "label", *OPS}
        if len(ops) != 1 or extra:
            raise TaskSuiteError(
                f"{where}: a check needs exactly one of {', '.join(OPS)}"
                + (f" (unknown keys: {', '.join(sorted(extra))})" if extra else "")
            )
        op: Op = ops[0]
        value = raw[op]
        if op in ("any", "none"):
            if not isinstance(value, Mapping) or not value:
                raise TaskSuiteError(f"{where}: '{op}' needs a non-empty object of field values")
            value = tuple(sorted((str(k), v) for k, v in value.items()))
        elif op in ("at_least", "at_most") and not isinstance(value, int):
            raise TaskSuiteError(f"{where}: '{op}' needs an integer")
        try:
            get_path(PhoneState(), raw["path"])
        except KeyError as exc:
            raise TaskSuiteError(f"{where}: {exc.args[0]}") from None
        label = raw.get("label", "")
        return cls(path=raw["path"], op=op, value=value, label=str(label))

    def holds(self, state: PhoneState) -> bool:
        """Whether the check passes on ``state``."""
        actual = get_path(state, self.path)
        if self.op == "equals":
            return _same(actual, self.value)
        if self.op == "not_equals":
            return not _same(actual, self.value)
        if self.op == "contains":
            if isinstance(actual, str):
                return isinstance(self.value, str) and self.value.lower() in actual.lower()
            return any(_same(item, self.value) or _page_match(item, self.value) for item in _items(actual))
        if self.op in ("at_least", "at_most"):
            size = actual if isinstance(actual, int) else len(_items(actual))
            assert isinstance(self.value, int)
            return size >= self.value if self.op == "at_least" else size <= self.value
        assert isinstance(self.value, tuple)
        matched = any(all(_same(getattr(item, k, None), v) for k, v in self.value) for item in _items(actual))
        return matched if self.op == "any" else not matched

    def describe(self) -> str:
        return self.label or f"{self.path} {self.op} {self.value!r}"


def _items(value: object) -> list[object]:
    if isinstance(value, list | tuple):
        return list(value)
    raise TaskSuiteError(f"expected a list in the phone state, found {type(value).__name__}")


def _page_match(item: object, expected: object) -> bool:
    """``pkg/page`` matches a history entry ``pkg/page:arg`` (a page shown with an argument)."""
    return isinstance(item, str) and isinstance(expected, str) and item.startswith(expected + ":")


def _same(actual: object, expected: object) -> bool:
    if isinstance(actual, str) and isinstance(expected, str):
        return actual.strip().casefold() == expected.strip().casefold()
    if isinstance(actual, bool) or isinstance(expected, bool):
        return actual is expected
    return actual == expected
