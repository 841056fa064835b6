"""The model's house rules: pure, self-contained, every public function citing SPEC."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import model

MODEL = Path(model.__file__).parent


def modules() -> list[str]:
    return [f"model.{m.name}" for m in pkgutil.iter_modules([str(MODEL)])]


def test_every_public_function_cites_its_spec_section() -> None:
    missing = []
    for name in modules():
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if attr.startswith("_") or getattr(value, "__module__", None) != name:
                continue
            if inspect.isfunction(value) or inspect.isclass(value):
                doc = inspect.getdoc(value) or ""
                if "SPEC" not in doc:
                    missing.append(f"{name}.{attr}")
    assert missing == []


def imports(path: Path) -> list[str]:
    """The modules a file imports, and `module.name` for each name taken from
    one (a submodule, when `name` is one), anywhere in the file."""
    out: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            out.append(node.module or "")
            out += [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
    return out


def roots(folder: str) -> set[tuple[str, str]]:
    """(file, top-level package) for every import under a project folder."""
    return {
        (str(path), name.split(".")[0])
        for path in (MODEL.parent / folder).glob("**/*.py")
        for name in imports(path)
    }


def test_the_model_imports_nothing_of_the_project_and_does_no_io() -> None:
    allowed = {"model", "__future__", "collections", "dataclasses", "typing"}
    assert {(f, r) for f, r in roots("model") if r not in allowed} == set()
    for path in MODEL.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("open", "print"):
                raise AssertionError(f"{path.name} does I/O: {ast.unparse(node)}")


def test_impl_never_imports_the_model_laws_or_bridge() -> None:
    assert {(f, r) for f, r in roots("impl") if r in {"model", "laws", "bridge"}} == set()


def test_laws_never_import_the_engine_or_the_bridge() -> None:
    assert {(f, r) for f, r in roots("laws") if r in {"impl", "bridge"}} == set()
