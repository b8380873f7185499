#!/usr/bin/env python3
"""Fails when README.md or Docs/ states a fact about the package that the package contradicts.

Checked mechanically, because each was found wrong from outside:

- README's product table names exactly the library products of Package.swift, and a count of
  modules or products spelled in README or Docs/ ("the five modules") matches them;
- no guide cites the project's internal issue numbers or working paths, which mean nothing to a
  reader of the package;
- every manifest snippet's `from:` version in README and Docs/ is the newest release in
  CHANGELOG.md, so a newcomer who copies one gets the release the documentation describes.

Usage: Scripts/check-docs-facts.py [--self-test]
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NUMBERS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
COUNT = re.compile(r"\b(" + "|".join(NUMBERS) + r")\s+(?:library\s+)?(?:modules|products)\b", re.I)
FROM_VERSION = re.compile(r'\.package\(url:[^)]*from:\s*"([^"]+)"')
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\]", re.M)
INTERNAL = re.compile(r"\bissues?\s+#?\d+|(?<![\w/])#\d+\b|/work/")


def library_products(manifest):
    return re.findall(r'\.library\(\s*name:\s*"([^"]+)"', manifest)


def readme_products(readme):
    """The first column of the table under '## Products'."""
    section = readme.split("\n## Products", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\|\s*`([^`]+)`\s*\|", section, re.M)


def problems(manifest, readme, guides, changelog=None):
    found = []
    if changelog is not None:
        releases = RELEASE.findall(changelog)
        for name, text in [("README.md", readme)] + guides:
            for version in FROM_VERSION.findall(text):
                if not releases or version != releases[0]:
                    found.append(f"{name}: a manifest depends on from: \"{version}\"; the newest release in "
                                 f"CHANGELOG.md is {releases[0] if releases else 'none'}")
    products = library_products(manifest)
    listed = readme_products(readme)
    if sorted(listed) != sorted(products):
        found.append(f"README.md: the product table lists {listed}, Package.swift has {products}")
    for name, text in [("README.md", readme)] + guides:
        for number, line in ((m, text.count("\n", 0, m.start()) + 1) for m in COUNT.finditer(text)):
            if NUMBERS[number.group(1).lower()] != len(products):
                found.append(f"{name}:{line}: says '{number.group(0)}'; Package.swift has {len(products)} products")
        for match in INTERNAL.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"{name}:{line}: cites '{match.group(0)}', an internal issue or path")
    return found


def self_test():
    manifest = '.library(name: "A", targets: ["A"]),\n.library(name: "B", targets: ["B"])'
    good = "# P\n\n## Products\n\n| product | x |\n| --- | --- |\n| `A` | a |\n| `B` | b |\n\n## Next\nthe two modules\n"
    assert problems(manifest, good, [("g.md", "see [size](#size), 2 KB")]) == [], problems(manifest, good, [])
    bad = good.replace("| `B` | b |\n", "").replace("two modules", "three modules")
    found = problems(manifest, bad, [("g.md", "as in issue 23, see /work/wt/perf")])
    assert len(found) == 4, found
    stale = '.package(url: "https://x/y.git", from: "0.9.0")'
    assert len(problems(manifest, good + stale, [], "## [1.0.0] - 2026-11-28\n")) == 1
    assert problems(manifest, good + stale.replace("0.9.0", "1.0.0"), [], "## [1.0.0] - 2026-11-28\n") == []
    print("check-docs-facts self-test passed")


def main():
    if "--self-test" in sys.argv:
        self_test()
        return 0
    guides = [(str(p.relative_to(ROOT)), p.read_text()) for p in sorted((ROOT / "Docs").glob("*.md"))]
    found = problems(
        (ROOT / "Package.swift").read_text(), (ROOT / "README.md").read_text(), guides,
        (ROOT / "CHANGELOG.md").read_text())
    for problem in found:
        print("error: " + problem, file=sys.stderr)
    if found:
        return 1
    print(f"README and {len(guides)} guides agree with Package.swift and cite nothing internal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
