#!/usr/bin/env python3
"""Generates the DocC articles of Sources/SDKEventBus/SDKEventBus.docc from the guides in Docs/.

Usage: Scripts/sync-docc.py [--check]

Docs/ is the single source: readers of the repository read it as plain Markdown, and this script
turns it into DocC articles, making `TypeName` code spans into symbol links and links between
guides into <doc:> links. With --check it writes nothing and fails when an article is out of date
(`.ci/run` runs it that way).
"""

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "Docs"
CATALOG = ROOT / "Sources" / "SDKEventBus" / "SDKEventBus.docc"
GUIDES = [
    "GettingStarted",
    "EmbeddingInYourSDK",
    "DefiningYourCatalogue",
    "BuiltInCatalogue",
    "DeliveryContexts",
    "DeliveryGuarantees",
    "Subscriptions",
    "AppEvents",
    "ReadinessAndLifecycle",
    "OnlineOfflineAndCache",
    "TestingCodeThatUsesSDKEventBus",
]
# Public types and typealiases: the code spans that become symbol links. Only those declared at the
# top level of a file count (a nested `Code` or `Config` is no top-level symbol).
TYPES_PATTERN = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*public\s+(?:final\s+|indirect\s+)?(?:actor|struct|enum|class|protocol|typealias)\s+(\w+)"
)
STRING_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"')
LINK = re.compile(r"\[([^\]]+)\]\(([A-Za-z]+)\.md\)")
CODE_SPAN = re.compile(r"(?<!`)`([A-Za-z]+)`(?!`)")
NOTICE = "<!-- Generated from Docs/{name}.md by Scripts/sync-docc.py: edit that file, then run the script. -->"


def public_types():
    """The public types and typealiases declared outside any type or extension."""
    names = set()
    for source in (ROOT / "Sources" / "SDKEventBus").rglob("*.swift"):
        depth = 0
        for line in source.read_text(encoding="utf-8").splitlines():
            code = STRING_LITERAL.sub('""', line.split("//", 1)[0])
            match = TYPES_PATTERN.match(code)
            if match and depth == 0:
                names.add(match.group(1))
            depth += code.count("{") - code.count("}")
    return names


def convert(text, name, types):
    out, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append(line)
            continue
        if not fenced:
            def link(match):
                target = match.group(2)
                return f"<doc:{target}>" if target in GUIDES else match.group(1)
            line = LINK.sub(link, line)
            line = CODE_SPAN.sub(lambda m: f"``{m.group(1)}``" if m.group(1) in types else m.group(0), line)
        out.append(line)
    return "\n".join(out) + "\n\n" + NOTICE.format(name=name) + "\n"


def main():
    check = "--check" in sys.argv[1:]
    types = public_types()
    stale = []
    for name in GUIDES:
        article = CATALOG / f"{name}.md"
        expected = convert((DOCS / f"{name}.md").read_text(encoding="utf-8"), name, types)
        current = article.read_text(encoding="utf-8") if article.exists() else None
        if current == expected:
            continue
        if check:
            stale.append(article.relative_to(ROOT))
        else:
            article.write_text(expected, encoding="utf-8")
            print(f"wrote {article.relative_to(ROOT)}")
    if stale:
        sys.exit("out of date with Docs/ (run Scripts/sync-docc.py): " + ", ".join(map(str, stale)))
    if check:
        print(f"DocC articles match Docs/ ({len(GUIDES)} guides)")


if __name__ == "__main__":
    main()
