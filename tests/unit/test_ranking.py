def test_declaration_generated_minified_and_vendored_files_are_secondary_unless_asked_for() -> None:
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
    ):
        assert is_secondary_file(path), path
    for path in ("src/index.ts", "lib/distance.js", "pkg/vendors.go", "src/build_info.rs", "types.ts"):
        assert not is_secondary_file(path), path
    assert asks_for_secondary_files("where are the type declarations for the router")
    assert asks_for_secondary_files("which generated protobuf messages carry the user id")
    assert not asks_for_secondary_files("how does the router match a path")
