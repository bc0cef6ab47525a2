"""The layer contract: every import in the package points down the pipeline, never up or sideways.

cli > annotation | demo > benchmarks > agent > grounder > device > accessibility > llm | prompts > the root
modules (errors, exit codes, output paths). Siblings (``a | b``) are independent of each other. Imports inside
functions count as much as those at the top of a module, and every import names the one import root,
``latent_agent`` (the repository's top-level folders are its subpackages, never packages of their own).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "latent_agent"
#: Top to bottom; the names in one tuple are siblings that may not import each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("cli",),
    ("annotation", "demo"),
    ("benchmarks",),
    ("agent",),
    ("grounder",),
    ("device",),
    ("accessibility",),
    ("llm", "prompts"),
    ("",),  # the root package's own modules: errors, exit_codes, outputs
)
#: The repository's top-level folders that are subpackages of the import root.
FOLDERS = tuple(name for layer in LAYERS for name in layer if name)


def layer_of(module: str) -> tuple[int, str] | None:
    """(layer index, part) of a ``latent_agent...`` module; None for anything outside the package."""
    parts = module.split(".")
    if parts[0] != PACKAGE:
        return None
    part = parts[1] if len(parts) > 1 and parts[1] in FOLDERS else ""
    return next((i, part) for i, layer in enumerate(LAYERS) if part in layer)


def module_name(path: Path, root: Path) -> str:
    relative = path.relative_to(root).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    if parts and parts[0] == PACKAGE:
        parts.pop(0)
    return ".".join([PACKAGE, *parts])


def imported_modules(source: str, module: str, is_package: bool) -> Iterator[tuple[int, str]]:
    """(line, absolute module) of every import in ``source``, relative ones resolved."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            yield node.lineno, target


def violations_in(source: str, module: str, where: str, is_package: bool = False) -> list[str]:
    """What breaks the contract in one module's ``source``."""
    own = layer_of(module)
    assert own is not None, module
    found = []
    for line, target in imported_modules(source, module, is_package):
        head = target.split(".")[0]
        if head in FOLDERS:
            found.append(f"{where}:{line}: imports {target!r}; use the import root ({PACKAGE}.{target})")
            continue
        theirs = layer_of(target)
        if theirs is None:
            continue
        if theirs[0] < own[0]:
            found.append(f"{where}:{line}: {module} ({own[1] or 'root'}) imports {target}, a layer above")
        elif theirs[0] == own[0] and theirs[1] != own[1]:
            found.append(f"{where}:{line}: {module} ({own[1] or 'root'}) imports its sibling {target}")
    return found


def package_files(root: Path = ROOT) -> Iterator[tuple[Path, str]]:
    """Every module of the package as the repository holds it: (file, module name)."""
    for path in sorted((root / PACKAGE).glob("*.py")):
        yield path, module_name(path, root)
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            yield path, module_name(path, root)


def violations(root: Path = ROOT) -> list[str]:
    out: list[str] = []
    for path, module in package_files(root):
        out += violations_in(path.read_text(encoding="utf-8"), module, str(path.relative_to(root)),
                             path.name == "__init__.py")
    return out


def test_no_import_goes_up_or_sideways() -> None:
    found = violations()
    assert not found, "layer contract broken:\n" + "\n".join(found)


def test_the_package_has_every_module_the_check_reads() -> None:
    modules = {module for _, module in package_files()}
    assert len(modules) > 100
    assert {"latent_agent.errors", "latent_agent.agent.episode", "latent_agent.cli.run"} <= modules


def test_the_check_fails_on_an_upward_import() -> None:
    assert violations_in("from latent_agent.agent.episode import run_episode\n",
                         "latent_agent.device.adb", "device/adb.py")
    assert violations_in("def f():\n    from latent_agent.benchmarks import report\n",
                         "latent_agent.agent.episode", "agent/episode.py")


def test_the_check_fails_on_a_sibling_or_a_bare_folder_import() -> None:
    assert violations_in("import latent_agent.demo.oracle\n", "latent_agent.annotation.export", "a.py")
    assert violations_in("from agent.latent import x\n", "latent_agent.benchmarks.report", "b.py")
    assert violations_in("from ..agent import episode\n", "latent_agent.device.adb", "c.py")


def test_the_check_allows_downward_imports() -> None:
    source = ("from latent_agent.device.base import Device\nfrom latent_agent.errors import ConfigError\n"
              "from . import calls\nimport json\n")
    assert violations_in(source, "latent_agent.agent.episode", "agent/episode.py") == []
