"""The wheel and the sdist, written from `release.files` and the
`[project]` table of pyproject.toml, byte for byte the same for the same
sources (fixed order, times and modes: SOURCE_DATE_EPOCH or 1980)."""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import os
import tarfile
import time
import tomllib
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from release import files
from release.version import SOURCE, stamp, stamped

TAG = "py3-none-any"


def project(root: Path) -> dict[str, Any]:
    with (root / "pyproject.toml").open("rb") as file:
        return tomllib.load(file)["project"]


def dist_name(name: str) -> str:
    """The name as wheel and sdist file names spell it (`optchat_spec`)."""
    return name.replace("-", "_").replace(".", "_").lower()


def source_date() -> int:
    """The time every archive member carries, in seconds since 1970: zip
    cannot date a file before 1980."""
    return max(int(os.environ.get("SOURCE_DATE_EPOCH", "0")), 315532800)


def metadata(root: Path, version: str) -> str:
    """Core metadata 2.4 (PKG-INFO, METADATA) from pyproject's [project]."""
    meta = project(root)
    lines = [
        "Metadata-Version: 2.4",
        f"Name: {meta['name']}",
        f"Version: {version}",
        f"Summary: {meta['description']}",
        f"License-Expression: {meta['license']}",
        "License-File: LICENSE",
        f"Requires-Python: {meta['requires-python']}",
    ]
    lines += [f"Requires-Dist: {requirement}" for requirement in meta.get("dependencies", [])]
    for extra, requirements in meta.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        for requirement in requirements:
            spec, _, marker = requirement.partition(";")
            when = f'({marker.strip()}) and extra == "{extra}"' if marker else f'extra == "{extra}"'
            lines.append(f"Requires-Dist: {spec.strip()}; {when}")
    lines.append("Description-Content-Type: text/markdown")
    readme = (root / meta["readme"]).read_text(encoding="utf-8")
    return "\n".join(lines) + "\n\n" + readme


def entry_points(root: Path) -> str:
    scripts = project(root).get("scripts", {})
    return "[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in scripts.items())


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def write_zip(target: Path, members: Iterable[tuple[str, bytes]], prefix: bytes = b"") -> None:
    """A zip archive of `members` in their order, every one dated `source_date()`,
    mode 644, deflated; `prefix` (a `#!` line) before the archive. Written
    beside `target` and moved into place, so no half-made file is left."""
    partial = target.with_name(target.name + ".partial")
    with partial.open("wb") as out:
        out.write(prefix)
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in members:
                info = zipfile.ZipInfo(name, time.gmtime(source_date())[:6])
                info.external_attr = 0o644 << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, data, compresslevel=9)
    partial.replace(target)


def payload(shipped: dict[str, Path], version: str) -> list[tuple[str, bytes]]:
    """The files to ship, bridge/__init__.py stamped with `version`."""
    members = []
    for name, path in shipped.items():
        data = path.read_bytes()
        if name == SOURCE.as_posix():
            data = stamp(data.decode("utf-8"), version).encode("utf-8")
        members.append((name, data))
    return members


def dist_info(root: Path, name: str, version: str) -> list[tuple[str, bytes]]:
    info = f"{dist_name(name)}-{version}.dist-info"
    wheel = f"Wheel-Version: 1.0\nGenerator: release.wheel\nRoot-Is-Purelib: true\nTag: {TAG}\n"
    return [
        (f"{info}/METADATA", metadata(root, version).encode("utf-8")),
        (f"{info}/WHEEL", wheel.encode()),
        (f"{info}/entry_points.txt", entry_points(root).encode()),
        (f"{info}/licenses/LICENSE", (root / "LICENSE").read_bytes()),
    ]


def finish_wheel(directory: Path, root: Path, members: list[tuple[str, bytes]]) -> str:
    """Write `members` and their RECORD as the wheel; its file name."""
    name, version = project(root)["name"], stamped(root)
    members = members + dist_info(root, name, version)
    record = f"{dist_name(name)}-{version}.dist-info/RECORD"
    lines = [record_line(n, data) for n, data in members] + [f"{record},,"]
    members.append((record, ("\n".join(lines) + "\n").encode()))
    filename = f"{dist_name(name)}-{version}-{TAG}.whl"
    write_zip(directory / filename, members)
    return filename


def build_wheel(directory: Path, root: Path) -> str:
    """The wheel of `root` into `directory`; its file name."""
    return finish_wheel(directory, root, payload(files.wheel(root), stamped(root)))


def build_editable(directory: Path, root: Path) -> str:
    """A wheel that puts `root` itself on sys.path (PEP 660): edits take
    effect without reinstalling."""
    pth = (str(root.resolve()) + "\n").encode()
    return finish_wheel(directory, root, [(f"{dist_name(project(root)['name'])}.pth", pth)])


def build_sdist(directory: Path, root: Path) -> str:
    """The sdist of `root` into `directory` (PKG-INFO holds the version it
    was made with); its file name."""
    name, version = project(root)["name"], stamped(root)
    base = f"{dist_name(name)}-{version}"
    members = payload(files.sdist(root), version)
    members.append(("PKG-INFO", metadata(root, version).encode("utf-8")))
    filename = f"{base}.tar.gz"
    partial = directory / (filename + ".partial")
    mtime = source_date()
    with partial.open("wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=mtime) as gz:
            with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
                for member, data in sorted(members):
                    info = tarfile.TarInfo(f"{base}/{member}")
                    info.size, info.mtime, info.mode = len(data), mtime, 0o644
                    tar.addfile(info, io.BytesIO(data))
    partial.replace(directory / filename)
    return filename
