"""Which hit the choice moves to when several would do as well (pipeline_choose.decide's moves): of hits
that take as many of the task's values, the first in retrieval order (fill/placing.py by_values); the
standard library's own docs and the real value reading (fill/call_grammar.py TaskValues)."""

from __future__ import annotations

from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.placing import by_values, placed

TASK = "pick a random number from 1 to 100 for my guessing game"


def test_of_hits_taking_as_many_values_the_retrieval_order_decides(docs) -> None:
    # the recorded dev scores (bench/filling.py, session 16): uniform 1.5 nats likelier than randint
    names = ["random.sample", "random.randint", "random.choice", "random.Random.uniform"]
    hits = [docs[n] for n in names]
    values = TaskValues.of(TASK)
    counts = [placed(d, values) for d in hits]
    assert counts[1] == counts[3] > counts[0], counts  # both take the two numbers, sample does not
    scores = [-56.74, -55.06, -55.31, -53.53]
    assert names[by_values(hits, scores, 0, TASK)] == "random.randint"
    # a hit read less likely than the chosen one still does not take its place
    assert by_values(hits, [-50.0, -55.06, -55.31, -53.53], 0, TASK) == 0
