#!/usr/bin/env python3
"""Generates the DocC articles of the documentation catalogs from the guides in Docs/.

Usage: Scripts/sync-docc.py [--check]

Docs/ is the single source: readers of the repository read it as plain Markdown, and this script
turns each guide into an article of the catalog of the module it documents (GUIDES below):

- a code span that is exactly the name of a public top-level symbol (`CatalogBus`) becomes a
  symbol link: ``CatalogBus`` when the symbol belongs to the catalog's own module, and an
  absolute link to the other module's archive otherwise (``/SDKEventBus/SystemEvent``), which
  `Scripts/build-docs.sh` resolves by building each archive with the others as dependencies;
- a link to another guide becomes a <doc:> link (<doc:/SDKEventBusTesting/…> across catalogs);
  a link to a page of Docs/ that has no article keeps its text, and so does a link to an article of
  a module that the catalog's module extends: DocC gives the extended module a page of its own in
  the catalog's archive (the testing library's hooks on the core's types), which hides the other
  archive's articles from absolute links. Symbol links there take the `/documentation/` prefix,
  which still reaches the other archive.

With --check it writes nothing and fails when an article is out of date or left over from a guide
that no longer exists, and when a guide uses a public top-level name in a code span (also inside a
longer one, such as `EventBus.makeBus()`) without linking it anywhere in its article: each guide
links each public name it uses to its reference page. `.ci/run` runs it that way, through
`Scripts/build-docs.sh`.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "Docs"
MODULES = [
    "SDKEventBusCore", "SDKEventBusWire", "SDKEventBusConfig", "SDKEventBusAppEvents", "SDKEventBusTimeline",
    "SDKEventBus", "SDKEventBusCoreTesting", "SDKEventBusTesting",
]
# The modules whose types a module extends in its public API.
EXTENDS = {
    "SDKEventBusTesting": {"SDKEventBusCore", "SDKEventBusConfig", "SDKEventBusCoreTesting"},
    "SDKEventBus": {"SDKEventBusConfig"},
    "SDKEventBusTimeline": {"SDKEventBusCore"},
}
# Each guide, in the catalog of the module it documents.
GUIDES = {
    "GettingStarted": "SDKEventBusCore",
    "EmbeddingInYourSDK": "SDKEventBusCore",
    "EventsOnlySDK": "SDKEventBusCore",
    "DefiningYourCatalog": "SDKEventBusCore",
    "Subscriptions": "SDKEventBusCore",
    "DeliveryContexts": "SDKEventBusCore",
    "DeliveryGuarantees": "SDKEventBusCore",
    "ABI": "SDKEventBusCore",
    "AppEvents": "SDKEventBusAppEvents",
    "ReadinessAndLifecycle": "SDKEventBusConfig",
    "OnlineOfflineAndCache": "SDKEventBusConfig",
    "AdoptingPieceByPiece": "SDKEventBusConfig",
    "BuiltInCatalog": "SDKEventBus",
    "TestingCodeThatUsesSDKEventBus": "SDKEventBusTesting",
    "SeeingWhatTheBusDid": "SDKEventBusTimeline",
}
# Public types and typealiases: the code spans that become symbol links. Only those declared at the
# top level of a file count (a nested `Code` or `Location` is no top-level symbol).
TYPES_PATTERN = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*public\s+(?:final\s+|indirect\s+)?(?:actor|struct|enum|class|protocol|typealias)\s+(\w+)"
)
STRING_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"')
LINK = re.compile(r"\[([^\]]+)\]\(([A-Za-z]+)\.md\)")
# A picture of Docs/ a guide shows: copied into its catalog's Resources/, where DocC finds it by name.
IMAGE = re.compile(r"!\[[^\]]*\]\(([\w.-]+\.(?:svg|png))\)")
CODE_SPAN = re.compile(r"(?<!`)`([A-Za-z]+)`(?!`)")
ANY_CODE_SPAN = re.compile(r"(?<!`)`([^`]+)`(?!`)")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SYMBOL_LINK = re.compile(r"``(?:(?:/documentation)?/(\w+)/)?(\w+)``")
NOTICE = "<!-- Generated from Docs/{name}.md by Scripts/sync-docc.py: edit that file, then run the script. -->"


def catalog(module):
    return ROOT / "Sources" / module / f"{module}.docc"


def public_names(module):
    """The public types and typealiases a module declares outside any type or extension."""
    names = set()
    for source in (ROOT / "Sources" / module).rglob("*.swift"):
        depth = 0
        for line in source.read_text(encoding="utf-8").splitlines():
            code = STRING_LITERAL.sub('""', line.split("//", 1)[0])
            match = TYPES_PATTERN.match(code)
            # Test SPI (`@_spi(Testing) public`) is not in the documentation: no symbol to link.
            if match and depth == 0 and "@_spi(" not in code:
                names.add(match.group(1))
            depth += code.count("{") - code.count("}")
    return names


def owners():
    """Every public top-level name, with the module that declares it."""
    owner = {}
    for module in MODULES:
        for name in public_names(module):
            if name in owner:
                sys.exit(f"`{name}` is public in both {owner[name]} and {module}: a code span could not say which")
            owner[name] = module
    return owner


def prose_lines(text):
    """(index, line) of the lines outside fenced code blocks."""
    fenced = False
    for index, line in enumerate(text.splitlines()):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield index, line


def convert(text, name, owner):
    module = GUIDES[name]
    lines = text.splitlines()

    extended = EXTENDS.get(module, set())

    def guide_link(match):
        target = match.group(2)
        if target not in GUIDES or GUIDES[target] in extended:
            return match.group(1)
        return f"<doc:{target}>" if GUIDES[target] == module else f"<doc:/{GUIDES[target]}/{target}>"

    def symbol_link(match):
        symbol = match.group(1)
        if symbol not in owner:
            return match.group(0)
        if owner[symbol] == module:
            return f"``{symbol}``"
        prefix = "/documentation" if owner[symbol] in extended else ""
        return f"``{prefix}/{owner[symbol]}/{symbol}``"

    for index, line in prose_lines(text):
        line = LINK.sub(guide_link, line)
        if not line.startswith("#"):  # headings keep plain code
            line = CODE_SPAN.sub(symbol_link, line)
        lines[index] = line
    return "\n".join(lines) + "\n\n" + NOTICE.format(name=name) + "\n"


def unlinked(guide_text, article_text, owner):
    """The public names the guide uses in code spans that its article never links, each with the
    first span that uses it."""
    used = {}
    for _, line in prose_lines(guide_text):
        for span in ANY_CODE_SPAN.findall(line):
            for identifier in IDENTIFIER.findall(span):
                if identifier in owner:
                    used.setdefault(identifier, span)
    linked = {match.group(2) for _, line in prose_lines(article_text) for match in SYMBOL_LINK.finditer(line)}
    return {name: span for name, span in used.items() if name not in linked}


def main():
    check = "--check" in sys.argv[1:]
    owner = owners()
    stale, problems = [], []
    for name, module in GUIDES.items():
        article = catalog(module) / f"{name}.md"
        guide = (DOCS / f"{name}.md").read_text(encoding="utf-8")
        expected = convert(guide, name, owner)
        current = article.read_text(encoding="utf-8") if article.exists() else None
        for symbol, span in sorted(unlinked(guide, expected, owner).items()):
            problems.append(
                f"Docs/{name}.md uses `{symbol}` (in `{span}`) but never links it: write `{symbol}` alone in a "
                "code span once, outside headings"
            )
        if current == expected:
            continue
        if check:
            stale.append(article.relative_to(ROOT))
        else:
            article.write_text(expected, encoding="utf-8")
            print(f"wrote {article.relative_to(ROOT)}")
    # The pictures each guide shows, beside its article.
    for name, module in GUIDES.items():
        for image in IMAGE.findall((DOCS / f"{name}.md").read_text(encoding="utf-8")):
            source, copy = DOCS / image, catalog(module) / "Resources" / image
            if copy.exists() and copy.read_bytes() == source.read_bytes():
                continue
            if check:
                stale.append(copy.relative_to(ROOT))
            else:
                copy.parent.mkdir(exist_ok=True)
                copy.write_bytes(source.read_bytes())
                print(f"wrote {copy.relative_to(ROOT)}")
    # Articles generated from a guide that is gone, or that moved to another catalog.
    for module in MODULES:
        for article in sorted(catalog(module).glob("*.md")):
            text = article.read_text(encoding="utf-8")
            if "by Scripts/sync-docc.py" in text and GUIDES.get(article.stem) != module:
                if check:
                    stale.append(article.relative_to(ROOT))
                else:
                    article.unlink()
                    print(f"removed {article.relative_to(ROOT)}")
    if problems:
        print("\n".join(problems))
    if stale:
        print("out of date with Docs/ (run Scripts/sync-docc.py): " + ", ".join(map(str, stale)))
    if problems or stale:
        sys.exit(1)
    if check:
        print(f"DocC articles match Docs/ ({len(GUIDES)} guides), and each links every public name it uses")


if __name__ == "__main__":
    main()
