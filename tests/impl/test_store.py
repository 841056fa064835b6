"""Storage (SPEC 6): restart exactness, corrupt input, the lock."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from collections.abc import Callable
from dataclasses import asdict, replace
from datetime import timedelta
from pathlib import Path

import pytest

from impl.chat import Chat
from impl.constants import Constants
from impl.errors import Locked, StoreError
from impl.profile import Profile
from tests.impl.helpers import SMALL, SMALL_MODEL, Clock, drive, files, reopen
from tests.impl.replay import as_pairs, model_state
from tests.scenarios.spec import profile_defaults


def snapshot(chat: Chat) -> tuple:
    p = chat.planner
    return (p.view(), p.compaction_view(), p.shrinking(), p.size(), p.render(), p.count)


def test_restart_and_a_deleted_view_json_give_the_live_state(tmp_path: Path) -> None:
    with reopen(tmp_path) as chat:
        drive(chat, 120, seed=1)
        live = snapshot(chat)
        lost = chat.running()
        assert lost
    with reopen(tmp_path, replace(SMALL, jobs=20)) as chat:
        assert snapshot(chat) == live
        assert chat.running() == []
        assert set(lost) <= set(chat.candidates())  # calls lost at a restart start again
    (tmp_path / "view.json").unlink()
    with reopen(tmp_path) as chat:
        assert snapshot(chat) == live
    assert (tmp_path / "view.json").exists()


def test_a_restart_keeps_a_shrinking_view_shrinking(tmp_path: Path) -> None:
    twin = tmp_path / "twin"
    with reopen(tmp_path / "a") as chat, reopen(twin) as live:
        for c in (chat, live):
            drive(c, 40, seed=2, build=False)  # no merge is built: batches stop above FLOOR
            for node in c.candidates():
                c.claim(*node)
                c.put(*node, "leaf line")
        assert chat.planner.shrinking()
    with reopen(tmp_path / "a") as chat, reopen(twin) as live:
        assert chat.planner.shrinking()
        for c in (chat, live):
            for node in c.candidates():
                if node[0] > 0:
                    c.claim(*node)
                    c.put(*node, "merged")
            c.append("user", "next")
        assert chat.view() == live.view()
        model = model_state(tmp_path / "a", SMALL_MODEL)
        assert chat.view() == as_pairs(model.chat.view)


def test_failure_counts_survive_a_restart(tmp_path: Path) -> None:
    long = "w" * 100
    with reopen(tmp_path) as chat:
        chat.append("user", long)
        for _ in range(2):
            chat.claim(0, 0)
            chat.fail(0, 0)
            chat.retry()
    with reopen(tmp_path) as chat:
        assert chat.planner.text((0, 0)) is None
        chat.claim(0, 0)
        chat.fail(0, 0)  # the third failure: FAILURES = 3
        assert chat.planner.text((0, 0)) == ("user: " + long)[:64]


def test_a_torn_last_line_is_skipped_terminated_and_stays_skipped(tmp_path: Path) -> None:
    with reopen(tmp_path) as chat:
        chat.append("user", "kept")
    day = next((tmp_path / "main").glob("*.jsonl"))
    with open(day, "ab") as file:
        file.write(b'{"i": 1, "kind": "user", "te')
    for first_load in (True, False):
        expect = pytest.warns(UserWarning, match=f"{day}:2: torn line skipped")
        with expect if first_load else contextlib.nullcontext():
            chat = reopen(tmp_path)
        assert chat.planner.count == 1
        chat.close()
    assert b'"te\n{"torn": 2}\n' in day.read_bytes()
    with reopen(tmp_path) as chat:
        chat.append("user", "after")
        assert chat.planner.tree.messages[1] == ("user", "after")
    with reopen(tmp_path) as chat:
        assert chat.planner.count == 2


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")[:-1]


def _rewrite(path: Path, lines: list[bytes]) -> None:
    path.write_bytes(b"".join(line + b"\n" for line in lines))


def _chat_with_history(path: Path) -> tuple[Path, Path]:
    with reopen(path) as chat:
        drive(chat, 30, seed=3)
    return next((path / "main").glob("*.jsonl")), next((path / "tree").glob("*.jsonl"))


def test_an_append_cut_short_is_skipped_whole_and_stays_skipped(tmp_path: Path) -> None:
    """A split append whose last parts never reached the disk: its first
    parts, the tree records after them and a view.json saved among them are
    skipped and marked; the chat is as it was before that append."""
    long = "x" * (3 * SMALL.split + 5)
    with reopen(tmp_path) as chat:
        drive(chat, 12, seed=4)
        before = snapshot(chat)
        assert chat.append("user", long) == [12, 13, 14, 15]
    day = next((tmp_path / "main").glob("*.jsonl"))
    lines = _lines(day)
    parts = [json.loads(line)["part"] for line in lines[-4:]]
    assert parts == [[0, 4], [1, 4], [2, 4], [3, 4]]
    _rewrite(day, lines[:-2])  # parts 2 and 3 never written
    assert json.loads((tmp_path / "view.json").read_bytes())["t"] == 16
    for first_load in (True, False):
        expect = pytest.warns(UserWarning, match=f"{day}:13: messages 12 to 13 of an append of 4")
        with expect if first_load else contextlib.nullcontext(), reopen(tmp_path) as chat:
            assert snapshot(chat) == before
    assert json.loads((tmp_path / "view.json").read_bytes())["t"] == 12
    assert _lines(day)[-2:] == [b'{"torn": 13}', b'{"torn": 14}']
    with reopen(tmp_path) as chat:
        assert chat.append("user", "after") == [12]
    with reopen(tmp_path) as chat:
        assert chat.planner.tree.messages[12] == ("user", "after")
        assert chat.planner.count == 13
        assert chat.view() == as_pairs(model_state(tmp_path, SMALL_MODEL).chat.view)


def test_a_chat_logged_before_parts_existed_loads_as_before(tmp_path: Path) -> None:
    with reopen(tmp_path) as chat:
        chat.append("user", "y" * (2 * SMALL.split))
        live = snapshot(chat)
    day = next((tmp_path / "main").glob("*.jsonl"))
    old = [json.loads(line) for line in _lines(day)]
    _rewrite(day, [json.dumps({k: v for k, v in r.items() if k != "part"}).encode() for r in old])
    with reopen(tmp_path) as chat:
        assert snapshot(chat) == live


def test_a_garbled_middle_line_is_an_error_naming_file_and_line(tmp_path: Path) -> None:
    main, _ = _chat_with_history(tmp_path)
    lines = _lines(main)
    lines[4] = b'{"i": 4, garbage'
    _rewrite(main, lines)
    with pytest.raises(StoreError, match=f"{main}:5: not a JSON object"):
        reopen(tmp_path)
    assert _lines(main)[4] == b'{"i": 4, garbage'  # nothing changed on disk


def test_a_gap_in_message_ids_names_the_first_missing_id(tmp_path: Path) -> None:
    main, _ = _chat_with_history(tmp_path)
    lines = _lines(main)
    del lines[7:9]
    _rewrite(main, lines)
    with pytest.raises(StoreError, match=f"{main}:8: message id 9: message 7 is missing"):
        reopen(tmp_path)


def test_out_of_order_messages_are_an_error(tmp_path: Path) -> None:
    main, _ = _chat_with_history(tmp_path)
    lines = _lines(main)
    lines[3], lines[4] = lines[4], lines[3]
    _rewrite(main, lines)
    with pytest.raises(StoreError, match=f"{main}:4: message id 4"):
        reopen(tmp_path)


def test_out_of_order_tree_records_are_an_error(tmp_path: Path) -> None:
    _, tree = _chat_with_history(tmp_path)
    lines = _lines(tree)
    last = max(range(len(lines)), key=lambda k: json.loads(lines[k])["t"])
    lines.insert(0, lines.pop(last))
    _rewrite(tree, lines)
    with pytest.raises(StoreError, match=f"{tree}:2: record at T="):
        reopen(tmp_path)


def test_a_logged_merge_that_the_due_order_would_not_make_is_an_error(tmp_path: Path) -> None:
    _, tree = _chat_with_history(tmp_path)
    lines = _lines(tree)
    at = next(k for k, raw in enumerate(lines) if json.loads(raw).get("merges"))
    record = json.loads(lines[at])
    record["merges"] = [[5, 7]]
    lines[at] = json.dumps(record).encode()
    _rewrite(tree, lines)
    with pytest.raises(StoreError, match=f"{tree}:{at + 1}: logged merge 224\\+32 is not"):
        reopen(tmp_path)


def test_a_saved_view_that_does_not_tile_is_an_error(tmp_path: Path) -> None:
    _chat_with_history(tmp_path)
    saved = json.loads((tmp_path / "view.json").read_text())
    saved["view"] = saved["view"][:-1]
    (tmp_path / "view.json").write_text(json.dumps(saved))
    with pytest.raises(StoreError, match="view.json:1: the saved view at T=30 does not match"):
        reopen(tmp_path)


def test_a_saved_view_ahead_of_the_log_is_an_error(tmp_path: Path) -> None:
    _chat_with_history(tmp_path)
    saved = json.loads((tmp_path / "view.json").read_text())
    saved["t"] = 31
    (tmp_path / "view.json").write_text(json.dumps(saved))
    with pytest.raises(StoreError, match="view.json:1: saved at T=31, but the logs hold 30"):
        reopen(tmp_path)


HOLDER = """
import sys, time
from impl.chat import Chat
chat = Chat.open(sys.argv[1])
print("open", flush=True)
time.sleep(60)
"""


def test_a_live_owner_refuses_a_second_process_and_a_dead_one_is_taken_over(
    tmp_path: Path,
) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"
        with pytest.raises(Locked, match=f"another live process \\(pid {holder.pid}\\)"):
            Chat.open(tmp_path)
    finally:
        holder.kill()
        holder.wait()
    with pytest.warns(UserWarning, match=f"took over the lock of process {holder.pid}"):
        chat = Chat.open(tmp_path)
    assert (tmp_path / "lock").read_text() == f"{os.getpid()}\n"
    chat.close()


def test_a_clock_that_goes_back_keeps_the_logs_in_order(tmp_path: Path) -> None:
    late = Clock(timedelta(days=1))
    with Chat.open(tmp_path, SMALL, late) as chat:
        drive(chat, 30, seed=4)
        live = snapshot(chat)
    with Chat.open(tmp_path, SMALL, Clock()) as chat:  # back to the first day
        chat.append("user", "after the clock went back")
        live_after = snapshot(chat)
    with reopen(tmp_path) as chat:
        assert snapshot(chat) == live_after
        assert chat.planner.count == live[-1] + 1 == 31


def test_dates_come_from_the_clock(tmp_path: Path) -> None:
    clock = Clock(timedelta(0))
    with Chat.open(tmp_path, SMALL, clock) as chat:
        chat.append("user", "a")
        clock.now += timedelta(hours=2)
        chat.append("unii", "b")
        assert chat.date(0) == "2026-10-08T22:00:00+00:00"
        assert chat.date(1) == "2026-10-09T00:00:00+00:00"
    assert sorted(p.name for p in (tmp_path / "main").iterdir()) == [
        "2026-10-08.jsonl",
        "2026-10-09.jsonl",
    ]
    with reopen(tmp_path) as chat:
        assert chat.date(1) == "2026-10-09T00:00:00+00:00"


@pytest.mark.filterwarnings("ignore:.*torn line skipped")
def test_a_torn_line_marker_cut_short_is_one_more_torn_line(tmp_path: Path) -> None:
    made = tmp_path / "made"
    with reopen(made) as chat:
        chat.append("user", "kept")
    day = next((made / "main").glob("*.jsonl")).name
    marker = b'\n{"torn": 2}\n'
    for cut in range(len(marker)):  # a power cut after `cut` bytes of the marker
        path = tmp_path / f"cut{cut}"
        shutil.copytree(made, path)
        with open(path / "main" / day, "ab") as log:
            log.write(b'{"i": 1, "kind": "user", "te' + marker[:cut])
        with reopen(path) as chat:
            assert chat.planner.count == 1
            chat.append("user", "after")
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # every torn line is marked now
            with reopen(path) as chat:
                assert [chat.zoom(i, 1) for i in range(2)] == ["user: kept", "user: after"]


def _torn_main_and_garbled_tree(path: Path) -> str:
    main, tree = _chat_with_history(path)
    with open(main, "ab") as log:
        log.write(b'{"i": 30, "ki')
    lines = _lines(tree)
    lines[3] = b"garbage"
    _rewrite(tree, lines)
    return f"{tree}:4: not a JSON object"


def _tree_deleted(path: Path) -> str:
    _chat_with_history(path)
    shutil.rmtree(path / "tree")
    return f"{path / 'tree'}: missing, but the chat has logs"


@pytest.mark.parametrize("damage", [_torn_main_and_garbled_tree, _tree_deleted])
def test_a_load_that_fails_leaves_the_directory_as_it_was(
    tmp_path: Path, damage: Callable[[Path], str]
) -> None:
    error = damage(tmp_path)
    before = files(tmp_path), sorted(tmp_path.iterdir())
    with pytest.raises(StoreError, match=error), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reopen(tmp_path)
    assert (files(tmp_path), sorted(tmp_path.iterdir())) == before


def test_a_deeply_nested_line_is_an_error_naming_file_and_line(tmp_path: Path) -> None:
    main, _ = _chat_with_history(tmp_path)
    deep = b"[" * 200_000 + b"]" * 200_000
    lines = _lines(main)
    _rewrite(main, [*lines[:4], deep, *lines[5:]])
    with pytest.raises(StoreError, match=f"{main}:5: not a JSON object"):
        reopen(tmp_path)
    _rewrite(main, lines)
    (tmp_path / "view.json").write_bytes(b'{"t": ' + deep + b"}")
    with pytest.raises(StoreError, match="view.json:1: not JSON: nested too deeply"):
        reopen(tmp_path)


def test_a_lock_that_is_a_directory_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "lock").mkdir()
    with pytest.raises(StoreError, match=f"{tmp_path / 'lock'}: cannot be opened: Is a directory"):
        reopen(tmp_path)


SPEC_PROFILE = profile_defaults()
"""SPEC 10's defaults, the profile of a chat opened without one."""


def test_a_second_open_in_the_same_process_says_so(tmp_path: Path) -> None:
    with reopen(tmp_path):
        writing = "already open \\(for writing\\) in this process"
        with pytest.raises(Locked, match=writing) as caught:
            Chat.open(tmp_path)
        assert "another live process" not in str(caught.value)
        with pytest.raises(Locked, match=writing):
            Chat.open(tmp_path, read_only=True)
    with Chat.open(tmp_path, read_only=True), Chat.open(tmp_path, read_only=True):
        with pytest.raises(Locked, match="already open \\(read only\\) in this process"):
            Chat.open(tmp_path)
    with Chat.open(tmp_path):  # every one closed: free again
        pass


def test_the_constants_are_stored_and_a_mismatch_is_named(tmp_path: Path) -> None:
    with reopen(tmp_path) as chat:
        drive(chat, 20, seed=7)
    stored = json.loads((tmp_path / "constants.json").read_bytes())
    assert stored == {**asdict(SMALL), "profile": SPEC_PROFILE}
    with pytest.raises(
        StoreError,
        match=f"{tmp_path / 'constants.json'}: this chat was made with ceiling=600, floor=250, "
        "opened with ceiling=1600, floor=800",
    ):
        reopen(tmp_path, replace(SMALL, ceiling=1600, floor=800))
    with Chat.open(tmp_path) as chat:  # no constants given: the chat's own
        assert chat.constants == SMALL
    with reopen(tmp_path, replace(SMALL, jobs=5)) as chat:  # JOBS governs one run only
        assert chat.constants.jobs == 5


def test_a_chat_made_before_constants_were_stored_opens_and_stores_them(tmp_path: Path) -> None:
    with reopen(tmp_path) as chat:
        drive(chat, 20, seed=8)
        live = snapshot(chat)
    (tmp_path / "constants.json").unlink()
    with reopen(tmp_path) as chat:
        assert snapshot(chat) == live
    stored = json.loads((tmp_path / "constants.json").read_bytes())
    assert stored == {**asdict(SMALL), "profile": SPEC_PROFILE}
    with pytest.raises(StoreError, match="this chat was made with node=64, ceiling=600"):
        reopen(tmp_path, Constants())


@pytest.mark.parametrize(
    ("other", "named"),
    [
        (replace(SMALL, ceiling=3000, floor=1000), "ceiling, floor"),
        (replace(SMALL, ceiling=450, floor=200), "ceiling, floor"),
        (replace(SMALL, cceiling=800, cfloor=400), "cceiling, cfloor"),
        (replace(SMALL, cceiling=200, cfloor=60), "cceiling, cfloor"),
    ],
)
def test_a_chat_without_constants_json_refuses_constants_its_log_contradicts(
    tmp_path: Path, other: Constants, named: str
) -> None:
    """A chat made before constants were stored, opened with constants that
    shape the saved state otherwise than its logged batches show: refused
    before anything is written, naming the constants and where the log
    disagrees; with its own constants it opens and stores them."""
    with reopen(tmp_path) as chat:
        drive(chat, 40, seed=8)
        live = snapshot(chat)
    (tmp_path / "constants.json").unlink()
    before = files(tmp_path)
    with pytest.raises(StoreError, match=f"tree.*no constants.json.*{named} = "):
        reopen(tmp_path, other)
    assert files(tmp_path) == before
    with reopen(tmp_path) as chat:
        assert snapshot(chat) == live
    assert json.loads((tmp_path / "constants.json").read_bytes())["ceiling"] == SMALL.ceiling


WORDS = Profile(kind_words={"user": "you"}, trim_lines=True)


def test_the_profile_is_stored_and_a_mismatch_is_named(tmp_path: Path) -> None:
    with Chat.open(tmp_path, SMALL, Clock(), profile=WORDS) as chat:
        drive(chat, 20, seed=9)
        live = snapshot(chat)
    stored = json.loads((tmp_path / "constants.json").read_bytes())
    words = {"kind_words": {"user": "you"}, "trim_lines": True}
    assert stored == {**asdict(SMALL), "profile": {**SPEC_PROFILE, **words}}
    with Chat.open(tmp_path) as chat:  # none given: the chat's own
        assert chat.planner.profile == WORDS
        assert snapshot(chat) == live
        assert chat.zoom(0, 1).startswith("you: ")
    before = files(tmp_path)
    with pytest.raises(
        StoreError,
        match=re.escape(
            f"{tmp_path / 'constants.json'}: this chat was made with "
            'profile.trim_lines=true, profile.kind_words={"user": "you"}, opened with '
            "profile.trim_lines=false, profile.kind_words={}"
        ),
    ):
        Chat.open(tmp_path, SMALL, Clock(), profile=Profile())
    assert files(tmp_path) == before
    with pytest.raises(StoreError, match="made with ceiling=600, profile.trim_lines=true, "):
        Chat.open(
            tmp_path, replace(SMALL, ceiling=900), profile=Profile(kind_words=WORDS.kind_words)
        )


def test_a_chat_stored_without_a_profile_was_made_under_spec_s(tmp_path: Path) -> None:
    with reopen(tmp_path) as chat:
        drive(chat, 20, seed=10)
        live = snapshot(chat)
    path = tmp_path / "constants.json"
    path.write_text(json.dumps(asdict(SMALL)))  # as written before profiles were stored
    with Chat.open(tmp_path, SMALL, Clock(), profile=Profile()) as chat:
        assert snapshot(chat) == live
    with pytest.raises(StoreError, match="made with profile.need_first=true, opened with "):
        Chat.open(tmp_path, SMALL, Clock(), profile=Profile(need_first=False))
    path.write_text(json.dumps({**asdict(SMALL), "profile": {"calls": "often"}}))
    with pytest.raises(StoreError, match="constants.json:1: not the constants of a chat: calls"):
        reopen(tmp_path)
