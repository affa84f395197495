"""Sources in the formats function calling uses (issue 37): OpenAI tools, an MCP server's tools/list result,
BFCL function lists (pool/tools.py) and OpenAPI 3 documents (pool/openapi.py), told from their content,
loaded by the real loaders from the hand-written files of tests/data/function_sources; their docs through
the real BM25 tokenizer and the real validator. BFCL's own file: tests/apibench/test_bfcl_source.py."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from gorilla_tui.check.validator import Validator
from gorilla_tui.pool.apidoc import ApiDoc, SourceRejected
from gorilla_tui.pool.doc import detect_format, load_paths
from gorilla_tui.pool.params import params_of
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.retrieve.tokenize import FIELD_WEIGHTS, SOURCE_FIELD_WEIGHTS, doc_text, tokenize

DATA = Path(__file__).resolve().parent.parent / "data"
FILES = DATA / "function_sources"
POOL = DATA / "pool"


#: A "billion laughs" YAML document: 10 values, then 8 levels of lists of 10 aliases of the level below
#: (10**9 values expanded from about 300 bytes).
LAUGHS = (
    'openapi: 3.0.0\ninfo: {title: x, version: "1"}\npaths: {}\nx-0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n'
    + "".join(f"x-{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9))
)


def _load(path: Path, source: str = "mine") -> list[ApiDoc]:
    return load_paths([path], source).docs


def _by_name(docs: list[ApiDoc]) -> dict[str, ApiDoc]:
    return {d.api_name: d for d in docs}


def test_each_format_is_told_from_the_content_not_the_name(tmp_path: Path) -> None:
    """The same bytes under any name give the same format; the formats read before are told as before."""
    expected = {
        "openai_tools.json": "tools",
        "mcp_tools_list.json": "tools",
        "petstore.yaml": "openapi",
        "broken_ref.yaml": "openapi",
    }
    for name, fmt in expected.items():
        assert detect_format(FILES / name) == fmt
        renamed = tmp_path / f"{name}.txt"
        renamed.write_bytes((FILES / name).read_bytes())
        assert detect_format(renamed) == fmt
    assert detect_format(POOL / "apizoo.json") == "apizoo"
    assert detect_format(POOL / "torchhub_api.jsonl") == "jsonl"
    # an indented OpenAPI JSON document whose "openapi" member is not first; a bare list of functions;
    # an OpenAI {"tools": [...]} object; an MCP result without its JSON-RPC envelope; BFCL JSON Lines
    shapes = {
        "spec.json": json.dumps({"info": {"title": "t", "version": "1"}, "openapi": "3.0.0"}, indent=2),
        "bare.json": json.dumps([{"name": "f", "description": "d", "parameters": {"type": "object"}}]),
        "openai.json": json.dumps({"tools": [{"type": "function", "function": {"name": "f"}}]}, indent=1),
        "mcp.json": json.dumps({"tools": [{"name": "f", "inputSchema": {"type": "object"}}]}),
        "bfcl.jsonl": json.dumps({"id": "x_0", "question": [[]], "function": [{"name": "f"}]}) + "\n",
    }
    for name, text in shapes.items():
        (tmp_path / name).write_text(text)
    assert {n: detect_format(tmp_path / n) for n in shapes} == {
        "spec.json": "openapi",
        "bare.json": "tools",
        "openai.json": "tools",
        "mcp.json": "tools",
        "bfcl.jsonl": "tools",
    }


def test_openai_tools_become_docs_with_their_parameters() -> None:
    docs = _load(FILES / "openai_tools.json")
    assert [d.id for d in docs] == ["mine:1", "mine:2", "mine:3"]
    weather = _by_name(docs)["get_weather"]
    assert weather.api_call == "get_weather(city=city)"  # the required argument as a placeholder
    assert weather.kind == "python" and weather.source == "mine"
    assert weather.description.startswith("Get the current weather in a city")
    params = {p.name: p for p in params_of(weather)}
    assert params["city"].required and params["city"].type == "string"
    assert not params["units"].required and params["units"].enum == ("celsius", "fahrenheit")
    assert _by_name(docs)["send_email"].api_call == "send_email(to=to, subject=subject, body=body)"


def test_an_mcp_tools_list_response_becomes_docs() -> None:
    docs = _by_name(_load(FILES / "mcp_tools_list.json"))
    assert set(docs) == {"read_file", "list-directory", "get_current_time"}
    assert docs["list-directory"].api_call == "list_directory(path=path)"  # a Python callee of the name
    read = {p.name: p for p in params_of(docs["read_file"])}
    assert read["path"].required and read["encoding"].has_default and read["encoding"].default == "utf-8"
    assert docs["get_current_time"].api_call == "get_current_time()"  # no required parameter


def test_mcp_error_responses_and_next_pages(tmp_path: Path) -> None:
    """A JSON-RPC error response is refused in one line; a page with a nextCursor loads with a note."""
    error = tmp_path / "error.json"
    error.write_text(json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope"}}))
    with pytest.raises(SourceRejected) as e:
        load_paths([error], "mine")
    assert str(e.value) == f"{error}: a JSON-RPC error response, not a tools/list result: nope"
    page = tmp_path / "page.json"
    page.write_text(json.dumps({"tools": [{"name": "f", "inputSchema": {}}], "nextCursor": "2"}))
    result = load_paths([page], "mine")
    assert len(result.docs) == 1 and any("nextCursor" in d.message for d in result.diagnostics)


def test_bfcl_lines_give_their_functions_once_and_never_their_questions(tmp_path: Path) -> None:
    base = {"type": "float", "description": "The base."}
    schema = {"type": "dict", "properties": {"base": base}, "required": ["base"]}
    area = {"name": "calc_area", "description": "Area of a triangle.", "parameters": schema}
    other = {**area, "parameters": {"type": "dict", "properties": {"side": {"type": "integer"}}}}
    lines = [
        {"id": "simple_0", "question": [[{"role": "user", "content": "How big is my triangle?"}]],
         "function": [area]},
        {"id": "simple_1", "question": [[{"role": "user", "content": "Same triangle again"}]],
         "function": [area, other]},
    ]  # fmt: skip
    path = tmp_path / "bfcl.json"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    docs = _load(path, "bfcl")
    assert len(docs) == 2  # area twice (same name and schema) is one doc; another schema is another
    assert [d.api_call for d in docs] == ["calc_area(base=base)", "calc_area()"]
    assert docs[0].parameters["properties"]["base"] == {"type": "number", "x-type": "float",
                                                         "description": "The base."}  # fmt: skip
    text = " ".join(json.dumps(d.to_dict()) for d in docs)
    assert "triangle?" not in text and "again" not in text
    flat = tmp_path / "responses.json"  # OpenAI's Responses API writes a tool flat: type beside name
    flat.write_text(json.dumps({"tools": [{"type": "function", **area}]}))
    assert [d.api_call for d in _load(flat)] == ["calc_area(base=base)"]
    plain = tmp_path / "functions.json"  # a plain JSON list of BFCL functions
    plain.write_text(json.dumps([area, other]))
    assert [d.api_call for d in _load(plain)] == ["calc_area(base=base)", "calc_area()"]


@pytest.fixture(scope="module")
def petstore() -> dict[str, ApiDoc]:
    return _by_name(_load(FILES / "petstore.yaml", "pets"))


def test_each_openapi_operation_is_a_rest_doc(petstore: dict[str, ApiDoc]) -> None:
    assert list(petstore) == [
        "listPets",
        "createPet",
        "showPetById",
        "DELETE /pets/{petId}",  # no operationId: METHOD path
        "uploadOwnerPhoto",
    ]
    show = petstore["showPetById"]
    assert (
        show.kind == "rest" and show.api_call == "GET /pets/{petId}" and show.rest == ("GET", "/pets/{petId}")
    )
    assert show.id == "pets:3" and show.source == "pets" and show.domain == "pets"
    assert show.framework == "Petstore" and show.api_version == "1.2.0"
    assert show.env_requirements == ["requests"]
    listing = petstore["listPets"]
    assert listing.functionality == "List the pets of the store"
    assert listing.description == (
        "List the pets of the store. Returns the pets of the store, a page at a time. Filter them by species."
    )
    assert petstore["DELETE /pets/{petId}"].functionality == "Remove a pet from the store (deprecated)"
    upload = petstore["uploadOwnerPhoto"]  # no summary: the description's first sentence
    assert upload.functionality == "Upload a photo of an owner."


def test_openapi_parameters_are_one_json_schema_with_refs_resolved(petstore: dict[str, ApiDoc]) -> None:
    listing = petstore["listPets"].parameters
    assert listing["required"] == ["species"]
    limit = {
        "type": "integer",
        "maximum": 100,
        "description": "How many pets to return at most",
        "x-in": "query",
    }
    assert listing["properties"]["limit"] == limit
    # a path-level parameter given by $ref
    show = petstore["showPetById"].parameters
    assert show["properties"] == {"petId": {"type": "string", "description": "The id of the pet to retrieve",
                                            "x-in": "path"}}  # fmt: skip
    assert show["required"] == ["petId"]
    # the JSON body's $ref to an allOf, flattened beside the header parameter
    create = petstore["createPet"].parameters
    assert list(create["properties"]) == ["X-Request-Id", "name", "tag", "owner"]
    assert create["required"] == ["X-Request-Id", "name"]
    assert create["properties"]["X-Request-Id"]["x-in"] == "header"
    assert create["properties"]["name"] == {"type": "string", "description": "The pet's name", "x-in": "body"}
    owner = create["properties"]["owner"]
    assert owner["properties"]["name"] == {"type": "string"}
    # Owner -> Pet -> NewPet -> Owner: the recursion is cut at MAX_REF_DEPTH with the ref named
    assert "x-ref" in json.dumps(owner) and "$ref" not in json.dumps(create)
    assert {p.name for p in params_of(petstore["createPet"]) if p.required} == {"X-Request-Id", "name"}
    # not JSON: one body property; the cookie parameter is left out
    upload = petstore["uploadOwnerPhoto"].parameters
    assert list(upload["properties"]) == ["ownerId", "body"] and upload["required"] == ["ownerId", "body"]
    assert upload["properties"]["body"] == {"type": "string", "format": "binary", "x-in": "body"}


def _request(code: str) -> tuple[str, list[str], dict[str, ast.expr]]:
    """(callee, positional string arguments, keyword arguments) of the one requests call in `code`."""
    tree = ast.parse(code)
    (call,) = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
    args = [ast.literal_eval(a) for a in call.args]
    return f"{call.func.value.id}.{call.func.attr}", args, {k.arg: k.value for k in call.keywords}


def test_openapi_example_code_is_a_requests_call_that_passes_the_check(petstore: dict[str, ApiDoc]) -> None:
    base = "https://eu.petstore.example.com/v1"  # servers[0] with its variable at its default
    callee, args, kwargs = _request(petstore["listPets"].example_code)
    assert callee == "requests.get" and args == [f"{base}/pets"]
    assert ast.unparse(kwargs["params"]) == "{'species': species}" and set(kwargs) == {"params"}
    callee, args, kwargs = _request(petstore["createPet"].example_code)
    assert callee == "requests.post" and args == [f"{base}/pets"]
    assert ast.unparse(kwargs["headers"]) == "{'X-Request-Id': X_Request_Id}"
    assert ast.unparse(kwargs["json"]) == "{'name': name}"
    callee, args, kwargs = _request(petstore["showPetById"].example_code)
    assert callee == "requests.get" and args == [f"{base}/pets/{{petId}}"] and not kwargs
    callee, args, kwargs = _request(petstore["uploadOwnerPhoto"].example_code)
    assert callee == "requests.put" and ast.unparse(kwargs["data"]) == "body"
    # the real validator matches each example against the pool's REST templates
    validator = Validator(list(petstore.values()))
    for doc in petstore.values():
        verdict = validator.check(doc.example_code)
        assert verdict.kind == "valid", (doc.api_name, verdict)
        assert verdict.matched is not None and verdict.matched.id == doc.id


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (
            "openapi: 3.0.0\ninfo: {title: x\npaths: {}\n",
            "invalid YAML at line 3 column 6: did not find expected ',' or '}'",
        ),
        ('swagger: "2.0"\ninfo: {title: x, version: "1"}\npaths: {}\n', "a Swagger 2.0 (OpenAPI 2) document"),
        ('openapi: 2.5.0\ninfo: {title: x, version: "1"}\npaths: {}\n', "not an OpenAPI 3 document"),
        (
            'openapi: 3.0.0\ninfo: {title: x, version: "1"}\npaths:\n  /a:\n    get:\n      responses: 5\n',
            "not a valid OpenAPI 3.0.0 document: 5 is not of type 'object' (at paths./a.get.responses)",
        ),
        (
            'openapi: 3.0.0\ninfo: {title: x, version: "1"}\npaths:\n  /a:\n    get:\n      responses:\n'
            '        "200": {$ref: "https://example.com/r.yaml"}\n',
            "$ref 'https://example.com/r.yaml' at paths./a.get.responses.200 points outside the document",
        ),
        (
            LAUGHS,
            "values once its YAML aliases are expanded",
        ),
    ],
)
def test_a_bad_openapi_document_is_refused_whole_in_one_line(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "api.yaml"
    path.write_text(text)
    assert detect_format(path) == "openapi"
    with pytest.raises(SourceRejected) as e:
        load_paths([path], "mine")
    message = str(e.value)
    assert message.startswith(f"{path}: ") and why in message and "\n" not in message


def test_a_broken_ref_refuses_the_document_and_the_folder_it_is_in(tmp_path: Path) -> None:
    with pytest.raises(SourceRejected) as e:
        load_paths([FILES / "broken_ref.yaml"], "pets")
    assert str(e.value) == (
        f"{FILES / 'broken_ref.yaml'}: broken $ref '#/components/schemas/NoSuchPet' at "
        "paths./pets.post.requestBody.content.application/json.schema: nothing there"
    )
    folder = tmp_path / "apis"  # beside a good file: nothing of the folder is loaded
    folder.mkdir()
    (folder / "a_tools.json").write_bytes((FILES / "openai_tools.json").read_bytes())
    (folder / "b_broken.json").write_text(
        json.dumps(
            {"openapi": "3.0.0", "info": {"title": "x", "version": "1"}, "paths": {"/a": {"$ref": "#/x"}}}
        )
    )
    with pytest.raises(SourceRejected, match="broken \\$ref '#/x' at paths./a"):
        load_paths([folder], "mine")


def test_function_docs_survive_the_round_trip_and_index_their_parameters(petstore: dict[str, ApiDoc]) -> None:
    docs = [*_load(FILES / "openai_tools.json"), *petstore.values()]
    assert [ApiDoc.from_dict(json.loads(json.dumps(d.to_dict()))) for d in docs] == docs
    terms = set(tokenize(doc_text(_by_name(docs)["get_weather"])))
    assert {"unit", "celsius", "fahrenheit", "scale", "temperature"} <= terms  # optional parameter's words
    assert {"x-request-id", "trace", "label"} <= set(tokenize(doc_text(petstore["createPet"])))
    index = ApiIndex.build(docs)
    assert (
        index.search("convert 100 dollars to euros, ISO currency code", 1)[0].doc.api_name
        == "convert_currency"
    )
    assert index.search("upload a photo image of the owner", 1)[0].doc.api_name == "uploadOwnerPhoto"


def test_docs_without_a_parameters_schema_keep_their_text(small_pool: list[ApiDoc]) -> None:
    """The "parameters" field weight adds nothing to a doc without a schema: every other source's BM25
    text is what it was before the field existed."""
    assert FIELD_WEIGHTS["parameters"] == 1
    for doc in small_pool:
        assert doc.parameters is None
        weights = SOURCE_FIELD_WEIGHTS.get(doc.source, FIELD_WEIGHTS)
        before = {k: v for k, v in weights.items() if k != "parameters"}
        assert doc_text(doc) == doc_text(doc, before)
