"""Gates started as forks of one process that has already imported what they
all import (`make mutants`, laws/mutants.py): a gate's command `python -m
MODULE ...` run in a fresh interpreter pays its imports again for each of the
66 breaks (Hypothesis, Z3, pytest: some 0.3 CPU s a run); a fork of a server
that imported them once does not.

The server imports only PRELOADED (third-party and standard-library modules,
never the project's), so that each fork imports the project from its scratch
copy, the break planted there. It is one process with one thread: it reads a
request (a gate's module, arguments, folder, environment, and the write end
of a pipe for its output) from a socket, forks a child that makes itself a
session of its own, sends back its pid, and sends its exit code when it
ends. What it imported is frozen out of the garbage collector's reach
(`gc.freeze`): each fork's collections then pass over its own objects only,
and leave the server's memory pages shared rather than copied (0.24 to 0.19
CPU s for a model break's laws run caught at once). Its children's CPU
seconds are its own once waited for, so the
mutants stage's CPU time still holds every gate's. Ctrl-C is the caller's
to handle (the server ignores it; each gate, a session of its own, never
gets the terminal's), and the server ends when the caller closes its end
of the socket, or ends.
"""

from __future__ import annotations

import json
import os
import queue
import socket
import subprocess
import sys
import threading
from itertools import count
from pathlib import Path
from typing import IO

PRELOADED = (
    "argparse",
    "concurrent.futures",
    "json",
    "multiprocessing",
    "subprocess",
    "xml.etree.ElementTree",
    "hypothesis",
    "hypothesis.strategies",
    "z3",
    "pytest",
)
"""What every fork has imported already: the standard library's larger
modules and the third-party ones the laws and the runner's tests import."""

SERVER = """
import gc, json, os, runpy, select, signal, socket, sys, traceback
signal.signal(signal.SIGINT, signal.SIG_IGN)
link = socket.socket(fileno=int(sys.argv[1]))
for name in sys.argv[2:]:
    __import__(name)
gc.freeze()

def child(request, out):
    link.close()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.setsid()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.path[0] = request["cwd"]
    sys.argv = [request["module"], *request["arguments"]]
    code = 0
    try:
        runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
    except SystemExit as stop:
        if isinstance(stop.code, str):
            print(stop.code, file=sys.stderr)
        code = stop.code if isinstance(stop.code, int) else 0 if stop.code is None else 1
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)

children = {}
while True:
    ready, _, _ = select.select([link], [], [], 0.05 if children else None)
    if ready:
        data, fds, _, _ = socket.recv_fds(link, 1 << 20, 1)
        if not data:
            break
        request = json.loads(data)
        pid = os.fork()
        if pid == 0:
            child(request, fds[0])
        os.close(fds[0])
        children[pid] = request["id"]
        link.send(f"started {request['id']} {pid}".encode())
    while children:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            break
        ended = os.waitstatus_to_exitcode(status)
        link.send(f"ended {children.pop(pid)} {ended}".encode())
"""
"""The server's program (`python -c`: nothing of the project on its path)."""


class Forked:
    """A gate forked by the server: what `subprocess.Popen` gives the caller
    (its pid, which leads its process group; its output; its exit code)."""

    def __init__(self, pid: int, stdout: IO[str], said: queue.Queue[tuple[str, int]]) -> None:
        self.pid = pid
        self.stdout = stdout
        self.said = said
        self.code: int | None = None

    def wait(self) -> int:
        if self.code is None:
            _, self.code = self.said.get()
        return self.code


class Forks:
    """The server, started once; `start` runs a gate as a fork of it, from
    any thread."""

    def __init__(self) -> None:
        self.link, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        self.server = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(theirs.fileno()), *PRELOADED],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            env={**env, "PYTHONHASHSEED": "0", "OPTCHAT_PURE": "1"},
        )
        theirs.close()
        self.sending = threading.Lock()
        self.ids = count()
        self.waiting: dict[int, queue.Queue[tuple[str, int]]] = {}
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        """Hand each of the server's answers to the gate it names; when the
        server is gone, tell every gate still waiting (exit 2)."""
        while packet := self.link.recv(256):
            word, ident, number = packet.decode().split()
            self.waiting[int(ident)].put((word, int(number)))
        for waiting in self.waiting.values():
            waiting.put(("gone", 2))

    def start(self, command: list[str], cwd: Path, env: dict[str, str]) -> Forked:
        """Run `command` (`-m MODULE ARGUMENTS...`) in `cwd` with exactly the
        environment `env`; its output (stdout and stderr) read from the
        Forked's stdout."""
        module, *arguments = command[1:]
        read, write = os.pipe()
        said: queue.Queue[tuple[str, int]] = queue.Queue()
        with self.sending:
            ident = next(self.ids)
            self.waiting[ident] = said
            request = {"id": ident, "module": module, "arguments": arguments}
            request |= {"cwd": str(cwd), "env": env}
            socket.send_fds(self.link, [json.dumps(request).encode()], [write])
        os.close(write)
        word, pid = said.get()
        if word != "started":
            os.close(read)
            raise RuntimeError("the server forking the gates has ended")
        return Forked(pid, os.fdopen(read, encoding="utf-8", errors="replace"), said)

    def close(self) -> None:
        """End the server (once no gate runs)."""
        self.link.shutdown(socket.SHUT_WR)
        self.server.wait()
