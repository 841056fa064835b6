"""`--help` lists every command the runner has (issue 37: `expect` was left
out), in the order it registers them, both in the table written at the top
of bridge/cli/__init__.py and in argparse's list; and each command's own
`--help` exits 0."""

from __future__ import annotations

import re

import pytest

from bridge import cli


def listed(capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as done:
        cli.main(["--help"])
    assert done.value.code == 0
    return capsys.readouterr().out


def test_the_help_lists_every_command_in_both_places_in_one_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = listed(capsys)
    table, _, rest = out.partition("\nAn engine (--engine)")
    written = re.findall(r"^  ([a-z][a-z-]*)(?: |$)", table, re.M)
    choices = re.findall(r"^    ([a-z][a-z-]*)(?: |$)", rest.partition("options:")[0], re.M)
    modules = [m.__name__.rsplit(".", 1)[1].replace("_", "-") for m in cli.COMMANDS]
    assert written == choices == modules, (written, choices, modules)
    assert "expect" in modules
    for name in modules:
        with pytest.raises(SystemExit) as done:
            cli.main([name, "--help"])
        assert done.value.code == 0, name
        assert capsys.readouterr().out.startswith("usage: "), name
