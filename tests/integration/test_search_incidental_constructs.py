"""A question about how code behaves that mentions a construct in passing ("coroutine-based backends") is
answered by the code that does it, not by the set of every async method."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

BACKENDS = """
class AsyncFileSystem:
    async def _cat_file(self, path):
        return await self._fetch(path)

    async def _rm(self, path):
        await self._delete(path)

    async def _ls(self, path):
        return await self._list(path)


class AsyncStreamedFile:
    async def read(self, length=-1):
        return await self._read(length)

    async def close(self):
        await self._flush()
"""

SYNC = '''
import functools


def sync(loop, func, *args, **kwargs):
    """Run a coroutine on the loop and block until it finishes."""
    return loop.run_until_complete(func(*args, **kwargs))


def sync_wrapper(func, obj=None):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return sync(obj.loop, func, *args, **kwargs)
    return wrapper


def mirror_sync_methods(obj):
    """Populate blocking versions of the coroutine methods: `_cat_file` gets `cat_file`."""
    for name in dir(obj):
        if name.startswith("_") and not name.startswith("__"):
            setattr(obj, name[1:], sync_wrapper(getattr(obj, name), obj=obj))
'''


def test_a_how_question_mentioning_coroutines_gets_the_code_that_answers(
    index_files: Callable[..., Any],
) -> None:
    engine = index_files({"pkg/backends.py": BACKENDS, "pkg/asyn.py": SYNC}, fillers=("pkg/a.py", "pkg/b.py"))
    data = engine.search(
        "how do the coroutine-based backends get ordinary blocking versions of their methods", limit=5
    ).to_dict()["data"]
    assert data["plan"]["route"] == "semantic"
    assert "structural" not in data["plan"]["weights"]  # "coroutine-based" describes: no set of async methods
    assert data["hits"][0]["symbol"] == "mirror_sync_methods"
