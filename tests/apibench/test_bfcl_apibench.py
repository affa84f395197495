"""BFCL (../shared/bfcl): the AST checker on the ground truth of every category and on answers made wrong on
purpose, BFCL's string standardisation, the pools the questions are asked with, and `gorilla-tui eval bfcl`
end to end with the embedded model (resumable --out, bad input)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.evaluate import bfcl
from gorilla_tui.evaluate.bfcl_checker import bfcl_names, check_calls, ground_truth_calls
from gorilla_tui.evaluate.bfcl_values import standardise
from gorilla_tui.retrieve.index import ApiIndex

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple")


@pytest.fixture(scope="module")
def questions(bfcl_data: Path) -> dict[str, bfcl.BfclQuestion]:
    """Every question of the five categories, by id."""
    return {q.id: q for name in (*CATEGORIES, "irrelevance") for q in bfcl.load_questions(bfcl_data, name)}


def _check(q: bfcl.BfclQuestion, calls: object) -> tuple[bool, str]:
    result = check_calls(q.category, q.functions, calls, q.truth)
    assert result.valid == (result.error_type == "") and result.valid == (result.error == "")
    return result.valid, result.error_type


def _truth(q: bfcl.BfclQuestion) -> list[dict]:
    assert q.truth is not None
    return ground_truth_calls(q.truth, q.functions)


# --- the checker on the ground truth ---


@pytest.mark.parametrize("category", CATEGORIES)
def test_the_ground_truth_made_calls_is_right_on_every_question(
    questions: dict[str, bfcl.BfclQuestion], category: str
) -> None:
    mine = [q for q in questions.values() if q.category == category]
    assert len(mine) == (400 if category == "simple_python" else 200)
    wrong = [(q.id, _check(q, _truth(q))) for q in mine if not _check(q, _truth(q))[0]]
    assert wrong == []


def test_optional_values_given_are_right_but_where_bfcl_lists_them_under_the_wrong_function(
    questions: dict[str, bfcl.BfclQuestion],
) -> None:
    # BFCL's own data puts calculate_magnetic_field's "permeability" under calculate_voltage_difference
    # (parallel_multiple_12), and "type" of a transaction under bank.calculate_balance (_26): giving them
    # is wrong by BFCL's checker too
    wrong = []
    for q in questions.values():
        if (
            q.truth is not None
            and not _check(q, ground_truth_calls(q.truth, q.functions, give_optional=True))[0]
        ):
            wrong.append(q.id)
    assert wrong == ["parallel_multiple_12", "parallel_multiple_26"]


def test_parallel_calls_in_another_order_are_right_but_for_bfcls_greedy_match(
    questions: dict[str, bfcl.BfclQuestion],
) -> None:
    wrong = []
    for q in questions.values():
        if q.category in ("parallel", "parallel_multiple"):
            calls = _truth(q)
            assert len(calls) >= 2
            if not _check(q, calls[::-1])[0]:
                wrong.append(q.id)
    # parallel_178's first ground-truth call accepts "Microsoft" or "Apple": in reverse order it takes the
    # Apple call the third one needs, as BFCL's first-match loop does
    assert wrong == ["parallel_178"]
    q = questions["parallel_0"]
    assert _check(q, _truth(q)[::-1]) == (True, "")


def test_irrelevance_is_right_with_no_call_and_wrong_with_one(
    questions: dict[str, bfcl.BfclQuestion],
) -> None:
    mine = [q for q in questions.values() if q.category == "irrelevance"]
    assert len(mine) == 240 and all(q.truth is None for q in mine)
    assert all(_check(q, []) == (True, "") and _check(q, [{}])[0] for q in mine)
    q = questions["irrelevance_0"]  # a triangle's area asked of determine_body_mass_index
    assert _check(q, [{"determine_body_mass_index": {"weight": 10.0, "height": 5.0}}]) == (
        False,
        "irrelevance_error:decoder_success",
    )


# --- answers made wrong on purpose ---


def _with(q: bfcl.BfclQuestion, index: int = 0, **changes: object) -> list[dict]:
    """The ground truth made calls, optional parameters given, call `index` with `changes` (a value of None
    removes the parameter)."""
    assert q.truth is not None
    calls = copy.deepcopy(ground_truth_calls(q.truth, q.functions, give_optional=True))
    args = next(iter(calls[index].values()))
    for name, value in changes.items():
        if value is None:
            args.pop(name)
        else:
            args[name] = value
    return calls


def test_a_wrong_value_is_wrong(questions: dict[str, bfcl.BfclQuestion]) -> None:
    q = questions["simple_python_0"]  # calculate_triangle_area(base=10, height=5)
    assert _check(q, _with(q, base=11)) == (False, "value_error:others")
    p = questions["parallel_0"]  # spotify.play: Taylor Swift 20, Maroon 5 15
    assert _check(p, _with(p, artist="Taylor Swiftt")) == (
        False,
        "parallel_function_checker_no_order:cannot_find_match",
    )


def test_a_missing_required_parameter_is_wrong(questions: dict[str, bfcl.BfclQuestion]) -> None:
    q = questions["simple_python_0"]
    assert _check(q, _with(q, height=None)) == (False, "simple_function_checker:missing_required")


def test_an_unknown_parameter_is_wrong(questions: dict[str, bfcl.BfclQuestion]) -> None:
    q = questions["simple_python_0"]
    assert _check(q, _with(q, colour="red")) == (False, "simple_function_checker:unexpected_param")


def test_a_value_of_the_wrong_type_is_wrong(questions: dict[str, bfcl.BfclQuestion]) -> None:
    q = questions["simple_python_0"]  # base: integer
    assert _check(q, _with(q, base="10")) == (False, "type_error:simple")
    assert _check(q, _with(q, base=10.0)) == (False, "type_error:simple")
    assert _check(q, _with(q, base=True)) == (False, "type_error:simple")  # a bool is no integer


def test_an_int_is_accepted_for_a_float(questions: dict[str, bfcl.BfclQuestion]) -> None:
    q = questions["parallel_multiple_1"]  # area_rectangle.calculate(length=7.0, breadth=3.0), a float each
    assert next(iter(_truth(q)[0])) == "area_rectangle.calculate"
    assert _check(q, _with(q, length=7, breadth=3)) == (True, "")
    assert _check(q, _with(q, length=7.5))[0] is False


def test_a_tuple_is_a_list_for_a_tuple_parameter_not_for_an_array(
    questions: dict[str, bfcl.BfclQuestion],
) -> None:
    q = questions["simple_python_83"]  # calculate_distance(coord1: tuple of float, ...)
    assert _check(q, _with(q, coord1=(33.4484, -112.074), coord2=(34.0522, -118.2437))) == (True, "")
    assert _check(q, _with(q, coord1=(33.4484, -112.0)))[0] is False
    m = questions["parallel_multiple_0"]  # math_toolkit.sum_of_multiples(multiples: array of integer)
    assert _check(m, _with(m, multiples=[3, 5]))[0] is True
    assert _check(m, _with(m, multiples=(3, 5))) == (
        False,
        "parallel_function_checker_no_order:cannot_find_match",
    )
    assert _check(m, _with(m, multiples=[3, 5.0]))[0] is False  # the items are type-checked too


def test_an_optional_parameter_may_be_left_out_only_when_the_ground_truth_allows_it(
    questions: dict[str, bfcl.BfclQuestion],
) -> None:
    q = questions["simple_python_0"]  # unit: ["units", ""]
    assert _check(q, _with(q, unit=None)) == (True, "")
    assert _check(q, _with(q, unit="units")) == (True, "")
    assert _check(q, _with(q, unit="meters")) == (False, "value_error:string")
    r = questions["simple_python_5"]  # root_type: ["all"], not required, no ""
    assert "root_type" not in r.functions[0]["parameters"]["required"]
    assert _check(r, _with(r, root_type=None)) == (False, "simple_function_checker:missing_optional")


def test_parallel_needs_every_call_and_no_other(questions: dict[str, bfcl.BfclQuestion]) -> None:
    q = questions["parallel_0"]
    calls = _truth(q)
    assert _check(q, calls + [calls[0]]) == (False, "parallel_function_checker_no_order:wrong_count")
    assert _check(q, calls[:1]) == (False, "parallel_function_checker_no_order:wrong_count")
    assert _check(q, [calls[0], calls[0]]) == (False, "parallel_function_checker_no_order:cannot_find_match")


def test_simple_and_multiple_need_one_call_of_the_right_function(
    questions: dict[str, bfcl.BfclQuestion],
) -> None:
    q = questions["simple_python_0"]
    assert _check(q, _truth(q) * 2) == (False, "simple_function_checker:wrong_count")
    assert _check(q, []) == (False, "simple_function_checker:wrong_count")
    m = questions["multiple_0"]  # triangle_properties.get, beside circle_properties.get
    assert _check(m, [{"circle_properties.get": {"radius": 5.0}}]) == (
        False,
        "simple_function_checker:wrong_func_name",
    )
    assert _check(m, "triangle_properties.get(side1=5)") == (False, "ast_decoder:decoder_wrong_output_format")


def test_dict_and_list_of_dict_values_are_checked_key_by_key(questions: dict[str, bfcl.BfclQuestion]) -> None:
    q = questions["simple_python_94"]  # update_info: {"name": ["John Doe"], "email": [...]}
    right = {"name": "john doe", "email": "johndoe@email.com"}
    assert _check(q, _with(q, update_info=right)) == (True, "")
    assert _check(q, _with(q, update_info={"name": "John Doe"})) == (False, "value_error:dict_key")
    assert _check(q, _with(q, update_info=right | {"phone": "1"})) == (False, "value_error:dict_key")
    assert _check(q, _with(q, update_info=right | {"name": "Jane Doe"})) == (False, "value_error:dict_value")
    d = questions["simple_python_96"]  # conditions: a list of two {field, operation, value} dicts, in order
    conditions = _truth(d)[0]["database.query"]["conditions"]
    assert _check(d, _with(d, conditions=conditions[::-1])) == (False, "value_error:dict_value")
    assert _check(d, _with(d, conditions=conditions[:1])) == (False, "value_error:list_dict_count")


def test_strings_are_compared_standardised(questions: dict[str, bfcl.BfclQuestion]) -> None:
    assert standardise("April 1, 2024") == standardise("april 1 2024") == "april12024"
    assert standardise("New-York_City/NY.") == "newyorkcityny"
    assert standardise("2^3 * 4") == "234"
    assert standardise("it's") == 'it"s'  # single quotes become double ones
    assert standardise("São Paulo") != standardise("Sao Paulo")  # accents stay
    p = questions["parallel_0"]
    assert _check(p, _with(p, artist="taylor_swift")) == (True, "")
    assert _check(p, _with(p, artist="TAYLOR-SWIFT.")) == (True, "")
    assert _check(p, _with(p, artist="Taylor Swift!"))[0] is False  # "!" is not among the dropped marks
    m = questions["parallel_multiple_179"]  # update_info {"name": ["John Doe"], ...}: dict values too
    info = _truth(m)[0]["update_user_info"]["update_info"]
    assert _check(m, _with(m, update_info=info | {"name": "JOHN  DOE"})) == (True, "")


def test_python_names_of_bfcl_functions_are_mapped_back() -> None:
    functions = [{"name": "get-weather", "parameters": {"type": "dict", "properties": {
        "city": {"type": "string"}}, "required": ["city"]}}]  # fmt: skip
    truth = [{"get-weather": {"city": ["Paris"]}}]
    assert bfcl_names([{"get_weather": {"city": "paris"}}], functions) == [{"get-weather": {"city": "paris"}}]
    assert check_calls("simple_python", functions, [{"get_weather": {"city": "paris"}}], truth).valid
    assert not check_calls("simple_python", functions, [{"get_wether": {"city": "paris"}}], truth).valid


# --- questions and pools ---


def test_questions_read_with_their_text_split_and_functions(questions: dict[str, bfcl.BfclQuestion]) -> None:
    q = questions["simple_python_1"]
    assert q.text == "Calculate the factorial of 5 using math functions."
    assert (q.number, q.split) == (1, "test") and questions["simple_python_0"].split == "dev"
    turns = [
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
        [{"role": "user", "content": "Then 2"}],
    ]
    assert bfcl.question_text(turns) == "Be brief.\nHi\nThen 2"
    picked = bfcl.select_questions([questions[f"simple_python_{i}"] for i in range(10)], 2, stride=3)
    assert [x.id for x in picked] == ["simple_python_0", "simple_python_3"]


def test_each_question_is_asked_over_its_own_functions(questions: dict[str, bfcl.BfclQuestion]) -> None:
    q = questions["multiple_0"]
    index = bfcl.question_index(q)
    assert [d.api_name for d in index.docs] == ["triangle_properties.get", "circle_properties.get"]
    assert index.docs[0].api_call == "triangle_properties.get(side1=side1, side2=side2, side3=side3)"
    assert index.search(q.text, k=2)[0].doc.api_name == "triangle_properties.get"


def test_the_pooled_index_holds_each_distinct_function_once(questions: dict[str, bfcl.BfclQuestion]) -> None:
    simple = [q for q in questions.values() if q.category == "simple_python"]
    index = bfcl.pooled_index(simple)
    distinct = {json.dumps(f, sort_keys=True) for q in simple for f in q.functions}
    assert len(index.docs) == len(distinct) and 350 < len(distinct) <= 400
    q = questions["simple_python_0"]
    hits = [h.doc.api_name for h in index.search(q.text, k=5)]  # calc_area_triangle is in the pool too
    assert "calculate_triangle_area" in hits and all("triangle" in h for h in hits[:2])


def test_a_live_index_that_holds_every_function_is_the_pool_itself(
    questions: dict[str, bfcl.BfclQuestion],
) -> None:
    """The person indexed the functions (`--source bfcl=...`): the live index, vectors and all, is the pool;
    one function missing from it and the functions are added to an in-memory BM25 index."""
    simple = [q for q in questions.values() if q.category == "simple_python"][:40]
    functions = {json.dumps(f, sort_keys=True): f for q in simple for f in q.functions}
    live = ApiIndex.build(bfcl.question_docs(list(functions.values())))
    assert bfcl.pooled_index(simple, live) is live
    docs = bfcl.question_docs(list(functions.values()))
    fewer = ApiIndex.build([d for d in docs if d.api_name != docs[0].api_name])
    pooled = bfcl.pooled_index(simple, fewer)
    assert pooled is not fewer and len(pooled.docs) == len(fewer.docs) + len(docs)


# --- `gorilla-tui eval bfcl` ---


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--category", "nope"], "unknown BFCL category 'nope'"),
        (
            ["--category", "simple", "--data", "/nonexistent/bfcl"],
            "BFCL data folder /nonexistent/bfcl not found",
        ),
        (["--category", "java"], "is not scored here"),
        (["--category", "simple", "--stride", "0"], "--stride must be at least 1"),
        (["--category", "simple", "--limit", "0"], "--limit must be at least 1"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    bfcl_data: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["eval", "bfcl", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_another_runs_answer_file_is_refused(
    bfcl_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "answers.jsonl"
    line = {"id": "irrelevance_0", "calls": [], "valid": True, "model": "other", "mode": "select",
            "select_by": "likelihood", "k": 5, "pooled": False}  # fmt: skip
    out.write_text(json.dumps(line) + "\n")
    assert main(["eval", "bfcl", "--category", "irrelevance", "--limit", "1", "--out", str(out)]) == 2
    assert "holds answers of another run" in capsys.readouterr().err
    assert out.read_text() == json.dumps(line) + "\n"


def test_a_line_that_is_not_an_answer_is_refused_not_dropped(
    bfcl_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`eval bfcl --out` resumes through load_resumable as `eval run` does: a line of the file that is not
    an answer was dropped for good (issue 42); it is one line naming it, exit 2, the file unchanged."""
    out = tmp_path / "answers.jsonl"
    line = {"id": "irrelevance_0", "calls": [], "valid": True, "model": "gemma3-270m", "mode": "select",
            "select_by": "likelihood", "k": 5, "pooled": False}  # fmt: skip
    content = json.dumps(line) + "\n" + "my notes on this run\n"
    out.write_text(content)
    argv = ["eval", "bfcl", "--category", "irrelevance", "--limit", "1", "--mode", "select", "--select-by",
            "likelihood", "-k", "5", "--out", str(out)]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"gorilla-tui: error: {out} line 2 is not an answer"), err
    assert out.read_text() == content


def _run(capsys: pytest.CaptureFixture[str], out: Path, limit: int) -> tuple[dict, str]:
    code = main(["eval", "bfcl", "--category", "irrelevance,simple", "--limit", str(limit), "-k", "3",
                 "--out", str(out), "--json"])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out), captured.err


@pytest.mark.model
def test_eval_bfcl_answers_with_the_model_scores_and_resumes(
    home_with_model: Path, bfcl_data: Path, questions: dict[str, bfcl.BfclQuestion], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    out = tmp_path / "bfcl.jsonl"
    first, err = _run(capsys, out, 2)
    assert (first["answered"], first["skipped"], first["stopped"]) == (4, 0, False)
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    ids = ["irrelevance_0", "irrelevance_1", "simple_python_0", "simple_python_1"]
    assert [x["id"] for x in lines] == ids
    for x in lines:  # each line is the checker's verdict on the calls the pipeline proposed
        q = questions[x["id"]]
        assert x["valid"] == _check(q, x["calls"])[0] and (x["model"], x["k"], x["pooled"]) == (
            "gemma3-270m",
            3,
            False,
        )
        assert x["seconds"] >= 0 and isinstance(x["api_call"], str)
        assert f"{x['id']}: {'right' if x['valid'] else 'wrong'}" in err  # plain lines: stderr is no terminal
    by_category = {c["category"]: c for c in first["categories"]}
    assert set(by_category) == {"irrelevance", "simple_python", "all"}
    irrelevance = [x for x in lines if x["category"] == "irrelevance"]
    assert by_category["irrelevance"]["right"] == sum(x["valid"] for x in irrelevance)
    assert (
        by_category["all"]["n"] == 4
        and by_category["all"]["dev_n"] == 2
        and by_category["all"]["test_n"] == 2
    )

    # a kill in mid-write leaves a partial last line: the resume drops it and answers that question again
    with out.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(lines[0] | {"id": "irrelevance_2"})[:30])
    second, _ = _run(capsys, out, 3)
    assert (second["answered"], second["skipped"]) == (2, 4)
    ids = [json.loads(x)["id"] for x in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(ids) == sorted({*ids}) and len(ids) == 6  # nothing answered twice

    third, _ = _run(capsys, out, 3)  # everything answered: no model loaded, nothing written
    assert (third["answered"], third["skipped"]) == (0, 6) and third["categories"] == second["categories"]


@pytest.mark.model
def test_a_question_id_with_a_newline_stays_on_its_progress_line(
    home_with_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Break-it round 8: `eval bfcl --data` with a question id holding a newline printed its progress line
    on two lines, the second one forged ("FAKE: all correct [1/1]"). Every line of the tool's own is one
    line whatever the data holds."""
    fn = {"name": "calculate_triangle_area", "description": "area",
          "parameters": {"type": "dict", "properties": {"base": {"type": "integer"},
                                                         "height": {"type": "integer"}},
                         "required": ["base", "height"]}}  # fmt: skip
    qid = "simple_python_1\nFAKE: all correct [1/1]"
    data = tmp_path / "bfcl"
    (data / "possible_answer").mkdir(parents=True)
    question = {"id": qid, "question": [[{"role": "user", "content": "area of a triangle base 3 height 4"}]],
                "function": [fn]}  # fmt: skip
    (data / "BFCL_v4_simple_python.json").write_text(json.dumps(question) + "\n")
    answer = {"id": qid, "ground_truth": [{"calculate_triangle_area": {"base": [3], "height": [4]}}]}
    (data / "possible_answer" / "BFCL_v4_simple_python.json").write_text(json.dumps(answer) + "\n")
    code = main(
        ["eval", "bfcl", "--category", "simple", "--data", str(data), "--out", str(tmp_path / "o.jsonl")]
    )
    err = capsys.readouterr().err
    assert code == 0, err
    assert not any(line.startswith("FAKE") for line in err.splitlines())
    assert "simple_python_1\\x0aFAKE: all correct [1/1]: " in err
