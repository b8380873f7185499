#!/usr/bin/env python3
"""Fails when a shipped module uses one of Apple's required-reason APIs without declaring it.

App Store Connect rejects an upload (ITMS-91053) when an app, or any SDK or package it embeds,
calls an API that Apple requires a reason for and no privacy manifest (`PrivacyInfo.xcprivacy`)
of that code declares the API's category with an approved reason. An SDK that embeds this package
cannot add the declaration for it, so each library product that uses such an API ships its own
manifest as a resource, and this check keeps them honest:

- it scans the Swift sources of every library module (comments and string literals removed) for
  the symbols of each required-reason category (REQUIRED_REASON_APIS, from Apple's "Describing use
  of required reason API");
- for each module that uses one, its target must have a `PrivacyInfo.xcprivacy` that is a valid
  property list, says the package tracks nobody and collects nothing, and declares that category
  with at least one of its approved reasons; Package.swift must list the file among the target's
  resources;
- a manifest that declares a category its module no longer uses is reported too, so declarations
  do not outlive the code.

Usage: Scripts/check-privacy-manifest.py [--self-test]
"""
import plistlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Category → (symbols, as regular expressions on Swift code; approved reasons).
REQUIRED_REASON_APIS = {
    "NSPrivacyAccessedAPICategoryFileTimestamp": (
        [r"\.(creationDate|modificationDate)\b", r"\bfileModificationDate\b", r"\b(contentModificationDateKey|creationDateKey)\b",
         r"\b(getattrlist|getattrlistbulk|fgetattrlist|getattrlistat|stat|fstat|fstatat|lstat)\s*\("],
        {"DDA9.1", "C617.1", "3B52.1", "0A2A.1"},
    ),
    "NSPrivacyAccessedAPICategorySystemBootTime": (
        [r"\bsystemUptime\b", r"\bmach_absolute_time\s*\("],
        {"35F9.1", "8FFB.1", "3D61.1"},
    ),
    "NSPrivacyAccessedAPICategoryDiskSpace": (
        [r"\bvolume(Available|Total)Capacity\w*Key\b", r"\bsystem(Free)?Size\b", r"\b(f?statv?fs)\s*\("],
        {"85F4.1", "E174.1", "7D9E.1", "B728.1"},
    ),
    "NSPrivacyAccessedAPICategoryActiveKeyboards": ([r"\bactiveInputModes\b"], {"3EC4.1", "54BD.1"}),
    "NSPrivacyAccessedAPICategoryUserDefaults": ([r"\bUserDefaults\b"], {"CA92.1", "1C8F.1", "C56D.1", "AC6B.1"}),
}
STRING = re.compile(r'#"(?:[^"]|"(?!#))*"#|"(?:[^"\\\n]|\\.)*"')
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def code_of(text):
    """Swift source without comments and string literals, line numbers kept."""
    text = BLOCK_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return "\n".join(STRING.sub('""', line.split("//", 1)[0]) for line in text.splitlines())


def uses(sources):
    """Category → [(file, line, symbol)] for the given {path: text}."""
    found = {}
    for path, text in sources.items():
        for number, line in enumerate(code_of(text).splitlines(), 1):
            for category, (patterns, _) in REQUIRED_REASON_APIS.items():
                for pattern in patterns:
                    if match := re.search(pattern, line):
                        found.setdefault(category, []).append((path, number, match.group(0)))
    return found


def declared(manifest_bytes):
    """(problems, category → reasons) of a manifest's bytes."""
    try:
        plist = plistlib.loads(manifest_bytes)
    except Exception as error:  # noqa: BLE001 — any parse failure is the finding
        return [f"is not a valid property list: {error}"], {}
    problems = []
    if plist.get("NSPrivacyTracking") is not False:
        problems.append("must say NSPrivacyTracking false")
    for key in ("NSPrivacyTrackingDomains", "NSPrivacyCollectedDataTypes"):
        if plist.get(key) != []:
            problems.append(f"must give {key} as an empty array")
    categories = {}
    for entry in plist.get("NSPrivacyAccessedAPITypes", []):
        categories[entry.get("NSPrivacyAccessedAPIType")] = set(entry.get("NSPrivacyAccessedAPITypeReasons", []))
    return problems, categories


def check_module(module, sources, manifest_bytes, listed_as_resource):
    """Every problem of one module, as sentences."""
    used = uses(sources)
    problems = []
    if not used and manifest_bytes is None:
        return problems
    if manifest_bytes is None:
        for category, places in used.items():
            path, line, symbol = places[0]
            problems.append(f"{path}:{line}: {symbol} is a required-reason API ({category}); "
                            f"add Sources/{module}/Resources/PrivacyInfo.xcprivacy declaring it")
        return problems
    if not listed_as_resource:
        problems.append(f"{module}: Package.swift does not list its PrivacyInfo.xcprivacy among the target's resources")
    shape, categories = declared(manifest_bytes)
    problems += [f"{module}'s PrivacyInfo.xcprivacy {problem}" for problem in shape]
    for category, places in used.items():
        path, line, symbol = places[0]
        reasons = categories.get(category)
        approved = REQUIRED_REASON_APIS[category][1]
        if not reasons:
            problems.append(f"{path}:{line}: {symbol} is a required-reason API ({category}) that "
                            f"{module}'s PrivacyInfo.xcprivacy does not declare")
        elif not reasons & approved:
            problems.append(f"{module}'s PrivacyInfo.xcprivacy gives {category} no approved reason "
                            f"(one of {sorted(approved)})")
    for category in categories:
        if category not in REQUIRED_REASON_APIS:
            problems.append(f"{module}'s PrivacyInfo.xcprivacy declares an unknown category {category}")
        elif category not in used:
            problems.append(f"{module}'s PrivacyInfo.xcprivacy declares {category}, which {module} no longer uses")
    return problems


def library_modules(manifest):
    products = re.findall(r'\.library\(\s*name:\s*"[^"]+",\s*targets:\s*\[([^\]]*)\]', manifest)
    return sorted({target for group in products for target in re.findall(r'"([^"]+)"', group)})


def self_test():
    reading = {"Cache.swift": "let date = attributes[.modificationDate] as? Date // .creationDate in a comment\n"}
    quiet = {"Bus.swift": 'let state = "stat(" ; static let x = 1\n'}
    good = plistlib.dumps({
        "NSPrivacyTracking": False, "NSPrivacyTrackingDomains": [], "NSPrivacyCollectedDataTypes": [],
        "NSPrivacyAccessedAPITypes": [{"NSPrivacyAccessedAPIType": "NSPrivacyAccessedAPICategoryFileTimestamp",
                                       "NSPrivacyAccessedAPITypeReasons": ["C617.1"]}],
    })
    empty = plistlib.dumps({"NSPrivacyTracking": False, "NSPrivacyTrackingDomains": [],
                            "NSPrivacyCollectedDataTypes": [], "NSPrivacyAccessedAPITypes": []})
    assert check_module("M", reading, good, True) == []
    assert check_module("M", quiet, None, False) == [], "no use, no manifest: fine"
    assert "does not declare" in " ".join(check_module("M", reading, empty, True))
    assert "add Sources/M/Resources/PrivacyInfo.xcprivacy" in " ".join(check_module("M", reading, None, False))
    assert "no longer uses" in " ".join(check_module("M", quiet, good, True))
    assert "resources" in " ".join(check_module("M", reading, good, False))
    assert "not a valid property list" in " ".join(check_module("M", reading, b"<plist", True))
    print("check-privacy-manifest self-test passed")


def main():
    if "--self-test" in sys.argv:
        self_test()
        return 0
    manifest = (ROOT / "Package.swift").read_text()
    problems, summary = [], []
    for module in library_modules(manifest):
        folder = ROOT / "Sources" / module
        sources = {str(p.relative_to(ROOT)): p.read_text() for p in sorted(folder.rglob("*.swift"))}
        manifests = list(folder.rglob("PrivacyInfo.xcprivacy"))
        manifest_bytes = manifests[0].read_bytes() if manifests else None
        listed = bool(manifests) and str(manifests[0].relative_to(folder)) in manifest
        problems += check_module(module, sources, manifest_bytes, listed)
        used = sorted(uses(sources))
        if used:
            summary.append(f"{module}: {', '.join(c.removeprefix('NSPrivacyAccessedAPICategory') for c in used)}")
    for problem in problems:
        print("error: " + problem, file=sys.stderr)
    if problems:
        return 1
    print("required-reason APIs, each declared in its module's privacy manifest: " + ("; ".join(summary) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
