"""The due order's link to the model as a PEP 316 contract for CrossHair
(SPEC 3.1, 8): the proofs' forms, run on CrossHair's symbolic integers,
against `model.due.more_due` on the bit lists of those integers."""

from laws.proofs.due import Form, more_due, tree_pair
from model import bits, due
from model.node import Node


def due_agrees(t: int, la: int, ia: int, lb: int, ib: int) -> bool:
    """
    pre: 0 <= t < 2**5 and 0 <= la <= 2 and 0 <= lb <= 2
    pre: 0 <= ia < 2**3 and 0 <= ib < 2**3 and ia % 2 == 0 and ib % 2 == 0
    post: __return__
    """
    count = bits.from_int(t)
    a, b = Node(la, bits.from_int(ia)), Node(lb, bits.from_int(ib))
    model = (due.more_due(count, a, b), due.more_due(count, b, a))
    pair_a, pair_b = tree_pair(2**la, ia), tree_pair(2**lb, ib)
    return all(
        model == (more_due(form, t, pair_a, pair_b), more_due(form, t, pair_b, pair_a))
        for form in (Form.LAST, Form.INDEX)
    )
