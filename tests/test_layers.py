"""Imports run one way, from content to infrastructure, and never in a circle.

Every module of the project's packages is parsed with `ast` (nothing is
imported), and every import between first-party modules is collected: at
module level and inside functions alike, since an import deferred into a
function is still a dependency, only one that Python resolves later.
The layers, from the bottom:

    rendering             pure library: no other first-party package, no models
    serving               the middleware around every view: rendering only
    pagecache, search,    infrastructure: rendering and serving only
    background
    blog                  the content; series holds only its old migrations
    vault                 Markdown in and out: the content and below
    comments              readers' comments on posts: the content and below
    config                configuration: its settings, urls and wsgi name the
                          apps; no app imports config (settings name the apps'
                          modules by dotted string)
    scripts, tests        tools; scripts never import tests, nothing does
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Folders of modules without an __init__.py, run as scripts or imported by name.
NAMESPACES = ("scripts",)

LIBRARIES = {"rendering", "serving"}
INFRASTRUCTURE = LIBRARIES | {"pagecache", "search", "background"}
APPS = INFRASTRUCTURE | {"series", "blog", "vault", "comments"}
# The first-party packages each package may import (besides itself). No app
# imports config: it sits above them all, and only tools reach into it.
ALLOWED = {
    "rendering": set(),
    "serving": {"rendering"},
    "pagecache": LIBRARIES,
    "search": LIBRARIES,
    "background": LIBRARIES,
    "series": set(),
    "blog": INFRASTRUCTURE,
    "vault": INFRASTRUCTURE | {"blog"},
    "comments": INFRASTRUCTURE | {"blog"},
    "config": set(),
    "scripts": APPS | {"config"},
    "tests": APPS | {"config", "scripts"},
}
# config's wiring names the apps; its cache and database backends may not.
WIRING = ("config.settings", "config.urls", "config.wsgi")
# A pure library renders text: it touches no database, model or app registry.
MODEL_LAYERS = ("django.db", "django.apps", "django.contrib", "wagtail", "taggit")
PURE = {"rendering": MODEL_LAYERS}


@dataclass(frozen=True)
class Import:
    """`source` imports `target` (a first-party module or a third-party name)."""

    source: str
    target: str
    line: int
    deferred: bool  # inside a function: resolved when the function runs

    def __str__(self) -> str:
        where = "in a function" if self.deferred else "at module level"
        return f"{self.source}:{self.line} imports {self.target} ({where})"


def module_name(path: Path, root: Path) -> str:
    """Return the dotted name of the module at `path` (a package: its __init__).

    A script beside a package of the same name (scripts/bench.py next to
    scripts/bench/) is named with a trailing ":script", so the two stay apart.
    """
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        return ".".join(parts[:-1])
    name = ".".join(parts)
    if path.with_suffix("").is_dir():
        return name + ":script"
    return name


def first_party_packages(root: Path) -> list[str]:
    """Return the project's top-level packages: its folders of Python modules."""
    return sorted(
        folder.name
        for folder in root.iterdir()
        if (folder / "__init__.py").exists() or folder.name in NAMESPACES
    )


def project_modules(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Return {dotted name: path} of every Python module of `packages`."""
    modules = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            modules[module_name(path, root)] = path
    return modules


def _is_package(name: str, modules: dict[str, Path]) -> bool:
    return name in modules and modules[name].name == "__init__.py"


def _resolve(name: str, modules: dict[str, Path]) -> str:
    """Return the longest first-party module `name` lies in, or `name` itself."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return name


def imports_of(name: str, modules: dict[str, Path]) -> Iterator[Import]:
    """Yield every import the module `name` makes, wherever in it."""
    path = modules[name]
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if _is_package(name, modules) else name.rpartition(".")[0]
    package = package.removesuffix(":script")

    def visit(statements: list[ast.AST], deferred: bool) -> Iterator[Import]:
        for node in statements:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    target = _resolve(alias.name, modules)
                    yield Import(name, target, node.lineno, deferred)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                for alias in node.names:
                    # `from blog import models` imports the module blog.models.
                    submodule = f"{base}.{alias.name}"
                    target = submodule if submodule in modules else base
                    yield Import(name, _resolve(target, modules), node.lineno, deferred)
            # A class body runs on import; a function's body when it is called.
            inner = deferred or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            # Imports are statements: only blocks of statements can hold one.
            for block in ("body", "orelse", "finalbody", "handlers", "cases"):
                yield from visit(getattr(node, block, []), inner)

    yield from visit(tree.body, False)


def all_imports(modules: dict[str, Path]) -> dict[str, list[Import]]:
    """Return {module: every import it makes}, each module parsed once."""
    return {name: list(imports_of(name, modules)) for name in modules}


def import_graph(imports: dict[str, list[Import]]) -> dict[str, list[Import]]:
    """Return {module: its imports of other first-party modules, one per line}."""
    graph = {}
    for name, found_in_module in imports.items():
        edges = {}
        for found in found_in_module:
            if found.target in imports and found.target != name:
                edges.setdefault((found.target, found.line), found)
        graph[name] = list(edges.values())
    return graph


def find_cycles(graph: dict[str, list[Import]]) -> list[list[Import]]:
    """Return cycles of imports that, together, hold every import in a cycle.

    Tarjan's algorithm finds the groups of modules that import each other; in
    each, every import not yet shown gets the shortest way back to where it
    started, so each import that closes a circle appears in the report.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def connect(node: str) -> None:
        # Recursive, but the depth is bounded by the length of an import chain.
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for edge in graph[node]:
            if edge.target not in index:
                connect(edge.target)
                low[node] = min(low[node], low[edge.target])
            elif edge.target in on_stack:
                low[node] = min(low[node], index[edge.target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            connect(node)
    cycles: list[list[Import]] = []
    for group in sorted(groups, key=min):
        # One import per pair of modules: the first, by line.
        first = {}
        for source in sorted(group):
            for edge in graph[source]:
                if edge.target in group:
                    first.setdefault((source, edge.target), edge)
        shown: set[Import] = set()
        for edge in first.values():
            if edge in shown:
                continue
            cycle = [edge, *_shortest_path(first, edge.target, edge.source)]
            start = min(range(len(cycle)), key=lambda i: cycle[i].source)
            cycle = cycle[start:] + cycle[:start]
            shown.update(cycle)
            if cycle not in cycles:
                cycles.append(cycle)
    return cycles


def _shortest_path(
    edges: dict[tuple[str, str], Import], start: str, end: str
) -> list[Import]:
    """Return the fewest imports leading from module `start` to module `end`."""
    paths: dict[str, list[Import]] = {start: []}
    frontier = [start]
    while frontier and end not in paths:
        following = []
        for (source, target), edge in edges.items():
            if source in frontier and target not in paths:
                paths[target] = [*paths[source], edge]
                following.append(target)
        frontier = following
    if end not in paths:
        raise AssertionError(f"no way from {start} to {end} in its own cycle")
    return paths[end]


def _package(module: str) -> str:
    return module.split(".")[0]


def layer_violations(imports: dict[str, list[Import]]) -> list[Import]:
    """Return the imports between first-party packages that go against the layers."""
    wrong = []
    for source, edges in import_graph(imports).items():
        package = _package(source)
        if package not in ALLOWED:
            continue  # reported on its own
        wiring = any(source == w or source.startswith(w + ".") for w in WIRING)
        for edge in edges:
            target = _package(edge.target)
            if target == package:
                continue
            if target == "tests" and package != "tests":
                wrong.append(edge)
            elif wiring:
                if target in ("scripts", "tests"):
                    wrong.append(edge)
            elif target not in ALLOWED[package]:
                wrong.append(edge)
    for source, found_in_module in imports.items():
        banned = PURE.get(_package(source), ())
        wrong += [
            found
            for found in found_in_module
            if any(
                found.target == name or found.target.startswith(name + ".")
                for name in banned
            )
        ]
    return wrong


def scan(root: Path) -> tuple[list[str], dict[str, list[Import]]]:
    """Return the project's packages and {module: every import it makes}."""
    packages = first_party_packages(root)
    return packages, all_imports(project_modules(root, packages))


def check(root: Path, scanned=None) -> list[str]:
    """Return a line per import cycle and per import against the layers."""
    packages, imports = scanned or scan(root)
    problems = [
        f"no layer for the package {package}: add it to ALLOWED"
        for package in packages
        if package not in ALLOWED
    ]
    for cycle in find_cycles(import_graph(imports)):
        route = " -> ".join([edge.source for edge in cycle] + [cycle[0].source])
        steps = "; ".join(str(edge) for edge in cycle)
        problems.append(f"cycle: {route}  [{steps}]")
    for edge in layer_violations(imports):
        problems.append(f"against the layers: {edge}")
    return problems


def _lines(problems: list[str]) -> str:
    return "\n".join(problems)


@functools.cache
def scan_here() -> tuple[list[str], dict[str, list[Import]]]:
    return scan(ROOT)


def problems_here() -> list[str]:
    return check(ROOT, scan_here())


def test_no_module_imports_another_in_a_circle():
    cycles = [problem for problem in problems_here() if problem.startswith("cycle")]
    assert not cycles, _lines(cycles)


def test_imports_run_from_content_to_infrastructure():
    wrong = [p for p in problems_here() if not p.startswith("cycle")]
    assert not wrong, _lines(wrong)


def test_the_checks_above_read_the_project():
    # On an empty scan they would find nothing wrong: it must see the apps,
    # and the imports between them.
    packages, imports = scan_here()
    assert {"blog", "vault", "rendering", "tests"} <= set(packages)
    edges = [edge for edges in import_graph(imports).values() for edge in edges]
    assert any(
        _package(edge.source) == "vault" and _package(edge.target) == "blog"
        for edge in edges
    )


def test_nothing_outside_the_tests_imports_them():
    _, imports = scan_here()
    wrong = [
        str(edge)
        for source, edges in import_graph(imports).items()
        if _package(source) != "tests"
        for edge in edges
        if _package(edge.target) == "tests"
    ]
    assert not wrong, _lines(wrong)


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


# A project laid out as the layers want it; the test below breaks it one way at a time.
TIDY = {
    "rendering/__init__.py": "",
    "rendering/math.py": "import re\nfrom .cache import memoize\n",
    "rendering/cache.py": "def memoize(f):\n    return f\n",
    "serving/__init__.py": "",
    "serving/security.py": "from rendering.math import memoize\n",
    "config/__init__.py": "",
    "config/cache.py": "import logging\n",
    "config/urls.py": "from blog import views\nfrom search.engine import query\n",
    "config/settings/__init__.py": "",
    "config/settings/base.py": "import vault\n",
    "search/__init__.py": "",
    "search/engine.py": "from serving import security\n\ndef query(qs):\n    return qs\n",
    "pagecache/__init__.py": "from rendering import math\n",
    "blog/__init__.py": "",
    "blog/models.py": "from django.db import models\nfrom search.engine import query\n",
    "blog/views.py": "from . import models\nfrom .models import PostPage\n",
    "blog/feeds.py": "def entries():\n    from blog.models import PostPage\n",
    "vault/__init__.py": "",
    "blog/templatetags/__init__.py": "",
    "blog/templatetags/tags.py": (
        "from ..models import PostPage\nfrom .. import views\nfrom serving import security\n"
    ),
    "vault/importer.py": "from blog.models import PostPage\nfrom . import exporter\n",
    "vault/exporter.py": "from blog import feeds\n",
    "scripts/bench.py": "from scripts.bench.load import wrk\n",
    "scripts/bench/__init__.py": "",
    "scripts/bench/load.py": "import scripts.support.servers\n",
    "scripts/support/__init__.py": "",
    "scripts/support/servers.py": "import socket\n",
    "tests/__init__.py": "",
    "tests/test_blog.py": "from blog.models import PostPage\nimport scripts.bench\n",
}


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, []),
        (
            # The cycle through imports deferred into functions, as in a real one.
            {"blog/models.py": "def feed():\n    from blog.feeds import entries\n"},
            [
                "cycle: blog.feeds -> blog.models -> blog.feeds  "
                "[blog.feeds:2 imports blog.models (in a function); "
                "blog.models:2 imports blog.feeds (in a function)]"
            ],
        ),
        (
            {"search/engine.py": "def query(qs):\n    from blog.models import Post\n"},
            [
                "cycle: blog.models -> search.engine -> blog.models  "
                "[blog.models:2 imports search.engine (at module level); "
                "search.engine:2 imports blog.models (in a function)]",
                "against the layers: search.engine:2 imports blog.models "
                "(in a function)",
            ],
        ),
        (
            {
                "blog/models.py": "from search.engine import query\n\n"
                "def feed():\n    from blog.feeds import entries\n",
                "search/engine.py": "def query(qs):\n    from blog.models import Post\n",
            },
            [
                "cycle: blog.feeds -> blog.models -> blog.feeds  "
                "[blog.feeds:2 imports blog.models (in a function); "
                "blog.models:4 imports blog.feeds (in a function)]",
                "cycle: blog.models -> search.engine -> blog.models  "
                "[blog.models:1 imports search.engine (at module level); "
                "search.engine:2 imports blog.models (in a function)]",
                "against the layers: search.engine:2 imports blog.models "
                "(in a function)",
            ],
        ),
        (
            {"rendering/cache.py": "from django.db import models\n"},
            [
                "against the layers: rendering.cache:1 imports django.db "
                "(at module level)"
            ],
        ),
        (
            {"rendering/math.py": "from pagecache import math\n"},
            [
                "cycle: pagecache -> rendering.math -> pagecache  "
                "[pagecache:1 imports rendering.math (at module level); "
                "rendering.math:1 imports pagecache (at module level)]",
                "against the layers: rendering.math:1 imports pagecache "
                "(at module level)",
            ],
        ),
        (
            {"serving/security.py": "import blog.views\n"},
            [
                "cycle: blog.models -> search.engine -> serving.security -> blog.views"
                " -> blog.models  "
                "[blog.models:2 imports search.engine (at module level); "
                "search.engine:1 imports serving.security (at module level); "
                "serving.security:1 imports blog.views (at module level); "
                "blog.views:1 imports blog.models (at module level)]",
                "against the layers: serving.security:1 imports blog.views "
                "(at module level)",
            ],
        ),
        (
            {"serving/security.py": "def policy():\n    from config import cache\n"},
            [
                "against the layers: serving.security:2 imports config.cache "
                "(in a function)"
            ],
        ),
        (
            {"blog/feeds.py": "from config.settings import base\n"},
            [
                "against the layers: blog.feeds:1 imports config.settings.base "
                "(at module level)"
            ],
        ),
        (
            {"config/cache.py": "from serving import security\n"},
            [
                "against the layers: config.cache:1 imports serving.security "
                "(at module level)"
            ],
        ),
        (
            {"blog/feeds.py": "def entries():\n    from vault import importer\n"},
            [
                "cycle: blog.feeds -> vault.importer -> vault.exporter -> blog.feeds  "
                "[blog.feeds:2 imports vault.importer (in a function); "
                "vault.importer:2 imports vault.exporter (at module level); "
                "vault.exporter:1 imports blog.feeds (at module level)]",
                "against the layers: blog.feeds:2 imports vault.importer "
                "(in a function)",
            ],
        ),
        (
            {"pagecache/__init__.py": "from search import engine\n"},
            ["against the layers: pagecache:1 imports search.engine (at module level)"],
        ),
        (
            {"scripts/support/servers.py": "from tests.test_blog import x\n"},
            [
                "against the layers: scripts.support.servers:1 imports "
                "tests.test_blog (at module level)",
            ],
        ),
        (
            {"media/__init__.py": "from blog.models import PostPage\n"},
            ["no layer for the package media: add it to ALLOWED"],
        ),
        (
            {"vault/importer.py": "def f():\n    from tests import test_blog\n"},
            [
                "against the layers: vault.importer:2 imports tests.test_blog "
                "(in a function)"
            ],
        ),
    ],
    ids=[
        "tidy",
        "deferred-cycle",
        "search-imports-content",
        "two-cycles-in-one-group",
        "rendering-uses-models",
        "rendering-imports-first-party",
        "middleware-imports-content",
        "middleware-imports-config",
        "content-imports-config",
        "backend-imports-an-app",
        "content-imports-vault",
        "infrastructure-imports-sibling",
        "scripts-import-tests",
        "unknown-package",
        "app-imports-tests",
    ],
)
def test_the_checker_reports_cycles_and_imports_against_the_layers(
    tmp_path, changes, expected
):
    write(tmp_path, {**TIDY, **changes})
    assert check(tmp_path) == expected
