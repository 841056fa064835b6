"""`python -m tests.load N -- COMMAND...`: run COMMAND beside N busy
processes, as on a loaded CI runner (`make test LOAD=10`, `make laws
LOAD=10`), then end them.

Each busy process spins on a core until the command has ended. This process
ends them when the command ends, fails or cannot start, on Ctrl-C and on
SIGTERM (which it passes on to the command); and each ends by itself as
soon as this process is gone (it watches its parent), even after a SIGKILL,
so none outlives the run. At most MOST of them. The exit code is the
command's (2 for a usage error)."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from types import FrameType

MOST = 64

BUSY = (
    "import os, sys\n"
    "while os.getppid() == int(sys.argv[1]):\n"
    "    for _ in range(200_000):\n"
    "        pass\n"
)
"""A busy process: spins while its parent is the process named by its
argument (a parent gone before it started is gone too)."""


def unblock_sigterm() -> None:
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.load", description=__doc__)
    parser.add_argument("busy", type=int, help=f"busy processes, 0 to {MOST}")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ...")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not 0 <= args.busy <= MOST:
        parser.error(f"busy processes: 0 to {MOST}, not {args.busy}")
    if not command:
        parser.error("no command to run")

    def terminated(signum: int, _: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminated)
    busy: list[subprocess.Popen[bytes]] = []
    child: subprocess.Popen[bytes] | None = None
    try:
        for _ in range(args.busy):
            busy.append(
                subprocess.Popen(
                    [sys.executable, "-c", BUSY, str(os.getpid())],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    start_new_session=True,
                )
            )
        pids = " ".join(str(p.pid) for p in busy)
        print(f"load: {args.busy} busy processes ({pids}) beside: {' '.join(command)}", flush=True)
        # A SIGTERM between the fork and `child` being set would leave the
        # command running unseen: it waits until the command is known (and
        # the command itself starts with SIGTERM unblocked).
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        try:
            child = subprocess.Popen(command, preexec_fn=unblock_sigterm)
        except OSError as error:
            print(f"load: {command[0]}: cannot be started: {error.strerror}", file=sys.stderr)
            return 2
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
        return child.wait()
    except SystemExit:
        if child is not None and child.poll() is None:
            child.send_signal(signal.SIGTERM)
            child.wait()
        raise
    except KeyboardInterrupt:
        # The terminal sent the command its own SIGINT.
        if child is not None:
            child.wait()
        return 130
    finally:
        for process in busy:
            process.kill()
        for process in busy:
            process.wait()
        print(f"load: the {len(busy)} busy processes ended", flush=True)


if __name__ == "__main__":
    sys.exit(main())
