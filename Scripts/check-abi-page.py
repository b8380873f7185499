#!/usr/bin/env python3
"""Fails when Docs/ABI.md and the shipped modules' sources disagree on what a binary SDK freezes.

Usage: Scripts/check-abi-page.py [--self-test]

Every declaration of a shipped module (SHIPPED below) that carries `@inlinable`,
`@usableFromInline`, `@frozen` or `@_alwaysEmitIntoClient` must have a row in Docs/ABI.md, under
the heading of its module (`### SDKEventBusCore`, …), and every row must name such a declaration.
A row's first cell is the declaration as a code span, its second the attributes:

    | `CatalogEmitter.fire(_: Catalog.Payload)` | `@inlinable` | why | what freezing it costs |

A declaration is named `Outer.Inner.name(label: Type, …)`: the types and extensions it is nested
in, its name, and for a function, an initializer or a subscript its parameters as written, each
with its argument label (or `_`) and its type, without attributes (`@escaping`, `@Sendable`,
`@MainActor`), default values (`= …`) or generic clauses. A property is
`Outer.name`, a type `Outer.Name`. Several attributes on one declaration are listed in one cell,
in any order.
"""

import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "Docs" / "ABI.md"
SHIPPED = [
    "SDKEventBusCore", "SDKEventBusWire", "SDKEventBusConfig", "SDKEventBusAppEvents", "SDKEventBusTimeline", "SDKEventBus",
]
ATTRIBUTES = ["@inlinable", "@usableFromInline", "@frozen", "@_alwaysEmitIntoClient"]
ATTRIBUTE = re.compile(r"@(inlinable|usableFromInline|frozen|_alwaysEmitIntoClient)\b")
EXTENSION = re.compile(r"extension\s+([A-Za-z_][\w.]*)")
MEMBER_DECL = re.compile(
    r"\b(func|var|let|init|subscript|struct|enum|class|actor|protocol|typealias|case)\b\s*([A-Za-z_]\w*)?"
)
ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|\s*([^|]+?)\s*\|")
PARAMETER_ATTRIBUTE = re.compile(r"@\w+(\([^)]*\))?\s*")


def strip_comments_and_strings(text):
    """The source with comments, string literals and `#if` lines blanked, line structure kept."""
    out = []
    i = 0
    n = len(text)
    while i < n:
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif text.startswith('"""', i):
            end = text.find('"""', i + 3)
            end = n if end < 0 else end + 3
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif text[i] == '"':
            j = i + 1
            depth = 0
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "(":
                    depth += 1
                    j += 2
                    continue
                if text[j] == ")" and depth:
                    depth -= 1
                elif text[j] == "\\":
                    j += 1
                elif text[j] == '"' and not depth:
                    break
                j += 1
            out.append(" " * (j + 1 - i))
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def split_top_level(text, separator=","):
    parts, depth, current = [], 0, ""
    for character in text:
        if character in "([<{":
            depth += 1
        elif character in ")]>}":
            depth -= 1
        if character == separator and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += character
    if current.strip():
        parts.append(current)
    return parts


def normalize_type(text):
    text = PARAMETER_ATTRIBUTE.sub("", text)
    return re.sub(r"\s+", " ", text).strip()


def parameters(signature):
    """`label: Type, …` of the parenthesized parameter list at the start of `signature`."""
    depth, end = 0, None
    for index, character in enumerate(signature):
        if character == "(":
            depth += 1
        elif character == ")":
            depth -= 1
            if depth == 0:
                end = index
                break
    inner = signature[1:end] if end else ""
    named = []
    for parameter in split_top_level(inner):
        head, colon, kind = parameter.partition(":")
        if not colon:
            continue
        # A default value: everything after a top-level `=`.
        kind = split_top_level(kind, "=")[0]
        label = head.split()[0] if head.split() else "_"
        named.append(f"{label}: {normalize_type(kind)}")
    return "(" + ", ".join(named) + ")"


def declarations(text):
    """(qualified name, attributes) of every declaration in `text` that carries an ABI attribute."""
    code = strip_comments_and_strings(text)
    found = []
    scopes = []  # (name, brace depth at which its body opened)
    depth = 0
    pending_type = None
    pending_attributes = []
    index = 0
    length = len(code)
    while index < length:
        character = code[index]
        if character == "{":
            depth += 1
            if pending_type is not None:
                scopes.append((pending_type, depth))
                pending_type = None
            index += 1
            continue
        if character == "}":
            if scopes and scopes[-1][1] == depth:
                scopes.pop()
            depth -= 1
            index += 1
            continue
        attribute = ATTRIBUTE.match(code, index)
        if attribute and (index == 0 or not (code[index - 1].isalnum() or code[index - 1] == "_")):
            pending_attributes.append("@" + attribute.group(1))
            index = attribute.end()
            continue
        member = MEMBER_DECL.match(code, index)
        if member and (index == 0 or not (code[index - 1].isalnum() or code[index - 1] in "_.@")):
            keyword, name = member.group(1), member.group(2)
            rest = code[member.end():member.end() + 4000]
            if keyword in ("struct", "enum", "class", "actor", "protocol") and name:
                qualified = ".".join([scope for scope, _ in scopes] + [name])
                if pending_attributes:
                    found.append((qualified, frozenset(pending_attributes)))
                pending_type = name
                pending_attributes = []
                index = member.end()
                continue
            if keyword in ("func", "init", "subscript", "var", "let", "typealias", "case"):
                if pending_attributes:
                    outer = [scope for scope, _ in scopes]
                    if keyword in ("var", "let", "typealias", "case"):
                        title = name
                    else:
                        title = name if keyword == "func" else keyword
                        generic = re.match(r"\s*<", rest)
                        after = rest
                        if generic:
                            level, position = 0, 0
                            for position, character2 in enumerate(rest):
                                if character2 == "<":
                                    level += 1
                                elif character2 == ">":
                                    level -= 1
                                    if level == 0:
                                        break
                            after = rest[position + 1:]
                        title += parameters(after.lstrip())
                    found.append((".".join(outer + [title]), frozenset(pending_attributes)))
                pending_attributes = []
                index = member.end()
                continue
        extension = EXTENSION.match(code, index)
        if extension and (index == 0 or not (code[index - 1].isalnum() or code[index - 1] == "_")):
            pending_type = extension.group(1)
            pending_attributes = []
            index = extension.end()
            continue
        index += 1
    return found


def source_declarations(root):
    result = {}
    for module in SHIPPED:
        entries = {}
        for source in sorted((root / "Sources" / module).rglob("*.swift")):
            for name, attributes in declarations(source.read_text(encoding="utf-8")):
                entries.setdefault(name, set()).update(attributes)
        result[module] = {name: frozenset(attributes) for name, attributes in entries.items()}
    return result


def page_declarations(page):
    result = {module: {} for module in SHIPPED}
    problems = []
    module = None
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        heading = re.match(r"^#+\s+`?(\w+)`?\s*$", line)
        if heading:
            module = heading.group(1) if heading.group(1) in SHIPPED else None
            continue
        row = ROW.match(line)
        if not row or module is None:
            continue
        attributes = frozenset(re.findall(r"@\w+", row.group(2)))
        if not attributes or not attributes <= set(ATTRIBUTES):
            continue
        name = row.group(1)
        if name in result[module]:
            problems.append(f"Docs/ABI.md:{number}: `{name}` is listed twice under {module}")
        result[module][name] = attributes
    return result, problems


def compare(source, page):
    problems = []
    for module in SHIPPED:
        for name, attributes in sorted(source[module].items()):
            listed = page[module].get(name)
            if listed is None:
                problems.append(
                    f"{module}: `{name}` is {' '.join(sorted(attributes))} in the source, and Docs/ABI.md does not "
                    "list it: add a row (why it is there, what freezing it costs) or remove the attribute")
            elif listed != attributes:
                problems.append(
                    f"{module}: `{name}` is {' '.join(sorted(attributes))} in the source; Docs/ABI.md says "
                    f"{' '.join(sorted(listed))}")
        for name in sorted(set(page[module]) - set(source[module])):
            problems.append(
                f"{module}: Docs/ABI.md lists `{name}`, which no declaration of the module's source is any more "
                "(with those attributes): remove the row, or rename it as the source names it")
    return problems


def self_test():
    source = '''
/// A doc comment that says @inlinable and `@frozen`.
public struct Emitter<Catalog: EventCatalog>: Sendable {
    @inlinable
    public func fire(_ payload: Catalog.Payload) {
        let text = "@usableFromInline in a string \\(payload)"
        withUnsafePointer(to: payload) { fire(event: payload.event, payload: $0) }
    }

    @usableFromInline
    func fire(event: Catalog, payload: UnsafePointer<Catalog.Payload>) {}

    @inlinable
    public func fire<Payload: TypedPayload>(_ payload: Payload) where Payload.Catalog == Catalog {}

    @usableFromInline
    struct Holder<Payload> {
        @usableFromInline let function: @Sendable (Payload) -> Void

        @usableFromInline
        init(function: @escaping @Sendable (Payload) -> Void) { self.function = function }
    }
}

extension Subscribing {
    @inlinable @discardableResult
    public func on(
        _ event: Catalog,
        delivery: Delivery<MainActor> = .mainActor,
        callback: @escaping @MainActor @Sendable (Catalog.Payload) -> Void
    ) -> Subscription { bus.subscribe(event) }

    public func plain() {}
}

@frozen
public enum Event: String { case a }
'''
    expected = {
        ("Emitter.fire(_: Catalog.Payload)", frozenset({"@inlinable"})),
        ("Emitter.fire(event: Catalog, payload: UnsafePointer<Catalog.Payload>)", frozenset({"@usableFromInline"})),
        ("Emitter.fire(_: Payload)", frozenset({"@inlinable"})),
        ("Emitter.Holder", frozenset({"@usableFromInline"})),
        ("Emitter.Holder.function", frozenset({"@usableFromInline"})),
        ("Emitter.Holder.init(function: (Payload) -> Void)", frozenset({"@usableFromInline"})),
        ("Subscribing.on(_: Catalog, delivery: Delivery<MainActor>, callback: (Catalog.Payload) -> Void)",
         frozenset({"@inlinable"})),
        ("Event", frozenset({"@frozen"})),
    }
    found = set(declarations(source))
    if found != expected:
        print("self-test: declarations found differ from those expected")
        for item in sorted(found - expected):
            print("  unexpected:", item)
        for item in sorted(expected - found):
            print("  missing:", item)
        return 1
    # The comparison: a missing row, a stale row and an attribute mismatch are each reported.
    page_text = "\n".join([
        "# The ABI", "### SDKEventBusCore", "| declaration | attribute | why | cost |", "| --- | --- | --- | --- |",
        "| `Emitter.fire(_: Catalog.Payload)` | `@inlinable` | speed | body |",
        "| `Emitter.gone()` | `@inlinable` | — | — |",
        "| `Event` | `@usableFromInline` | — | — |",
        "### SDKEventBus", "| `Other` | `@frozen` | — | — |",
    ])
    with tempfile.TemporaryDirectory() as directory:
        page_path = Path(directory) / "ABI.md"
        page_path.write_text(page_text, encoding="utf-8")
        page, _ = page_declarations(page_path)
    source_map = {module: {} for module in SHIPPED}
    source_map["SDKEventBusCore"] = {
        "Emitter.fire(_: Catalog.Payload)": frozenset({"@inlinable"}),
        "Emitter.fire(_: Payload)": frozenset({"@inlinable"}),
        "Event": frozenset({"@frozen"}),
    }
    problems = compare(source_map, page)
    wanted = ["`Emitter.fire(_: Payload)` is @inlinable in the source, and Docs/ABI.md does not list it",
              "`Event` is @frozen in the source; Docs/ABI.md says @usableFromInline",
              "Docs/ABI.md lists `Emitter.gone()`", "SDKEventBus: Docs/ABI.md lists `Other`"]
    for text in wanted:
        if not any(text in problem for problem in problems):
            print(f"self-test: no problem reported like: {text}\n  got: {problems}")
            return 1
    if len(problems) != len(wanted):
        print(f"self-test: {len(problems)} problems reported, {len(wanted)} expected: {problems}")
        return 1
    print("self-test passed")
    return 0


def main():
    if "--self-test" in sys.argv:
        return self_test()
    source = source_declarations(ROOT)
    if not PAGE.exists():
        print("Docs/ABI.md is missing; the shipped modules freeze:")
        for module in SHIPPED:
            for name, attributes in sorted(source[module].items()):
                print(f"  {module}: `{name}` {' '.join(sorted(attributes))}")
        return 1
    page, problems = page_declarations(PAGE)
    problems += compare(source, page)
    if problems:
        print("Docs/ABI.md does not match the shipped modules' sources:")
        for problem in problems:
            print("  - " + problem)
        return 1
    count = sum(len(entries) for entries in source.values())
    print(f"Docs/ABI.md lists the {count} declarations of the shipped modules that a binary SDK freezes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
