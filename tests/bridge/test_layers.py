"""The runner's house rule (docs/developing.md, "How the code is laid
out"): bridge/ is built in layers, each importing only the layers below it,
with no circle anywhere, so a reader can walk it from the bottom up."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import bridge
from tests.model.test_style import imports

BRIDGE = Path(bridge.__file__).parent

LAYERS = ("formats", "wire", "checking", "runs", "outputs", "cli")
"""The runner's layers, bottom first: a package of bridge/ each."""


def module_of(path: Path) -> str:
    parts = path.relative_to(BRIDGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def graph() -> dict[str, set[str]]:
    """Every module of bridge/ and the modules of bridge/ it imports (a name
    imported from a package counts as its submodule when it is one): parsed
    once for the tests that read it."""
    modules = {module_of(path): path for path in BRIDGE.glob("**/*.py")}
    out: dict[str, set[str]] = {}
    for name, path in modules.items():
        found = {imported for imported in imports(path) if imported in modules}
        # `from bridge.wire import factory` names bridge.wire.factory, not bridge.wire.
        out[name] = {m for m in found if not any(o.startswith(m + ".") for o in found)} - {name}
    return out


def layer(module: str) -> int:
    """A module's floor: bridge/__init__.py (the version) is below every
    layer, bridge/__main__.py above them all."""
    parts = module.split(".")
    if parts == ["bridge"]:
        return -1
    if parts == ["bridge", "__main__"]:
        return len(LAYERS)
    assert parts[1] in LAYERS, f"{module} lies in no layer: put it in one of {LAYERS}"
    return LAYERS.index(parts[1])


def problems(edges: dict[str, set[str]]) -> list[str]:
    """Imports that run up a layer, and circles of imports."""
    out = [
        f"{module} (layer {LAYERS[layer(module)] if layer(module) < len(LAYERS) else 'top'}) "
        f"imports {imported} from a layer above it"
        for module, targets in sorted(edges.items())
        for imported in sorted(targets)
        if layer(imported) > layer(module)
    ]
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            out.append("circle: " + " -> ".join(path[path.index(module) :] + [module]))
            return
        if module in done:
            return
        for imported in sorted(edges.get(module, ())):
            visit(imported, path + [module])
        done.add(module)

    for module in sorted(edges):
        visit(module, [])
    return out


def test_every_module_of_the_runner_lies_in_a_layer() -> None:
    assert all(layer(module) is not None for module in graph())
    assert {module.split(".")[1] for module in graph() if module.count(".")} - {"__main__"} == set(
        LAYERS
    )


def test_the_runner_imports_only_downwards_and_has_no_circle() -> None:
    assert problems(graph()) == []


def test_an_upward_import_and_a_circle_are_found() -> None:
    """The check itself: an upward import and a circle inside a layer are named."""
    edges = {
        "bridge.wire.stream": {"bridge.runs.corpus"},
        "bridge.checking.compare": {"bridge.checking.shrink"},
        "bridge.checking.shrink": {"bridge.checking.compare"},
    }
    found = problems(edges)
    assert found[0] == (
        "bridge.wire.stream (layer wire) imports bridge.runs.corpus from a layer above it"
    )
    assert found[1:] == [
        "circle: bridge.checking.compare -> bridge.checking.shrink -> bridge.checking.compare"
    ]
