"""`python -m release dist [OUT]`: the wheel, sdist, zipapp and SHA256SUMS
into OUT (default dist/). `python -m release zipapp OUT`: optchat-spec.pyz
alone. `python -m release cut X.Y.Z [OUT]`: the release step (RELEASING.md).
Exit 0 done, 2 when the tree cannot be released or built (one line says
why)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from release import cut, dist, files, zipapp


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m release", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("dist", help="build every artefact")
    build.add_argument("out", nargs="?", type=Path, default=files.ROOT / "dist")
    single = commands.add_parser("zipapp", help="build optchat-spec.pyz alone")
    single.add_argument("out", type=Path)
    release = commands.add_parser("cut", help="release X.Y.Z: commit, tag, build, next dev")
    release.add_argument("version")
    release.add_argument("out", nargs="?", type=Path, default=files.ROOT / "dist")
    args = parser.parse_args(argv)
    try:
        if args.command == "dist":
            made = dist.build(args.out, files.ROOT)
        elif args.command == "zipapp":
            made = [zipapp.build(args.out, files.ROOT)]
        else:
            made = cut.cut(files.ROOT, args.version, args.out)
    except (cut.NotReleasable, OSError, ValueError, subprocess.CalledProcessError) as error:
        print(f"release: {error}", file=sys.stderr)
        return 2
    for path in made:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
