"""Callers decide by a backend's capabilities, never by its name (issue 22: names instead of capabilities)."""

from __future__ import annotations

import ast

from latent_agent.device.base import DeviceCapabilities
from latent_agent.device.spec import BACKENDS, capabilities_of, parse_device_spec
from tests.name_comparisons import attribute_or_name, name_comparisons, package_comparisons

#: The registry itself, where each name is declared once with its flags.
REGISTRY = "device/spec.py"


def _is_kind(node: ast.expr) -> bool:
    """A backend's name as code holds it: ``spec.kind``, ``kind``, ``device_kind`` (a suite's or a source's
    name, which may be spelled like a backend's, is not one)."""
    return attribute_or_name("kind")(node)


def test_no_module_outside_the_registry_compares_a_backends_name() -> None:
    found = package_comparisons(_is_kind, BACKENDS, registries=[REGISTRY])
    assert not found, "decide by DeviceCapabilities instead:\n" + "\n".join(found)


def test_the_check_finds_a_comparison_by_name() -> None:
    source = ('def f(spec, kind: str, suite: str) -> bool:\n'
              '    return spec.kind != "sim" or kind in ("adb", "x") or suite == "sim"\n')
    assert name_comparisons(source, "probe.py", _is_kind, BACKENDS) == ["probe.py:2: compares with 'sim'",
                                                                       "probe.py:2: compares with 'adb'"]


def test_every_backend_declares_its_capabilities_in_the_registry() -> None:
    for name, backend in BACKENDS.items():
        assert isinstance(backend.capabilities, DeviceCapabilities)
        spec = parse_device_spec(f"{name}:x" if backend.needs_arg else name)
        assert capabilities_of(spec) is backend.capabilities
    assert [n for n, b in BACKENDS.items() if b.capabilities.task_reward] == ["miniwob"]
    assert {n for n, b in BACKENDS.items() if b.seeded} == {"sim", "miniwob"}


def test_every_backend_names_a_known_extra_or_none() -> None:
    from latent_agent.extras import EXTRAS

    assert {b.extra for b in BACKENDS.values()} - {None} <= set(EXTRAS)
    assert BACKENDS["sim"].extra is None  # the simulated phone needs nothing installed
