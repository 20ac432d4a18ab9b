"""An Embedder that runs a sentence-embedding model from a folder on disk with onnxruntime + tokenizers.

    <model_path>/model.onnx        inputs: input_ids, attention_mask (and token_type_ids if it has one),
                                   int64 [batch, tokens]; first output [batch, tokens, dim] (token states,
                                   mean-pooled over the attention mask here) or [batch, dim] (pooled already)
    <model_path>/tokenizer.json    a Hugging Face `tokenizers` file

That is the layout of sentence-transformers' ONNX exports (all-MiniLM-L6-v2: `onnx/model.onnx` is found
too). Vectors are L2-normalized. Nothing is downloaded: the folder is all there is. onnxruntime, tokenizers
and numpy are imported on first use, so the package works without the `onnx` extra until a model is
configured; a missing extra or folder is an EmbedderUnavailable that says what to install or where to look.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..application.embedding import Embedder, EmbedderUnavailable

MODEL_FILES = ("model.onnx", "onnx/model.onnx")
TOKENIZER_FILE = "tokenizer.json"
DEFAULT_MAX_TOKENS = 256


class OnnxEmbedder(Embedder):
    def __init__(
        self,
        model_path: str | os.PathLike[str],
        *,
        batch_size: int = 32,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        threads: int = 0,
    ) -> None:
        self._folder = Path(model_path)
        self._batch_size = max(1, batch_size)
        self._max_tokens = max(8, max_tokens)
        self._threads = threads
        self._name = ""
        self._dim = 0
        self._session: Any = None
        self._tokenizer: Any = None
        self._inputs: tuple[str, ...] = ()

    # ---------------------------------------------------------------- identity
    def _model_file(self) -> Path:
        for rel in MODEL_FILES:
            candidate = self._folder / rel
            if candidate.is_file():
                return candidate
        raise EmbedderUnavailable(
            f"no ONNX model in {self._folder} (looked for {', '.join(MODEL_FILES)}); "
            "set [embedding] model_path to a folder holding model.onnx and tokenizer.json"
        )

    @property
    def name(self) -> str:
        """`onnx:<folder>@<digest>`: the digest of the model's first MiB and size, so a replaced model
        file gets new vectors without hashing hundreds of MB on every open."""
        if not self._name:
            model = self._model_file()
            digest = hashlib.sha256()
            with model.open("rb") as fh:
                digest.update(fh.read(1 << 20))
            digest.update(str(model.stat().st_size).encode())
            self._name = f"onnx:{self._folder.name}@{digest.hexdigest()[:12]}"
        return self._name

    @property
    def dim(self) -> int:
        return self._dim

    # ---------------------------------------------------------------- loading
    def _load(self) -> None:
        if self._session is not None:
            return
        try:
            import numpy  # noqa: F401  (onnxruntime needs it; say so before it fails obscurely)
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbedderUnavailable(
                f"the local ONNX embedder needs the onnx extra ({exc.name} is missing): "
                "pip install 'trifecta[onnx]'"
            ) from None
        model = self._model_file()
        tokenizer_file = self._folder / TOKENIZER_FILE
        if not tokenizer_file.is_file():
            raise EmbedderUnavailable(f"no {TOKENIZER_FILE} in {self._folder}")
        try:
            tokenizer = Tokenizer.from_file(str(tokenizer_file))
        except Exception as exc:
            raise EmbedderUnavailable(f"cannot read {tokenizer_file}: {exc}") from None
        pad_token = next(
            (t for t in ("[PAD]", "<pad>", "<|endoftext|>") if tokenizer.token_to_id(t) is not None), None
        )
        pad_id = tokenizer.token_to_id(pad_token) if pad_token else 0
        tokenizer.enable_padding(pad_id=pad_id, pad_token=pad_token or "[PAD]")
        tokenizer.enable_truncation(max_length=self._max_tokens)
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3  # errors only: nothing on stdout/stderr for a normal run
        # idle worker threads must not spin: numpy's BLAS runs right after a query's embedding and would
        # share the 2 cores with them (top-k measured 10 ms instead of 0.1 ms)
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if self._threads:
            options.intra_op_num_threads = self._threads
        try:
            session = onnxruntime.InferenceSession(
                str(model), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:
            raise EmbedderUnavailable(f"onnxruntime cannot load {model}: {exc}") from None
        inputs = tuple(i.name for i in session.get_inputs())
        if "input_ids" not in inputs:
            raise EmbedderUnavailable(f"{model} has no input named input_ids (inputs: {', '.join(inputs)})")
        self._tokenizer, self._session, self._inputs = tokenizer, session, inputs

    # ---------------------------------------------------------------- embedding
    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self._load()
        out: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            out.extend(self._run(list(texts[start : start + self._batch_size])))
        return out

    def _run(self, texts: list[str]) -> list[list[float]]:
        import numpy as np

        if not texts:
            return []
        encodings = self._tokenizer.encode_batch([t if t.strip() else "." for t in texts])
        ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids}
        if "attention_mask" in self._inputs:
            feed["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        try:
            output = self._session.run(None, feed)[0]
        except Exception as exc:
            raise EmbedderUnavailable(
                f"the ONNX model failed on a batch of {len(texts)} texts: {exc}"
            ) from None
        output = np.asarray(output, dtype=np.float32)
        if output.ndim == 3:  # token states: mean over the real (unpadded) tokens
            weights = mask[:, :, None].astype(np.float32)
            pooled = (output * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        elif output.ndim == 2:
            pooled = output
        else:
            raise EmbedderUnavailable(
                f"the ONNX model's first output has shape {output.shape}; expected 2 or 3 axes"
            )
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        pooled = pooled / np.clip(norms, 1e-12, None)
        self._dim = int(pooled.shape[1])
        return pooled.tolist()
