"""Query translation (model/translate.py): a task in another language is put into English by the real
embedded model and searched after the task, in the default setting in small (Torch Hub and the whole
standard library in one index, each with its vectors)."""

from __future__ import annotations

from pathlib import Path

from gorilla_tui import services
from gorilla_tui.build.refresh import embed_index, refresh
from gorilla_tui.config import Settings
from gorilla_tui.model import translate
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.retrieve.query.handover import request_text

GERMAN = "ein zufälliges Element aus einer Liste auswählen"
PARAGRAPH = (
    "Ich habe einen Ordner mit ungefähr zweitausend Urlaubsfotos von meinem Handy, die alle "
    "durcheinander sind. Ich möchte ein Programm schreiben, das jedes Foto anschaut und erkennt, ob "
    "darauf ein Strand, ein Berg, eine Stadt oder ein Wald zu sehen ist, und die Bilder dann "
    "automatisch in passende Unterordner verschiebt. Am liebsten mit einem vortrainierten Modell, "
    "weil ich keine Zeit habe, selbst etwas zu trainieren, und es sollte auf meinem Laptop ohne "
    "Grafikkarte laufen."
)


def _mixed_index(apibench: Path) -> ApiIndex:
    """Torch Hub and the standard library in one index with their vectors (the library's ship with the
    package), built by refresh as `index --refresh --only torchhub,python-env` builds it; no hub named."""
    report = refresh(mirrors=[apibench / "api"], only=["torchhub", "python-env"])
    embed_index(report.index)
    return ApiIndex.load()


def test_the_request_is_the_task_without_what_it_quotes() -> None:
    assert request_text('Translate "Le système éducatif" to English please') == "Translate to English please"
    assert (
        request_text("Summarize the article. ###Input: Selon un rapport récent, ...")
        == "Summarize the article."
    )
    assert request_text("把「你好」翻译成英语") == "把 翻译成英语"
    assert request_text("it's the users' 'single' quote") == "it's the users' 'single' quote"  # a value
    assert request_text("translate 'je suis en retard' to English") == "translate to English"
    assert request_text('"only a quote"') == '"only a quote"'  # nothing else: the task itself
    assert (
        request_text("Translate to English: Le système éducatif") == "Translate to English"
    )  # a colon's input
    assert request_text("is this spam or not: win a free phone") == "is this spam or not"
    assert (
        request_text("I need to do the following: zip the logs") == "I need to do the following: zip the logs"
    )


def test_the_embedded_model_puts_a_german_task_into_english(gemma_backend) -> None:
    english = translate.to_english(gemma_backend, GERMAN)
    # English words for the task's: "pick a random element from a list" on one llama.cpp kernel path, "select
    # an odd number from a list" on another (a CPU without AMX; greedy decoding follows the kernels' rounding)
    assert "list" in english and english.split()[0] in ("pick", "select", "choose", "get"), english
    assert "\n" not in english and english == english.strip()
    assert translate.to_english(gemma_backend, "   ") == ""
    assert translate.to_english(gemma_backend, "Datei öffnen") == "open a file"  # the example itself is fine


def test_an_english_task_the_model_only_reorders_is_not_translated(gemma_backend) -> None:
    """Break-it round 30 (F-M4): py3langid gives "convert 100 fahrenheit to celsius" English 0.009 and the
    model "translated" it into "convert 100 celsius to fahrenheit", searched and shown that way."""
    from gorilla_tui.retrieve.fit import english_probability

    task = "convert 100 fahrenheit to celsius"
    assert english_probability(task) < 0.05  # the language test alone lets it through
    prompt = translate.PROMPT.replace("{task}", task)
    raw = " ".join(
        "".join(gemma_backend.complete(prompt, max_tokens=translate.MAX_TOKENS, stop=["\n"])).split()
    )
    assert translate.reworded_only(task, raw), raw  # the model's words are the task's own ...
    assert translate.to_english(gemma_backend, task) == ""  # ... so no translation
    assert not translate.reworded_only("convertir json a csv", "convert json to csv")
    assert not translate.reworded_only("sign jwt", "sign the token")
    # a paragraph of four sentences: the model gives back a line like the prompt's first example ("open a
    # folder"), far shorter than the task, which is dropped (the task is then searched as typed)
    assert translate.to_english(gemma_backend, PARAGRAPH) == ""


def test_a_german_task_finds_the_library_function_through_its_translation(
    dense: Path, apibench: Path, gemma_backend
) -> None:
    index = _mixed_index(apibench)
    english = ("pick a random element from a list", "parse a JSON string", "generate a random UUID",
               "detect speech in an audio recording", "classify the objects in an image")  # fmt: skip
    # py3langid calls the short "parse a JSON string" Spanish and "generate a random UUID" Breton: the
    # share of words the index knows keeps them English
    assert not any(index.needs_translation(t) for t in english)
    # short English tasks py3langid calls something else ("sign jwt": mt, "resize jpeg": tr, "barcode
    # scanner": it), whose jargon the index does not know: English still has a fair probability
    short = ("sign jwt", "resize jpeg", "barcode scanner", "encrypt aes", "schedule a cron job",
             "plot histogram")  # fmt: skip
    assert not [t for t in short if index.needs_translation(t)]
    for task in (GERMAN, "检测图像中的物体", "mezclar los elementos de una lista en un orden aleatorio"):
        assert index.needs_translation(task), task
    # an English request about quoted text in another language is English (the quote is its data)
    swedish = 'Translate this Swedish text to English: "Stockholm är Sveriges huvudstad och största stad."'
    assert not index.needs_translation(swedish)
    assert index.needs_translation('Übersetze diesen Text ins Englische: "Stockholm är Sveriges huvudstad."')
    # backticked names are the person's code, no language's words (break-it round 29, F13: 30 of them made
    # "sum" another language); a German request beside them is still German
    names = " ".join(f"`v{i}`" for i in range(30))
    assert not index.needs_translation(f"sum {names}")
    assert not index.needs_translation("`a` `b`")
    assert index.needs_translation(f"{GERMAN} {names}")

    settings = Settings(k=5, hub="", mode="select", select_by="likelihood")
    proposal = services.build_pipeline(settings, index, gemma_backend).ask(GERMAN)
    # the translation's words differ by llama.cpp's kernel path (test above); the answer does not
    assert proposal.task == GERMAN and "list" in proposal.translation
    # the task names no list: the call keeps its placeholder, and the verdict says what it needs (fill/)
    assert proposal.api_call == "random.choice(seq)" and proposal.verdict.kind == "incomplete"
    assert proposal.needs == ["seq"]
    note = proposal.warnings[0]
    assert note.startswith("searched in English as: ") and proposal.translation in note
    assert proposal.timings["translate"] > 0 and proposal.to_dict()["translation"] == proposal.translation

    off = Settings(k=5, hub="", mode="select", select_by="likelihood", translate=False)
    typed = services.build_pipeline(off, index, gemma_backend).ask(GERMAN)
    assert typed.translation == "" and "translate" not in typed.timings
    assert not any(w.startswith("searched in English") for w in typed.warnings)

    plain = services.build_pipeline(settings, index, gemma_backend).ask("pick a random element from a list")
    assert plain.translation == "" and "translate" not in plain.timings

    # the model gives "Schadenfreude" back as it is: nothing is searched with it, but the seconds the model
    # spent are shown, and the parts still add up to the total
    echoed = services.build_pipeline(settings, index, gemma_backend).ask("Schadenfreude")
    assert echoed.translation == "" and echoed.timings["translate"] > 0
    # the next source's answer, when nothing fits, is its own part (break-it round 27, R27-12)
    parts = ("retrieve", "translate", "prompt", "generate", "validate", "next_source")
    assert abs(sum(echoed.timings.get(p, 0.0) for p in parts) - echoed.timings["total"]) < 0.01, (
        echoed.timings
    )
