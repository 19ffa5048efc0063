"""Sentence vectors from an ONNX sentence model, on the CPU, fully offline.

The model's two files come from :mod:`ihmt.semantic.loader` (the packaged
all-MiniLM-L6-v2 int8 by default, or a folder a store names). A vector is the mean of the
token embeddings over the attention mask, L2-normalised, so the dot product of two
vectors is their cosine similarity. One ONNX session per model and use per process,
created on first use.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from .loader import DIM, ModelError, ModelSpec, default_spec

MAX_TOKENS = 256  # the model was trained on at most this many word pieces
MAX_CHARS = 4000  # longer texts are cut before tokenising (the tail is truncated anyway)

_lock = threading.Lock()
_encoders: dict[tuple[str, str, bool], Encoder] = {}
BULK_THREADS = 4  # at most this many cores for bulk loads and rebuilds
TOKENIZE_SLICE = 2048  # texts tokenised together (bounds the tokenizer's temporary objects)


class EncoderError(ModelError):
    """The extra is installed but the model or its tokenizer cannot be loaded or used."""


class Encoder:
    """Texts to unit vectors (float32, shape ``(n, 384)``) with the model of ``spec``
    (default: the packaged all-MiniLM-L6-v2 int8)."""

    def __init__(self, spec: ModelSpec | None = None, threads: int = 1,
                 spin: bool = True) -> None:
        import numpy as np
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.np = np
        self.spec = spec = spec or default_spec()
        try:
            tok = Tokenizer.from_file(str(spec.tokenizer))
        except Exception as exc:  # noqa: BLE001 - a damaged or foreign file
            raise EncoderError(f"{spec.tokenizer} is not a tokenizer the tokenizers library "
                               f"reads ({exc}); {_fix(spec)}") from exc
        tok.enable_truncation(max_length=MAX_TOKENS)
        tok.no_padding()  # batches are padded here, to similar lengths
        self.tokenizer = tok
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, threads)
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        if not spin:  # idle threads sleep instead of spinning between two runs
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self.session = ort.InferenceSession(str(spec.model), opts,
                                                providers=["CPUExecutionProvider"])
        except Exception as exc:  # noqa: BLE001 - a damaged or truncated file
            raise EncoderError(f"{spec.model} is not an ONNX model onnxruntime can load "
                               f"({str(exc).splitlines()[0][:200]}); {_fix(spec)}") from exc
        self.inputs = {i.name for i in self.session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= self.inputs:
            raise EncoderError(f"{spec.model} takes {sorted(self.inputs)}, not input_ids and "
                               f"attention_mask: it is not a sentence encoder IHMT can run; "
                               f"{_fix(spec)}")
        self._run_lock = threading.Lock()
        self.dim = self._probe_dim()
        if self.dim != DIM:
            raise EncoderError(f"{spec.name} gives vectors of {self.dim} values; IHMT's "
                               f"vector files hold {DIM} (models of all-MiniLM-L6-v2's "
                               f"size, such as paraphrase-multilingual-MiniLM-L12-v2); "
                               f"{_fix(spec)}")

    def _probe_dim(self) -> int:
        """The vector size: the model's declared output width, else one short probe."""
        shape = self.session.get_outputs()[0].shape
        if len(shape) == 3 and isinstance(shape[-1], int):
            return int(shape[-1])
        np = self.np
        ids = np.asarray([self.tokenizer.encode("probe").ids], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        out = self.session.run(None, feed)[0]
        if out.ndim != 3:
            raise EncoderError(f"{self.spec.model} returns an output of shape {out.shape}, "
                               f"not token embeddings; {_fix(self.spec)}")
        return int(out.shape[-1])

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


def _fix(spec: ModelSpec) -> str:
    if spec.packaged:
        return "reinstall the extra: pip install --force-reinstall 'ihmt[semantic]'"
    return ("fix the folder, or switch back with 'ihmt semantic model default' (saves and "
            "lexical search go on meanwhile)")


def get_encoder(bulk: bool = False, spec: ModelSpec | None = None) -> Encoder:
    """The process's encoder of ``spec`` (default: the packaged model), created on first
    use. For a query or a save: two threads that sleep between runs (a memory with its
    clauses: 31 ms on one thread, 21 ms on two, for 10 % more CPU; spinning threads would
    burn a core of every idle server). With ``bulk`` (a bulk load, ``rebuild
    --embeddings``) a second session on every core, up to :data:`BULK_THREADS`, kept for
    the next batch."""
    spec = spec or default_spec()
    key = (str(spec.model), str(spec.tokenizer), bulk)
    with _lock:
        enc = _encoders.get(key)
        if enc is None:
            cores = os.cpu_count() or 1
            enc = _encoders[key] = (Encoder(spec, threads=min(BULK_THREADS, cores)) if bulk
                                    else Encoder(spec, threads=min(2, cores), spin=False))
        return enc
