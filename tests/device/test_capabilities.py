"""Callers decide by a backend's capabilities, never by its name (issue 22: names instead of capabilities)."""

from __future__ import annotations

import ast
from pathlib import Path

from latent_agent.device.base import DeviceCapabilities
from latent_agent.device.spec import BACKENDS, capabilities_of, parse_device_spec

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("agent", "annotation", "benchmarks", "cli", "demo", "device", "grounder")
#: The registry itself, where each name is declared once with its flags.
REGISTRY = Path("device/spec.py")


def _is_kind(node: ast.expr) -> bool:
    """A backend's name as code holds it: ``spec.kind``, ``kind``, ``device_kind`` (a suite's or a source's
    name, which may be spelled like a backend's, is not one)."""
    if isinstance(node, ast.Attribute):
        return node.attr == "kind"
    return isinstance(node, ast.Name) and node.id.endswith("kind")


def _name_comparisons(source: str, where: str) -> list[str]:
    """Comparisons (``==``, ``!=``, ``in``, ``not in``) of a backend kind with a backend's name as a literal."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        if not any(_is_kind(o) for o in operands):
            continue
        literals = [c for o in operands for c in ([o] if isinstance(o, ast.Constant) else
                    o.elts if isinstance(o, ast.Tuple | ast.List | ast.Set) else [])
                    if isinstance(c, ast.Constant)]
        names = [c.value for c in literals if isinstance(c.value, str) and c.value in BACKENDS]
        if names and any(isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn) for op in node.ops):
            found.append(f"{where}:{node.lineno}: compares with {names[0]!r}")
    return found


def test_no_module_outside_the_registry_compares_a_backends_name() -> None:
    found = [hit for folder in FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))
             if path.relative_to(ROOT) != REGISTRY
             for hit in _name_comparisons(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))]
    assert not found, "decide by DeviceCapabilities instead:\n" + "\n".join(found)


def test_the_check_finds_a_comparison_by_name() -> None:
    source = ('def f(spec, kind: str, suite: str) -> bool:\n'
              '    return spec.kind != "sim" or kind in ("adb", "x") or suite == "sim"\n')
    assert _name_comparisons(source, "probe.py") == ["probe.py:2: compares with 'sim'",
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
