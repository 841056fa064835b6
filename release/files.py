"""The one list of what each artefact ships: the wheel (the runner and the
laws), the zipapp (the runner alone) and the sdist (what builds the wheel).
A file is named by its path in the project; SPEC.md, which lives in the
root, ships as `bridge/SPEC.md` (bridge/kit.py finds it there)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

RUNNER = (
    "bridge/**/*.py",
    "bridge/PROTOCOL.md",
    "bridge/*.schema.json",
    "model/**/*.py",
    "impl/**/*.py",
    "scenarios/*.py",
    "scenarios/README.md",
    "scenarios/*.json",
    "scenarios/corpus/*.jsonl",
    "scenarios/expected/CORPUS.json",
    "scenarios/expected/**/*.jsonl.gz",
    "scenarios/profiles/*.json",
)
"""The runner, `optchat-spec`, on the standard library alone: the bridge,
the scenario format and its data, the model it replays, the reference
engine."""

LAWS = ("laws/**/*.py", "laws/LAWS.lock")
"""`optchat-spec laws`, which needs the `laws` extra."""

DEV_ONLY = (
    "impl/build.py",
    "scenarios/generate.py",
    "laws/mutants.py",
    "laws/forks.py",
    "laws/mutation.py",
)
"""Tools of a clone that need what an installed runner lacks (mypyc, numpy,
mutmut, the project's own tests and git history), and what only they use
(laws/forks.py, for laws/mutants.py): never shipped."""

RENAMED = {"SPEC.md": "bridge/SPEC.md"}
"""Files shipped under another path: {path in the project: path shipped}."""

EXAMPLES = ("tests/bridge/engines", "bridge/examples/engines")
"""The example engines (`--engine example:NAME`, bridge/wire/examples.py):
where they are in the project, and where the runner ships them, as data
(programs the runner starts, never modules it imports), at the same depth
so that their paths to scenarios/profiles/ hold in both."""

BUILD = ("pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "release/*.py")
"""What an sdist adds to the wheel's files so that it builds the wheel again."""


def chosen(patterns: tuple[str, ...], root: Path = ROOT) -> dict[str, Path]:
    """{path shipped: file} for the files `patterns` match, less DEV_ONLY and
    bytecode, in a fixed order."""
    found: dict[str, Path] = {}
    for pattern in patterns:
        for path in sorted(root.glob(pattern)):
            name = path.relative_to(root).as_posix()
            if path.is_file() and name not in DEV_ONLY and "__pycache__" not in name:
                found[name] = path
    return found


def with_renamed(files: dict[str, Path], root: Path = ROOT) -> dict[str, Path]:
    """`files` with SPEC.md and the example engines, each under its shipped path."""
    source, shipped = EXAMPLES
    examples = chosen((f"{source}/*.py",), root)
    return {
        **files,
        **{shipped: root / source for source, shipped in RENAMED.items()},
        **{f"{shipped}/{Path(name).name}": path for name, path in examples.items()},
    }


def runner(root: Path = ROOT) -> dict[str, Path]:
    """The zipapp's payload."""
    return with_renamed(chosen(RUNNER, root), root)


def wheel(root: Path = ROOT) -> dict[str, Path]:
    """The wheel's packages and data."""
    return with_renamed(chosen(RUNNER + LAWS, root), root)


def sdist(root: Path = ROOT) -> dict[str, Path]:
    """The sdist's files, by their paths in the project."""
    return chosen(RUNNER + LAWS + BUILD + tuple(RENAMED) + (f"{EXAMPLES[0]}/*.py",), root)
