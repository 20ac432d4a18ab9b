"""`ctx get` (zoom level L3): raw source by hit id, by path, or by `path:START-END`, inside the budget."""

from __future__ import annotations

import re

import attrs

from ..domain import actions as act
from ..domain.budget import BudgetPolicy, cut_raw
from ..domain.contract import ErrorCode, Response
from .ports import FileRefused, FileSource, IndexReader, OutsideSegment

_RANGE = re.compile(r"^(?P<path>.+?):(?P<start>\d+)(?:-(?P<end>\d+))?$")


@attrs.frozen(kw_only=True)
class GetRequest:
    id: str | None = None
    path: str | None = None  # "p", "p:A" or "p:A-B"


class GetSource:
    def __init__(
        self, *, reader: IndexReader, source: FileSource, policy: BudgetPolicy, segment_label: str = "."
    ) -> None:
        self._reader = reader
        self._source = source
        self._policy = policy
        self._segment = segment_label

    def execute(self, request: GetRequest) -> Response:
        if bool(request.id) == bool(request.path):
            return Response.failure(
                "source",
                ErrorCode.INVALID_ARGUMENT,
                'give exactly one of id (a hit id) or path ("p" or "p:START-END")',
            )
        symbol = ""
        if request.id:
            chunk = self._reader.chunk(request.id.strip())
            if chunk is None:
                return Response.failure(
                    "source",
                    ErrorCode.CHUNK_NOT_FOUND,
                    f"no indexed chunk has id {request.id!r}; ids come from `ctx search` hits of the current index",
                )
            path, start, end, symbol = chunk.path, chunk.start_line, chunk.end_line, chunk.symbol
        else:
            assert request.path is not None
            path, start, end = request.path.strip(), 1, 0
            if not (path and self._exists(path)):
                m = _RANGE.match(path)
                if m:
                    path, start = m["path"], int(m["start"])
                    end = int(m["end"]) if m["end"] else start
                    if start < 1 or end < start:
                        return Response.failure(
                            "source",
                            ErrorCode.INVALID_ARGUMENT,
                            f"bad line range {start}-{end}: need 1 <= START <= END",
                        )
        path = path.replace("\\", "/")
        try:
            raw = self._source.read_admitted(path)  # what the indexer would not index is not shown either
        except FileRefused as exc:
            return Response.failure("source", exc.code, str(exc), error_data=exc.data)
        except OutsideSegment as exc:
            return Response.failure("source", ErrorCode.PATH_OUTSIDE_SEGMENT, str(exc))
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return Response.failure("source", ErrorCode.FILE_NOT_FOUND, f"no file {path!r} in the segment")
        except OSError as exc:
            return Response.failure(
                "source", ErrorCode.FILE_NOT_FOUND, f"cannot read {path!r}: {exc.strerror}"
            )
        lines = raw.decode("utf-8", errors="replace").splitlines()
        total = len(lines)
        end = total if end == 0 else min(end, total)
        if start > max(total, 1):
            return Response.failure(
                "source",
                ErrorCode.INVALID_ARGUMENT,
                f"{path!r} has {total} lines; line {start} does not exist",
            )
        text = "\n".join(lines[start - 1 : end])
        comment = "#" if path.endswith((".py", ".pyi", ".sh", ".toml", ".yaml", ".yml")) else "//"
        cut = cut_raw(self._policy, text, comment=comment)
        shown_end = start + cut.kept_lines - 1 if cut.truncated else end
        data = {
            "path": path,
            "symbol": symbol,
            "range": {"start_line": start, "end_line": end},
            "shown": {"start_line": start, "end_line": max(start, shown_end)},
            "content": cut.text,
            "truncated": cut.truncated,
            "hidden_lines": cut.hidden_lines,
            "bytes": cut.size_bytes,
            "file_lines": total,
        }
        actions = []
        if cut.truncated:
            nxt = shown_end + 1
            actions.append(act.get_path(path, nxt, min(end, nxt + 400)))
        return Response.success("source", data, next_actions=actions)

    def _exists(self, path: str) -> bool:
        try:
            return self._source.stat(path) is not None
        except OutsideSegment:
            return False
