"""Latency of the two pure query decisions: `lint` (query_linter) and `classify` (query_classifier).

usage: python bench/bench_query_domain.py [--queries 4000] [--seed 7] [--repeat 3] [--json]

Generates a deterministic, varied query mix (the spec's table rows, templates filled with identifiers and
concepts in English and Spanish, random Unicode, long queries), times every call with
`time.perf_counter_ns`, and prints p50/p95/p99 in milliseconds. Target: p95 under 0.2 ms for each.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable

from trifecta.domain.query_classifier import classify
from trifecta.domain.query_linter import lint

TABLE_ROWS = [
    'Find "authenticate()"',
    "Where is API_KEY used?",
    "Search for database.query()",
    "Find all TODO comments",
    "grep for import Flask",
    "Find class definitions",
    "All async functions",
    "Classes inheriting from Base",
    "Functions decorated with @requires_auth",
    "Methods overriding render()",
    "Find authentication logic",
    "Where is error handling done?",
    "How does caching work?",
    "Find rate limiting implementation",
    "Where are permissions validated?",
    "Code that handles JWT tokens",
    "Find middleware",
    "Similar error patterns",
    "Find authenticate() and error handling",
    "All classes that implement caching",
    "System-wide authentication checks",
    "Related authentication code",
    "Functions like validate_token()",
    "Find auth",
    "Search X",
    "Code",
    "config",
    "docs",
    "check agent.md template creation code",
    "Muéstrame documentación sobre la persistencia de sesión",
    "update telemetry logic",
]

IDENTIFIERS = [
    "parse_config",
    "load_settings()",
    "UserService",
    "os.environ",
    "MAX_RETRIES",
    "HttpClient.send",
    "validate_token()",
    "shutil.copytree",
    "argparse.Action",
    "src/app/cli.py",
]
CONCEPTS = [
    "retry logic",
    "error handling",
    "caching",
    "authentication",
    "input validation",
    "session persistence",
    "rate limiting",
    "the separator",
    "temporary files",
]
TEMPLATES = [
    "where is {ident} used",
    "find usages of {ident}",
    "how does {concept} work",
    "where is the {concept} for HTTP requests",
    "subclasses of {ident}",
    "functions decorated with @{word}",
    "all async methods in module {word}",
    "{ident}: where {concept} happens",
    "find {ident} and the {concept} around it",
    "code related to {concept}",
    "¿dónde se valida {concept}?",
    "¿cómo funciona {concept} en {ident}?",
    "clases que heredan de {ident}",
    "grep '{word}'",
    "{ident}",
    "{concept} docs",
]
WORDS = ["cache", "property", "login", "token", "parser", "scheduler", "retry", "sesión", "índice", "budget"]


def _random_unicode(rng: random.Random, length: int) -> str:
    pools = [
        (0x20, 0x7E),
        (0xA0, 0x24F),
        (0x370, 0x3FF),
        (0x400, 0x4FF),
        (0x4E00, 0x4FFF),
        (0x1F300, 0x1F5FF),
    ]
    chars = []
    for _ in range(length):
        lo, hi = rng.choice(pools)
        chars.append(chr(rng.randint(lo, hi)))
    return "".join(chars)


def make_queries(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    queries: list[str] = []
    while len(queries) < n:
        roll = rng.random()
        if roll < 0.15:
            queries.append(rng.choice(TABLE_ROWS))
        elif roll < 0.75:
            template = rng.choice(TEMPLATES)
            queries.append(
                template.format(
                    ident=rng.choice(IDENTIFIERS), concept=rng.choice(CONCEPTS), word=rng.choice(WORDS)
                )
            )
        elif roll < 0.90:
            queries.append(_random_unicode(rng, rng.randint(0, 60)))
        else:  # long: a paragraph-sized question
            parts = [
                rng.choice(TEMPLATES).format(
                    ident=rng.choice(IDENTIFIERS), concept=rng.choice(CONCEPTS), word=rng.choice(WORDS)
                )
                for _ in range(rng.randint(4, 12))
            ]
            queries.append(" and ".join(parts))
    return queries


def _time(fn: Callable[[str], object], queries: list[str], repeat: int) -> list[float]:
    for q in queries[:200]:  # warm up caches and the regex engine
        fn(q)
    samples: list[float] = []
    for _ in range(repeat):
        for q in queries:
            start = time.perf_counter_ns()
            fn(q)
            samples.append((time.perf_counter_ns() - start) / 1e6)
    return samples


def _percentiles(samples: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return {
        "p50_ms": round(cuts[49], 4),
        "p95_ms": round(cuts[94], 4),
        "p99_ms": round(cuts[98], 4),
        "max_ms": round(max(samples), 4),
        "mean_ms": round(statistics.fmean(samples), 4),
        "calls": len(samples),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)

    queries = make_queries(args.queries, args.seed)
    results = {
        "lint": _percentiles(_time(lint, queries, args.repeat)),
        "classify": _percentiles(_time(classify, queries, args.repeat)),
    }
    if args.json:
        print(json.dumps({"queries": len(queries), "seed": args.seed, "results": results}, indent=2))
        return 0
    print(f"{len(queries)} queries x {args.repeat} (seed {args.seed})")
    print(f"{'function':<10} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8} {'mean ms':>8}")
    for name, r in results.items():
        print(
            f"{name:<10} {r['p50_ms']:>8.4f} {r['p95_ms']:>8.4f} {r['p99_ms']:>8.4f} {r['max_ms']:>8.4f} "
            f"{r['mean_ms']:>8.4f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
