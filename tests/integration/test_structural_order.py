"""A structural set lists what the repository leans on first (issue 15: "Structural result sets are ordered by
it, never by path"): among equally scoped implementation classes, the one most files use comes first."""

from __future__ import annotations

from pathlib import Path

import trifecta


def _repo(root: Path) -> Path:
    (root / "shapes").mkdir(parents=True)
    (root / "shapes" / "base.py").write_text(
        "class Shape:\n    def area(self):\n        raise NotImplementedError\n"
    )
    # in path order the rarely used subclasses come first
    (root / "shapes" / "a_blob.py").write_text(
        "from shapes.base import Shape\n\n\nclass Blob(Shape):\n    def area(self):\n        return 0\n"
    )
    (root / "shapes" / "m_square.py").write_text(
        "from shapes.base import Shape\n\n\nclass Square(Shape):\n    def area(self):\n        return 4\n"
    )
    (root / "shapes" / "z_circle.py").write_text(
        "from shapes.base import Shape\n\n\nclass Circle(Shape):\n    def area(self):\n        return 3\n"
    )
    (root / "app").mkdir()
    for i in range(3):  # three modules draw circles, one draws a square, none a blob
        (root / "app" / f"view{i}.py").write_text(
            f"from shapes.z_circle import Circle\n\n\ndef draw{i}():\n    return Circle().area()\n"
        )
    (root / "app" / "grid.py").write_text(
        "from shapes.m_square import Square\n\n\ndef grid():\n    return Square().area()\n"
    )
    return root


def test_subclasses_come_most_used_first_not_in_path_order(tmp_path: Path) -> None:
    engine = trifecta.open(_repo(tmp_path / "repo"))
    engine.index()
    hits = engine.search("subclasses of Shape", limit=10).to_dict()["data"]["hits"]
    assert [h["symbol"] for h in hits[:3]] == ["Circle", "Square", "Blob"]
    assert all(h["match_type"] == "structural" for h in hits[:3])


def _errors_repo(root: Path) -> Path:
    (root / "proc").mkdir(parents=True)
    (root / "proc" / "errors.py").write_text("class ProcError(RuntimeError):\n    pass\n")
    prop = (
        "    @property\n    def {0}(self):\n        return self._{0}\n\n"
        "    @{0}.setter\n    def {0}(self, value):\n        self._{0} = value\n"
    )
    # in file order the process's own property comes first
    (root / "proc" / "run.py").write_text(
        "from proc.errors import ProcError\n\n\n"
        "class Process:\n" + prop.format("mode") + "\n\n"
        "class Failed(ProcError):\n" + prop.format("output") + "\n\n"
        "class Tagged:\n    pass\n"
    )
    return root


def test_members_of_exception_classes_only_when_the_question_asks_for_them(tmp_path: Path) -> None:
    engine = trifecta.open(_errors_repo(tmp_path / "repo"))
    engine.index()

    def structural(query: str) -> list[str]:
        hits = engine.search(query, limit=10).to_dict()["data"]["hits"]
        return [h["symbol"] for h in hits if h["match_type"] == "structural"]

    # Failed derives from RuntimeError through ProcError, a class of the segment
    assert structural("properties that also define a @<name>.setter in proc's exception classes") == [
        "Failed.output"
    ]
    assert set(structural("properties that also define a @<name>.setter in proc")) == {
        "Process.mode",
        "Failed.output",
    }
