"""`python -m impl.build`: compile the planner's modules (`impl.PLANNER`) to
C with mypyc, and `impl.SCANNER` from its C source, into `build/engine/`,
and record the hash of the sources they were made from; `impl/__init__.py`
loads them only while that hash matches.
`python -m impl.build --clean` removes the build.

mypyc compiles the modules as they are, type hints included: a type error
fails the build, and the compiled code checks the hinted types at run time.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import warnings

import impl

ROOT = impl.HERE.parent


def build() -> None:
    """Compile the planner and write its SOURCES hash last, so that a failed
    build is never loaded."""
    from mypyc.build import mypycify
    from setuptools import Extension, setup

    # setuptools reads pyproject.toml and calls its [tool.setuptools] table beta.
    warnings.filterwarnings("ignore", module="setuptools")
    shutil.rmtree(impl.BUILD, ignore_errors=True)
    paths = [str(impl.HERE / f"{module}.py") for module in impl.PLANNER]
    cache = f"--cache-dir={impl.BUILD.parent / 'mypy-cache'}"
    with tempfile.TemporaryDirectory() as scratch:
        # gcc -O1: a third less build time than mypyc's default -O3, and the
        # corpus replays in the same time (7.7 s and 7.5 s for the corpus, measured here).
        extensions = mypycify(
            [cache, *paths], group_name="impl.engine", target_dir=f"{scratch}/c", opt_level="1"
        )
        # -O3: gcc makes textscan.c's loops vector instructions only from -O3.
        scanner = Extension(
            f"impl.{impl.SCANNER}",
            [str(impl.HERE / f"{impl.SCANNER}.c")],
            extra_compile_args=["-O3"],
        )
        setup(
            name="optchat-engine",
            ext_modules=[*extensions, scanner],
            # The extension alone: no package discovery in the project's root.
            packages=[],
            py_modules=[],
            script_args=[
                "--quiet",
                "build_ext",
                f"--build-lib={impl.BUILD.parent}",
                f"--build-temp={scratch}/o",
            ],
        )
    (impl.BUILD / "SOURCES").write_text(impl.sources_hash() + "\n", encoding="utf-8")


def loaded() -> str:
    """Where a fresh interpreter here loads the planner from; SystemExit
    unless it is the build."""
    probe = "import impl, impl.planner; print(impl.COMPILED, impl.planner.__file__)"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=False
    )
    compiled, _, where = done.stdout.strip().partition(" ")
    if done.returncode != 0 or compiled != "True" or not where.startswith(str(impl.BUILD)):
        raise SystemExit(
            f"impl.build: the build in {impl.BUILD} is not loaded "
            f"(OPTCHAT_PURE set?): {done.stdout}{done.stderr}"
        )
    return where


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m impl.build", description=__doc__)
    parser.add_argument("--clean", action="store_true", help="remove the build")
    parser.add_argument(
        "--if-stale", action="store_true", help="build only unless the build matches the sources"
    )
    args = parser.parse_args(argv)
    if args.clean:
        shutil.rmtree(impl.BUILD.parent, ignore_errors=True)
        return 0
    if args.if_stale and impl.COMPILED:
        print(f"impl.build: the build matches the sources; loaded from {loaded()}")
        return 0
    build()
    print(f"impl.build: the planner is compiled and loaded from {loaded()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
