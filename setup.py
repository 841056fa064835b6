"""The wheel's one addition to pyproject.toml: SPEC.md, the normative text,
lives in the project root and is carried in the wheel as `bridge/SPEC.md`, so
that an installed runner has it beside bridge/PROTOCOL.md (`optchat-spec
files` says where). A copy made at build time, so there is one SPEC.md to
edit."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithSpec(build_py):
    def run(self) -> None:
        super().run()
        self.copy_file("SPEC.md", str(Path(self.build_lib) / "bridge" / "SPEC.md"))


setup(cmdclass={"build_py": BuildWithSpec})
