"""Finding code that decides by a registered name (issue 22): comparisons of a backend, provider or method with
one of the registry's names as a literal. Callers should read the registry entry's flags instead."""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The package's folders that hold code (the registries themselves are left out by the callers).
FOLDERS = ("agent", "annotation", "benchmarks", "cli", "demo", "device", "grounder", "llm")


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
