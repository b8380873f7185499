#!/usr/bin/env python3
"""Fails when the testing library reaches a `package` declaration of a shipped module that only it
needs: test hooks go through `@_spi(Testing)`, not the shipped modules' package surface.

Usage: Scripts/check-testing-spi.py [--no-build | --self-test]

The shipped modules (SDKEventBusCore, SDKEventBusWire, SDKEventBusConfig, SDKEventBusAppEvents,
SDKEventBusTimeline, SDKEventBus) keep `package` for what they share with each other. What the testing library, in its
two modules (Sources/SDKEventBusCoreTesting, on the core alone, and Sources/SDKEventBusTesting), and
the flag SDK's tests (Tests/CustomCatalogTests, which take no `@testable import`) need of them
beyond the public API is `@_spi(Testing) public`, imported with `@_spi(Testing) import`. This
type-checks each as another package's code would (another `-package-name`), so that every `package`
declaration of the shipped modules is out of reach, and fails on each one they use, except the
production-shared ones in SHARED below. The testing library's two modules share their waits with
`package` declarations of SDKEventBusCoreTesting, which ships in no SDK: SDKEventBusTesting may use
those.

Limits: a use that the compiler cannot type-check for another reason first (inside a closure over a
`LockedValue`, whose type it then cannot infer) goes unreported; such errors are not counted.
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {
    "SDKEventBusCoreTesting": ROOT / "Sources" / "SDKEventBusCoreTesting",
    "SDKEventBusTesting": ROOT / "Sources" / "SDKEventBusTesting",
    "CustomCatalogTests": ROOT / "Tests" / "CustomCatalogTests",
}
# The testing library's module whose `package` declarations its other module builds on.
TESTING_CORE = ROOT / "Sources" / "SDKEventBusCoreTesting"
PACKAGE_DECLARATION = re.compile(
    r"^\s*package\s+(?:(?:static|final|mutating|nonisolated)\s+)*"
    r"(?:func|var|let|struct|class|enum|actor|protocol|typealias)\s+(\w+)",
    re.M,
)
# `package` declarations of the shipped modules that the engine shares between its modules in
# production, and that the testing library builds on as they are.
SHARED = {
    # SDKEventBusCore's lock, which every module of the package guards its state with.
    "LockedValue",
    # TypedPayload.eventSlip(in:), the message of the check that the typed `fire` inlines into
    # every caller (Docs/ABI.md); `package` because a public inlinable body calls it.
    "eventSlip",
}
REACHES = re.compile(
    r"^(?P<file>[^:\s]+):(?P<line>\d+):\d+: error: (?:cannot find (?:type )?'(?P<missing>\w+)' in scope|"
    r"'(?P<package>\w+)' is inaccessible due to 'package' protection level)"
)
FEATURES = ["ExistentialAny", "MemberImportVisibility", "InternalImportsByDefault", "NonisolatedNonsendingByDefault"]


def run(*arguments):
    return subprocess.run(arguments, text=True, capture_output=True, cwd=ROOT)


def testing_core_names():
    """The `package` declarations of SDKEventBusCoreTesting, which SDKEventBusTesting builds on."""
    return {name for path in TESTING_CORE.rglob("*.swift") for name in PACKAGE_DECLARATION.findall(path.read_text())}


def reached(output, allowed=frozenset()):
    """(file:line, declaration) of each shipped `package` declaration `output` says was reached and
    is not in SHARED or `allowed`."""
    found = []
    for line in output.splitlines():
        match = REACHES.match(line)
        if not match:
            continue
        name = match.group("missing") or match.group("package")
        if name not in SHARED and name not in allowed:
            found.append((f"{match.group('file')}:{match.group('line')}", name))
    return sorted(set(found))


def self_test():
    output = "\n".join([
        "Sources/SDKEventBusTesting/A.swift:3:9: error: cannot find 'LockedValue' in scope",
        "Sources/SDKEventBusTesting/A.swift:4:9: error: cannot find type 'ReadinessGateWatcher' in scope",
        "Sources/SDKEventBusTesting/B.swift:5:3: error: 'waiterCount' is inaccessible due to 'package' protection level",
        "Sources/SDKEventBusTesting/B.swift:6:3: error: 'eventSlip' is inaccessible due to 'package' protection level",
        "Sources/SDKEventBusTesting/C.swift:7:1: error: cannot infer key path type from context",
        "    |   `- error: cannot find 'Ignored' in scope",
    ])
    expected = [
        ("Sources/SDKEventBusTesting/A.swift:4", "ReadinessGateWatcher"),
        ("Sources/SDKEventBusTesting/B.swift:5", "waiterCount"),
    ]
    found = reached(output)
    if found != expected:
        print(f"self-test: found {found}, expected {expected}")
        return 1
    shared = testing_core_names()
    if not {"BoundedWaiters", "RecordingLog", "boundedWait", "sampleChecks"} <= shared:
        print(f"self-test: the package declarations of SDKEventBusCoreTesting read as {sorted(shared)}")
        return 1
    output = "Sources/SDKEventBusTesting/D.swift:8:9: error: cannot find type 'BoundedWaiters' in scope"
    if reached(output, shared) or not reached(output):
        print("self-test: SDKEventBusCoreTesting's package declarations are not told apart")
        return 1
    print("self-test passed")
    return 0


def main():
    if "--self-test" in sys.argv:
        return self_test()
    if "--no-build" not in sys.argv:
        for target in TARGETS:
            build = run("swift", "build", "--target", target)
            if build.returncode != 0:
                print(build.stdout + build.stderr)
                return 1
    bin_path = Path(run("swift", "build", "--show-bin-path").stdout.strip())
    failures = []
    for module, directory in TARGETS.items():
        sources = sorted(str(path) for path in directory.rglob("*.swift"))
        sources += [str(path) for path in (bin_path / f"{module}.build").rglob("resource_bundle_accessor.swift")]
        arguments = [
            "swiftc", "-typecheck", "-wmo", "-parse-as-library", "-swift-version", "6", "-enable-testing",
            "-I", str(bin_path / "Modules"),
            "-Xcc", f"-fmodule-map-file={bin_path / '_SDKEventBusAtomics.build' / 'module.modulemap'}",
            # Another package: the shipped modules' `package` declarations are out of reach.
            "-package-name", "another_package", "-module-name", module,
        ]
        for feature in FEATURES:
            arguments += ["-enable-upcoming-feature", feature]
        result = run(*arguments, *sources)
        output = (result.stdout + result.stderr).replace(str(ROOT) + "/", "")
        allowed = testing_core_names() if module == "SDKEventBusTesting" else frozenset()
        failures += [(module, place, name) for place, name in reached(output, allowed)]
    if failures:
        print("The testing library reaches package declarations of the shipped modules that only it needs:")
        for module, place, name in failures:
            print(f"  {place}: {name} ({module})")
        print("Make each `@_spi(Testing) public` (and import it with `@_spi(Testing) import`), move it into "
              "the testing library, or, if the shipped modules share it in production, add it to SHARED with why.")
        return 1
    print("The testing library reaches the shipped modules through their public and @_spi(Testing) API, "
          f"and the production-shared {', '.join(sorted(SHARED))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
