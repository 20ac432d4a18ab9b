"""Callers latency of accessors: Python properties and TypeScript/JavaScript get/set methods, whose uses
are found when asked (no edge names them), on an indexed tree.

    python bench/accessors_latency.py --tree /usr/lib/python3.11 --n 100 --seed 1

The tree is copied to a temp dir and indexed there. N random accessors (`domain.calls.is_accessor`) are asked
`engine.callers(uri, limit=50)` twice in one process; CPU ms of the first and the second ask, and the uses
found in all.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from callers_vs_jedi import copy_tree  # noqa: E402

import trifecta  # noqa: E402
from trifecta.domain.calls import is_accessor  # noqa: E402
from trifecta.interfaces.bootstrap import selector_rules  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="accessors-"))
    try:
        copy_tree(Path(args.tree), work / "tree")
        engine = trifecta.open(work / "tree")
        engine.index()
        rules = selector_rules()
        pool = []
        for path, symbol in engine._app.store.all_symbols():  # noqa: SLF001 - a benchmark reads the index
            if not is_accessor(symbol):
                continue
            found = next(((lang, stem) for lang, row in rules.items() if (stem := row.stem(path))), None)
            if found is None or not all(p.replace("-", "_").isidentifier() for p in found[1]):
                continue
            qual = symbol.qualname.split(".")
            member = f"#{'.'.join(qual[1:])}" if qual[1:] else ""
            pool.append(
                (path, symbol.start_line, f"sym://{found[0]}/type/{'/'.join(found[1])}/{qual[0]}{member}")
            )
        pool.sort()
        picked = random.Random(args.seed).sample(pool, min(args.n, len(pool)))
        first, second, uses = [], [], 0
        for _, _, uri in picked:
            t = time.process_time()
            engine.callers(uri, limit=50)
            first.append((time.process_time() - t) * 1000)
            t = time.process_time()
            response = engine.callers(uri, limit=50)
            second.append((time.process_time() - t) * 1000)
            uses += response.data.get("total", 0) if response.ok else 0

        def q(xs: list[float], p: float) -> float:
            return sorted(xs)[int(p * (len(xs) - 1))]

        print(f"{len(pool)} accessors, {len(picked)} asked (seed {args.seed}), {uses} callers in all")
        print("| ask | p50 ms | p95 ms | max ms |\n|---|---|---|---|")
        for label, xs in (("first", first), ("second", second)):
            print(f"| {label} | {q(xs, 0.5):.1f} | {q(xs, 0.95):.1f} | {max(xs):.1f} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
