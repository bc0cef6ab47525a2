"""The layer contract: every import in the package points down the pipeline, never up or sideways.

cli > api > annotation | demo > benchmarks > agent > grounder > device > accessibility > llm | prompts > the root
modules (errors, exit codes, output paths). Siblings (``a | b``) are independent of each other. Imports inside
functions count as much as those at the top of a module, and every import names the one import root,
``latent_agent`` (the repository's top-level folders are its subpackages, never packages of their own).

No dependency is hidden either: the modules' top-level imports form no loop, and an import inside a function
is allowed only for an optional dependency, a module of an extra (a distribution outside ``pyproject.toml``'s
core ``dependencies``) or a module of the package that needs one when it is imported. Their number is
:data:`FUNCTION_LEVEL_IMPORTS`, so that it cannot grow unseen.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "latent_agent"
#: Top to bottom; the names in one tuple are siblings that may not import each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("cli",),
    ("api",),  # the Python API: the command line's front door, and a script's
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


# --- Hidden dependencies: import loops and imports inside functions ---------------------------------------

#: The imports inside functions that may stay (each of an optional dependency); the test fails when the
#: count changes, so a new one is seen and this number is updated on purpose.
FUNCTION_LEVEL_IMPORTS = 36
#: Core dependencies whose import alone costs enough to load them where they are used, with the reason. The
#: o200k tokenizer builds every vocabulary when imported (about 0.4 s of CPU, measured by ``python -X
#: importtime``); it counts tokens for the context check of a local server's window and for ``describe
#: --format stats`` only, and every command that imports the LLM clients (or ``describe``) would otherwise pay it.
COSTLY_ON_IMPORT: dict[str, str] = {"bpe_openai": "builds every vocabulary when imported (~0.4 s of CPU)"}


@dataclass(frozen=True)
class Import:
    """One import statement of a module.

    Attributes:
        line: Its line.
        text: The statement as written.
        targets: The absolute modules it may load: ``from a import b`` names ``a`` and ``a.b``.
        in_function: It runs when a function is called, not when the module is imported.
        type_checking: It sits under ``if TYPE_CHECKING:`` and never runs.
    """

    line: int
    text: str
    targets: tuple[str, ...]
    in_function: bool
    type_checking: bool


def imports_in(source: str, module: str, is_package: bool = False) -> list[Import]:
    """Every import statement of one module's ``source``, relative ones resolved, with where it runs."""
    package = module if is_package else module.rpartition(".")[0]
    found: list[Import] = []

    def visit(node: ast.AST, in_function: bool, type_checking: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                visit(child, in_function, True)
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                visit(child, True, type_checking)
            elif isinstance(child, ast.Import):
                found.append(Import(child.lineno, ast.unparse(child), tuple(a.name for a in child.names),
                                    in_function, type_checking))
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[: len(base) - (child.level - 1)]
                    target = ".".join([*base, child.module] if child.module else base)
                else:
                    target = child.module or ""
                targets = (target, *(f"{target}.{a.name}" for a in child.names if a.name != "*"))
                found.append(Import(child.lineno, ast.unparse(child), targets, in_function, type_checking))
            else:
                visit(child, in_function, type_checking)

    visit(ast.parse(source), False, False)
    return found


def _distribution_name(requirement: str) -> str:
    """``pydantic>=2.7 ; extra == 'x'`` -> ``pydantic``, normalised as PEP 503 does."""
    name = re.split(r"[\s<>=!~;\[(@]", requirement.strip(), maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


@cache
def core_modules(root: Path = ROOT) -> frozenset[str]:
    """The top-level modules that are always installed: the standard library's and those of the core
    ``dependencies`` in ``pyproject.toml`` (and of what they require in turn)."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pending = [_distribution_name(r) for r in project["dependencies"]]
    core: set[str] = set()
    while pending:
        name = pending.pop()
        if name in core:
            continue
        core.add(name)
        try:
            requires = importlib.metadata.distribution(name).requires or []
        except importlib.metadata.PackageNotFoundError:
            continue
        pending += [_distribution_name(r) for r in requires if "extra ==" not in r.replace("extra==", "extra ==")]
    provided = {top for top, dists in importlib.metadata.packages_distributions().items()
                if any(_distribution_name(d) in core for d in dists)}
    return frozenset(sys.stdlib_module_names | provided)


def is_optional(module: str) -> bool:
    """``module`` belongs to a distribution that is not always installed: one of an extra."""
    head = module.split(".")[0]
    return head != PACKAGE and head not in core_modules()


def _parents(module: str) -> Iterator[str]:
    """``module`` and the packages Python imports first to reach it."""
    parts = module.split(".")
    for end in range(1, len(parts) + 1):
        yield ".".join(parts[:end])


def needing_extras(modules: dict[str, list[Import]]) -> set[str]:
    """The package's modules that import an optional dependency when they are imported, directly or through
    the package's modules they import at the top."""
    loads = {module: {parent for imp in found if not imp.in_function and not imp.type_checking
                      for target in imp.targets for parent in _parents(target)}
             for module, found in modules.items()}
    needing = {module for module, targets in loads.items() if any(is_optional(t) for t in targets)}
    grew = True
    while grew:
        grew = False
        for module, targets in loads.items():
            if module not in needing and targets & needing:
                needing.add(module)
                grew = True
    return needing


def justified(imp: Import, needing: set[str]) -> bool:
    """An import inside a function is justified when what it imports needs an extra (or is costly on import:
    :data:`COSTLY_ON_IMPORT`)."""
    return any(is_optional(target) or target in needing or target.split(".")[0] in COSTLY_ON_IMPORT
               for target in imp.targets)


def unjustified_imports(modules: dict[str, list[Import]], where: dict[str, str]) -> list[str]:
    """The imports inside functions of a module that need nothing optional: they belong at the top."""
    needing = needing_extras(modules)
    return [f"{where[module]}:{imp.line}: {imp.text}" for module, found in modules.items() for imp in found
            if imp.in_function and not justified(imp, needing)]


def import_loops(modules: dict[str, list[Import]]) -> list[list[str]]:
    """Each loop among the modules' top-level imports (``if TYPE_CHECKING:`` left out), as a path that ends
    where it started: one per strongly connected group of modules."""
    edges = {module: sorted({t for imp in found if not imp.in_function and not imp.type_checking
                             for t in imp.targets if t in modules and t != module})
             for module, found in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def strong(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for module in sorted(modules):
        if module not in index:
            strong(module)
    return [_loop_through(min(group), group, edges) for group in groups]


def _loop_through(start: str, group: set[str], edges: dict[str, list[str]]) -> list[str]:
    """The shortest path from ``start`` back to itself inside ``group``."""
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in edges[v]:
            if w == start:
                return [*paths[v], start]
            if w in group and w not in paths:
                paths[w] = [*paths[v], w]
                queue.append(w)
    raise AssertionError(f"no loop through {start}")


def read_modules(files: Iterable[tuple[Path, str]] | None = None, root: Path = ROOT,
                 ) -> tuple[dict[str, list[Import]], dict[str, str]]:
    """Every module's imports, and the file each module is in (relative to ``root``)."""
    modules: dict[str, list[Import]] = {}
    where: dict[str, str] = {}
    for path, module in files if files is not None else package_files(root):
        modules[module] = imports_in(path.read_text(encoding="utf-8"), module, path.name == "__init__.py")
        where[module] = str(path.relative_to(root))
    return modules, where


def test_no_import_loop() -> None:
    modules, _ = read_modules()
    loops = import_loops(modules)
    assert not loops, "import loops:\n" + "\n".join(" -> ".join(loop) for loop in loops)


def test_imports_inside_functions_are_of_optional_dependencies_only() -> None:
    modules, where = read_modules()
    needing = needing_extras(modules)
    found = [f"{where[module]}:{imp.line}: {imp.text}" for module, imports in modules.items()
             for imp in imports if imp.in_function and not justified(imp, needing)]
    assert not found, "imports inside functions that belong at the top of their module:\n" + "\n".join(found)


def test_the_count_of_imports_inside_functions_is_the_documented_one() -> None:
    modules, where = read_modules()
    found = [f"{where[module]}:{imp.line}: {imp.text}" for module, imports in modules.items()
             for imp in imports if imp.in_function]
    assert len(found) == FUNCTION_LEVEL_IMPORTS, (
        f"{len(found)} imports inside functions, FUNCTION_LEVEL_IMPORTS says {FUNCTION_LEVEL_IMPORTS}; "
        "update it if each is of an optional dependency:\n" + "\n".join(found))


def _modules(**sources: str) -> tuple[dict[str, list[Import]], dict[str, str]]:
    """Imports of made-up modules ``latent_agent.<name>`` from their sources."""
    modules = {f"{PACKAGE}.{name}": imports_in(source, f"{PACKAGE}.{name}") for name, source in sources.items()}
    return modules, {module: module for module in modules}


def test_the_loop_check_fails_on_a_loop_and_names_it() -> None:
    modules, _ = _modules(a="from latent_agent import b\n", b="from latent_agent.c import x\n",
                          c="import latent_agent.a\n", d="from latent_agent import a\n")
    assert import_loops(modules) == [["latent_agent.a", "latent_agent.b", "latent_agent.c", "latent_agent.a"]]


def test_the_loop_check_ignores_imports_inside_functions_and_for_type_checking() -> None:
    modules, _ = _modules(a="from latent_agent import b\n",
                          b=("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from latent_agent import a\n"
                             "def f():\n    from latent_agent import a\n"))
    assert import_loops(modules) == []


def test_the_function_import_check_fails_on_a_core_or_own_module() -> None:
    modules, where = _modules(a="def f():\n    import json\n", b="def f():\n    from latent_agent.a import x\n",
                              c="def f():\n    import numpy\n")
    assert unjustified_imports(modules, where) == [
        "latent_agent.a:2: import json", "latent_agent.b:2: from latent_agent.a import x",
        "latent_agent.c:2: import numpy"]


def test_the_function_import_check_allows_an_optional_dependency_and_a_module_that_needs_one() -> None:
    modules, where = _modules(
        gemini="from google import genai\n", via="from latent_agent.gemini import x\n",
        a="def f():\n    import scipy.stats\n", b="def f():\n    from latent_agent import via\n",
        c="def f():\n    from android_env import loader\n")
    assert unjustified_imports(modules, where) == []


def test_core_modules_come_from_pyproject() -> None:
    assert {"json", "numpy", "PIL", "rich", "jinja2", "pydantic", "rapidfuzz", "lxml"} <= core_modules()
    assert not {"google", "openai", "scipy", "adbutils", "android_env", "playwright"} & core_modules()
