"""Deprecated code ranks below the code that replaced it, against a real index: a package or module that warns
on import, and definitions marked deprecated in each language's way."""

from __future__ import annotations

import pytest

LEGACY_INIT = '''"""The old distribution utilities."""

import warnings

_MESSAGE = "The legacy package is deprecated; use tools.files instead"
warnings.warn(_MESSAGE,
              DeprecationWarning, 2)
'''

LEGACY_TREE = """
def copy_tree(src, dst, preserve_mode=1):
    names = os.listdir(src)
    for name in names:
        copy_file(os.path.join(src, name), os.path.join(dst, name))
    return names
"""

FILES = """
def copy_tree(src, dst, symlinks=False):
    names = os.listdir(src)
    os.makedirs(dst)
    for name in names:
        copy2(os.path.join(src, name), os.path.join(dst, name))
    return dst


@deprecated("use copy_tree")
def copy_tree_of(src, dst):
    return copy_tree(src, dst)
"""


@pytest.fixture
def engine(index_files):
    return index_files(
        {
            "legacy/__init__.py": LEGACY_INIT,
            "legacy/dir_util.py": LEGACY_TREE,
            "tools/files.py": FILES,
        },
        fillers=("tools/misc.py",),
    )


def symbols(engine, query: str) -> list[str]:
    return [f"{h['path']}:{h['symbol']}" for h in engine.search(query, limit=5).to_dict()["data"]["hits"]]


@pytest.mark.timeout(60)
def test_a_package_that_warns_it_is_deprecated_ranks_below_its_replacement(engine) -> None:
    found = symbols(engine, "copy a directory tree")
    assert found[0] == "tools/files.py:copy_tree", found


@pytest.mark.timeout(60)
def test_a_question_about_deprecated_code_gets_it_as_ranked(engine) -> None:
    found = symbols(engine, "the deprecated copy_tree of the legacy package")
    assert found[0] == "legacy/dir_util.py:copy_tree", found
