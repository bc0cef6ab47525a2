"""Finding code that decides by a registered name (issue 22): comparisons of a backend, provider, method or suite
with one of the registry's names as a literal, and module-level tables of such names. Callers should read the
registry entry's flags instead."""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The package's folders that hold code (the registries themselves are left out by the callers).
FOLDERS = ("agent", "annotation", "api", "benchmarks", "cli", "demo", "device", "grounder", "llm")


def attribute_or_name(word: str) -> Callable[[ast.expr], bool]:
    """Whether an operand is the subject: ``x.WORD`` or a variable whose name ends with WORD."""

    def test(node: ast.expr) -> bool:
        if isinstance(node, ast.Attribute):
            return node.attr == word
        return isinstance(node, ast.Name) and node.id.endswith(word)

    return test


def name_comparisons(source: str, where: str, is_subject: Callable[[ast.expr], bool],
                     names: Collection[str]) -> list[str]:
    """Comparisons (``==``, ``!=``, ``in``, ``not in``) of a subject with one of ``names`` as a literal."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare) or not any(isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn)
                                                           for op in node.ops):
            continue
        operands = [node.left, *node.comparators]
        if not any(is_subject(o) for o in operands):
            continue
        literals = [c for o in operands for c in ([o] if isinstance(o, ast.Constant) else
                    o.elts if isinstance(o, ast.Tuple | ast.List | ast.Set) else [])
                    if isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value in names]
        if literals:
            found.append(f"{where}:{node.lineno}: compares with {literals[0].value!r}")
    return found


def package_comparisons(is_subject: Callable[[ast.expr], bool], names: Collection[str],
                        registries: Iterable[str] = ()) -> list[str]:
    """:func:`name_comparisons` over every module of :data:`FOLDERS` but the ``registries`` (relative paths)."""
    skip = set(registries)
    return [hit for folder in FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))
            if (rel := str(path.relative_to(ROOT))) not in skip
            for hit in name_comparisons(path.read_text(encoding="utf-8"), rel, is_subject, names)]


def _literal_strings(node: ast.expr) -> list[str] | None:
    """The strings of a tuple, list or set literal (also inside ``frozenset(...)``, ``set(...)``, ``tuple(...)``),
    or None when it holds anything but string constants."""
    if isinstance(node, ast.Call) and len(node.args) == 1:
        if not isinstance(node.func, ast.Name) or node.func.id not in ("frozenset", "set", "tuple"):
            return None
        node = node.args[0]
    if not isinstance(node, ast.Tuple | ast.List | ast.Set) or not node.elts:
        return None
    values = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return values if len(values) == len(node.elts) else None


def name_tables(source: str, where: str, names: Collection[str]) -> list[str]:
    """Module-level constants that list registered names only (``COMBINED = frozenset({"aitw", "paper"})``): a
    table of names beside the registry, deciding what the registry entry should say."""
    found = []
    for node in ast.parse(source).body:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        strings = _literal_strings(value) if value is not None else None
        if strings and all(s in names for s in strings):
            found.append(f"{where}:{node.lineno}: lists {', '.join(map(repr, strings))}")
    return found


def package_tables(names: Collection[str], registries: Iterable[str] = ()) -> list[str]:
    """:func:`name_tables` over every module of :data:`FOLDERS` but the ``registries`` (relative paths)."""
    skip = set(registries)
    return [hit for folder in FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))
            if (rel := str(path.relative_to(ROOT))) not in skip
            for hit in name_tables(path.read_text(encoding="utf-8"), rel, names)]
