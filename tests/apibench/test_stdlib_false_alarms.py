"""Follow-up of issue 15: ordinary, correct standard-library code is never a false alarm on the default pool
(APIBench hubs + APIZoo + python-env): methods of module-level objects, re-exports, public underscore
functions, and wrapped hub calls checked with the arguments they really get."""

from __future__ import annotations

import pytest

from gorilla_tui.check.validator import Validator
from gorilla_tui.pool.doc import load_jsonl, load_paths

HUBS = ("torchhub", "tensorflowhub", "huggingface")


@pytest.fixture(scope="module")
def v(apibench, apizoo, stdlib_docs):
    docs = [d for h in HUBS for d in load_jsonl(apibench / "api" / f"{h}_api.jsonl", h).docs]
    docs += load_paths([apizoo], "apizoo").docs
    docs += stdlib_docs
    return Validator(docs)


@pytest.mark.parametrize(
    "code",
    [
        "import os\nhome = os.environ.get('HOME')",
        "import os\nos.environ.setdefault('LANG', 'C')",
        "import sys\nsys.stdout.write('x')",
        "import sys\nsys.stderr.flush()",
        "import pickle\nblob = pickle.dumps({'a': 1})",
        "import pickle\nobj = pickle.loads(blob)",
        "import os\nos._exit(0)",
        "import sys\nframe = sys._getframe()",
        "from multiprocessing import Pool\nwith Pool(4) as pool:\n    squares = pool.map(abs, [-1, 2])",
        "import multiprocessing\nq = multiprocessing.Queue()",
    ],
)
def test_objects_reexports_and_underscore_functions_are_valid(v, code):
    verdict = v.check(code)
    assert verdict.kind == "valid", verdict


@pytest.mark.parametrize(
    "code",
    [
        "import os\nos.environ.fetch('HOME')",
        "import sys\nsys.stdout.writeline('x')",
        "import pickle\npickle.dumpz(1)",
        "import sys\nsys._get_frame()",
        "from multiprocessing import Pools\nPools(2)",
    ],
)
def test_near_misses_of_those_names_stay_hallucinations(v, code):
    assert v.check(code).kind == "hallucination"


#: Ordinary correct standard-library snippets (what a chat model answers for everyday tasks).
CORPUS = [
    "with open('data.txt', encoding='utf-8') as f:\n    text = f.read()",
    "import os\nos.makedirs('out', exist_ok=True)",
    "import os\nfiles = os.listdir('.')",
    "import os\npath = os.path.join('a', 'b.txt')",
    "import os\nexists = os.path.exists('a.txt')",
    "import os\nuser = os.environ.get('USER', 'nobody')",
    "import os\nos.getcwd()",
    "import sys\nsys.exit(1)",
    "import sys\nsys.stdout.write('done\\n')",
    "import json\ndata = json.loads('{}')",
    "import json\nwith open('x.json', 'w') as f:\n    json.dump({'a': 1}, f, indent=2)",
    "import csv\nwith open('a.csv', newline='') as f:\n    rows = list(csv.reader(f))",
    "import csv\nwith open('a.csv', 'w', newline='') as f:\n    csv.writer(f).writerow(['a', 'b'])",
    "import re\nm = re.match(r'\\d+', '42abc')",
    "import re\nparts = re.split(r'\\s+', 'a b  c')",
    "import re\npattern = re.compile(r'[a-z]+')",
    "from pathlib import Path\ntext = Path('a.txt').read_text()",
    "from pathlib import Path\nPath('out').mkdir(parents=True, exist_ok=True)",
    "import subprocess\nresult = subprocess.run(['ls', '-l'], capture_output=True, text=True)",
    "import subprocess\nout = subprocess.check_output(['git', 'status'])",
    "from datetime import datetime\nnow = datetime.now()",
    "import datetime\ntoday = datetime.date.today()",
    "from datetime import timedelta\ndelta = timedelta(days=3)",
    "from collections import Counter\ncounts = Counter('hello')",
    "from collections import defaultdict\nd = defaultdict(list)",
    "import collections\nq = collections.deque(maxlen=3)",
    "import itertools\npairs = list(itertools.combinations([1, 2, 3], 2))",
    "import itertools\nflat = list(itertools.chain([1], [2]))",
    "import logging\nlogging.basicConfig(level=logging.INFO)",
    "import logging\nlog = logging.getLogger(__name__)",
    "import argparse\nparser = argparse.ArgumentParser(description='demo')",
    "from urllib.parse import urlparse\nu = urlparse('https://example.org/a')",
    "import urllib.request\nreq = urllib.request.Request('https://example.org')",
    "import zipfile\nwith zipfile.ZipFile('a.zip') as z:\n    z.extractall('out')",
    "import sqlite3\nconn = sqlite3.connect('app.db')",
    "import threading\nlock = threading.Lock()",
    "import threading\nt = threading.Thread(target=print, args=('hi',))",
    "import time\ntime.sleep(0.1)",
    "import shutil\nshutil.copyfile('a.txt', 'b.txt')",
    "import tempfile\ntmp = tempfile.mkdtemp()",
    "import hashlib\ndigest = hashlib.sha256(b'abc')",
    "import random\nrandom.shuffle([1, 2, 3])",
    "import multiprocessing\nn = multiprocessing.cpu_count()",
    "import pickle\nwith open('m.pkl', 'rb') as f:\n    obj = pickle.load(f)",
]


@pytest.mark.parametrize("code", CORPUS)
def test_ordinary_stdlib_code_is_never_a_false_alarm(v, code):
    verdict = v.check(code)
    assert verdict.kind not in ("hallucination", "wrong_args"), verdict


def test_partial_merges_the_wrappers_arguments_with_the_later_call(v):
    ok = v.check(
        "import functools, torch\nm = functools.partial(torch.hub.load, 'pytorch/vision')('resnet50')"
    )
    assert ok.kind == "valid", ok
    bad = v.check(
        "import functools, torch\nm = functools.partial(torch.hub.load, 'pytorch/vision')('resnet-201')"
    )
    assert bad.kind == "wrong_args" and bad.reason == "wrong_args:unknown_model", bad


def test_lru_cache_wrapped_call_is_checked_as_the_call(v):
    bad = v.check(
        "import functools, torch\nm = functools.lru_cache(torch.hub.load)('pytorch/vision', 'resnet-201')"
    )
    assert bad.kind == "wrong_args", bad
    ok = v.check(
        "import functools, torch\nm = functools.lru_cache(torch.hub.load)('pytorch/vision', 'resnet50')"
    )
    assert ok.kind == "valid", ok


def test_pipeline_of_a_pool_model_loaded_by_a_class_is_valid(v):
    code = "from transformers import pipeline\nasr = pipeline('automatic-speech-recognition', model='{}')"
    ok = v.check(code.format("facebook/wav2vec2-base-960h"))  # pool: Wav2Vec2ForCTC.from_pretrained(...)
    assert ok.kind == "valid", ok
    bad = v.check(code.format("facebook/wav2vec2-base-961h"))
    assert bad.kind == "wrong_args", bad
    task = v.check(
        "from transformers import pipeline\np = pipeline('speech-magic', model='facebook/wav2vec2-base-960h')"
    )
    assert task.kind != "valid", task
