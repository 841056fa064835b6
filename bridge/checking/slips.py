"""Rule slips: small changes to the model's rules, drawn from the model's
own code, that name a bug in SPEC's words (README, "Causes").

The catalogue (`catalogue`) is made by reading the model's modules of the
queue, the views, the lines, the text and zoom, and the machine
(`MODULES`) with `ast`, and
changing one thing at a time in each of their functions: every comparison
to its neighbours (`<` to `<=` and `>`, `==` to `!=`, `in` to `not in`,
`bits.less(a, b)` to `bits.less(b, a)` and to `not bits.less(b, a)`),
every integer constant and slice bound one more and one less, every order
turned (`min` and `max` swapped, `reversed` dropped, `reverse=` flipped,
the two sides of a concatenation of lists or tuples swapped),
every condition negated (an `if`, a conditional expression, a filter of a
comprehension), every operand of an `and` or an `or` dropped, every `not`
dropped, a filter of a comprehension dropped, and a step of a chain of
calls of one method skipped (`a.replace(...).replace(...)`); and each
integer constant of SPEC 7 the model reads one more and one less as a
whole, in every rule that reads it at once (`constant_slips`: an engine
that states AHEAD once, wrongly, breaks both rules that read it, and
that is one bug, where no slip of one site explains both); and each
value of each SPEC 10 option diagnose enumerates (bridge/checking/changes.py
`singles`: true/false options and those that list their strings; options of
free values, `kind_words`, `kinds`, `tolerance`, `ellipsis`, are guessed
from a divergence there and not tried here) other than the run's declared
one (`option_slips`): the model replayed under the profile with that one
option changed. An engine whose one difference is such a value shows
wherever the option does, in several areas of SPEC, and is one declarable
difference, not a bug: its slip names it, in words to declare it
(`Slip.clause`), before a constant's slip that mimics it (`RANKS`). Each slip
has an id stable from run to run
(`slip:MODULE.FUNCTION.CHANGE.N`, N counting that change in that function
in the order of its code) and words: the function's docstring, which cites
its SPEC section, and the change.

A slip is applied by giving the live function the changed code
(`applied`): every module that imported the function holds the same
function object, and the model keeps no caches. `Failure` is what a FAIL
leaves for explaining it: its scenario up to the first divergence, the
engine's answer there, and the engine's answers read past it (`PAST`). A
slip explains it when the model with the slip agrees with every answer the
engine gave up to there and is not refuted past it (`Failure.explained_by`,
`Failure.refutes`): a slip that mimics a bug at its first sign and parts
from it later is not a cause, so the causes said before shrinking are
those said after. Only slips at lines the model ran on that scenario are
tried (`Failure.reaches`; a constant's, at the lines that read it). `explain`
covers a run's FAILs with as few slips as it can.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import math
import os
import pickle
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import import_module
from multiprocessing import Pipe
from multiprocessing.connection import Connection
from pathlib import Path
from types import CodeType, FrameType, FunctionType
from typing import Any, Literal

from bridge.checking.changes import Change as Declared
from bridge.checking.changes import Trial, singles
from bridge.checking.compare import MISSING, Divergence, Past, first_difference, run
from bridge.formats.capabilities import Capability, ignored_fields
from bridge.formats.profile import SPEC
from bridge.wire.engine import Engine
from bridge.wire.stream import Exchange, Paused, from_model
from model.profile import Profile
from scenarios.format import Scenario, ScenarioError

MODULES = (
    "queue",
    "view",
    "cview",
    "sawtooth",
    "line",
    "text",
    "render",
    "zoom",
    "tree",
    "due",
    "machine",
)
"""The model's modules whose rules slips change: the queue, the views and
their batches, the lines, the text, the renders and zooms, and the machine
that applies each event to them (a free leaf built at its message, a
failure cap's count)."""

OPERATORS: dict[type[ast.cmpop], tuple[type[ast.cmpop], ...]] = {
    ast.Lt: (ast.LtE, ast.Gt),
    ast.LtE: (ast.Lt, ast.GtE),
    ast.Gt: (ast.GtE, ast.Lt),
    ast.GtE: (ast.Gt, ast.LtE),
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.In: (ast.NotIn,),
    ast.NotIn: (ast.In,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
}
"""Each comparison and the ones a slip reads it as."""

TAGS = {
    ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq",
    ast.NotEq: "ne", ast.In: "in", ast.NotIn: "notin", ast.Is: "is", ast.IsNot: "isnot",
}  # fmt: skip

PAST = 100
"""How many answers past its first divergence a replay that stops there
reads for judging rule slips (`Failure.refutes`): events more of a process
already running, and model replays only for the slips that agree up to the
divergence. A slip can mimic a bug for a while (AHEAD + 1 in the queue is
a running leaf not counted toward AHEAD while one runs): the answer that
tells them apart came 27 answers past the divergence on one corpus
scenario (refused_one_wait_0, tests/bridge/test_unexplained_causes.py)."""

PAUSES = 64
"""How many places of the model's replay of a FAIL up to its divergence a
sift keeps at most (`Failure.pauses`): a slipped replay goes on from the
last before its slips change anything, some answers before at most."""

SCANS = 3
"""How many FAILs of one provisional signature are tried on every slip at most."""

SCANNED_WHILE_REPLAYING = 200
"""The most events a FAIL may have up to its divergence to be scanned
while the replay goes on (`Explaining`): a scan judges about 200 slips,
each a model replay up to the divergence, minutes on a FAIL of thousands
of events; the run's smallest FAILs come last (the workers take the
largest scenarios first) and are scanned then."""


TRIES = 2000
"""How many tries shrinking a slip's cause against the model makes at most
(each two model replays, no engine)."""

RANKS = {
    "compare": 0,
    "bound": 1,
    "order": 2,
    "not": 3,
    "drop": 4,
    "skip": 5,
    "option": 6,
    "constant": 7,
}
"""How small each kind of change is: of two slips that explain as much, the
smaller names it. A change at one site of one rule comes before an option's
value, which changes its rules wherever it applies (a late cap of failures
mimics `failure_cap: none` on the scenarios it fails), and that before a
constant's (the engine's fix a declaration, not a bug in every rule that
reads the constant)."""


@dataclass(frozen=True)
class Slip:
    """One change to one function of the model."""

    id: str
    """`slip:MODULE.FUNCTION.CHANGE.N`: one word, the same from run to run."""
    module: str
    """The model's module, e.g. `queue` (model/queue.py)."""
    function: str
    line: int
    """The first line of the changed code in its file."""
    last: int
    """Its last line."""
    before: str
    """The code as the model has it."""
    after: str
    """The code as the slip reads it."""
    kind: str
    """What kind of change (`RANKS`)."""
    about: str = field(compare=False)
    """The first sentence of the function's docstring."""
    section: str = field(compare=False)
    """The SPEC section the docstring cites (`SPEC 4`), or ""."""
    code: CodeType | None = field(compare=False, repr=False)
    """The changed function's code (None for an option's slip)."""
    sites: tuple[tuple[str, int], ...] = field(default=(), compare=False, repr=False)
    """For a constant's slip, the lines (module, line) that read the constant."""
    option: Declared | None = field(default=None, compare=False, repr=False)
    """For an option's slip, the option at the value it replays the model under."""

    @property
    def rank(self) -> tuple[int, int, str]:
        return RANKS[self.kind], len(self.after), self.id

    def __reduce__(self) -> tuple[Callable[[str], Slip], tuple[str]]:
        """A slip crosses to a worker process by its id (its code does not
        pickle; a FAIL sent to be shrunk carries the slips it was judged on)."""
        return named, (self.id,)

    def to_json(self) -> dict[str, Any]:
        """The slip as the JSON report holds it (bridge/report.schema.json)."""
        return {
            "id": self.id,
            "file": f"model/{self.module}.py",
            "function": self.function,
            "line": self.line,
            "before": self.before,
            "after": self.after,
            "spec_section": self.section or None,
        }

    def clause(self) -> str:
        """What the engine agrees with SPEC under: `if` the slip, or under
        an option's value, to be declared."""
        if self.option is not None:
            return f"under `{self.option.said()}` (SPEC 10): declare it"
        return f"if {self.said()}"

    def said(self) -> str:
        """The slip in words: where, what the rule is for, what changed."""
        if self.option is not None:
            return f"`{self.option.said()}` (SPEC 10) is declared"
        if self.kind == "constant":
            spec = f"; {self.section}" if self.section else ""
            return (
                f"{self.before} (SPEC 7, model/constants.py) is read as `{self.after}` "
                f"in every rule that reads it ({self.about}{spec})"
            )
        spec = f", {self.section}" if self.section else ""
        about = f": {self.about}" if self.about else ""
        return (
            f"in `{self.function}` (model/{self.module}.py{spec}{about}), "
            f"`{self.before}` read as `{self.after}`"
        )


def first_sentence(doc: str | None) -> str:
    """A docstring's first sentence, on one line, without a list of the SPEC
    sections it cites before it (`SPEC 4, 10: ...`); a colon in code (in
    backticks) ends nothing."""
    text = re.sub(r"^SPEC [\d.]+(, [\d.]+)*: ", "", " ".join((doc or "").split()))
    ends = (
        m.start()
        for m in re.finditer(r"(?<=[.:])\s", text)
        if not text.count("`", 0, m.start()) % 2
    )
    text = text[: next(ends, len(text))]
    return re.sub(r"\s*\(SPEC [^)]*\)\.?$", "", text).rstrip(":.")


def section_of(*docs: str | None) -> str:
    """The first SPEC section the docstrings cite (`SPEC 4`)."""
    for doc in docs:
        found = re.search(r"SPEC (\d+(?:\.\d+)?)", doc or "")
        if found:
            return f"SPEC {found[1]}"
    return ""


Change = tuple[str, str, ast.AST, ast.AST]
"""A change at one node: its tag (part of the id), its kind, the node
as the slip reads it, and the node it stands in for."""


def negated(test: ast.expr) -> ast.expr:
    return ast.UnaryOp(ast.Not(), test)


def plus(node: ast.expr, by: int) -> ast.expr:
    if isinstance(node, ast.Constant):
        return ast.Constant(node.value + by)
    return ast.BinOp(node, ast.Add() if by > 0 else ast.Sub(), ast.Constant(abs(by)))


def is_int(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int)
        and not isinstance(node.value, bool)
    )


def is_call_of(node: ast.AST, *names: str) -> bool:
    """Whether a node calls one of `names` (a name, or an attribute such as `bits.less`)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    named = func.id if isinstance(func, ast.Name) else ""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        named = f"{func.value.id}.{func.attr}"
    return named in names


def inverted(test: ast.expr) -> bool:
    """Whether negating a test is a comparison's slip already (`==` read as `!=`)."""
    return (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and type(test.ops[0]) in (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)
    )


SEQUENCES = (ast.List, ast.ListComp, ast.Tuple)
"""What a concatenation is recognized by: one side written as a list or tuple."""


def is_sequence(node: ast.BinOp) -> bool:
    """Whether an addition concatenates (one side is a list or tuple written out)."""
    return isinstance(node.left, SEQUENCES) or isinstance(node.right, SEQUENCES)


def is_method(node: ast.AST | None, name: str) -> bool:
    """Whether a node calls a method `name` (`x.name(...)`)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == name
    )


def changes(node: ast.AST, loops: set[int], parents: dict[int, ast.AST]) -> Iterator[Change]:
    """Every change of the catalogue at one node (see the module's words).
    Nodes of a `while` loop (`loops`) are left alone: a slip there could
    loop for ever."""
    if id(node) in loops:
        return
    if isinstance(node, ast.Compare):
        for k, op in enumerate(node.ops):
            for other in OPERATORS.get(type(op), ()):
                ops = [*node.ops[:k], other(), *node.ops[k + 1 :]]
                yield (
                    f"{TAGS[type(op)]}-{TAGS[other]}",
                    "compare",
                    ast.Compare(node.left, ops, node.comparators),
                    node,
                )
    elif is_call_of(node, "bits.less") and isinstance(node, ast.Call) and len(node.args) == 2:
        swapped = ast.Call(node.func, node.args[::-1], node.keywords)
        yield "less-gt", "compare", swapped, node
        yield "less-le", "compare", negated(swapped), node
    elif is_int(node):
        yield "plus1", "bound", plus(node, 1), node  # type: ignore[arg-type]
        if node.value > 0:  # type: ignore[attr-defined]
            yield "minus1", "bound", plus(node, -1), node  # type: ignore[arg-type]
    elif isinstance(node, ast.Slice):
        for end in ("lower", "upper"):
            bound = getattr(node, end)
            if bound is not None and not is_int(bound):
                for by, tag in ((1, "plus1"), (-1, "minus1")):
                    yield (
                        f"{end}-{tag}",
                        "bound",
                        ast.Slice(
                            **{
                                **{e: getattr(node, e) for e in ("lower", "upper", "step")},
                                end: plus(bound, by),
                            }
                        ),
                        node,
                    )
    elif is_call_of(node, "min", "max") and isinstance(node, ast.Call):
        other = "max" if is_call_of(node, "min") else "min"
        yield (
            f"{other}",
            "order",
            ast.Call(ast.Name(other, ast.Load()), node.args, node.keywords),
            node,
        )
    elif is_call_of(node, "reversed") and isinstance(node, ast.Call) and len(node.args) == 1:
        yield "unreversed", "order", node.args[0], node
    elif is_call_of(node, "sorted") and isinstance(node, ast.Call):
        kept = [k for k in node.keywords if k.arg != "reverse"]
        was = next((k.value for k in node.keywords if k.arg == "reverse"), ast.Constant(False))
        flipped = ast.keyword("reverse", negated(was))
        yield "reverse", "order", ast.Call(node.func, node.args, [*kept, flipped]), node
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and is_sequence(node):
        yield "swap-concat", "order", ast.BinOp(node.right, ast.Add(), node.left), node
    elif (
        isinstance(node, ast.AugAssign)
        and isinstance(node.op, ast.Add)
        and isinstance(node.target, ast.Name)
        and isinstance(node.value, SEQUENCES)
    ):
        before = ast.BinOp(node.value, ast.Add(), ast.Name(node.target.id, ast.Load()))
        yield "swap-concat", "order", ast.Assign([node.target], before), node
    elif isinstance(node, ast.BoolOp):
        word = "and" if isinstance(node.op, ast.And) else "or"
        for k in range(len(node.values)):
            rest = node.values[:k] + node.values[k + 1 :]
            dropped = rest[0] if len(rest) == 1 else ast.BoolOp(node.op, rest)
            yield f"drop-{word}", "drop", dropped, node
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield "unnot", "not", node.operand, node
    elif isinstance(node, ast.If | ast.IfExp) and not inverted(node.test):
        yield "not-if", "not", negated(node.test), node.test
    elif isinstance(node, ast.comprehension):
        for test in node.ifs:
            if not inverted(test):
                yield "not-filter", "not", negated(test), test
            yield "drop-filter", "drop", ast.Constant(True), test
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        method = node.func.attr
        outer = parents.get(id(node))
        chained = is_method(node.func.value, method) or (
            isinstance(outer, ast.Attribute) and is_method(parents.get(id(outer)), method)
        )
        if chained:
            yield f"skip-{method}", "skip", node.func.value, node


def unparsed(node: ast.AST) -> str:
    return " ".join(ast.unparse(node).split())


def compiled(function: ast.FunctionDef, path: Path) -> CodeType | None:
    """The code object of a changed function, compiled as its module would."""
    module = ast.Module([function], [])
    ast.fix_missing_locations(module)
    try:
        code = compile(module, str(path), "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    return next(c for c in code.co_consts if isinstance(c, CodeType) and c.co_name == function.name)


def slips_of(name: str) -> Iterator[Slip]:
    """The slips of one module of the model, in the order of its code."""
    module = import_module(f"model.{name}")
    path = Path(module.__file__ or "")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for function in tree.body:
        if not isinstance(function, ast.FunctionDef) or function.decorator_list:
            continue
        live = getattr(module, function.name, None)
        if not isinstance(live, FunctionType) or live.__code__.co_freevars:
            continue
        loops = {id(n) for w in ast.walk(function) if isinstance(w, ast.While) for n in ast.walk(w)}
        about = first_sentence(ast.get_docstring(function))
        section = section_of(ast.get_docstring(function), ast.get_docstring(tree))
        parents = {id(c): n for n in ast.walk(function) for c in ast.iter_child_nodes(n)}
        counted: dict[str, int] = {}
        for node in ast.walk(function):
            for tag, kind, new, old in changes(node, loops, parents):
                number = counted.get(tag, 0)
                counted[tag] = number + 1
                code = compiled(replaced(function, old, new, parents), path)
                if code is None or code.co_freevars:
                    continue
                # A number alone says little: the words show the expression it is in.
                shown = parents[id(old)] if isinstance(old, ast.Constant | ast.Slice) else old
                while kind == "skip" and is_method(
                    parents.get(id(parents.get(id(shown)))), tag[5:]
                ):
                    shown = parents[id(parents[id(shown)])]  # the whole chain
                yield Slip(
                    f"slip:{name}.{function.name}.{tag}.{number}",
                    name,
                    function.name,
                    old.lineno,  # type: ignore[attr-defined]
                    old.end_lineno or old.lineno,  # type: ignore[attr-defined]
                    unparsed(shown),
                    unparsed(replaced(shown, old, new, parents)),
                    kind,
                    about,
                    section,
                    code,
                )


def replaced(tree: ast.AST, old: ast.AST, new: ast.AST, parents: dict[int, ast.AST]) -> Any:
    """`tree` with `new` in the place of `old`, a node in it (`parents`: each
    node's parent by id): the nodes on the way up from `old` are copies, the
    rest is shared with `tree` (compiling and unparsing leave nodes as they
    are; a deep copy of the function for each slip made the catalogue cost
    twice as much)."""
    child, copied = old, new
    while child is not tree:
        parent = parents[id(child)]
        node = copy.copy(parent)
        for name, value in ast.iter_fields(parent):
            if value is child:
                setattr(node, name, copied)
            elif isinstance(value, list) and any(item is child for item in value):
                setattr(node, name, [copied if item is child else item for item in value])
        child, copied = parent, node
    return copied


Read = tuple[str, int, str, str | None]
"""Where a constant is read: the model's module, the line, the function, its docstring."""


@cache
def reads() -> dict[str, list[Read]]:
    """Where the model's modules (`MODULES`, then the machine that drives
    them) read each constant of a `Constants` (`c.name`, `constants.name`), by name."""
    found: dict[str, list[Read]] = {}
    for module in (*MODULES, "machine"):
        path = Path(import_module(f"model.{module}").__file__ or "")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in tree.body:
            if not isinstance(function, ast.FunctionDef):
                continue
            doc = ast.get_docstring(function) or ast.get_docstring(tree)
            for node in ast.walk(function):
                if isinstance(node, ast.Attribute) and unparsed(node.value).split(".")[-1] in (
                    "c",
                    "constants",
                ):
                    found.setdefault(node.attr, []).append(
                        (module, node.lineno, function.name, doc)
                    )
    return found


def constant_slips() -> Iterator[Slip]:
    """A constant of SPEC 7 (each integer field of model/constants.py's
    `Constants`) one more and one less as a whole: in every rule that reads
    it at once, as an engine that states it once, wrongly, has it. Applied
    by giving `Constants.__post_init__` a last line that shifts it, so that
    the model's constants, made afresh for each replay, carry the shift."""
    module = import_module("model.constants")
    path = Path(module.__file__ or "")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    (made,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Constants"]
    (post,) = [n for n in made.body if isinstance(n, ast.FunctionDef) and n.name == "__post_init__"]
    read_where = reads()
    for node in made.body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        if unparsed(node.annotation) != "int":
            continue
        name, shown = node.target.id, node.target.id.upper()
        read = read_where.get(name, [])
        if not read:
            continue
        readers = list(dict.fromkeys(f"`{function}`" for _, _, function, _ in read))
        about = f"read by {listed(readers)}"
        section = section_of(*(doc for _, _, _, doc in read))
        sites = tuple((module, line) for module, line, _, _ in read)
        for by, tag in ((1, "plus1"), (-1, "minus1")):
            sign = "+" if by > 0 else "-"
            shift = ast.parse(f"object.__setattr__(self, {name!r}, self.{name} {sign} 1)").body
            code = compiled(replace_body(post, [*post.body, *shift]), path)
            if code is None:
                continue
            yield Slip(
                f"slip:constants.{name}.{tag}.0",
                "constants",
                "Constants.__post_init__",
                node.lineno,
                node.end_lineno or node.lineno,
                shown,
                f"{shown} {sign} 1",
                "constant",
                about,
                section,
                code,
                sites,
            )


def option_slips() -> Iterator[Slip]:
    """Each value of each option diagnose enumerates (`singles`): SPEC's
    own and the others, for a run that declares another."""
    path = Path(import_module("model.profile").__file__ or "")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    (made,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Profile"]
    lines = {
        n.target.id: n
        for n in made.body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    }
    others = singles(Trial(SPEC))
    spec = dict.fromkeys(Declared(c.option, getattr(SPEC, c.option)) for c in others)
    for change in (*spec, *others):
        node = lines[change.option]
        yield Slip(
            f"slip:option.{change.option}.{str(change.value).lower().replace('_', '-')}.0",
            "profile",
            "Profile",
            node.lineno,
            node.end_lineno or node.lineno,
            unparsed(node),
            change.said(),
            "option",
            f"SPEC 10 option `{change.option}`",
            "SPEC 10",
            None,
            option=change,
        )


def under(profile: Profile, slips: Iterable[Slip | None]) -> Profile:
    """The profile with the options of `slips` changed (ValueError: no profile)."""
    told = {s.option.option: s.option.value for s in slips if s is not None and s.option}
    return replace(profile, **told) if told else profile


def replace_body(function: ast.FunctionDef, body: list[ast.stmt]) -> ast.FunctionDef:
    """A copy of a function (a node) with another body."""
    changed = copy.deepcopy(function)
    changed.body = body
    return changed


def listed(words: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


@cache
def catalogue() -> tuple[Slip, ...]:
    """Every slip of SPEC 10's options (`option_slips`), of the model's
    rules (`MODULES`), then of its constants (`constant_slips`)."""
    rules = (slip for name in MODULES for slip in slips_of(name))
    return (*option_slips(), *rules, *constant_slips())


@cache
def by_id() -> dict[str, Slip]:
    return {slip.id: slip for slip in catalogue()}


def named(slip_id: str) -> Slip:
    """The catalogue's slip of an id."""
    return by_id()[slip_id]


def live(slip: Slip) -> FunctionType:
    """The function a slip changes (a method named `Class.method`)."""
    function: Any = import_module(f"model.{slip.module}")
    for name in slip.function.split("."):
        function = getattr(function, name)
    assert isinstance(function, FunctionType)
    return function


class Stuck(Exception):
    """A model with a slip that answers no more (a loop it no longer leaves)."""


RIGHT: dict[FunctionType, CodeType] = {}
"""Each function of the model a slip was applied to, with its own code."""

BY = [math.inf]
"""When the scan under way stops (`time.monotonic`): no replay of a slip
it tries runs past that (a slip can make a long scenario's replay take
minutes; the scan's budget is the caller's)."""

ARMED = [False]
"""Whether a SIGALRM or SIGVTALRM now means Stuck: not once `applied` starts
putting the model back (a late alarm must not cut that short)."""

SLOWER = 4
"""How many times the CPU seconds of the model's own replay (plus a quarter
of a second) a slipped replay of the same scenario may take."""


def stuck(_signum: int, frame: FrameType | None) -> None:
    """Stuck, if the alarm came in the model's code or the runner's (`OWN`:
    where a slipped replay runs), but not while `applied` itself runs
    (between the replay's end and its restore). Raised elsewhere it could
    be swallowed and printed (a callback the garbage collector runs, a
    weakref's or a library's, cannot raise), and in `applied` it would skip
    the restore: the alarm, repeated every 50 ms, comes again."""
    if ARMED[0] and frame is not None and frame.f_code not in RESTORING:
        if frame.f_code.co_filename.startswith(OWN):
            raise Stuck


OWN = (
    str(Path(import_module("model").__file__ or "").parent) + os.sep,
    str(Path(__file__).parent.parent) + os.sep,
)
"""The folders of the model's code and the runner's: where an alarm raises (`stuck`)."""


def allowed(events: int, cpu: float | None) -> float:
    """The CPU seconds a slipped model may take on a replay of `events`
    events whose model without the slip took `cpu` (None: not measured, a
    second and 10 ms an event)."""
    return 1 + events / 100 if cpu is None else 0.25 + SLOWER * cpu


@contextmanager
def applied(
    *slips: Slip | None,
    events: int = 0,
    cpu: float | None = None,
    codes: Iterable[tuple[FunctionType, CodeType]] = (),
) -> Iterator[None]:
    """The model with `slips` (none: the model as it is), each in its own
    function, restored after (an option's slip changes no code: the replay
    takes its profile, `under`). In the main thread a slipped model raises
    Stuck once it has taken the CPU seconds `allowed` for the replay, or
    reaches the scan's end (`BY`): a slip can make a loop of the model's
    endless, and an option's slip a replay far longer than the engine's.
    Counted in this process's CPU time, not the clock's, so that a busy
    machine does not make a slip look stuck. Every function a slip ever
    changed is first put back as the model has it, so that a restore an
    alarm cut short (however unlikely) never leaves a slip in the model.
    `codes` are other functions' codes to put in their place as a slip's
    (`Failure.sift`'s), timed as a slip is."""
    for function, code in RIGHT.items():
        function.__code__ = code
    changed = [(live(s), s.code) for s in slips if s is not None and s.code is not None]
    changed += codes
    given = any(slip is not None for slip in slips) or len(changed) > 0
    timed = given and threading.current_thread() is threading.main_thread()
    before = signal.signal(signal.SIGALRM, stuck) if timed else None
    virtual = signal.signal(signal.SIGVTALRM, stuck) if timed else None
    try:
        for function, code in changed:
            RIGHT.setdefault(function, function.__code__)
            function.__code__ = code
        if timed:
            ARMED[0] = True
            signal.setitimer(signal.ITIMER_VIRTUAL, allowed(events, cpu), AGAIN)
            if BY[0] != math.inf:
                left = max(BY[0] - time.monotonic(), 0.001)
                signal.setitimer(signal.ITIMER_REAL, left, AGAIN)
        yield
    finally:
        ARMED[0] = False
        for function, _ in changed:
            function.__code__ = RIGHT[function]
        if timed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.setitimer(signal.ITIMER_VIRTUAL, 0)
            signal.signal(signal.SIGALRM, before)
            signal.signal(signal.SIGVTALRM, virtual)


AGAIN = 0.05
"""Seconds after which an alarm `stuck` let pass comes again."""

RESTORING = {applied.__wrapped__.__code__, contextlib.AbstractContextManager.__exit__.__code__,
             contextlib._GeneratorContextManager.__exit__.__code__}  # fmt: skip
"""The code an alarm must not raise in: `applied` and its context manager's exit."""


MODEL = str(Path(import_module("model").__file__ or "").parent)


Lines = dict[tuple[str, int], int]
"""Lines of the model's files (by module name and line), each with the
last answer (counted from 0) during which it ran."""


def traced(answers: Iterable[dict[str, Any]]) -> tuple[list[dict[str, Any]], Lines]:
    """The answers, and the lines of the model's files that ran for each."""
    lines: Lines = {}
    names: dict[str, str | None] = {}
    step = 0

    def name_of(path: str) -> str | None:
        if path not in names:
            names[path] = Path(path).stem if path.startswith(MODEL) else None
        return names[path]

    def local(frame: FrameType, event: str, _: Any) -> Any:
        if event == "line":
            lines[(names[frame.f_code.co_filename] or "", frame.f_lineno)] = step
        return local

    def calls(frame: FrameType, event: str, _: Any) -> Any:
        if event == "call" and name_of(frame.f_code.co_filename) is not None:
            return local
        return None

    before = sys.gettrace()
    sys.settrace(calls)
    given = []
    try:
        for answer in answers:
            given.append(answer)
            step += 1
    finally:
        sys.settrace(before)
    return given, lines


PROBE = "_slip_probe_"
"""The name a probe's code calls (`probes`), set in the module's globals while it runs."""


@cache
def probes() -> dict[FunctionType, CodeType]:
    """Each function of the model a rule slip changes or that reads a
    constant (`watched`), with code that first notes its call (`PROBE` with
    the function's module and name), then runs as the model's: one replay
    under all of them says which of them the model ran (`Failure.calls`) at
    the cost of about one plain replay, where a trace of every line
    (`traced`) costs five."""
    names = {name for slip in catalogue() for name in watched(slip) or ()}
    found: dict[FunctionType, CodeType] = {}
    for module, name in sorted(names):
        function = getattr(import_module(f"model.{module}"), name, None)
        if not isinstance(function, FunctionType) or function.__code__.co_freevars:
            continue
        path = Path(function.__code__.co_filename)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
        (node,) = [n for n in functions if n.name == name]
        note = ast.parse(f"{PROBE}(({module!r}, {name!r}))").body
        code = compiled(replace_body(node, [*note, *node.body]), path)
        if code is not None and not code.co_freevars:
            found[function] = code
    return found


@cache
def probed() -> frozenset[tuple[str, str]]:
    """The functions `probes` sees called, by module and name."""
    return frozenset((f.__module__.split(".")[-1], f.__name__) for f in probes())


def watched(slip: Slip) -> frozenset[tuple[str, str]] | None:
    """The functions of the model (module, name) of which one must run for
    a slip to change an answer: the one a rule slip changes, those that
    read a constant a constant's slip shifts; None for an option's slip
    (its profile changes every replay) or where a function is not a
    module's own (a method)."""
    if slip.option is not None or slip.code is None:
        return None
    if slip.kind == "constant":
        constant = slip.id.split(".")[1]
        names = frozenset((module, name) for module, _, name, _ in reads().get(constant, []))
    else:
        names = frozenset({(slip.module, slip.function)})
    return None if not names or any("." in name for _, name in names) else names


SIFT = "_slip_sift_"
"""The name a sifted function's code calls (`sifting`), set in the module's
globals while `Failure.sift` replays."""


@cache
def sifting(function: FunctionType) -> CodeType:
    """Code for a function of the model that hands each of its calls, by the
    function's module and name, with its arguments, to `SIFT`."""
    module, name = function.__module__.split(".")[-1], function.__name__
    call = f"{SIFT}(({module!r}, {name!r}), args, kwargs)"
    text = f"def {name}(*args, **kwargs):\n    return {call}\n"
    code = compile(text, function.__code__.co_filename, "exec", dont_inherit=True)
    return next(c for c in code.co_consts if isinstance(c, CodeType))


def siftable(slip: Slip) -> bool:
    """Whether `Failure.sift` can tell that a slip changes no answer: a slip
    of one function of a module's own, not of a constant or an option."""
    return slip.kind != "constant" and watched(slip) is not None


def as_function(function: FunctionType, code: CodeType | None) -> FunctionType:
    """A function of its own running `code` as `function` would (its module, its defaults)."""
    made = FunctionType(code or function.__code__, function.__globals__, function.__name__)
    made.__defaults__, made.__kwdefaults__ = function.__defaults__, function.__kwdefaults__
    return made


def gives(
    function: FunctionType,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    value: Any,
    error: Exception | None,
) -> bool:
    """Whether `function` called so gives `value` (of its type), or raises
    as `error` did (its type, its arguments); a Stuck alarm is let through."""
    try:
        got = function(*args, **kwargs)
    except Stuck:
        raise
    except Exception as raised:
        return error is not None and type(raised) is type(error) and raised.args == error.args
    return error is None and type(got) is type(value) and (got is value or got == value)


@dataclass
class Failure:
    """A FAIL as explaining it needs it: its name in the run, the scenario
    up to its first divergence (its events as they were sent), the profile
    and capabilities it was checked under, which answer diverged (counting
    the answers read) and the engine's whole answer there."""

    name: str
    scenario: Scenario
    profile: Profile
    lacks: tuple[Capability, ...]
    index: int
    answer: dict[str, Any]
    signature: str = ""
    """The provisional signature of its divergence (bridge/checking/causes.py), as an id."""
    rules: bool = True
    """Whether the engine names SPEC 4.1's rules in its refusals (else a
    refusal is compared as a fact)."""
    expected: list[dict[str, Any]] | None = field(default=None, repr=False)
    """The answers expected up to the divergence (the engine gave them
    before it): as the run read them from the transcript, or else the
    model's, once replayed."""
    ran: Lines | None = field(default=None, repr=False)
    """The lines of the model it ran, once replayed with a trace."""
    took: float | None = field(default=None, repr=False, compare=False)
    """The CPU seconds that traced replay took (None: not yet made)."""
    called: set[tuple[str, str]] | None = field(default=None, init=False, repr=False, compare=False)
    """The functions of the model a rule slip changes that it ran, by module
    and name, once probed (`calls`)."""
    sifted: set[Slip] = field(default_factory=set, init=False, repr=False, compare=False)
    """The slips `sift` was given (each replayed in one sift at most)."""
    same: set[Slip] = field(default_factory=set, init=False, repr=False, compare=False)
    """The slips a sift found changing no answer up to the divergence."""
    changes: dict[Slip, int] = field(default_factory=dict, init=False, repr=False, compare=False)
    """The others a sift was given: for each, the answer (counted from 0)
    during which its function first gave what the model's does not."""
    pauses: dict[int, Paused] = field(default_factory=dict, init=False, repr=False, compare=False)
    """Where the model's replay stood before some of its answers (by the
    answer's number, every `PAUSES`-th part of them or more often), kept by
    a sift: a slipped replay goes on from the last before its slips change
    anything (`resumed`)."""
    past: list[Past] = field(default_factory=list, repr=False)
    """The engine's answers read past the divergence (bridge/checking/compare.py
    `Result.past`), each with the answer SPEC's model gives there."""
    longer: Scenario | None = field(default=None, repr=False)
    """The scenario up to the last of those (None when there are none)."""
    left: str = field(default="", init=False, compare=False)
    """When its diverging answer shows a named slip's bug and another, the
    signature (as an id) of what the slip leaves (`left_by`), by which it
    is grouped; else empty."""
    beside: Slip | None = field(default=None, init=False, repr=False, compare=False)
    """That named slip, when `left` is set: the FAIL shows its bug too."""
    paired: bool = field(default=False, init=False, repr=False, compare=False)
    """Whether it is in its group as a FAIL two groups' slips explain together (`together`)."""
    refuted: set[Slip] = field(default_factory=set, init=False, repr=False, compare=False)
    """The slips that agreed with the engine up to the divergence and were
    refuted past it (`explained_by`)."""
    judged: dict[tuple[Slip, ...], bool] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    """What `explained_by` found for each set of slips tried (a second
    cover of the FAILs, `explain`, asks again)."""
    parted: dict[Slip, tuple[int, dict[str, Any]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    """For a slip that explains it (judged alone), the first answer read
    past the divergence (counted in `past`) where the engine's differs from
    the slipped model's, with the slipped model's answer there: another bug
    of the engine shows after the slip's (`parting`)."""
    seconds: dict[tuple[Slip, Slip], bool] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    """What `shown_with` found for each two slips tried."""

    def answers(
        self,
        further: bool = False,
        *slips: Slip,
        since: tuple[int, Paused | None] = (0, None),
        paused: Callable[[Paused], object] | None = None,
    ) -> Iterator[dict[str, Any]]:
        """The model's answers, as they are now (with any slip applied, and
        under the options of `slips`), up to the diverging one; `further`,
        up to the last one read past it. From the answer `since` says,
        resumed where the replay stood before it (`resumed`); each answer's
        pause given to `paused` (bridge/wire/stream.py `from_model`)."""
        scenario, last = self.scenario, self.index
        if further and self.longer is not None:
            scenario, last = self.longer, self.index + len(self.past)
        profile = under(self.profile, slips)
        first, resume = since
        replay = from_model(scenario, profile, False, self.lacks, resume=resume, paused=paused)
        sent = (e for e in replay if e.sent)
        for k, exchange in enumerate(sent, start=first):
            yield answered(exchange)
            if k == last:
                return

    def resumed(self, slips: tuple[Slip, ...]) -> tuple[int, Paused | None]:
        """Where a replay with a slip may start, and the answer it gives
        first: where the model's replay stood before the first answer
        during which the slip's function gives, on the model's arguments,
        what the model's does not (found by a sift, `changes`; up to there
        the slipped model is the model, its calls and states the same); the
        start when it was not sifted whole, or for two slips (the sift ran
        each beside the model's other functions, not beside the other slip)."""
        if len(slips) != 1 or slips[0] not in self.changes:
            return 0, None
        first = max((k for k in self.pauses if k <= self.changes[slips[0]]), default=0)
        return first, self.pauses.get(first)

    def replayed(self) -> bool:
        """Whether the answer expected at the divergence differs from the
        engine's, as it did in the run (the model replayed for it, when
        the run did not keep the answers)."""
        if self.expected is None:
            self.trace()
        assert self.expected is not None
        if len(self.expected) != self.index + 1:
            return False
        return self.differs(self.expected[-1], self.answer)

    def trace(self) -> Lines:
        """The lines of the model it runs on the scenario (replayed once,
        with a trace, for a scan)."""
        if self.ran is None:
            start = time.process_time()
            try:
                answers, self.ran = traced(self.answers())
            except (ScenarioError, RecursionError):
                answers, self.ran = [], {}
            self.took = time.process_time() - start
            self.expected = self.expected if self.expected is not None else answers
        return self.ran

    def calls(self, slip: Slip) -> bool:
        """Whether the model may run a function the slip needs (`watched`)
        on this FAIL up to its divergence: on a FAIL of more than
        SCANNED_WHILE_REPLAYING events judged before (so judged again), the
        model is replayed once under every function's probe (`probes`), and
        a slip none of whose functions ran changes no answer (a slipped
        replay of thousands of events saved for each), unless a sift noted
        them already; else True."""
        names = watched(slip)
        if names is None or self.ran is not None:
            return True
        if self.called is None:
            if len(self.scenario.events) <= SCANNED_WHILE_REPLAYING or not self.judged:
                return True
            self.called = set()
            found = probes()
            spaces = [import_module(name).__dict__ for name in {f.__module__ for f in found}]
            for function, code in RIGHT.items():
                function.__code__ = code
            try:
                for space in spaces:
                    space[PROBE] = self.called.add
                for function, code in found.items():
                    RIGHT.setdefault(function, function.__code__)
                    function.__code__ = code
                try:
                    for _ in self.answers():
                        pass
                except Exception:  # as `trace`: no FAIL of such a scenario is explained
                    self.called = None
                    return True
            finally:
                for function in found:
                    function.__code__ = RIGHT[function]
                for space in spaces:
                    space.pop(PROBE, None)
        return not names <= probed() or bool(names & self.called)

    def sift(self, slips: Iterable[Slip]) -> None:
        """Replay the model once up to the divergence, each function that a
        rule slip of `slips` changes run on every call also as each of those
        slips reads it, on the same arguments: a slip whose function gives
        on every call what the model's gives (the same value, or the same
        error) changes none of the model's answers there, so it does not
        explain the FAIL, and is not replayed when judged (`same`). One
        replay in place of one for each (the slips a group falls back on,
        a scan's). Only the slips of a function of a module's own
        (`siftable`), two or more, in the main thread (a sift is timed as a
        slipped replay is, `applied`); a sift that breaks or is stopped
        finds none. It notes too which functions `probes` watches the model
        ran (`calls`), where that is not known yet: the probes' replay spared."""
        todo = [s for s in dict.fromkeys(slips) if s not in self.sifted and siftable(s)]
        todo = [s for s in todo if not any(a.knows(self, (s,), wait=False) for a in AHEAD)]
        todo = [s for s in todo if (s,) not in self.judged]
        if len(todo) < 2 or threading.current_thread() is not threading.main_thread():
            return
        if not self.replayed():
            return
        self.sifted.update(todo)
        table: dict[tuple[str, str], tuple[FunctionType, list[tuple[Slip, FunctionType]]]] = {}
        codes: dict[FunctionType, CodeType] = {}
        for slip in todo:
            function = live(slip)
            right = as_function(function, RIGHT.get(function, function.__code__))
            codes[function] = sifting(function)
            key = (slip.module, slip.function)
            table.setdefault(key, (right, []))[1].append((slip, as_function(function, slip.code)))
        ran: set[tuple[str, str]] = set()
        large = len(self.scenario.events) > SCANNED_WHILE_REPLAYING and self.ran is None
        probing = probes() if large and self.called is None else {}
        for function, code in probing.items():
            codes.setdefault(function, code)
        changed: dict[Slip, int] = {}
        inside = [False]
        pauses: dict[int, Paused] = {}
        answered = [0]
        every = -(-(self.index + 1) // PAUSES)  # so that PAUSES places at most

        def pause(where: Paused) -> None:
            answered[0] += 1
            if not answered[0] % every and not self.pauses:
                pauses[answered[0]] = where

        def called(key: tuple[str, str], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            right, slipped = table[key]
            if inside[0]:
                return right(*args, **kwargs)
            ran.add(key)
            value, error = None, None
            try:
                value = right(*args, **kwargs)
            except Stuck:
                raise
            except Exception as raised:
                error = raised
            inside[0] = True
            try:
                for slip, function in slipped:
                    if slip not in changed and not gives(function, args, kwargs, value, error):
                        changed[slip] = answered[0]
            finally:
                inside[0] = False
            if error is not None:
                raise error
            return value

        spaces = [function.__globals__ for function in codes]
        for space in spaces:
            space[SIFT], space[PROBE] = called, ran.add
        try:
            cpu = self.cpu(self.scenario)
            cpu = None if cpu is None else cpu * (1 + len(todo))
            with applied(codes=codes.items(), events=len(self.scenario.events), cpu=cpu):
                for _ in self.answers(paused=pause):
                    pass
        except Exception:  # Stuck, or the model broken by a slip's call: none known
            return
        finally:
            for space in spaces:
                space.pop(SIFT, None)
                space.pop(PROBE, None)
        self.same.update(s for s in todo if s not in changed)
        self.changes.update(changed)
        self.pauses = self.pauses or pauses
        if probing:
            self.called = ran

    def cpu(self, scenario: Scenario) -> float | None:
        """About the CPU seconds the model takes on `scenario` (this FAIL's,
        or the longer one read past the divergence), from the traced replay
        up to the divergence, if one was made (a trace only slows it)."""
        if self.took is None:
            return None
        return self.took * max(len(scenario.events), 1) / max(len(self.scenario.events), 1)

    def differs(self, expected: dict[str, Any], found: dict[str, Any]) -> bool:
        owner = ignored_fields(self.lacks)
        return first_difference(expected, found, None, self.rules, owner) is not None

    def reaches(self, slip: Slip, at_divergence: bool = False) -> bool:
        """Whether the model ran the slip's lines on this scenario (with
        `at_divergence`, while it answered the diverging line); an option's
        slip, wherever its value is not the declared one and makes a profile."""
        if slip.option is not None:
            try:
                return under(self.profile, [slip]) != self.profile
            except ValueError:
                return False
        ran = self.trace()
        lines = slip.sites or [(slip.module, n) for n in range(slip.line, slip.last + 1)]
        for line in lines:
            step = ran.get(line)
            if step is not None and (step == self.index or not at_divergence):
                return True
        return False

    def explained_by(self, *slips: Slip) -> bool:
        """Whether the model with `slips` explains the FAIL (`judge`), judged
        once for each set of slips."""
        if slips not in self.judged and not any(ahead.took(self, slips) for ahead in AHEAD):
            for telling in TELLING:
                telling.send(("claim", self.name, ids(slips)))
            self.judged[slips] = self.judge(*slips)
            for telling in TELLING:
                telling.send(("told", self.name, ids(slips), self.told(slips)))
        return self.judged[slips]

    def told(self, slips: tuple[Slip, ...]) -> Told:
        """A judgment made, as `Ahead` sends it."""
        alone = slips[0] if len(slips) == 1 else None
        return self.judged[slips], alone in self.refuted, self.parted.get(alone)  # type: ignore[arg-type]

    def judge(self, *slips: Slip) -> bool:
        """Whether the model with `slips` agrees with every answer the engine
        gave up to the divergence (before it, those the model gave), and is
        not refuted past it (`refutes`). A slip is kept in `refuted` when the
        engine gave SPEC's answer where its model gives another: past the
        divergence (`refutes`), or before it (where the engine gave SPEC's
        answers, as it would not with the slip's rule)."""
        # What the model alone runs rules out slips only when none of them
        # runs: one slip can lead the model to another's lines, and `same`
        # holds of a slip alone (two can change together what neither does).
        if not self.replayed() or (self.ran is not None and not any(map(self.reaches, slips))):
            return False
        alone = len(slips) == 1 and slips[0] in self.same
        if alone or not any(map(self.calls, slips)):
            return False
        assert self.expected is not None
        got, resume = self.resumed(slips)
        whole = self.longer or self.scenario
        with applied(*slips, events=len(whole.events), cpu=self.cpu(whole)):
            try:
                answers = self.answers(True, *slips, since=(got, resume))
                for k, answer in enumerate(answers, start=got):
                    if k > self.index:
                        parted: list[tuple[int, dict[str, Any]]] = []
                        wrong = self.refutes(answer, k - self.index - 1, answers, parted)
                        if len(slips) == 1 and wrong:
                            self.refuted.add(slips[0])
                        elif len(slips) == 1 and parted:
                            self.parted[slips[0]] = parted[0]
                        return not wrong
                    engine = self.answer if k == self.index else self.expected[k]
                    if self.differs(answer, engine):
                        if len(slips) == 1 and self.disowns(slips[0], k, answer):
                            self.refuted.add(slips[0])
                        return False
                    got += 1
            except Exception:  # a slip can break the model anywhere
                return False
        return got == self.index + 1

    def left_by(self, slip: Slip) -> tuple[str, Any] | None:
        """What is left of the FAIL once a slip takes its bug out: the
        first field, and the slipped model's value of it, where the engine's
        diverging answer still differs from the model with `slip`, when that
        model gives every answer the engine gave before the divergence and,
        at it, the engine's value of the field where SPEC's model first
        differs (two bugs shown in one answer, the slip's and another); None
        otherwise."""
        if not self.replayed() or not self.calls(slip):
            return None
        assert self.expected is not None
        owner = ignored_fields(self.lacks)
        first = first_difference(self.expected[-1], self.answer, None, self.rules, owner)
        with applied(slip, events=len(self.scenario.events), cpu=self.cpu(self.scenario)):
            try:
                answers = list(self.answers(False, slip))
            except Exception:  # a slip can break the model anywhere
                return None
        if len(answers) != self.index + 1 or first is None:
            return None
        if any(map(self.differs, answers[:-1], self.expected[:-1])):
            return None
        at = answers[-1]
        if not self.agrees_in(first, at, self.answer):
            return None
        left = first_difference(at, self.answer, None, self.rules, owner)
        return None if left is None else (left, at.get(left))

    def disowns(self, slip: Slip, k: int, answer: dict[str, Any]) -> bool:
        """Whether the engine's `k`-th answer, not the slipped model's
        `answer`, shows the slip is not the engine's rule: before the
        divergence (the engine gave SPEC's answer there, as it would not
        with the slip's rule); for an option's slip, at it too, where the
        option changes SPEC's answer and the engine gave neither (an option
        is the engine's rule wherever it applies, not one site's)."""
        assert self.expected is not None
        return (k < self.index or slip.option is not None) and self.differs(
            answer, self.expected[k]
        )

    def refutes(
        self,
        answer: dict[str, Any],
        at: int,
        rest: Iterator[dict[str, Any]],
        parted: list[tuple[int, dict[str, Any]]] | None = None,
    ) -> bool:
        """Whether the slipped model's answers past the divergence (`answer`,
        the `at`-th of them, then `rest`) are refuted by the engine's read
        there (`past`): by an answer where the engine gives what SPEC's model
        gives and the slipped model does not (the engine's rule is SPEC's
        there, not the slip's). An answer where the engine differs from both
        refutes nothing: the states parted at the divergence, and another of
        its bugs may show; the first such is put in `parted` (its place in
        `past`, the slipped model's answer)."""
        for k, slipped in enumerate((answer, *rest), start=at):
            _, expected, found = self.past[k]
            if self.differs(slipped, found):
                if not self.differs(expected, found):
                    return True
                if parted is not None and not parted:
                    parted.append((k, slipped))
        return False

    def parting(self, slip: Slip) -> dict[str, Any] | None:
        """Where a second bug shows in a FAIL a slip explains: the first
        answer read past the divergence where the engine still differs from
        the model with the slip (`parted`), as a divergence from that model
        (bridge/report.schema.json `divergence`: the line sent, its first
        differing field, the slipped model's value and the engine's); None
        when the engine agrees with the slipped model on all it read, or
        the slip does not explain the FAIL."""
        if not self.explained_by(slip) or slip not in self.parted:
            return None
        k, slipped = self.parted[slip]
        line, _, found = self.past[k]
        owner = ignored_fields(self.lacks)
        name = first_difference(slipped, found, None, self.rules, owner)
        return {
            "position": line.get("at"),
            "event": line if "event" in line else None,
            "field": name,
            "expected": slipped.get(name or "", MISSING),
            "found": found.get(name or "", MISSING),
        }

    def together_with(self, slip: Slip, other: Slip | None) -> bool:
        """Whether the model with `slip` and `other`, slips of two functions,
        explains the FAIL (two bugs at one answer, where neither alone
        explains it: `together`)."""
        return other is not None and apart(slip, other) and self.explained_by(slip, other)

    def shown_with(self, slip: Slip, other: Slip) -> bool:
        """Whether the model with `slip` (which explains the FAIL) and
        `other`, a slip of another function, gives every answer the engine
        gave before where a second bug shows (`parting`), and there the
        engine's value of the field where it parts from the model with
        `slip`: that second bug is `other`'s (a third may show beside it in
        that answer, as `left_by` lets one). Judged once for each two."""
        if (slip, other) not in self.seconds:
            self.seconds[slip, other] = self.second(slip, other)
        return self.seconds[slip, other]

    def second(self, slip: Slip, other: Slip) -> bool:
        """`shown_with`, replayed."""
        parting = self.parting(slip)
        if parting is None or not apart(slip, other):
            return False
        assert self.expected is not None
        k, _ = self.parted[slip]
        given = [*self.expected[: self.index], self.answer, *(p[2] for p in self.past[: k + 1])]
        whole = self.longer or self.scenario
        with applied(slip, other, events=len(whole.events), cpu=self.cpu(whole)):
            try:
                answers = list(zip(self.answers(True, slip, other), given, strict=False))
            except Exception:  # a slip can break the model anywhere
                return False
        if len(answers) != len(given) or any(self.differs(a, g) for a, g in answers[:-1]):
            return False
        return self.agrees_in(parting["field"], *answers[-1])

    def agrees_in(self, name: str, expected: dict[str, Any], found: dict[str, Any]) -> bool:
        """Whether two answers agree in one field, as `differs` compares it
        (a refusal as a fact, unless the engine names SPEC 4.1's rules)."""
        return not self.differs(
            {k: v for k, v in expected.items() if k == name},
            {k: v for k, v in found.items() if k == name},
        )


Told = tuple[bool, bool, tuple[int, dict[str, Any]] | None]
"""A judgment as `Ahead` sends it: whether the slips explain the FAIL,
whether judging it refuted the slip, and where the engine parted from it."""


class Ahead:
    """A second process, forked (`start`), NICER, that judges FAILs in an
    order of its own while this one judges them in its: each judgment it sends is
    taken, when this process comes to it, as if made here (`took`: what
    `Failure.judge` leaves, `refuted` and `parted`, with it); one not sent
    yet is made here, unless the forked process is making it now (it says
    so first): then this one waits for it, where it would make it twice. A
    judgment is the same in either process, so what is found depends on no
    timing: only how soon. While one is in `AHEAD`, every FAIL's
    `explained_by` asks it first."""

    def __init__(self) -> None:
        self.told: dict[tuple[str, tuple[str, ...]], Told] = {}
        self.making: set[tuple[str, tuple[str, ...]]] = set()
        """The judgments the forked process said it is making, not sent yet."""
        self.pid = 0
        self.conn: Connection | None = None

    def start(self, failures: list[Failure], work: Callable[[Failure], object]) -> None:
        """Fork the process: `work` for each of `failures` in turn, each
        judgment it makes said as it starts and sent once made (`TELLING`).
        It ends with its work, or once this one stops it (`stop`) or goes
        (its sends then fail)."""
        reader, writer = Pipe(duplex=False)
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # pragma: no cover (the forked process ends by os._exit)
            try:
                reader.close()
                AHEAD.clear()
                TELLING.append(writer)
                os.nice(NICER)
                for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
                    if callable(signal.getsignal(signum)):
                        signal.signal(signum, signal.SIG_DFL)
                for failure in failures:
                    if os.getppid() != parent:
                        break  # its parent was killed: no one reads on
                    work(failure)
            finally:
                os._exit(0)
        writer.close()
        self.pid, self.conn = pid, reader

    def knows(self, failure: Failure, slips: tuple[Slip, ...], wait: bool = True) -> bool:
        """Whether the forked process sent the judgment of `slips` on
        `failure` (all it sent so far read); with `wait`, once it has, if
        it is making it now, for `WAITING` times the CPU seconds the
        judgment may take here (`allowed`) at most, and never past the
        scan's end (`BY`): a forked process stopped, starved or gone
        leaves it to be made here. With `wait` False, one it is making
        counts."""
        key = (failure.name, ids(slips))
        whole = failure.longer or failure.scenario
        most = WAITING * allowed(len(whole.events), failure.cpu(whole))
        until = min(BY[0], time.monotonic() + most)
        while self.conn is not None:
            if not self.conn.poll(0):
                if not (wait and key in self.making and key not in self.told):
                    break
                if time.monotonic() >= until:
                    self.making.discard(key)
                    break
                self.conn.poll(min(WAIT_STEP, until - time.monotonic()))
                continue
            try:
                said = self.conn.recv()
                kind, made = said[0], (said[1], said[2])
                told = None if kind == "claim" else said[3]
            except (EOFError, OSError, IndexError, TypeError, ValueError, pickle.PickleError):
                self.conn = None
                self.making.clear()
                break
            if told is None:
                self.making.add(made)
            else:
                self.making.discard(made)
                self.told[made] = told
        return key in self.told or (not wait and key in self.making)

    def took(self, failure: Failure, slips: tuple[Slip, ...]) -> bool:
        """Whether the forked process sent the judgment of `slips` on
        `failure` (waiting for it if it is making it now): if so it is now
        the FAIL's, as if judged here."""
        if not self.knows(failure, slips):
            return False
        told = self.told.pop((failure.name, ids(slips)))
        explained, refuted, parted = told
        failure.judged[slips] = explained
        if refuted:
            failure.refuted.add(slips[0])
        if parted is not None:
            failure.parted[slips[0]] = parted
        return True

    def stop(self) -> None:
        """End the forked process, and wait for it."""
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = 0


def ids(slips: tuple[Slip, ...]) -> tuple[str, ...]:
    return tuple(slip.id for slip in slips)


WAITING = 4
"""How long this process waits for a judgment the forked process said it
is making, in the CPU seconds the judgment may take (`allowed`): that
process runs `NICER`, so on a busy machine it takes longer by the clock."""

WAIT_STEP = 0.05
"""How often, in seconds, a wait for the forked process looks at the clock."""

NICER = 5
"""How much nicer than the run's process the process judging ahead is: it
takes a core the run's process leaves idle, never one the run's process
would take (on a busy machine it judges little, and takes little)."""

AHEAD: list[Ahead] = []
"""The `Ahead` process judging now, if one is."""

TELLING: list[Connection] = []
"""In the forked process of `Ahead`, where it says each judgment it makes
(`Failure.explained_by`): as it starts it, and once made."""


def answered(exchange: Exchange) -> dict[str, Any]:
    return exchange.expected


@dataclass
class Explained:
    """FAILs one slip explains: the slips that explain every one of them
    (the smallest first names them), and the FAILs."""

    slips: list[Slip]
    failures: list[Failure]

    @property
    def slip(self) -> Slip:
        return self.slips[0]


def furthest(group: Explained) -> Slip:
    """The slip that names a group: its first (the smallest change), unless
    the engine parts from the model with it past the divergence of some of
    the FAILs it explains (`Failure.parting`), and from the model with
    another of the group's slips, which explains every one of them, in
    fewer, or in as many but further on (`followed`): a slip that mimics a
    bug at its first sign parts from the engine later, as if a second bug
    showed there, where the engine still gives the bug's own rule's answers
    (a lone FAIL of two bugs parts from both, the mimic first). The others
    are judged only when the first parts somewhere, first on the FAILs
    where it parts (a group keeps its other slips untried, `fitting`)."""
    own = [f for f in group.failures if f.explained_by(group.slip)]
    parts = [f for f in own if f.parting(group.slip) is not None]

    def parted(slip: Slip, failures: list[Failure]) -> tuple[int, int]:
        return sum(f.parting(slip) is not None for f in failures), -followed(slip, failures)

    best, fewest = group.slip, parted(group.slip, own)
    first = parted(group.slip, parts)
    for slip in sorted(group.slips, key=lambda s: s.rank) if parts else ():
        if slip == group.slip or not all(f.explained_by(slip) for f in parts):
            continue
        if parted(slip, parts) >= first:
            continue  # it parts in as many of those alone, no further on
        if all(f.explained_by(slip) for f in own):
            count = parted(slip, own)
            best, fewest = (slip, count) if count < fewest else (best, fewest)
    return best


def followed(slip: Slip, failures: list[Failure]) -> int:
    """How many of the engine's answers read past the divergences of
    `failures` (each explained by `slip`) the model with `slip` gives
    before it parts from the engine (`Failure.parting`)."""
    return sum(f.parted[slip][0] if slip in f.parted else len(f.past) for f in failures)


def together(failure: Failure, groups: list[Explained]) -> Explained | None:
    """The group of the most FAILs of two whose slips together explain a
    FAIL (two bugs that show in one answer: an engine's render and queue
    both wrong at one event); None when no two do."""
    ranked = sorted(groups, key=lambda g: (-len(g.failures), g.slip.rank))
    for k, first in enumerate(ranked):
        for second in ranked[k + 1 :]:
            if failure.together_with(first.slip, second.slip):
                return first
    return None


def settled(groups: list[Explained]) -> None:
    """Each FAIL two groups' slips explain together (`paired`) put in the
    group `together` finds for it among the groups of their FAILs of their
    own, the smallest FAIL first: the group it joined as it came was the
    one of the most FAILs then, so of the order the FAILs were judged in,
    which timing sets. A FAIL the pair no longer explains (a group's slips
    narrowed since) stays where it was."""
    paired = [(f, g) for g in groups for f in g.failures if f.paired]
    for group in groups:
        group.failures = [f for f in group.failures if not f.paired]
    chosen = [
        (f, together(f, groups) or was) for f, was in sorted(paired, key=lambda p: size(p[0]))
    ]
    for failure, group in chosen:
        group.failures.append(failure)


def apart(one: Slip, other: Slip) -> bool:
    """Whether two slips change other functions of the model (two slips of
    one function are never applied together)."""
    return (one.module, one.function) != (other.module, other.function)


def fitting(group: Explained, failure: Failure | None, refuted: set[Slip]) -> list[Slip]:
    """The slips of a group, not `refuted`, that explain a FAIL beside its
    own (`failure`; None: its own alone), at the least cost: the first that
    explains it and every FAIL of the group (the group's name, which
    explains them, is not tried on them again), then the group's slips
    after it, untried on it, kept as names the group may fall back on when
    that one is refuted on a later FAIL. Trying every slip of the group on
    every FAIL would only narrow the names after the first: most of the
    judging's time, and no name changed."""
    fresh = [s for s in group.slips if s not in refuted]
    if failure is None and fresh[:1] == group.slips[:1]:
        return fresh  # its name stands: it explains the group's FAILs
    if failure is not None and len(failure.scenario.events) > SCANNED_WHILE_REPLAYING:
        failure.sift(fresh)  # one replay of a large FAIL, where one for each is dear
    for k, slip in enumerate(fresh):
        if failure is not None and not failure.explained_by(slip):
            failure.sift(fresh[k + 1 :])
            continue
        if (failure is not None and slip == group.slips[0]) or all(
            f.explained_by(slip) for f in group.failures
        ):
            return [slip, *fresh[k + 1 :]]
    return []


def scan(
    failure: Failure, deadline: float, wide: bool = True, tries: float = math.inf
) -> list[Slip]:
    """The slips that explain a FAIL: first those at lines the model ran
    while it answered the diverging line (where a bug most often is), then,
    if none does and `wide`, those at any line it ran, `tries` of them at
    most (counted in `Failure.judged`); none tried after `deadline`, and
    none whose replay would run past it (`BY`)."""
    first = [s for s in catalogue() if failure.reaches(s, at_divergence=True)]
    found = []
    BY[0] = deadline
    try:
        failure.sift(first)
        for slip in first:
            if time.monotonic() >= deadline:
                break
            if failure.explained_by(slip):
                found.append(slip)
        limit = len(failure.judged) + tries
        tried = set(first)
        rest = [s for s in catalogue() if s not in tried and failure.reaches(s)]
        rest = rest if wide and not found else []
        failure.sift(rest if tries == math.inf else rest[: max(int(tries), 0)])
        for slip in rest:
            if found or time.monotonic() >= deadline or len(failure.judged) >= limit:
                break
            if failure.explained_by(slip):
                found.append(slip)
    finally:
        BY[0] = math.inf
    return found


class Explaining:
    """`explain` made one FAIL at a time, as FAILs come (`add`): what it
    found so far is `explained()`. Scans stop at `deadline`
    (`time.monotonic`), which the caller may move. No slip of `ruled_out`
    is taken; `seeds` are groups' slips to try first, as groups of no FAIL
    yet. Unless `wide`, a scan tries only the slips at the diverging line,
    and a FAIL none of those explains waits (`deferred`) for `widen`: the
    scan of every line, the dear part, is made within the deadline the
    caller sets then, never while the replay goes on; those scans at the
    diverging line are made on `scans` FAILs of each provisional signature
    at most, as the whole scans are (`narrowed`), and on none of more than
    SCANNED_WHILE_REPLAYING events: the others are deferred unscanned (else
    every FAIL of a bug no slip names is scanned), tried again on the
    groups made after them (`retried`), and placed again by `widen`, the
    smallest first, so that the whole scans go to the smallest. Once scans have tried
    `tries` slips in all (`left`, which the caller may set), a scan tries
    only the slips at the diverging line: counted, so that a slow machine
    finds the causes a fast one does."""

    def __init__(
        self,
        seconds: float = math.inf,
        scans: int = SCANS,
        ruled_out: Iterable[Slip] = (),
        seeds: Iterable[list[Slip]] = (),
        wide: bool = True,
        tries: float = math.inf,
    ) -> None:
        self.groups: list[Explained] = [Explained(list(slips), []) for slips in seeds]
        self.alone: list[Failure] = []
        self.deferred: list[Failure] = []
        self.wide = wide
        self.added: list[Failure] = []
        self.scanned: dict[str, int] = {}
        self.narrowed: dict[str, int] = {}
        """The scans at the diverging line alone that found no slip, by signature."""
        self.met: dict[str, int] = {}
        """How many groups there were when each FAIL deferred was last placed, by name."""
        self.scans = scans
        self.ruled_out = set(ruled_out)
        self.refuted: set[Slip] = set()
        """The slips refuted on a FAIL added so far: not the engine's rule,
        never kept for a group again."""
        self.left = tries
        catalogue()  # made once, before the clock starts
        self.deadline = time.monotonic() + seconds

    def scanning(self, signature: str) -> bool:
        """Whether a FAIL of a provisional signature would still be scanned
        (at the diverging line alone unless `wide`), should no group explain it."""
        narrow = self.wide or self.narrowed.get(signature, 0) < self.scans
        return narrow and self.scanned.get(signature, 0) < self.scans

    def add(self, failure: Failure) -> None:
        """Explain one more FAIL (see `explain`)."""
        self.added.append(failure)
        self.place(failure)

    def widen(self) -> None:
        """Scans from now on try every line's slips, and the FAILs deferred
        are placed again, the smallest first."""
        self.wide = True
        deferred, self.deferred = sorted(self.deferred, key=size), []
        for failure in deferred:
            self.place(failure)

    def retried(self) -> bool:
        """Place again the largest FAIL deferred before a group it was not
        tried on was made (while the replay goes on, so that a large FAIL
        that came before its group is not left for after it): whether there
        was one."""
        stale = [f for f in self.deferred if self.met.get(f.name, 0) < len(self.groups)]
        if not stale:
            return False
        failure = max(stale, key=size)
        self.deferred.remove(failure)
        self.place(failure)
        return True

    def place(self, failure: Failure) -> None:
        """Put a FAIL in the group of a slip that explains it, in a new
        group of those a scan finds, among those deferred, or alone."""
        if not failure.replayed():
            self.alone.append(failure)
            return
        late = time.monotonic() >= self.deadline
        for group in sorted(self.groups, key=lambda g: -len(g.failures)):
            kept = fitting(group, failure, self.refuted)
            if kept:
                group.slips = kept
                group.failures.append(failure)
                self.refuted |= failure.refuted
                return
        both = together(failure, self.groups)
        if both is not None:
            both.failures.append(failure)
            failure.paired = True
            return
        found: list[Slip] = []
        signature = failure.signature
        large = len(failure.scenario.events) > SCANNED_WHILE_REPLAYING and not self.wide
        if (large or not self.scanning(signature)) and self.scanned.get(signature, 0) < self.scans:
            self.defer(failure)  # scanned whole after the replay, maybe
            return
        if self.scanned.get(signature, 0) < self.scans and not late:
            before = len(failure.judged)
            counted = () if self.left == math.inf else (max(self.left, 0),)
            scanned = scan(failure, self.deadline, self.wide, *counted)
            if self.wide:
                self.left -= len(failure.judged) - before
            found = [s for s in scanned if s not in self.ruled_out]
            if not found and not self.wide:
                self.narrowed[signature] = self.narrowed.get(signature, 0) + 1
                self.defer(failure)
                return
            self.scanned[signature] = self.scanned.get(signature, 0) + 1
        self.refuted |= failure.refuted
        found = [s for s in found if s not in self.refuted]
        if found:
            self.groups.append(Explained(sorted(found, key=lambda s: s.rank), [failure]))
        else:
            self.alone.append(failure)

    def defer(self, failure: Failure) -> None:
        self.deferred.append(failure)
        self.met[failure.name] = len(self.groups)

    def explained(self) -> tuple[list[Explained], list[Failure]]:
        """The groups (the one of the most FAILs first) and the FAILs no
        slip explains. A slip refuted past the divergence of any FAIL
        (`Failure.refuted`) is not the engine's rule: the engine, one
        program, gives SPEC's answer there where the slip's model does not.
        A slip can still mimic a bug up to the end of another FAIL, so when
        a group's slips were refuted on some FAIL, the FAILs are covered
        again without every slip refuted so far (the others tried first,
        no scan needed for them), and what is still named by one after
        that is left to no slip."""
        groups = [group for group in self.groups if group.failures]
        alone = list(self.alone)
        refuted = {slip for failure in self.added for slip in failure.refuted}
        if any(slip in refuted for group in groups for slip in group.slips):
            seeds = [[s for s in group.slips if s not in refuted] for group in groups]
            again = Explaining(0.0, self.scans, self.ruled_out | refuted, [s for s in seeds if s])
            again.deadline, again.left = self.deadline, self.left
            for failure in sorted(self.added, key=size):
                again.add(failure)
            groups = [group for group in again.groups if group.failures]
            alone = again.alone
            refuted = {slip for failure in self.added for slip in failure.refuted}
        kept = []
        for group in groups:
            group.slips = fitting(group, None, refuted)
            if group.slips:
                kept.append(group)
            else:
                alone += group.failures
        return sorted(kept, key=lambda g: (-len(g.failures), g.slip.rank)), alone


def explain(
    failures: Iterable[Failure],
    progress: Callable[[int], None] = lambda _: None,
    seconds: float = math.inf,
    scans: int = SCANS,
) -> tuple[list[Explained], list[Failure]]:
    """The run's FAILs covered by as few slips as found (greedy): the
    smallest scenarios first; each tried first on the slips that explain a
    group already (the group of the most FAILs first), a slip that does so
    kept for the group; then on two groups' slips together (`together`);
    else on every slip at a line its replay ran (a scan), those that
    explain it a new group. Also the FAILs no slip explains. Scans, the
    dear part, are made on the `scans` smallest FAILs of each provisional
    signature that no group explains, and not after `seconds` (after which
    a FAIL is tried on each group's best slip alone): a FAIL left unscanned
    is one no slip explains. Slips refuted past a divergence are taken out
    (`Explaining.explained`)."""
    explaining = Explaining(seconds, scans)
    order = sorted(failures, key=size)
    for done, failure in enumerate(order):
        progress(done)
        explaining.add(failure)
    progress(len(order))
    return explaining.explained()


def size(failure: Failure) -> tuple[int, str]:
    """How dear a FAIL is to explain, as `explain` orders them: its events, then its name."""
    return len(failure.scenario.events), failure.name


def answers_of(
    scenario: Scenario, profile: Profile, lacks: tuple[Capability, ...], slip: Slip | None
) -> list[dict[str, Any]] | None:
    """The model's answers to a scenario (with `slip` applied); None when a
    slip breaks the model on it."""
    with applied(slip, events=len(scenario.events)):
        try:
            profile = under(profile, [slip])
            return [answered(e) for e in from_model(scenario, profile, False, lacks) if e.sent]
        except Exception:  # a slip can break the model anywhere
            return None


def differing_answers(
    scenario: Scenario, slip: Slip, profile: Profile, lacks: tuple[Capability, ...]
) -> list[int] | None:
    """Which answers (counted from 0) of the model and of the model with
    `slip` differ on a scenario (one more, where the shorter replay ends);
    None when the slip breaks the model there."""
    right = answers_of(scenario, profile, lacks, None)
    slipped = answers_of(scenario, profile, lacks, slip)
    if right is None or slipped is None:
        return None
    owner = ignored_fields(lacks)
    pairs = enumerate(zip(right, slipped, strict=False))
    found = [k for k, (a, b) in pairs if first_difference(a, b, None, True, owner) is not None]
    return found + ([] if len(right) == len(slipped) else [min(len(right), len(slipped))])


def first_difference_at(
    scenario: Scenario, slip: Slip, profile: Profile, lacks: tuple[Capability, ...]
) -> int | None:
    """Which answer (counted from 0) of the model and of the model with
    `slip` first differs on a scenario; None when none does."""
    return next(iter(differing_answers(scenario, slip, profile, lacks) or ()), None)


def shows(
    slip: Slip, profile: Profile, lacks: tuple[Capability, ...]
) -> Callable[[Scenario], bool]:
    """Whether the model and the model with `slip` answer a scenario
    otherwise: what shrinking a slip's cause keeps, without an engine."""
    return lambda scenario: first_difference_at(scenario, slip, profile, lacks) is not None


def shows_first(
    slip: Slip, others: Iterable[Slip], profile: Profile, lacks: tuple[Capability, ...]
) -> Callable[[Scenario], bool]:
    """Whether the model with `slip` answers a scenario otherwise than the
    model does (`shows`), before the model with any of `others` (the slips
    naming the engine's other bugs) does: what shrinking a slip's cause
    keeps, so that the engine's other bugs show after this one, if at all."""
    others = list(others)

    def first(scenario: Scenario) -> bool:
        at = first_difference_at(scenario, slip, profile, lacks)
        if at is None:
            return False
        for other in others:
            there = first_difference_at(scenario, other, profile, lacks)
            if there is not None and there <= at:
                return False
        return True

    return first


def confirmed(
    engine: Engine,
    scenario: Scenario,
    slip: Slip,
    profile: Profile,
    lacks: tuple[Capability, ...],
    whole: bool = False,
) -> bool:
    """Whether the engine, replayed once on a scenario the slip shows on
    (`shows`), agrees with the model with the slip up to the first answer
    where that differs from the model, and there: so it diverges from the
    model there, and by this slip. With `whole`, on every answer: no other
    bug of the engine shows there either."""
    at = first_difference_at(scenario, slip, profile, lacks)
    if at is None:
        return False
    found = against(engine, scenario, slip, profile, lacks)
    return found is None or (found is not False and not whole and found.index > at)


def against(
    engine: Engine, scenario: Scenario, slip: Slip, profile: Profile, lacks: tuple[Capability, ...]
) -> Divergence | Literal[False] | None:
    """The engine's first divergence from the model with `slip` on a
    scenario (one replay); None when it agrees; False when the slip breaks
    the model there or the engine cannot take the scenario."""
    with applied(slip, events=len(scenario.events)):
        try:
            exchanges = list(from_model(scenario, under(profile, [slip]), False, lacks))
        except Exception:  # a slip can break the model anywhere
            return False
    ready = engine.start(scenario)
    if ready.unsupported:
        return False
    return run(exchanges, engine, ready, None, False, lacks=lacks).divergence
