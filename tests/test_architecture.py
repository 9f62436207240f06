"""The layering of docs/design.md holds: no import cycle, and no module imports a higher layer.

Every ``import`` counts — at module level, inside functions (deferred) and under ``TYPE_CHECKING`` —
and importing ``privopt.a.b`` also imports the package ``privopt.a`` (its ``__init__`` runs first).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: The layers of docs/design.md, bottom-up: a module may import its own layer and the ones below.
LAYERS: list[tuple[str, ...]] = [
    (
        "privopt.errors",
        "privopt.tolerances",
        "privopt.validation",
        "privopt.memory",
        "privopt.callables",
        "privopt._version",
        "privopt.solvers",
    ),
    ("privopt.data",),
    ("privopt.sets", "privopt.utilities"),
    ("privopt.compiler",),
    ("privopt.certificates",),  # the independent checker: below every route
    ("privopt.definitions",),
    ("privopt.audit",),
    ("privopt.mechanisms",),
    ("privopt.routes",),
    ("privopt.problem",),
    ("privopt.designs",),
    ("privopt.app",),  # serialization (po.save) and plots: libraries the API exports
    ("privopt.experiments", "privopt.verify"),
    ("privopt",),  # the package itself: the public API
    ("privopt.app.cli", "privopt.app.spec", "privopt.app.demo"),  # clients of the public API
]


def _modules() -> dict[str, Path]:
    found = {}
    for root, package in ((REPO / "privopt", "privopt"), (REPO / "solvers", "privopt.solvers")):
        for path in root.rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            name = ".".join((package, *parts))
            found[name.removesuffix(".__init__")] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The module ``name`` refers to (a module, or the package holding an imported name)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from a import b`` imports the module a.b when there is one, else a name of a.
            names = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names
            ]
        for name in names:
            if not name.startswith("privopt"):
                continue
            target = _resolve(name)
            if target is None or target == module:
                continue
            targets.add(target)
            # Importing privopt.a.b runs privopt.a (and privopt) first.
            parent = target.rpartition(".")[0]
            while parent and parent != "privopt" and not module.startswith(parent + ".") and parent != module:
                targets.add(parent)
                parent = parent.rpartition(".")[0]
    return targets


GRAPH = {module: _imports(module, path) for module, path in MODULES.items()}


def _placed(module: str) -> int | None:
    """The layer of the longest prefix that names ``module`` (``None``: only the package root does)."""
    best, rank = -1, None
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (
                prefix != "privopt"
                and (module == prefix or module.startswith(prefix + "."))
                and len(prefix) > best
            ):
                best, rank = len(prefix), index
    return rank


ROOT_LAYER = next(i for i, prefixes in enumerate(LAYERS) if "privopt" in prefixes)


def _layer(module: str) -> int:
    placed = _placed(module)
    return ROOT_LAYER if placed is None else placed


def test_every_module_has_a_layer():
    unplaced = [m for m in MODULES if m != "privopt" and _placed(m) is None]
    assert not unplaced, f"modules outside every layer of docs/design.md: {unplaced}"


def test_no_module_imports_a_higher_layer():
    violations = [
        f"{module} (layer {_layer(module)}) imports {target} (layer {_layer(target)})"
        for module, targets in GRAPH.items()
        for target in targets
        if _layer(target) > _layer(module)
    ]
    assert not violations, "\n".join(sorted(violations))


def test_no_import_cycle():
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in GRAPH.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(GRAPH):
        if module not in index:
            visit(module)
    assert not cycles, f"import cycles: {cycles}"


@pytest.mark.parametrize(
    ("module", "target"),
    [("privopt.data.mechanism", "privopt.problem"), ("privopt.routes.vertex", "privopt.designs.compare")],
)
def test_the_checker_sees_a_forbidden_import(module, target, monkeypatch):
    # The check is not vacuous: an upward import added to the graph is reported.
    monkeypatch.setitem(GRAPH, module, GRAPH[module] | {target})
    with pytest.raises(AssertionError, match=f"{module} .* imports {target}"):
        test_no_module_imports_a_higher_layer()
