#!/usr/bin/env python3
"""Compiles the Swift examples of README.md, Docs/*.md and the DocC landing page.

Usage: Scripts/check-doc-examples.py [--scratch-path PATH] [--library-evolution] [DOCUMENT ...]

Each document becomes a test target of a generated package that depends on this one, so its
examples compile against the public API only, as an SDK's or an app's code would, with `Testing`,
`XCTest` and `SDKEventBusTesting` at hand. An app's documents see the built-in catalog
(`import SDKEventBus`); the documents for an SDK with its own catalog (CORE_DOCUMENTS) see only
`SDKEventBusCore`, as such an SDK does; the app buses' landing page (APP_EVENTS_DOCUMENTS) sees
only `SDKEventBusAppEvents`, as an app beside such an SDK does; the documents of an SDK that takes
only events (EVENTS_ONLY_DOCUMENTS) depend on `SDKEventBusCore` and `SDKEventBusCoreTesting` alone,
so an example there that needs more does not compile. The documents of a group (GROUPS) are one
target, read in order, so that a guide's examples may use what an earlier guide of the group
declared. A document is read top to bottom:

- declarations at the start of a line (types, extensions, functions, imports) go to the target's
  top level, in order, with their imports hoisted (`public import` wins over `import`);
- everything else runs in one `@MainActor` async throwing function, each block in a scope nested in
  the previous block's, so a block sees the names earlier blocks declared and may shadow them.

Names an example uses but does not declare come from Scripts/doc-examples/Prelude.swift
(PreludeCore.swift for the core's documents), and from Scripts/doc-examples/<Document>.swift when
it exists. A block preceded by an HTML comment starting
with `<!-- example: not compiled` is skipped (a manifest fragment, UIKit or SwiftUI code). Compiler
errors point at the Markdown file and line; so do warnings, which fail the check too (but for unused
names, which examples have). The generated package and its build live under .build-docs/ unless
--scratch-path says otherwise.

With --library-evolution the examples are also type-checked as a binary SDK's code is, against the
products built with library evolution: the module interfaces that Scripts/check-library-evolution.sh
builds and verifies (.build/library-evolution/check/interfaces; run it first). There the package's
enums are not frozen, so a `switch` over one (but `SystemEvent`, which is `@frozen`) needs an
`@unknown default`: without one it is an error in Swift 6, which a source build does not show.
"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STUBS = ROOT / "Scripts" / "doc-examples"
MODULES = [
    "SDKEventBusCore", "SDKEventBusWire", "SDKEventBusConfig", "SDKEventBusAppEvents", "SDKEventBusTimeline",
    "SDKEventBus", "SDKEventBusCoreTesting", "SDKEventBusTesting",
]
LANDING_PAGES = [ROOT / "Sources" / module / f"{module}.docc" / f"{module}.md" for module in MODULES]
DEFAULT_DOCUMENTS = [ROOT / "README.md"] + sorted((ROOT / "Docs").glob("*.md")) + LANDING_PAGES
# Documents for an SDK author with a catalog of their own: they import the core only.
CORE_DOCUMENTS = {
    "DefiningYourCatalog", "EmbeddingInYourSDK", "SDKEventBusCore", "SDKEventBusWire", "SDKEventBusConfig",
    "AdoptingPieceByPiece",
}
# Documents for an SDK that takes only events, and its tests: the core and the core's testing part.
EVENTS_ONLY_DOCUMENTS = {"EventsOnlySDK", "SDKEventBusCoreTesting"}
EVENTS_ONLY_MODULES = ["SDKEventBusCore", "SDKEventBusCoreTesting"]
EVENTS_ONLY_IMPORTS = ["Foundation", "SDKEventBusCore", "SDKEventBusCoreTesting", "Testing", "XCTest"]
# Documents read as one: each continues the one before (the flag catalog is declared once).
GROUPS = [
    ["DefiningYourCatalog", "EmbeddingInYourSDK", "SDKEventBusCore", "SDKEventBusWire", "SDKEventBusConfig"],
    ["EventsOnlySDK", "SDKEventBusCoreTesting"],
]
SKIP_MARKER = "<!-- example: not compiled"
IMPORT = re.compile(r"^(?:(public|package|internal)\s+)?import\s+(\w+)\s*$")
# The SDKs the guides build: their types are declared by the guides themselves, in the same target,
# so a test's `@testable import FlagSDK` (or `AnalyticsSDK`) has nothing to import here and is left
# out.
SDK_UNDER_TEST_IMPORT = re.compile(r"^@testable\s+import\s+(?:FlagSDK|AnalyticsSDK)\s*$")
# Where Scripts/check-library-evolution.sh leaves the verified interfaces and their module cache.
LIBRARY_EVOLUTION = ROOT / ".build" / "library-evolution" / "check"
# Unused names are expected in examples; any other warning at an example fails the check.
EXPECTED_WARNING = re.compile(r"never (used|mutated)|unused")
DECLARATION = re.compile(
    r"^(?:@[\w.]+(?:\([^)]*\))?\s*)*"
    r"(?:(?:public|private|fileprivate|internal|package|final|nonisolated|open|indirect)\s+)*"
    r"(?:extension|struct|enum|class|actor|protocol|typealias|func)\b"
)
ATTRIBUTE_ONLY = re.compile(r"^@[\w.]+(?:\([^)]*\))?\s*$")
LITERALS = re.compile(r'#"(?:[^"]|"(?!#))*"#|"(?:[^"\\]|\\.)*"')
APP_IMPORTS = ["Foundation", "SDKEventBus", "SDKEventBusAppEvents", "SDKEventBusTesting", "Testing", "XCTest"]
CORE_IMPORTS = [
    "Foundation", "SDKEventBusCore", "SDKEventBusWire", "SDKEventBusConfig", "SDKEventBusTesting", "Testing", "XCTest",
]
# Documents for app code that takes only the app buses' product (beside an SDK built on the core).
APP_EVENTS_DOCUMENTS = {"SDKEventBusAppEvents"}
APP_EVENTS_IMPORTS = ["Foundation", "SDKEventBusAppEvents", "SDKEventBusTesting", "Testing", "XCTest"]


class Block:
    def __init__(self, document, first_line, lines):
        self.document = document
        self.first_line = first_line  # 1-based line of the block's first code line
        self.lines = lines


def blocks_of(document):
    """The compiled Swift blocks of a document."""
    lines = document.read_text(encoding="utf-8").splitlines()
    blocks, index = [], 0
    while index < len(lines):
        if lines[index].strip() == "```swift":
            previous = next((line for line in reversed(lines[:index]) if line.strip()), "")
            start = index + 1
            end = start
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            if not previous.strip().startswith(SKIP_MARKER):
                blocks.append(Block(document, start + 1, lines[start:end]))
            index = end + 1
        else:
            index += 1
    return blocks


def brace_delta(line):
    code = LITERALS.sub('""', line).split("//", 1)[0]
    return code.count("{") - code.count("}")


def split(block):
    """Splits a block into imports, declaration chunks and statement chunks, each chunk a list of
    (line number, text)."""
    imports, declarations, statements = [], [], []
    pending_comments = []
    index = 0
    lines = block.lines
    while index < len(lines):
        number, line = block.first_line + index, lines[index]
        if SDK_UNDER_TEST_IMPORT.match(line.strip()):
            index += 1
            continue
        match = IMPORT.match(line.strip())
        if match and not line.startswith((" ", "\t")):
            imports.append((match.group(1) or "", match.group(2)))
            index += 1
            continue
        if line.startswith("//"):
            # A comment at the start of a line belongs to what follows it.
            pending_comments.append((number, line))
            index += 1
            continue
        is_declaration = not line.startswith((" ", "\t")) and (
            DECLARATION.match(line) or ATTRIBUTE_ONLY.match(line)
        )
        chunk = pending_comments + [(number, line)]
        pending_comments = []
        depth = brace_delta(line)
        index += 1
        # An attribute on a line of its own belongs to the declaration below it.
        while is_declaration and ATTRIBUTE_ONLY.match(chunk[-1][1]) and index < len(lines):
            chunk.append((block.first_line + index, lines[index]))
            depth += brace_delta(lines[index])
            index += 1
        # Continue while braces or brackets are open, or the next line is indented (a continuation).
        while index < len(lines) and (
            depth > 0 or (lines[index].startswith((" ", "\t", ")", "]", "}", ".")) and lines[index].strip())
        ):
            chunk.append((block.first_line + index, lines[index]))
            depth += brace_delta(lines[index])
            index += 1
        if any(text.strip() for _, text in chunk):
            (declarations if is_declaration else statements).append(chunk)
    statements.extend([comment] for comment in pending_comments)
    return imports, declarations, statements


def located(document, chunk):
    """The chunk's lines, preceded by a directive that reports errors at their Markdown line."""
    relative = document.relative_to(ROOT) if document.is_relative_to(ROOT) else document
    out, expected = [], None
    for number, text in chunk:
        if number != expected:
            out.append(f'#sourceLocation(file: "{relative}", line: {number})')
        out.append(text.replace("…", "/* … */"))
        expected = number + 1
    out.append("#sourceLocation()")
    return out


def target_name(documents):
    stems = [("Landing" + d.stem) if d.parent.suffix == ".docc" else d.stem for d in documents]
    return "DocExamples" + re.sub(r"\W", "", "".join(stems))


def targets_of(documents):
    """The documents, grouped into targets: a group's members go together, in the group's order,
    with the earlier members added when only a later one was asked for."""
    by_stem = {document.stem: document for document in DEFAULT_DOCUMENTS}
    targets, seen = [], set()
    for document in documents:
        if document in seen:
            continue
        group = next((g for g in GROUPS if document.stem in g), None)
        if group is None:
            targets.append([document])
            seen.add(document)
            continue
        asked = {d.stem for d in documents}
        last = max(group.index(stem) for stem in group if stem in asked)
        members = [by_stem[stem] for stem in group[: last + 1]]
        targets.append(members)
        seen.update(members)
    return targets


def generate(documents, package):
    if package.exists():
        for target in (package / "Tests").glob("*"):
            shutil.rmtree(target)
    (package / "Tests").mkdir(parents=True, exist_ok=True)
    targets, count = [], 0
    for members in targets_of(documents):
        blocks = [block for document in members for block in blocks_of(document)]
        if not blocks:
            continue
        core = all(document.stem in CORE_DOCUMENTS for document in members)
        app_events = all(document.stem in APP_EVENTS_DOCUMENTS for document in members)
        events_only = all(document.stem in EVENTS_ONLY_DOCUMENTS for document in members)
        default_imports = (
            EVENTS_ONLY_IMPORTS if events_only
            else CORE_IMPORTS if core else APP_EVENTS_IMPORTS if app_events else APP_IMPORTS
        )
        name = target_name(members)
        directory = package / "Tests" / name
        directory.mkdir()
        imports, declarations, statements = {}, [], []
        for block in blocks:
            block_imports, block_declarations, block_statements = split(block)
            for access, module in block_imports:
                if access == "public" or module not in imports:
                    imports[module] = access
            declarations += [(block.document, chunk) for chunk in block_declarations]
            statements.append((block.document, block_statements))
            count += 1
        header = [f"{imports.get(module, '')} import {module}".strip() for module in default_imports]
        header += [f"{access} import {module}".strip() for module, access in imports.items() if module not in default_imports]
        body = list(header) + [""]
        for block_document, chunk in declarations:
            body += located(block_document, chunk) + [""]
        (directory / "Declarations.swift").write_text("\n".join(body) + "\n", encoding="utf-8")

        plain = [f"import {module}" for module in default_imports + [m for m in imports if m not in default_imports]]
        body = plain + ["", "@MainActor func examples() async throws {"]
        depth = 0
        for block_document, block_statements in statements:
            body.append("    " * (depth + 1) + "do {")
            depth += 1
            for chunk in block_statements:
                body += located(block_document, chunk)
        body += ["}" * depth, "}"]
        (directory / "Examples.swift").write_text("\n".join(body) + "\n", encoding="utf-8")

        prelude = STUBS / ("PreludeCore.swift" if core or events_only else "Prelude.swift")
        for stub in [prelude] + [STUBS / f"{document.stem}.swift" for document in members]:
            if stub.exists():
                shutil.copy(stub, directory / f"Stub{stub.stem}.swift")
        targets.append((name, EVENTS_ONLY_MODULES if events_only else MODULES))

    dependency = ROOT.name
    manifest = [
        "// swift-tools-version: 6.0",
        "// Generated by Scripts/check-doc-examples.py: the examples of the documentation, compiled.",
        "import PackageDescription",
        "",
        "let settings: [SwiftSetting] = [",
        '    .enableUpcomingFeature("InternalImportsByDefault"),',
        '    .enableUpcomingFeature("ExistentialAny"),',
        "]",
        "let package = Package(",
        '    name: "DocExamples",',
        "    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9)],",
        f'    dependencies: [.package(path: "{ROOT}")],',
        "    targets: [",
    ]
    for name, modules in targets:
        products = ", ".join(f'.product(name: "{module}", package: "{dependency}")' for module in modules)
        manifest.append(f'        .testTarget(name: "{name}", dependencies: [{products}], swiftSettings: settings),')
    manifest += ["    ],", "    swiftLanguageModes: [.v6]", ")"]
    (package / "Package.swift").write_text("\n".join(manifest) + "\n", encoding="utf-8")
    return targets, count


def problems(output):
    """The errors, and the warnings at an example but for unused names, in a compiler's output."""
    lines = list(dict.fromkeys(output.splitlines()))
    errors = [line for line in lines if ": error:" in line]
    warnings = [line for line in lines if ": warning:" in line and ".md:" in line and not EXPECTED_WARNING.search(line)]
    return errors, warnings


def typecheck_with_library_evolution(package, targets):
    """Type-checks each target's files against the interfaces of the products built with library
    evolution, each target finding only those of its products (`targets`: name and products);
    returns the errors and warnings."""
    interfaces = LIBRARY_EVOLUTION / "interfaces"
    if not (interfaces / "SDKEventBusCore.swiftinterface").exists():
        sys.exit(f"no library-evolution interfaces in {interfaces}: run Scripts/check-library-evolution.sh first")
    sdk = []
    if sys.platform == "darwin":
        sdk = ["-sdk", subprocess.run(["xcrun", "--show-sdk-path"], capture_output=True, text=True).stdout.strip()]
    # Each target finds only the interfaces of the products it depends on.
    reachable = package / "interfaces"
    shutil.rmtree(reachable, ignore_errors=True)
    errors, warnings = [], []
    for name, modules in targets:
        search = reachable / name
        search.mkdir(parents=True)
        for module in modules:
            (search / f"{module}.swiftinterface").symlink_to(interfaces / f"{module}.swiftinterface")
        sources = sorted(str(path) for path in (package / "Tests" / name).glob("*.swift"))
        check = subprocess.run(
            [
                "swiftc", "-typecheck", "-parse-as-library", "-swift-version", "6", "-module-name", name,
                "-I", str(search), "-module-cache-path", str(LIBRARY_EVOLUTION / "module-cache"),
                "-enable-upcoming-feature", "InternalImportsByDefault", "-enable-upcoming-feature", "ExistentialAny",
                *sdk, *sources,
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        target_errors, target_warnings = problems(check.stdout + check.stderr)
        if check.returncode != 0 and not target_errors:
            target_errors = [check.stdout + check.stderr]
        errors += target_errors
        warnings += target_warnings
    return errors, warnings


def main():
    arguments = sys.argv[1:]
    scratch = ROOT / ".build-docs"
    if "--scratch-path" in arguments:
        position = arguments.index("--scratch-path")
        scratch = Path(arguments[position + 1]).resolve()
        del arguments[position : position + 2]
    library_evolution = "--library-evolution" in arguments
    arguments = [argument for argument in arguments if argument != "--library-evolution"]
    documents = [Path(argument).resolve() for argument in arguments] or DEFAULT_DOCUMENTS
    package = scratch / "doc-examples-package"
    targets, count = generate(documents, package)
    build = subprocess.run(
        [
            "swift", "build", "--build-tests", "--package-path", str(package), "--scratch-path", str(scratch / "doc-examples"),
            # A module built for another target is in reach of every target otherwise: a document
            # may import only the products its target depends on.
            "--explicit-target-dependency-import-check", "error",
        ],
        capture_output=True,
        text=True,
    )
    output = build.stdout + build.stderr
    errors, warnings = problems(output)
    if build.returncode != 0:
        print("\n".join(errors) if errors else output)
        sys.exit(f"the documentation's examples do not compile (generated package: {package})")
    if warnings:
        print("\n".join(warnings))
        sys.exit(f"the documentation's examples compile with warnings (generated package: {package})")
    print(f"{count} examples in {len(targets)} documents compile")
    if library_evolution:
        errors, warnings = typecheck_with_library_evolution(package, targets)
        if errors or warnings:
            print("\n".join(errors + warnings))
            sys.exit(
                "the documentation's examples do not compile warning-free against the products built with "
                f"library evolution, as a binary SDK's code does (generated package: {package})")
        print("and type-check warning-free against the products built with library evolution")


if __name__ == "__main__":
    main()
