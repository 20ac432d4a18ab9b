"""Which language server answers hover and references for which language: a table, not branches.

Each row names the languages it serves (as ``code_parser.language_of`` names them), the command that starts
it over stdio, the LSP ``languageId`` of each file extension, the options sent with ``initialize``, and the
install command shown to a user who does not have it. One server process runs per row (TypeScript and
JavaScript share one ``tsserver``; C and C++ one ``clangd``), started on the first request for one of its
files (``lazy_language_server.LanguageServerRouter``).

Two row fields exist because a server can be "installed" without being usable:

* ``not_installed_markers``: text on the stderr of a server that exits before answering ``initialize`` and
  means it is missing, not broken (rustup installs a ``rust-analyzer`` proxy on ``PATH`` that only prints
  "Unknown binary 'rust-analyzer'" until the component is added).
* ``beside``: a file the server needs from a package installed next to it, sent as an ``initialize`` option.
  ``typescript-language-server`` otherwise runs the *workspace's* ``node_modules/typescript/lib/tsserver.js``
  first: a repository could ship its own and have it run on ``ast hover``. Pointing ``tsserver.path`` at the
  ``typescript`` package installed beside the server (or beside ``tsserver`` on ``PATH``) closes that door;
  without one it is ``not_installed``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

PYTHON_INSTALL = "pip install 'trifecta[lsp]'"


@attrs.frozen(kw_only=True)
class Beside:
    """A file of a package installed in the same ``node_modules`` as the server, sent as an init option."""

    package_file: str  # e.g. "typescript/lib/tsserver.js", relative to that node_modules folder
    option: tuple[str, ...]  # where it goes in initializationOptions, e.g. ("tsserver", "path")
    program: str | None = None  # else the same package beside this program on PATH (`npm i -g typescript`)


@attrs.frozen(kw_only=True)
class ServerSpec:
    name: str  # the row's key: one process per row
    languages: tuple[str, ...]
    command: tuple[str, ...]
    language_ids: Mapping[str, str]  # file extension (lower case, with the dot) -> LSP languageId
    install: str  # what a user runs to get it, shown with not_installed
    init_options: Mapping[str, Any] = attrs.field(factory=dict)
    not_installed_markers: tuple[str, ...] = ()
    beside: Beside | None = None

    def language_id(self, path: str) -> str:
        """The LSP languageId of a file: by its extension, else the row's first language."""
        name = path.rsplit("/", 1)[-1]
        dot = name.rfind(".")
        return self.language_ids.get(name[dot:].lower(), self.languages[0]) if dot > 0 else self.languages[0]


SERVERS: tuple[ServerSpec, ...] = (
    ServerSpec(
        name="python",
        languages=("python",),
        command=("jedi-language-server",),
        language_ids={".py": "python", ".pyi": "python", ".pyw": "python"},
        install=PYTHON_INSTALL,
        # No diagnostics (nobody reads them here). Its hovers stay plain text, "signature\n---\ndocstring",
        # shorter than Markdown with fences and read the same by an agent.
        init_options={"diagnostics": {"enable": False}},
    ),
    ServerSpec(
        name="typescript",
        languages=("typescript", "javascript"),
        command=("typescript-language-server", "--stdio"),
        language_ids={
            ".ts": "typescript",
            ".mts": "typescript",
            ".cts": "typescript",
            ".tsx": "typescriptreact",
            ".js": "javascript",
            ".mjs": "javascript",
            ".cjs": "javascript",
            ".jsx": "javascriptreact",
        },
        install="npm install -g typescript-language-server typescript",
        # No automatic typings: tsserver would run npm to fetch @types packages (network, and code run).
        init_options={
            "disableAutomaticTypingAcquisition": True,
            "hostInfo": "trifecta",
            "tsserver": {"useSyntaxServer": "never"},
        },
        beside=Beside(
            package_file="typescript/lib/tsserver.js", option=("tsserver", "path"), program="tsserver"
        ),
    ),
    ServerSpec(
        name="go",
        languages=("go",),
        command=("gopls",),
        language_ids={".go": "go"},
        install="go install golang.org/x/tools/gopls@latest",
    ),
    ServerSpec(
        name="rust",
        languages=("rust",),
        command=("rust-analyzer",),
        language_ids={".rs": "rust"},
        install="rustup component add rust-analyzer",
        not_installed_markers=("Unknown binary 'rust-analyzer'",),
    ),
    ServerSpec(
        name="c",
        languages=("c", "cpp"),
        command=("clangd",),
        language_ids={
            ".c": "c",
            ".h": "c",
            ".cc": "cpp",
            ".cpp": "cpp",
            ".cxx": "cpp",
            ".hpp": "cpp",
            ".hh": "cpp",
        },
        install="apt-get install clangd (or your platform's LLVM package)",
    ),
)

_BY_LANGUAGE: dict[str, ServerSpec] = {lang: row for row in SERVERS for lang in row.languages}


def server_for(language: str | None) -> ServerSpec | None:
    """The row serving a language, None when no server is known for it."""
    return _BY_LANGUAGE.get(language) if language else None


def served_languages() -> tuple[str, ...]:
    return tuple(_BY_LANGUAGE)
