from __future__ import annotations

import textwrap

from hypothesis import given
from hypothesis import strategies as st

from trifecta.domain.terms import expand_identifiers, fold, query_terms, split_identifier
from trifecta.infrastructure.code_parser import language_of, parse_source


def test_split_identifier() -> None:
    assert split_identifier("parseHTTPHeader") == ["parse", "HTTP", "Header"]
    assert split_identifier("parse_http_header") == ["parse", "http", "header"]
    assert split_identifier("__init__") == ["init"]


def test_split_identifier_keeps_accented_words_whole() -> None:
    """An accented letter is a letter: `páginas` is one word (it was `p ginas`, a phrase that matched
    nothing and kept the Spanish word from its translation)."""
    assert split_identifier("páginas") == ["páginas"]
    assert split_identifier("petición") == ["petición"]
    assert split_identifier("leerÍndice") == ["leer", "Índice"]
    assert split_identifier("ÁrbolHTTPDecisión_2") == ["Árbol", "HTTP", "Decisión", "2"]
    assert split_identifier("año2024") == ["año", "2024"]
    assert split_identifier("HTTPServer2") == ["HTTP", "Server", "2"]


def test_expand_identifiers_keeps_whole_words_and_adds_parts() -> None:
    assert expand_identifiers("x = parseHTTPHeader(a_b)") == "x = parseHTTPHeader parse HTTP Header(a_b a b)"
    assert expand_identifiers("plain words only") == "plain words only"


def test_query_terms_drop_stop_words_and_keep_case() -> None:
    assert query_terms("where is the parseHTTPHeader function defined?") == ["parseHTTPHeader", "defined"]
    assert fold("Sesión") == "sesion"


@given(st.text())
def test_terms_are_total(text: str) -> None:
    expand_identifiers(text)
    query_terms(text)
    fold(text)


SOURCE = textwrap.dedent(
    '''\
    """Module doc."""
    import os

    @decorator
    @other(1)
    def top(a, b=1, *args, c, **kw) -> int:
        """Top doc."""
        def inner():
            pass
        return a

    class Base(Mixin, metaclass=Meta):
        """Class doc."""
        X = 1

        async def run(self):
            pass

        if os.name == "nt":
            def platform(self):
                return "nt"
        else:
            def platform(self):
                return "posix"

    try:
        def maybe():
            pass
    except ImportError:
        pass
    '''
)


def test_python_symbols_and_ranges() -> None:
    parsed = parse_source("pkg/mod.py", SOURCE)
    assert parsed.error == ""
    syms = {(s.qualname, s.start_line): s for s in parsed.symbols}
    top = syms[("top", 4)]
    assert (top.def_line, top.end_line, top.kind) == (6, 10, "function")
    assert top.decorators == ("decorator", "other(1)")
    assert top.params == ("a", "b", "*args", "c", "**kw")
    assert top.signature == "def top(a, b=1, *args, c, **kw) -> int"
    assert top.docstring == "Top doc."
    assert syms[("top.inner", 8)].depth == 1
    base = syms[("Base", 12)]
    assert base.bases == ("Mixin",) and base.kind == "class"
    assert syms[("Base.run", 16)].is_async and syms[("Base.run", 16)].kind == "method"
    platforms = [s for s in parsed.symbols if s.qualname == "Base.platform"]
    assert [s.start_line for s in platforms] == [20, 23]  # both conditional definitions are kept
    assert ("maybe", 27) in syms


def test_python_chunks() -> None:
    parsed = parse_source("pkg/mod.py", SOURCE)
    kinds = [(c.kind.value, c.symbol) for c in parsed.chunks]
    assert ("function", "top") in kinds and ("method", "Base.run") in kinds and ("class", "Base") in kinds
    assert ("function", "top.inner") not in kinds  # nested functions stay in their parent's chunk
    assert len({c.id for c in parsed.chunks}) == len(parsed.chunks)  # duplicate qualnames get distinct ids
    module = [c for c in parsed.chunks if c.kind.value == "module"]
    assert module and "import os" in module[0].body and "def top" not in module[0].body
    klass = next(c for c in parsed.chunks if c.kind.value == "class")
    assert "X = 1" in klass.body and "async def run(self):" in klass.body and "pass" not in klass.body


def test_syntax_error_and_deep_nesting_fall_back_to_text() -> None:
    broken = parse_source("b.py", "def f(:\n    pass\n")
    assert broken.error.startswith("syntax error at line 1") and broken.chunks and not broken.symbols
    deep = parse_source("deep.py", "x = " + "(" * 5000 + ")" * 5000 + "\n")
    assert deep.error and deep.chunks
    nested = "".join("    " * i + "if x:\n" for i in range(120)) + "    " * 120 + "pass\n"
    assert parse_source("n.py", nested).chunks


def test_text_files_are_line_windows() -> None:
    assert language_of("docs/guide.md") == "markdown" and language_of("x.bin") is None
    parsed = parse_source("docs/guide.md", "\n".join(f"line {i}" for i in range(120)))
    assert [(c.start_line, c.end_line) for c in parsed.chunks] == [(1, 50), (51, 100), (101, 120)]


def test_identifier_parts_lists_each_compound_once() -> None:
    from trifecta.domain.terms import identifier_parts

    assert identifier_parts("x = parseHTTPHeader(a_b) + parseHTTPHeader(c)") == "parse HTTP Header a b"
    assert identifier_parts("plain words only, 0x800000") == ""


def test_definitions_in_every_kind_of_block_are_found() -> None:
    source = textwrap.dedent(
        """\
        try:
            def in_try(): pass
        except* ValueError:
            def in_except_star(): pass
        with open("f") as fh:
            def in_with(): pass
        match command:
            case "go":
                def in_case(): pass
        while False:
            def in_loop(): pass
        else:
            def in_loop_else(): pass
        """
    )
    names = {s.qualname for s in parse_source("blocks.py", source).symbols}
    assert names == {"in_try", "in_except_star", "in_with", "in_case", "in_loop", "in_loop_else"}


def test_comment_lines_are_part_of_a_function_chunk_doc() -> None:
    source = "def f():\n    '''Doc.'''\n    #  first note  \n  \t#second\n    x = 1  # not a comment line\n"
    chunk = next(c for c in parse_source("c.py", source).chunks if c.symbol == "f")
    assert chunk.doc == "Doc.\nfirst note\nsecond"


def test_identifier_parts_memo_gives_the_same_answer_twice() -> None:
    from trifecta.domain.terms import identifier_parts

    text = "readHeaderLines(x_y, MAX_SIZE, plain, 2nd, x2)"
    assert identifier_parts(text) == identifier_parts(text) == "read Header Lines x y MAX SIZE x 2"
