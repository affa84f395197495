"""The choice past a hit that can take none of the task's values (pipeline_choose.past_unplaced), the
whole choice without the model (pipeline_choose.decide) and its offline replay (bench/choice_replay.py), on
the hits and scores the default index and the embedded model gave a dev task (session 13)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from gorilla_tui.pipeline_choose import decide, first_rule, past_unplaced

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import choice_replay  # noqa: E402

#: bench/data/literal_tasks.toml's dev task s12-int: its hits (retrieval order), BM25 and fused scores and
#: log p(task | doc), as bench/filling.py recorded them.
TASK = "turn the string '42' into an actual integer"
NAMES = ["bin", "int", "socket.inet_ntoa", "str.join", "base64.b64encode"]
LM = [-56.76, -58.59, -58.88, -58.56, -61.94]
BM25 = [9.34, 11.04, 9.51, 9.46, 8.27]
FUSED = [0.02369, 0.02358, 0.02284, 0.02246, 0.02217]


def test_a_hit_that_takes_none_of_the_values_gives_way(docs) -> None:
    """bin(number) takes a number, not the string '42'; int, the next hit, takes it (1.8 nats less
    likely): the first hit in retrieval order that can take a value is proposed, not the likeliest
    (str.join, 0.03 nats above int)."""
    hits = [docs[n] for n in NAMES]
    assert NAMES[past_unplaced(hits, LM, 0, TASK)] == "int"
    # a chosen hit that takes the value stays; so does any hit when the task marks no value
    assert past_unplaced(hits, LM, 1, TASK) == 1
    assert past_unplaced(hits, LM, 0, "turn a string into an actual integer") == 0
    # beyond the margin the model's reading stands
    assert past_unplaced(hits, [-50.0, *LM[1:]], 0, TASK) == 0
    # another source's call (a hub's complete call, a user's tool) is left to by_values
    other = [dataclasses.replace(d, source="tools") for d in hits]
    assert past_unplaced(other, LM, 0, TASK) == 0


def test_the_whole_choice_and_its_replay(docs) -> None:
    """decide, as the pipeline calls it: the "margin" rule keeps hit 1 (bin), past_unplaced moves to int;
    bench/choice_replay.py's replay of the recorded row (by doc id) makes the same choice."""
    hits = [docs[n] for n in NAMES]
    rule = first_rule(hits, BM25)
    picked, said, notes = decide(TASK, hits, LM, None, rule, FUSED)
    assert (NAMES[picked], said, notes) == ("int", "likelihood", [])
    row = {"id": "s12-int", "hits": [{"id": d.id, "bm25": b, "fused": f, "lm": s, "free": None}
                                     for d, b, f, s in zip(hits, BM25, FUSED, LM, strict=True)]}  # fmt: skip
    label = {"id": "s12-int", "source": "python-env", "task": TASK, "names": ["int"]}
    assert choice_replay.replay(row, label, {d.id: d for d in hits}) == (docs["int"].id, True)
    assert choice_replay.replay({**row, "next_source": True}, label, {d.id: d for d in hits}) is None
