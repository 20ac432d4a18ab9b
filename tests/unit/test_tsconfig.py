"""tsconfig.json read as untrusted input (domain.tsconfig): JSON with comments and trailing commas within a
size cap, anything else ignored; `extends` followed inside the segment only, a few levels, cycles ended;
`paths` and `baseUrl` applied to a bare import the way the compiler does."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from trifecta.domain.tsconfig import (
    MAX_CONFIG_BYTES,
    MAX_EXTENDS_DEPTH,
    PathAliases,
    join,
    load_aliases,
    parse_jsonc,
)


def test_comments_and_trailing_commas_are_read_but_not_inside_strings() -> None:
    text = b"""\xef\xbb\xbf// head
    {
      /* block */ "a": "http://x/*y*/", // tail
      "b": ["//", "c,]",], "d": "\\"//",
    }"""
    assert parse_jsonc(text) == {"a": "http://x/*y*/", "b": ["//", "c,]"], "d": '"//'}


def test_what_is_not_a_small_json_object_is_ignored() -> None:
    assert parse_jsonc(b'{"compilerOptions": {"paths": {"@/*": [') is None  # cut short
    assert parse_jsonc(b"/* never closed {}") is None
    assert parse_jsonc(b'"just a string"') is None
    assert parse_jsonc(b"[1, 2]") is None
    assert parse_jsonc(b"\xff\xfe{\x00}") is None
    assert parse_jsonc(b"[" * 200_000 + b"]" * 200_000) is None  # nested past the parser's recursion
    big = b'{"a": "' + b"x" * MAX_CONFIG_BYTES + b'"}'
    assert parse_jsonc(big) is None
    assert parse_jsonc(b'{"a": "' + b'"' * 100_000) is None  # an unclosed string after many


def reader(files: Mapping[str, Any]) -> Any:
    calls: list[str] = []

    def read(path: str) -> Mapping[str, Any] | None:
        calls.append(path)
        value = files.get(path)
        return parse_jsonc(value.encode()) if isinstance(value, str) else value

    read.calls = calls  # type: ignore[attr-defined]
    return read


def test_extends_is_followed_inside_the_segment_a_few_levels_and_a_cycle_ends() -> None:
    read = reader({
        "app/tsconfig.json": '{"extends": "./base", "compilerOptions": {"paths": {"@/*": ["src/*"]}}}',
        "app/base.json": '{"extends": ["../root.json", "some-package/tsconfig"], "compilerOptions": {}}',
        "root.json": '{"extends": "./app/tsconfig.json", "compilerOptions": {"baseUrl": "./lib"}}',
    })  # fmt: skip
    aliases = load_aliases("app/tsconfig.json", read)
    # baseUrl from root.json (its own folder); the paths read from it; the cycle back to app/ ended
    assert aliases == PathAliases(paths=(("@/*", ("lib/src/*",)),), base_url="lib")
    assert "some-package/tsconfig" not in read.calls

    outside = reader(
        {"tsconfig.json": '{"extends": "../../etc/x.json", "compilerOptions": {"baseUrl": "."}}'}
    )
    assert load_aliases("tsconfig.json", outside) == PathAliases(base_url="")
    assert all(not p.startswith("..") for p in outside.calls)

    chain = {f"c{i}.json": json.dumps({"extends": f"./c{i + 1}.json"}) for i in range(50)}
    chain["c50.json"] = '{"compilerOptions": {"baseUrl": "."}}'
    deep = reader(chain)
    assert load_aliases("c0.json", deep) is None  # too many levels: the base is never reached
    assert len(set(deep.calls)) <= MAX_EXTENDS_DEPTH + 2

    loop = reader({"a.json": '{"extends": "./b.json"}', "b.json": '{"extends": "./a.json"}'})
    assert load_aliases("a.json", loop) is None


def test_paths_that_are_not_what_the_compiler_takes_are_dropped() -> None:
    read = reader({
        "tsconfig.json": json.dumps({"compilerOptions": {"paths": {
            "ok/*": ["./src/*", "/abs/*", "../../up/*", 7, "C:/x/*"],
            "two/*/stars/*": ["src/*"],
            "list": "src/index.ts",
            "@/*": ["src/*/*"],
        }, "baseUrl": ["not", "a", "string"]}}),
        "garbage.json": json.dumps({"compilerOptions": ["x"]}),
    })  # fmt: skip
    assert load_aliases("tsconfig.json", read) == PathAliases(paths=(("ok/*", ("src/*",)),))
    assert load_aliases("garbage.json", read) is None
    assert load_aliases("missing.json", read) is None


def test_an_import_is_mapped_exactly_else_by_the_longest_prefix_then_from_base_url() -> None:
    aliases = PathAliases(
        paths=(
            ("@lib/*", ("lib/*", "vendor/*")),
            ("@lib/core/*", ("core/*",)),
            ("@lib/core", ("core/index.ts",)),
            ("*.css", ("styles/*.css",)),
        ),
        base_url="web",
    )
    assert aliases.targets("@lib/core") == ["core/index.ts", "web/@lib/core"]
    assert aliases.targets("@lib/core/x") == ["core/x", "web/@lib/core/x"]
    assert aliases.targets("@lib/a/b") == ["lib/a/b", "vendor/a/b", "web/@lib/a/b"]
    assert aliases.targets("page.css") == ["styles/page.css", "web/page.css"]
    assert aliases.targets("@lib/../../../etc") == []  # leaves the segment
    assert aliases.targets("./local") == aliases.targets("../up") == []  # relative: never an alias
    assert PathAliases().targets("react") == []
    assert join("a/b", "../c") == "a/c"
    assert join("", "../c") is None
