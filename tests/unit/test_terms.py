def test_named_identifiers_are_the_words_only_code_would_write() -> None:
    from trifecta.domain.terms import named_identifiers

    assert named_identifiers("ObservableMap.set: how does it tell a new key apart?") == {"ObservableMap.set"}
    assert named_identifiers("How does parse_args use os.path.join, e.g. on Windows?") == {
        "parse_args",
        "os.path.join",
    }
    assert named_identifiers("getCompletions and HTTPServer and URLSearchParams") == {
        "getCompletions",
        "HTTPServer",
        "URLSearchParams",
    }
    assert named_identifiers("Which types implement the Formatter trait in JSON?") == frozenset()


def test_pronouns_and_fillers_are_not_searched() -> None:
    from trifecta.domain.terms import query_terms

    assert query_terms("how do they pass their values along to itself") == ["pass", "values"]
