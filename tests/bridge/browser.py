"""Pages opened in headless Chromium (Debian's `chromium`, or its
`chromium-headless-shell`), making no network call: what a page's own
script and the browser's console said."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

NAMES = ("chromium", "chromium-headless-shell")
"""Debian's packages of a Chromium that runs headless, by the command each
installs: the browser, and the headless shell alone (what a CI machine
may install instead)."""

CHROMIUM = next(filter(None, map(shutil.which, NAMES)), None)

needs_chromium = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("OPTCHAT_REQUIRE_CHROMIUM"),
    reason="needs Debian's chromium or chromium-headless-shell (apt-get install chromium); "
    ".ci/run installs it",
)
"""Skip without Chromium, unless OPTCHAT_REQUIRE_CHROMIUM is set: then fail."""

PROBE = """<script>
(() => {
  const seen = [];
  const keep = (what) => seen.push(String(what));
  for (const name of ["alert", "confirm", "prompt", "print"]) {
    window[name] = (...words) => keep(`dialog ${name}: ${words.join(" ")}`);
  }
  addEventListener("error", (e) => keep(e.message || e.target.outerHTML), true);
  addEventListener("unhandledrejection", (e) => keep(e.reason));
  document.addEventListener("securitypolicyviolation", (e) => keep("CSP " + e.blockedURI));
  const error = console.error;
  console.error = (...words) => { keep(words.join(" ")); error(...words); };
  addEventListener("load", () => {
    document.body.offsetHeight;
    const out = document.createElement("pre");
    out.id = "probe";
    out.textContent = JSON.stringify({errors: seen, ms: performance.now()});
    document.body.append(out);
  });
})();
</script>"""
"""Put first in a page (before its Content-Security-Policy, which then does
not apply to it): writes any dialog opened, errors, policy violations and
console errors, and the time from navigation to the load event, into the
DOM that Chromium dumps."""


def run_chromium(page: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """Open a file in headless Chromium with flags that make no network call."""
    assert CHROMIUM is not None, "OPTCHAT_REQUIRE_CHROMIUM is set but chromium is not installed"
    root = ["--no-sandbox"] if os.geteuid() == 0 else []
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [
                CHROMIUM,
                "--headless",
                *root,
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
                *flags,
                page.resolve().as_uri(),
            ],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=120,
            check=True,
        )


def chromium(page: Path, *flags: str) -> str:
    """Open a file in headless Chromium; its stdout."""
    return run_chromium(page, *flags).stdout


@dataclass(frozen=True)
class Visit:
    """A page opened with the probe: its DOM after the load event, what the
    probe saw, and every message the browser's console received."""

    dom: str
    probe: dict[str, Any]
    console: list[str]


class Probed(HTMLParser):
    """The probe's text in a dumped DOM."""

    def __init__(self) -> None:
        super().__init__()
        self.text = ""
        self.reading = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.reading = dict(attrs).get("id") == "probe"

    def handle_data(self, data: str) -> None:
        if self.reading:
            self.text += data


def visit(page: Path) -> Visit:
    """Open an HTML page with the probe put first (in a copy beside it),
    logging the console to stderr."""
    probed = page.with_name(f"probed-{page.name}")
    probed.write_text(page.read_text(encoding="utf-8").replace("<head>", "<head>" + PROBE, 1))
    done = run_chromium(probed, "--enable-logging=stderr", "--v=0", "--dump-dom")
    probed.unlink()
    parsed = Probed()
    parsed.feed(done.stdout)
    assert parsed.text, f"{page.name} never reached its load event"
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    return Visit(done.stdout, json.loads(parsed.text), console)
