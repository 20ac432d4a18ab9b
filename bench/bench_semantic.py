"""Benchmark the semantic tier: embedding throughput, incremental sync, vector top-k, and search latency with
a local ONNX embedder configured. Also builds the local models it measures, offline.

No embedding model can be downloaded here and no package ships a usable one (FACTS.md "Embeddings"), so the
models are built on the spot, from nothing but numpy and a source tree:

  build-model --kind hashed   random word vectors in the test model's shape (embedding table + masked mean
                              pooling in the adapter): for throughput only, it knows nothing
  build-model --kind lsa      word vectors from the tree itself: identifier-split words, co-occurrence inside
                              a definition, PPMI, a randomized SVD, rows weighted by idf, the common direction
                              removed (a classic count-based model, Levy & Goldberg 2015). A real if small
                              model of code vocabulary: `delete` lands near `remove`, `socket` near `connect`.
                              --exclude FILE leaves the files it lists out of training (e.g. the eval segment)

Both write <out>/model.onnx + <out>/tokenizer.json, the layout OnnxEmbedder loads
(`[embedding] provider = "onnx"`, `model_path = <out>`).

    python bench/bench_semantic.py build-model --kind lsa --out /tmp/lsa \\
        --exclude ../shared/eval/public_segment.txt          # stdlib minus the eval files, ~1-2 min
    python bench/bench_semantic.py run --model /tmp/lsa --segment /tmp/evalseg
    python bench/bench_semantic.py run --model /tmp/hashed   # default segment: a copy of the stdlib

Markdown on stdout, progress on stderr. Nothing is written into the measured tree: `run` copies it to a temp
dir first (removed at the end).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np

WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
SEPARATORS = r"[^A-Za-z0-9]+"
CAMEL = r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+"
MAX_TERMS_PER_DOC = 96
SEARCH_QUERIES = (
    "how does the csv sniffer detect the delimiter",
    "where are HTTP headers parsed",
    "how is a subprocess command line quoted on windows",
    "how does json decode a string with escapes",
    "where does the logging module rotate files",
    "how are email messages serialized to bytes",
    "how does asyncio schedule a callback",
    "how does shutil copy a directory tree",
    "where does argparse format the help message",
    "how does pickle handle recursive objects",
    "remove a temporary directory",
    "parse a url query string",
)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def words(text: str) -> list[str]:
    return [w.lower() for w in WORDS.findall(text) if len(w) > 1 or w.isdigit()]


# ---------------------------------------------------------------- building models


def python_files(tree: Path, exclude: set[str]) -> Iterator[Path]:
    for path in sorted(tree.rglob("*.py")):
        rel = path.relative_to(tree).as_posix()
        if "site-packages" in path.parts or "__pycache__" in path.parts or rel in exclude:
            continue
        yield path


def training_docs(tree: Path, exclude: set[str]) -> Iterator[list[str]]:
    """One document per chunk Trifecta would index (a function, a class header, module code)."""
    from trifecta.application.embedding import embed_text
    from trifecta.infrastructure.code_parser import SourceParser

    parser = SourceParser(workers=1)
    for path in python_files(tree, exclude):
        rel = path.relative_to(tree).as_posix()
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for chunk in parser.parse(rel, text).chunks:
            yield words(embed_text(chunk))


def lsa_vectors(docs: list[list[str]], vocab_size: int, dim: int) -> tuple[list[str], np.ndarray]:
    df: Counter[str] = Counter()
    for doc in docs:
        df.update(set(doc))
    vocab = [w for w, n in df.most_common(vocab_size) if n >= 3]
    index = {w: i for i, w in enumerate(vocab)}
    v = len(vocab)
    log(f"lsa: {len(docs)} documents, vocabulary {v}")
    counts = np.zeros(v * v, dtype=np.float32)
    pending: list[np.ndarray] = []
    pending_size = 0
    for doc in docs:
        ids = np.unique(np.fromiter((index[w] for w in doc if w in index), dtype=np.int64))
        ids = ids[:MAX_TERMS_PER_DOC]
        if len(ids) < 2:
            continue
        a, b = np.triu_indices(len(ids), 1)
        pending.append(ids[a] * v + ids[b])
        pending_size += len(a)
        if pending_size > 20_000_000:
            counts += np.bincount(np.concatenate(pending), minlength=v * v).astype(np.float32)
            pending, pending_size = [], 0
    if pending:
        counts += np.bincount(np.concatenate(pending), minlength=v * v).astype(np.float32)
    co = counts.reshape(v, v)
    del counts
    co = co + co.T
    total = float(co.sum())
    row = co.sum(axis=1)
    context = row**0.75  # context distribution smoothing
    context = context / context.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log((co / total) / ((row / total)[:, None] * context[None, :]))
    ppmi = np.nan_to_num(np.maximum(pmi, 0.0), nan=0.0, posinf=0.0).astype(np.float32)
    del co, pmi
    log("lsa: randomized SVD")
    rng = np.random.default_rng(0)
    omega = rng.standard_normal((v, dim + 32)).astype(np.float32)
    y = ppmi @ omega
    for _ in range(2):  # power iterations sharpen the leading subspace
        y, _r = np.linalg.qr(y)
        y = ppmi @ (ppmi.T @ y)
    q, _r = np.linalg.qr(y)
    u_small, s, _vt = np.linalg.svd(q.T @ ppmi, full_matrices=False)
    u = (q @ u_small)[:, :dim]
    vectors = u * np.sqrt(s[:dim])[None, :]
    # idf weighting: mean pooling becomes an idf-weighted average, so `self` and `return` count little
    idf = np.log(len(docs) / np.asarray([df[w] for w in vocab], dtype=np.float32))
    vectors = vectors / np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9, None) * idf[:, None]
    # remove the direction every text shares (SIF): it carries "this is Python", not meaning
    common = np.linalg.svd(vectors, full_matrices=False)[2][0]
    vectors = vectors - np.outer(vectors @ common, common)
    return vocab, vectors.astype(np.float32)


def hashed_vectors(vocab_size: int, dim: int) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(0)
    return [f"w{i}" for i in range(vocab_size)], rng.standard_normal((vocab_size, dim)).astype(np.float32)


def save_model(out: Path, vocab: list[str], vectors: np.ndarray) -> None:
    """Word vectors as an ONNX model (Gather * attention mask: token states the adapter mean-pools) and a
    WordLevel tokenizer that splits identifiers the way the vectors were trained."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers

    out.mkdir(parents=True, exist_ok=True)
    dim = vectors.shape[1]
    # the forms the pre-tokenizer yields (`parse`, `Parse`, `PARSE`) each get an id (a WordLevel file keeps
    # one token per id) and a copy of the word's row
    ids: dict[str, int] = {"[PAD]": 0, "[UNK]": 1}
    rows = [np.zeros(dim, dtype=np.float32), np.zeros(dim, dtype=np.float32)]
    for word, vector in zip(vocab, vectors, strict=True):
        for form in (word, word.capitalize(), word.upper()):
            if form not in ids:
                ids[form] = len(rows)
                rows.append(vector)
    table = np.stack(rows).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Gather", ["table", "input_ids"], ["states"]),
            helper.make_node("Cast", ["attention_mask"], ["maskf"], to=TensorProto.FLOAT),
            helper.make_node("Unsqueeze", ["maskf", "axis"], ["mask3"]),
            helper.make_node("Mul", ["states", "mask3"], ["last_hidden_state"]),
        ],
        "word_vectors",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "tokens"]),
        ],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "tokens", dim])],
        initializer=[
            numpy_helper.from_array(table, "table"),
            numpy_helper.from_array(np.array([-1]), "axis"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(out / "model.onnx"))
    tokenizer = Tokenizer(models.WordLevel(ids, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(SEPARATORS), behavior="removed"),
            pre_tokenizers.Split(Regex(CAMEL), behavior="isolated"),
        ]
    )
    tokenizer.save(str(out / "tokenizer.json"))


def build_model(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    out = Path(args.out)
    if args.kind == "hashed":
        vocab, vectors = hashed_vectors(args.vocab, args.dim)
    else:
        exclude: set[str] = set()
        if args.exclude:
            exclude = {
                line.split()[0]
                for line in Path(args.exclude).read_text().splitlines()
                if line.strip() and not line.startswith("#")
            }
        tree = Path(args.tree or sysconfig.get_paths()["stdlib"])
        docs = list(training_docs(tree, exclude))
        vocab, vectors = lsa_vectors(docs, args.vocab, args.dim)
    save_model(out, vocab, vectors)
    meta = {
        "kind": args.kind,
        "vocabulary": len(vocab),
        "dim": int(vectors.shape[1]),
        "tree": args.tree or "stdlib",
    }
    (out / "trifecta-model.json").write_text(json.dumps(meta, indent=2))
    log(
        f"built {args.kind} model in {out} ({len(vocab)} words x {vectors.shape[1]}) in {time.perf_counter() - started:.1f}s"
    )


# ---------------------------------------------------------------- measuring


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def search_latency(engine: object, mode: str) -> list[float]:
    """ms per search over SEARCH_QUERIES, 3 rounds after a warm-up round."""
    lat = []
    for round_ in range(4):
        for q in SEARCH_QUERIES:
            t = time.perf_counter()
            response = engine.search(q, mode=mode)  # type: ignore[attr-defined]
            if round_:
                lat.append((time.perf_counter() - t) * 1000)
            if not response.ok:
                raise SystemExit(f"search failed: {response.to_dict()['errors']}")
    return lat


def run(args: argparse.Namespace) -> None:
    import trifecta
    from trifecta.infrastructure.onnx_embedder import OnnxEmbedder
    from trifecta.infrastructure.vector_store import SqliteVectorStore

    source = Path(args.segment or sysconfig.get_paths()["stdlib"])
    tmp = Path(tempfile.mkdtemp(prefix="trifecta-bench-semantic-"))
    try:
        seg = tmp / "seg"
        log(f"copying {source} to {seg}")
        shutil.copytree(
            source, seg, ignore=shutil.ignore_patterns("site-packages", "__pycache__", ".trifecta")
        )
        rows: list[tuple[str, str]] = []
        options = {"embed_provider": "onnx", "embed_model_path": str(Path(args.model).resolve())}
        with trifecta.open(str(seg), **options) as engine:
            t = time.perf_counter()
            report = engine.index(progress=lambda d, n, m: None)
            emb = report.embeddings
            assert emb is not None
            if emb.error:
                raise SystemExit(f"embedding failed: {emb.error}")
            index_s = time.perf_counter() - t
            rows.append(("chunks embedded", f"{emb.embedded:,} with {emb.model}"))
            rows.append(("full index + embeddings", f"{index_s:.1f} s (embeddings {emb.seconds:.1f} s)"))
            rows.append(("embedding throughput", f"{emb.embedded / max(emb.seconds, 1e-9):,.0f} chunks/s"))
            t = time.perf_counter()
            again = engine.index().embeddings
            rows.append(
                (
                    "no-change index + embedding sync",
                    f"{(time.perf_counter() - t) * 1000:.0f} ms ({again.embedded} embedded)",
                )
            )
            target = next((p for p in sorted(seg.rglob("*.py")) if p.stat().st_size > 2000), None)
            if target is not None:
                target.write_text(
                    target.read_text(encoding="utf-8") + "\n\ndef bench_added():\n    return 1\n",
                    encoding="utf-8",
                )
                t = time.perf_counter()
                changed = engine.index().embeddings
                rows.append(
                    (
                        "one-file-change index + sync",
                        f"{(time.perf_counter() - t) * 1000:.0f} ms ({changed.embedded} embedded)",
                    )
                )
            for mode in ("auto", "semantic"):
                lat = search_latency(engine, mode)
                rows.append(
                    (f"search --mode {mode} p50 / p95", f"{pct(lat, 50):.1f} / {pct(lat, 95):.1f} ms")
                )
            db_path = engine.db_path
        with trifecta.open(str(seg), embed_provider="none") as plain:  # same index, same run, no embedder
            lat = search_latency(plain, "auto")
            rows.append(
                ("search --mode auto, no embedder, p50 / p95", f"{pct(lat, 50):.1f} / {pct(lat, 95):.1f} ms")
            )
        embedder = OnnxEmbedder(Path(args.model).resolve())
        query = embedder.embed(["how does the csv sniffer detect the delimiter"])[0]
        store = SqliteVectorStore(db_path)
        try:
            n = store.count(emb.model)  # reads the matrix once, as the first search does
            lat = []
            for _ in range(50):
                t = time.perf_counter()
                store.top_k(emb.model, query, 10)
                lat.append((time.perf_counter() - t) * 1000)
            rows.append(
                (
                    f"vector top-10 over {n:,} x {embedder.dim}",
                    f"{pct(lat, 50):.2f} / {pct(lat, 95):.2f} ms p50 / p95",
                )
            )
        finally:
            store.close()
        print(f"| figure ({source.name}, model {Path(args.model).name}) | value |")
        print("|---|---|")
        for name, value in rows:
            print(f"| {name} | {value} |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build-model", help="build a local ONNX word-vector model folder")
    b.add_argument("--kind", choices=("lsa", "hashed"), default="lsa")
    b.add_argument("--out", required=True)
    b.add_argument("--tree", help="source tree to learn from (default: this interpreter's stdlib)")
    b.add_argument("--exclude", help="a file listing tree-relative paths to leave out (first word a line)")
    b.add_argument("--vocab", type=int, default=12000)
    b.add_argument("--dim", type=int, default=256)
    r = sub.add_parser("run", help="measure throughput and latency with a model folder")
    r.add_argument("--model", required=True)
    r.add_argument("--segment", help="tree to index (default: this interpreter's stdlib, copied)")
    args = ap.parse_args()
    build_model(args) if args.command == "build-model" else run(args)


if __name__ == "__main__":
    main()
