"""The types a TypeScript signature gives its parameters, read from its text as the index keeps it
(``subscribe(observer: Partial<Observer<T>>): Unsubscribable``, ``readonly onError?: (o: Opts) => void``).

What they are for: an object literal passed as an argument is typed by the parameter it is passed as (its
contextual type), so its methods implement that type's members, as a class's implement its interfaces. Only
the named types a literal can implement are kept: ``Observer`` of ``Partial<Observer<T>>``, of ``Observer |
undefined``, of ``Readonly<Observer> & Extra`` (and ``Extra``); never an array, a function type, a type
literal, a string or number type.

The text is the repository's, so anything may come: the reader never raises, and a text it cannot read
gives no type. Pure: no I/O."""

from __future__ import annotations

import re

MAX_SIGNATURE = 2_000  # a longer text is not read (the index keeps at most 400 characters)
MAX_DEPTH = 8  # parentheses and wrappers (`Partial<Readonly<...>>`) read into
# the types that name their first argument's members (`Partial<Observer>` has Observer's): the parser reads
# literals' and receivers' types by the same set
OF_FIRST = frozenset({"Partial", "Readonly", "Required", "Omit", "Pick"})
# the types a literal cannot implement, and the names that are no type of the project
_NOT_NAMED = frozenset(
    {"undefined", "null", "void", "never", "unknown", "any", "object", "string", "number", "boolean",
     "bigint", "symbol", "Record", "Function", "ThisType", "Array", "ReadonlyArray", "Promise"}
)  # fmt: skip
_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_OPEN, _CLOSE = "([{<", ")]}>"


def _split(text: str, separator: str) -> list[str]:
    """``text`` cut at each ``separator`` outside brackets and strings (`a: A<B, C>, b` -> two); `=>` is
    neither a `=` nor a closing `>`."""
    parts, depth, start, quote = [], 0, 0, ""
    for i, char in enumerate(text):
        if quote:
            quote = "" if char == quote and text[i - 1] != "\\" else quote
        elif char in "'\"`":
            quote = char
        elif char in _OPEN:
            depth += 1
        elif char in _CLOSE and not (char == ">" and i > 0 and text[i - 1] == "="):
            depth = max(0, depth - 1)
        elif char == separator and depth == 0 and not (char == "=" and text[i + 1 : i + 2] == ">"):
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _parameter_list(signature: str) -> str | None:
    """The text between the signature's parameter parentheses: from the first `(` outside a type parameter
    list (`f<T extends (a: A) => B>(x: X)`) to the one that closes it; None when there is none."""
    depth, start = 0, -1
    for i, char in enumerate(signature):
        if start < 0:
            if char == "<":
                depth += 1
            elif char == ">" and signature[i - 1] != "=":
                depth = max(0, depth - 1)
            elif char == "(" and depth == 0:
                start, depth = i + 1, 1
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return signature[start:i]
    return None


def named_types(type_text: str, depth: int = 0) -> tuple[str, ...]:
    """The project's types a type names, whose members an object literal of that type implements:
    ``Observer`` of ``Partial<Observer<T, E>>``, both of ``A & B``, ``A`` of ``A | undefined``; none inside
    more than ``MAX_DEPTH`` parentheses or wrappers."""
    if depth > MAX_DEPTH:
        return ()
    found: list[str] = []
    for member in (m.strip() for part in _split(type_text, "|") for m in _split(part, "&")):
        member = member.removeprefix("readonly ").strip()
        if member.startswith("(") and member.endswith(")") and _parameter_list(member) == member[1:-1]:
            found.extend(named_types(member[1:-1], depth + 1))  # `(A | B)`, not `(a: A) => B`
            continue
        name = _NAME.match(member)
        if name is None:
            continue
        rest = member[name.end() :].strip()
        if rest.startswith("<") and rest.endswith(">"):
            if name.group() in OF_FIRST:
                arguments = _split(rest[1:-1], ",")
                found.extend(named_types(arguments[0], depth + 1) if arguments else ())
                continue
            rest = ""
        if not rest and name.group().rsplit(".", 1)[-1] not in _NOT_NAMED:
            found.append(name.group())
    return tuple(dict.fromkeys(found))


def parameter_types(signature: str) -> list[tuple[str, ...]]:
    """The named types of each parameter of a signature, by position (a `this` parameter is none: a call
    passes no argument for it); an untyped parameter, or one typed by nothing a literal implements, has ()."""
    if len(signature) > MAX_SIGNATURE:
        return []
    listed = _parameter_list(signature)
    if listed is None or not listed.strip():
        return []
    # the signature's own type parameters (`<T, E extends Error>`) are no type of the project
    generic = _type_parameters(signature[: signature.find(listed)])
    out: list[tuple[str, ...]] = []
    for parameter in _split(listed, ","):
        declared = _split(parameter, ":")
        name = declared[0].strip()
        if not name:
            continue  # a trailing comma
        if name == "this":
            continue
        if len(declared) < 2 or name.startswith("..."):
            out.append(())
            continue
        type_text = _split(":".join(declared[1:]), "=")[0]  # (a default's value follows `=`)
        out.append(tuple(t for t in named_types(type_text) if t not in generic))
    return out


def _type_parameters(head: str) -> frozenset[str]:
    """The names a signature's type parameter list declares (`f<T, E extends Error = Error>(`: T, E)."""
    start = head.find("<")
    if start < 0:
        return frozenset()
    inner = head[start + 1 : head.rfind(">")]
    return frozenset(m.group() for part in _split(inner, ",") if (m := _NAME.match(part.strip())) is not None)


# what comes before a declaration's type parameter list: its keywords and modifiers, its name (a variable's
# arrow function: `const f = <T extends X>(`)
_DECLARED_HEAD = re.compile(
    r"\s*(?:(?:export|default|declare|abstract|async|static|public|private|protected|readonly|override|get|set"
    r"|class|interface|function|type|const|let|var)\b\s*)*\*?\s*[#\w$]+\s*(?:=\s*(?:async\b\s*)?)?(?=<)"
)
_CONSTRAINED = re.compile(r"\s*(?:(?:const|in|out)\s+)*([A-Za-z_$][\w$]*)(?:\s+extends\s+(.*))?\s*", re.S)


def type_parameter_bound(signature: str, name: str) -> tuple[str, ...] | None:
    """The named types the constraint of the type parameter ``name`` gives it, as the declaration's
    signature reads (`class NodeView<C, E extends Editor = Editor>`: E is an Editor, as the language server
    reads its members); () when it declares ``name`` without a constraint that names one; None when it
    declares no type parameter of that name."""
    if len(signature) > MAX_SIGNATURE:
        return None
    head = _DECLARED_HEAD.match(signature)
    if head is None:
        return None
    depth, start = 0, head.end()
    for i in range(start, len(signature)):
        char = signature[i]
        if char in _OPEN:
            depth += 1
        elif char in _CLOSE and not (char == ">" and signature[i - 1] == "="):
            depth -= 1
            if depth == 0:
                listed = signature[start + 1 : i]
                break
    else:
        return None
    for parameter in _split(listed, ","):
        declared = _CONSTRAINED.fullmatch(_split(parameter, "=")[0])
        if declared is not None and declared.group(1) == name:
            constraint = declared.group(2)
            return named_types(constraint) if constraint else ()
    return None
