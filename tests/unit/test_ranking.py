def test_declaration_generated_vendored_example_and_benchmark_files_are_secondary_unless_asked_for() -> None:
    from trifecta.domain.ranking import asks_for_secondary_files, is_secondary_file

    for path in (
        "types/index.d.ts",
        "dist/app.js",
        "vendor/github.com/x/y.go",
        "static/app.min.js",
        "api/service.pb.go",
        "proto/msg_pb2.py",
        "node_modules/lodash/map.js",
        "zz_generated.deepcopy.go",
        "examples/tutorial/app.py",
        "benchmarks/nested_schemas.py",
        "docs/conf.py",
    ):
        assert is_secondary_file(path), path
    # a Go `doc` package or a tokio `doc` module is code, not documentation
    for path in (
        "src/index.ts",
        "lib/distance.js",
        "pkg/vendors.go",
        "src/build_info.rs",
        "types.ts",
        "doc/man_docs.go",
    ):
        assert not is_secondary_file(path), path
    assert asks_for_secondary_files("where are the type declarations for the router")
    assert asks_for_secondary_files("which generated protobuf messages carry the user id")
    assert asks_for_secondary_files("which examples show a blueprint with templates")
    assert not asks_for_secondary_files("how does the router match a path")


def test_a_name_word_and_a_question_word_in_two_forms_share_a_stem() -> None:
    from trifecta.domain.ranking import name_stem

    assert name_stem("suggested") == name_stem("suggestions") == name_stem("suggest")
    assert name_stem("parse") == name_stem("parser") == name_stem("parsing") == name_stem("parses")
    assert name_stem("connection") == name_stem("connect")
    for short, longer in (("set", "settings"), ("time", "timeout"), ("transaction", "transform")):
        assert name_stem(short) != name_stem(longer)
