#!/usr/bin/env python3
"""Proves on Linux that the library modules run at the Apple platform floors Package.swift declares.

Usage:
    Scripts/check-availability.py [--floor PLATFORM=VERSION[,…] ...] [--max-public PLATFORM=VERSION[,…] ...]
                                  [--module NAME ...] [--no-build] [--output FILE] [--list-sdk]
                                  [--package-path PATH]
    Scripts/check-availability.py --self-test

There is no Apple toolchain here, but the Linux toolchain's own interfaces still carry the Apple
availability of every standard-library declaration (`Clock` is `@available(macOS 13, iOS 16, …)` on
Linux too), and the type-checked AST names every declaration and type the package's code uses. So:

1. `swift-symbolgraph-extract` gives each public symbol of Swift, _Concurrency, Synchronization,
   Observation and _StringProcessing, and of the Linux Foundation and Dispatch, with its availability
   per platform; a member without its own inherits its type's or extension's. Cached under
   .build/availability-check/.
2. `swiftc -dump-ast -dump-ast-format json` of each library module (built first, so its dependencies
   are found) gives every referenced declaration's USR, every type (mangled), every `@available`
   attribute and every `#available` condition.
3. For every use of a declaration or type, the availability context at that point is the declared
   floor, raised by the `@available` of the enclosing declarations and by enclosing
   `if #available` / `guard #available` regions. A use that needs more than its context is a
   violation. References to the package's own `@available` declarations are checked the same way.
4. Foundation on Linux is only partly annotated (swift-foundation's FoundationEssentials mostly is;
   swift-corelibs-foundation and FoundationNetworking mostly are not), so every Foundation or
   Dispatch API the package uses without availability in the Linux symbol graph must be listed in
   SDK_FLOORS below with its Apple floor; an unlisted one fails the check.
5. Some features compile here but need a newer Swift runtime on Apple platforms (RUNTIME_FEATURES
   below); what the AST shows is detected, the rest is listed for review.
6. With --max-public, public declarations whose own `@available` exceeds the given floors are
   reported, unless ALLOWED_ABOVE_MAX_PUBLIC names them with a reason.

Floors default to Package.swift's `platforms`; `--floor iOS=13 --floor macOS=10.15 …` overrides them
for one run (to list what must change before lowering them). Modules default to the Swift targets of
the package's library products. Code the Linux compiler never sees (`#if canImport(UIKit)`, `#if
canImport(Darwin)`, …) cannot be checked this way; it is listed at the end for review by hand.

Exit status: 0 when nothing is above its context, 1 on violations, 2 when the check could not run.
See Docs/Platforms.md.
"""

import argparse
import bisect
import collections
import concurrent.futures
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE_FORMAT = 3

PLATFORMS = ("iOS", "macOS", "tvOS", "watchOS")
SWIFTPM_PLATFORM_NAMES = {"ios": "iOS", "macos": "macOS", "tvos": "tvOS", "watchos": "watchOS"}
# SwiftPM's deployment targets for a platform Package.swift does not name (tools version 5.9 and later).
SWIFTPM_DEFAULT_FLOORS = {"iOS": (12, 0, 0), "macOS": (10, 13, 0), "tvOS": (12, 0, 0), "watchOS": (4, 0, 0)}
NEVER = (9999, 0, 0)  # the version of a platform on which a context never runs (`@available(watchOS, unavailable)`)

# Modules whose Linux interfaces carry Apple availability (the standard library and its siblings).
STDLIB_MODULES = ("Swift", "_Concurrency", "Synchronization", "Observation", "_StringProcessing")
# Apple SDK modules as Linux spells them; availability from their symbol graph where present, else SDK_FLOORS.
SDK_MODULES = (
    "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking", "Dispatch"
)

# The OS releases that ship each Swift runtime (utils/availability-macros.def in the Swift repository).
SWIFT_RUNTIME = {
    "5.1": "iOS 13, macOS 10.15, tvOS 13, watchOS 6",
    "5.2": "iOS 13.4, macOS 10.15.4, tvOS 13.4, watchOS 6.2",
    "5.3": "iOS 14, macOS 11, tvOS 14, watchOS 7",
    "5.4": "iOS 14.5, macOS 11.3, tvOS 14.5, watchOS 7.4",
    "5.5": "iOS 15, macOS 12, tvOS 15, watchOS 8",
    "5.6": "iOS 15.4, macOS 12.3, tvOS 15.4, watchOS 8.5",
    "5.7": "iOS 16, macOS 13, tvOS 16, watchOS 9",
    "5.8": "iOS 16.4, macOS 13.3, tvOS 16.4, watchOS 9.4",
    "5.9": "iOS 17, macOS 14, tvOS 17, watchOS 10",
    "5.10": "iOS 17.4, macOS 14.4, tvOS 17.4, watchOS 10.4",
    "6.0": "iOS 18, macOS 15, tvOS 18, watchOS 11",
    "6.1": "iOS 18.4, macOS 15.4, tvOS 18.4, watchOS 11.4",
    "6.2": "iOS 26, macOS 26, tvOS 26, watchOS 26",
}

# Language features that compile on Linux but need a newer Swift runtime on Apple platforms (the
# compiler's own list is include/swift/AST/FeatureAvailability.def; its checks are in
# lib/Sema/TypeCheckAvailability.cpp). `detected`: "ast" (this script finds it in the AST),
# "symbols" (an API: the symbol-graph check finds it), or "review" (listed, checked by hand).
RUNTIME_FEATURES = {
    # Type metadata the runtime cannot build before the given version. The compiler checks the
    # metadata of a conversion to an existential, of a cast, and of a type named as a value
    # (`Fn.self`); this script also flags these function types as generic arguments
    # (`[() throws(E) -> Void]`, `LockedValue<() throws(E) -> T>`), where the metadata is needed too.
    "typed-throws-metadata": {"runtime": "6.0", "detected": "ast", "what": "metadata of a typed-throws function type"},
    "isolated-any-metadata": {
        "runtime": "6.0", "detected": "ast", "what": "metadata of an @isolated(any) function type"
    },
    "parameterized-existential-metadata": {
        "runtime": "5.7",
        "detected": "ast",
        "what": "metadata of a parameterized existential (`any Clock<Duration>`): converted, cast, named as a value "
        "or a generic argument (`[any P<T>]`; `(any P<T>)?` needs none)",
    },
    "variadic-generic-type": {
        "runtime": "5.9",
        "detected": "ast",
        "what": "a generic type with a parameter pack (`struct S<each T>`; variadic generic functions need nothing)",
    },
    "value-generic-type": {
        "runtime": "6.2", "detected": "ast", "what": "a generic type with a value parameter (SE-0452)"
    },
    "isolated-deinit": {"runtime": "6.1", "detected": "ast", "what": "`isolated deinit` (SE-0371)"},
    # Compiles and runs, but before the 6.2 runtime a dynamic cast (`as? any P`) ignores the isolation.
    "isolated-conformance": {
        "runtime": "6.2", "detected": "ast", "what": "a global-actor-isolated conformance (SE-0470)"
    },
    # APIs: the symbol-graph check finds them like any other declaration.
    "Task.immediate": {"runtime": "6.2", "detected": "symbols", "what": "`Task.immediate` (SE-0472)"},
    "Mutex/Atomic": {"runtime": "6.0", "detected": "symbols", "what": "`Synchronization.Mutex`, `Atomic`"},
    "task-executor-preference": {
        "runtime": "6.0",
        "detected": "symbols",
        "what": "`withTaskExecutorPreference`, `TaskExecutor`, `Task(executorPreference:)`",
    },
    "Observation": {"runtime": "5.9", "detected": "symbols", "what": "`@Observable`, `withObservationTracking`"},
    "Clock/Duration": {"runtime": "5.7", "detected": "symbols", "what": "`Clock`, `ContinuousClock`, `Duration`"},
    # Not detected: reviewed by hand.
    "noncopyable-generic-casts": {
        "runtime": "6.0",
        "detected": "review",
        "what": "a dynamic cast of a generic type instantiated with a `~Copyable`/`~Escapable` argument",
    },
    # No runtime floor. SE-0461 changes the calling convention only (an implicit isolation argument;
    # adopting it on an existing resilient function is an ABI break, which an unreleased package does
    # not have), FeatureAvailability.def has no entry for it, and the compiler's metadata checks do
    # not include these function types.
    "nonisolated(nonsending), @concurrent": {"runtime": None, "detected": "review", "what": "no runtime floor"},
    "sending, region isolation, #isolation, weak let": {
        "runtime": None, "detected": "review", "what": "no runtime floor"
    },
}

# Apple floors of the Foundation and Dispatch APIs the package uses whose Linux declarations carry no
# Apple availability (swift-corelibs-foundation, FoundationNetworking, Dispatch, and the parts of
# swift-foundation without `@available`). Keys are the API's path in the Linux symbol graph; an entry
# for a type (`"JSONDecoder"`) covers only the type's name used in a signature, not its members.
# Floors are the Apple SDK's ("iOS 2" means as old as the platform). `--list-sdk` prints every
# Foundation or Dispatch API the package uses and where its floor came from.
OLD = "iOS 2, macOS 10.0, tvOS 9, watchOS 2"  # Foundation classes as old as each platform's SDK
OVERLAY = "iOS 8, macOS 10.10, tvOS 9, watchOS 2"  # the Swift overlay's value types and methods (Swift 3/4 era)
URL_SESSION = "iOS 7, macOS 10.9, tvOS 9, watchOS 2"
SDK_FLOORS = {
    # Dispatch (a Swift overlay on Apple platforms): the timer behind the HTTP request deadline.
    "+ infix(DispatchTime, Double) -> DispatchTime": (OVERLAY, "DispatchTime arithmetic"),
    "DispatchSource": (OVERLAY, ""),
    "DispatchSource.makeTimerSource(flags:queue:)": (OVERLAY, ""),
    "DispatchSourceProtocol.cancel()": (OVERLAY, ""),
    "DispatchSourceProtocol.resume()": (OVERLAY, ""),
    "DispatchSourceProtocol.setEventHandler(qos:flags:handler:)": (OVERLAY, ""),
    "DispatchSourceTimer": (OVERLAY, ""),
    "DispatchSourceTimer.schedule(deadline:repeating:leeway:)": (OVERLAY, "the Swift 4 spelling, same floor"),
    "DispatchTime.now()": (OVERLAY, ""),
    # Strings, dates and errors.
    "CharacterSet": (OVERLAY, ""),
    "CharacterSet.inverted": (OVERLAY, ""),
    "CharacterSet.whitespaces": (OVERLAY, ""),
    "StringProtocol.rangeOfCharacter(from:options:range:)": (OVERLAY, "Foundation's StringProtocol extension"),
    "StringProtocol.trimmingCharacters(in:)": (OVERLAY, "Foundation's StringProtocol extension"),
    "Error.localizedDescription": (OVERLAY, "Foundation's Error extension"),
    "DateFormatter": (OLD, "NSDateFormatter"),
    "DateFormatter.date(from:)": (OLD, ""),
    "DateFormatter.dateFormat": (OLD, ""),
    "DateFormatter.locale": (OLD, ""),
    "DateFormatter.timeZone": (OLD, ""),
    "JSONSerialization": ("iOS 5, macOS 10.7, tvOS 9, watchOS 2", "NSJSONSerialization"),
    "JSONSerialization.jsonObject(with:options:)": ("iOS 5, macOS 10.7, tvOS 9, watchOS 2", ""),
    # The timeline's Trace Event Format export, and the engine's firing thread.
    "JSONSerialization.data(withJSONObject:options:)": ("iOS 5, macOS 10.7, tvOS 9, watchOS 2", ""),
    "JSONSerialization.WritingOptions.prettyPrinted": ("iOS 5, macOS 10.7, tvOS 9, watchOS 2", ""),
    "JSONSerialization.WritingOptions.sortedKeys": ("iOS 11, macOS 10.13, tvOS 11, watchOS 4", ""),
    "Thread": (OLD, "NSThread"),
    "Thread.isMainThread": ("iOS 2, macOS 10.5, tvOS 9, watchOS 2", "the class property"),
    "NSObjectProtocol": (OLD, ""),
    "NotificationCenter": (OLD, ""),
    "NotificationCenter.default": (OLD, ""),
    "NotificationCenter.removeObserver(_:)": (OLD, ""),
    "NotificationCenter.addObserver(forName:object:queue:using:)": (
        "iOS 4, macOS 10.6, tvOS 9, watchOS 2", "block-based observers"),
    "Notification": (OVERLAY, "the overlay's value type for NSNotification"),
    "NSNotification.Name": (OVERLAY, "Notification.Name"),
    "NSNotification.Name.init(_:)": (OVERLAY, ""),
    # Files: the configuration cache.
    "FileAttributeKey.modificationDate": (OLD, "NSFileModificationDate"),
    "FileManager": (OLD, ""),
    "FileManager.attributesOfItem(atPath:)": (OLD, ""),
    "FileManager.createDirectory(at:withIntermediateDirectories:attributes:)": (
        "iOS 5, macOS 10.7, tvOS 9, watchOS 2", ""
    ),
    "FileManager.default": (OLD, ""),
    "FileManager.fileExists(atPath:)": (OLD, ""),
    "FileManager.removeItem(at:)": ("iOS 4, macOS 10.6, tvOS 9, watchOS 2", "deleting a corrupt cache"),
    # HTTP: the fetch service. (The async URLSession methods, `data(for:)` and friends, are iOS 15; the
    # Linux symbol graph has their availability, so they need no entry.)
    "HTTPURLResponse": (OLD, ""),
    "HTTPURLResponse.localizedString(forStatusCode:)": (OLD, ""),
    "HTTPURLResponse.statusCode": (OLD, ""),
    "HTTPURLResponse.value(forHTTPHeaderField:)": ("iOS 13, macOS 10.15, tvOS 13, watchOS 6", "newer than its class"),
    "NSURLRequest.CachePolicy.reloadIgnoringLocalCacheData": (OLD, ""),
    "URLError": (OVERLAY, ""),
    "URLError.Code.badServerResponse": (OVERLAY, ""),
    "URLRequest": (OVERLAY, ""),
    "URLRequest.cachePolicy": (OVERLAY, ""),
    "URLRequest.httpMethod": (OVERLAY, ""),
    "URLRequest.setValue(_:forHTTPHeaderField:)": (OVERLAY, ""),
    "URLRequest.timeoutInterval": (OVERLAY, ""),
    "URLResponse": (OLD, ""),
    "URLResponse.expectedContentLength": (OLD, ""),
    "URLSession": (URL_SESSION, ""),
    "URLSessionConfiguration.ephemeral": (URL_SESSION, ""),
    "URLSessionDataTask": (URL_SESSION, ""),
    "URLSessionTask.resume()": (URL_SESSION, ""),
    # The delegate-driven transfer that bounds a body as it arrives (HTTPTransferSession): the
    # delegate protocols and their dispositions are as old as URLSession, and so is cancelling a
    # task from a dispatch queue.
    "DispatchQueue": (OVERLAY, ""),
    "DispatchQueue.async(group:qos:flags:execute:)": (OVERLAY, ""),
    "Operation": (OLD, "NSOperation (iOS 2, macOS 10.5)"),
    "Operation.start()": (OLD, ""),
    "URLAuthenticationChallenge": (OLD, "NSURLAuthenticationChallenge"),
    "URLCredential": (OLD, "NSURLCredential"),
    "URLSession.AuthChallengeDisposition": (URL_SESSION, ""),
    "URLSession.AuthChallengeDisposition.performDefaultHandling": (URL_SESSION, ""),
    "URLSession.ResponseDisposition": (URL_SESSION, ""),
    "URLSession.ResponseDisposition.allow": (URL_SESSION, ""),
    "URLSession.ResponseDisposition.cancel": (URL_SESSION, ""),
    "URLSession.configuration": (URL_SESSION, ""),
    "URLSession.dataTask(with:)": (URL_SESSION, ""),
    "URLSession.delegate": (URL_SESSION, ""),
    "URLSession.delegateQueue": (URL_SESSION, ""),
    "URLSession.finishTasksAndInvalidate()": (URL_SESSION, ""),
    "URLSessionDataDelegate": (URL_SESSION, ""),
    "URLSessionTask": (URL_SESSION, ""),
    "URLSessionTask.cancel()": (URL_SESSION, ""),
    "URLSessionTask.taskIdentifier": (URL_SESSION, ""),
    "URLSessionTaskDelegate.urlSession(_:task:didReceive:completionHandler:)": (URL_SESSION, ""),
}

# Apple APIs worth flagging in code the Linux compiler never sees (see apple_only_regions): a regular
# expression over the source, the API, and its Apple floors. Matches are printed for review with
# the floors; they do not fail the check, because without an AST the enclosing #available is unknown.
APPLE_ONLY_APIS = [
    (r"\bisLowPowerModeEnabled\b", "ProcessInfo.isLowPowerModeEnabled", "iOS 9, macOS 12, tvOS 9, watchOS 2"),
    (r"\.NSProcessInfoPowerStateDidChange\b", "NSProcessInfoPowerStateDidChange", "iOS 9, macOS 12, tvOS 9, watchOS 2"),
    (r"\bUIApplication\.(willEnterForeground|didEnterBackground)Notification\b",
     "UIApplication lifecycle notifications", "iOS 4, tvOS 9"),
    (r"\bos_unfair_lock", "os_unfair_lock", "iOS 10, macOS 10.12, tvOS 10, watchOS 3"),
    (r"\bclock_gettime_nsec_np\b", "clock_gettime_nsec_np", "iOS 10, macOS 10.12, tvOS 10, watchOS 3"),
    (r"\bCLOCK_MONOTONIC_RAW\b", "CLOCK_MONOTONIC_RAW", "iOS 10, macOS 10.12, tvOS 10, watchOS 3"),
    (r"\bOSAllocatedUnfairLock\b", "OSAllocatedUnfairLock", "iOS 16, macOS 13, tvOS 16, watchOS 9"),
    (r"\bLogger\(", "os.Logger", "iOS 14, macOS 11, tvOS 14, watchOS 7"),
    (r"\.notifications\(named:", "NotificationCenter.notifications(named:object:)",
     "iOS 15, macOS 12, tvOS 15, watchOS 8"),
    (r"\.(data|bytes|upload|download)\((for|from):", "async URLSession methods",
     "iOS 15, macOS 12, tvOS 15, watchOS 8"),
    (r"\.formatted\(", "formatted()", "iOS 15, macOS 12, tvOS 15, watchOS 8"),
    (r"\bDate\.now\b", "Date.now", "iOS 15, macOS 12, tvOS 15, watchOS 8"),
    (r"\bappending\(path:", "URL.appending(path:)", "iOS 16, macOS 13, tvOS 16, watchOS 9"),
    (r"\b(ContinuousClock|SuspendingClock|Duration)\b", "Clock/Duration", "iOS 16, macOS 13, tvOS 16, watchOS 9"),
]

# Public declarations allowed to require more than --max-public, and up to what. `match` is a regular
# expression searched in the demangled declaration (`SDKEventBus.ObservableSDKStatus.isReady : Swift.Bool`).
ALLOWED_ABOVE_MAX_PUBLIC = [
    {
        "match": r"\bObservableSDKStatus\b",
        "up_to": "iOS 17, macOS 14, tvOS 17, watchOS 10",
        "reason": "the @Observable status model needs the Observation module (iOS 17)",
    },
    {
        "match": r"_Concurrency\.Clock\b",
        "up_to": "iOS 16, macOS 13, tvOS 16, watchOS 9",
        "reason": "overloads that take a custom Clock need Clock (iOS 16)",
    },
]

# The positions of a declaration whose types are part of its signature.
SIGNATURE_TYPE_KEYS = ("result", "thrown_type", "extended_type", "superclass_type", "raw_type")
DECL_KINDS_WITHOUT_SUFFIX = {"protocol", "typealias"}
# Keys holding an unchecked copy of an expression (the type-checked one is beside it).
UNCHECKED_KEYS = {"original_init", "parsed_path", "parsed_sequence", "parsed_expr"}
QUALIFIED_NAME = re.compile(
    r"\b(" + "|".join(re.escape(m) for m in STDLIB_MODULES + SDK_MODULES) + r")\.([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)"
)

class CheckError(Exception):
    """The check could not run (exit status 2)."""


# Versions and contexts ------------------------------------------------------------------------


def parse_version(text):
    """"10.15" -> (10, 15, 0): every version has three parts, so that tuples compare as versions do."""
    parts = [int(part) for part in str(text).split(".")][:3]
    return tuple(parts + [0] * (3 - len(parts)))


def show_version(version):
    if version == NEVER:
        return "never"
    parts = list(version)
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return ".".join(map(str, parts))


def parse_floors(text):
    """"iOS 16, macOS 13" -> {"iOS": (16, 0, 0), "macOS": (13, 0, 0)}."""
    floors = {}
    for item in text.split(","):
        platform, version = item.split()
        floors[platform] = parse_version(version)
    return floors


def show_floors(floors):
    return ", ".join(f"{p} {show_version(floors[p])}" for p in PLATFORMS if p in floors)


def raised(context, requirement):
    """The context inside a region that requires `requirement`."""
    if not requirement:
        return context
    merged = dict(context)
    for platform, version in requirement.items():
        if version > merged.get(platform, (0, 0, 0)):
            merged[platform] = version
    return merged


def exceeds(requirement, context):
    """The platforms on which `requirement` is above `context`."""
    return [p for p in PLATFORMS if p in requirement and requirement[p] > context.get(p, (0, 0, 0))]


def parse_setting_pairs(arguments, option):
    """["iOS=13", "macOS=10.15,tvOS=13"] -> {"iOS": (13, 0, 0), "macOS": (10, 15, 0), "tvOS": (13, 0, 0)}."""
    floors = {}
    for pair in (p.strip() for argument in arguments or [] for p in argument.split(",") if p.strip()):
        platform, _, version = pair.partition("=")
        name = {p.lower(): p for p in PLATFORMS}.get(platform.lower())
        if not name or not version:
            raise CheckError(f"{option} takes PLATFORM=VERSION with PLATFORM one of {', '.join(PLATFORMS)}: {pair}")
        floors[name] = parse_version(version)
    return floors


RUNTIME_FLOORS = {
    name: parse_floors(SWIFT_RUNTIME[feature["runtime"]])
    for name, feature in RUNTIME_FEATURES.items() if feature["runtime"]
}
SDK_FLOOR_TABLE = {key: parse_floors(value[0]) for key, value in SDK_FLOORS.items()}


# Tools ----------------------------------------------------------------------------------------


def run(arguments, cwd=ROOT, check=True, input=None):
    result = subprocess.run(arguments, cwd=cwd, capture_output=True, text=True, input=input)
    if check and result.returncode != 0:
        raise CheckError(f"{' '.join(map(str, arguments))} failed:\n{result.stderr}{result.stdout}")
    return result


def compiler_identity():
    info = json.loads(run(["swift", "-print-target-info"]).stdout)
    return info["compilerVersion"], info["target"]["unversionedTriple"]


def demangle(strings):
    """Mangled names (types `$s…D`, declaration USRs `s:…`) -> readable text, one process for all."""
    strings = sorted(set(strings))
    if not strings:
        return {}
    inputs = ["$s" + s[2:] if s.startswith("s:") else s for s in strings]
    output = run(["swift-demangle", "--compact", "--no-sugar"], input="\n".join(inputs) + "\n").stdout.splitlines()
    if len(output) != len(strings):
        raise CheckError("swift-demangle did not answer one line per name")
    return dict(zip(strings, output))


# Symbol graphs ---------------------------------------------------------------------------------


def symbol_availability(symbol):
    found = {}
    for entry in symbol.get("availability", []):
        domain = entry.get("domain")
        if domain not in PLATFORMS:
            continue
        if entry.get("isUnconditionallyUnavailable") or "obsoleted" in entry:
            found[domain] = NEVER
        elif "introduced" in entry:
            v = entry["introduced"]
            found[domain] = (v.get("major", 0), v.get("minor", 0), v.get("patch", 0))
    return found


def symbol_table(modules, triple, work, search_paths=(), access="public"):
    """{"symbols": USR -> [readable path, group, {platform: version}], "types": "group:path" -> USR} for
    `modules` ([(module, group)]), a member inheriting its type's or extension's availability."""

    def extract(item):
        module, _ = item
        out = work / module
        out.mkdir(parents=True)
        arguments = ["swift-symbolgraph-extract", "-module-name", module, "-target", triple, "-output-dir", out,
                     "-minimum-access-level", access, "-skip-synthesized-members", "-skip-inherited-docs"]
        for path in search_paths:
            arguments += ["-I", path]
        run(arguments)
        return item, out

    symbols, parents = {}, {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for (module, group), out in pool.map(extract, modules):
            for file in sorted(out.glob("*.symbols.json")):
                graph = json.loads(file.read_text())
                for symbol in graph["symbols"]:
                    usr = symbol["identifier"]["precise"]
                    if usr not in symbols:
                        symbols[usr] = {
                            "path": ".".join(symbol["pathComponents"]),
                            "kind": symbol["kind"]["identifier"],
                            "group": group,
                            "own": symbol_availability(symbol),
                        }
                for relation in graph["relationships"]:
                    if relation["kind"] in ("memberOf", "requirementOf", "optionalRequirementOf"):
                        parents.setdefault(relation["source"], relation["target"])

    def effective(usr, seen=()):
        symbol = symbols.get(usr)
        if symbol is None or usr in seen:
            return {}
        result = dict(symbol["own"])
        parent = parents.get(usr)
        if parent:
            for platform, version in effective(parent, seen + (usr,)).items():
                if version > result.get(platform, (0, 0, 0)):
                    result[platform] = version
        return result

    table = {
        "symbols": {
            usr: [s["path"], s["group"], {p: list(v) for p, v in effective(usr).items()}] for usr, s in symbols.items()
        },
        "types": {},
    }
    type_kinds = ("swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.typealias",
                  "swift.associatedtype")
    for usr, s in symbols.items():
        if s["kind"] in type_kinds:
            table["types"].setdefault(s["group"] + ":" + s["path"], usr)
    return table


def extract_symbol_graphs(triple, cache_dir):
    """The symbol table of the standard library and the Linux SDK, cached per compiler."""
    compiler, _ = compiler_identity()
    key = hashlib.sha256(
        json.dumps([CACHE_FORMAT, compiler, triple, STDLIB_MODULES, SDK_MODULES]).encode()
    ).hexdigest()[:16]
    cache = cache_dir / f"symbols-{key}.json"
    if cache.exists():
        return json.loads(cache.read_text())
    work = Path(tempfile.mkdtemp(prefix="symbols-", dir=cache_dir))
    try:
        modules = [(m, "stdlib") for m in STDLIB_MODULES] + [(m, "sdk") for m in SDK_MODULES]
        table = symbol_table(modules, triple, work)
        cache.write_text(json.dumps(table))
        for stale in cache_dir.glob("symbols-*.json"):
            if stale != cache:
                stale.unlink()
        return table
    finally:
        shutil.rmtree(work, ignore_errors=True)


def dependency_declarations(modules, triple, cache_dir):
    """USR -> availability of the declarations of the package's modules that checked modules import but
    this run does not walk (with --module), from their symbol graphs."""
    checked = {m.name for m in modules}
    unchecked = sorted({d for m in modules for d in m.swift_dependencies} - checked)
    if not unchecked:
        return {}, set()
    bin_path = modules[0].bin_path
    search_paths = [bin_path / "Modules"] + [bin_path / f"{c}.build" for m in modules for c in m.clang_dependencies]
    work = Path(tempfile.mkdtemp(prefix="dependencies-", dir=cache_dir))
    try:
        table = symbol_table([(name, "package") for name in unchecked], triple, work, search_paths, "package")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    declarations = {usr: {p: tuple(v) for p, v in floors.items()} for usr, (_, _, floors) in table["symbols"].items()}
    return declarations, set(table["types"].values())


# The package ----------------------------------------------------------------------------------


class Module:
    def __init__(self, name, directory, sources, flags, swift_dependencies=(), clang_dependencies=(), bin_path=None):
        self.name = name
        self.directory = directory
        self.sources = sources
        self.flags = flags
        self.swift_dependencies = swift_dependencies
        self.clang_dependencies = clang_dependencies
        self.bin_path = bin_path


def package_description(root):
    manifest = json.loads(run(["swift", "package", "dump-package"], cwd=root).stdout)
    described = json.loads(run(["swift", "package", "describe", "--type", "json"], cwd=root).stdout)
    return manifest, described


def declared_floors(manifest):
    floors = dict(SWIFTPM_DEFAULT_FLOORS)
    for entry in manifest.get("platforms", []):
        name = SWIFTPM_PLATFORM_NAMES.get(entry["platformName"])
        if name:
            floors[name] = parse_version(entry["version"])
    return floors


def swift_flags(manifest_target, language_mode):
    flags = ["-swift-version", language_mode]
    for setting in manifest_target.get("settings", []):
        if setting.get("tool") != "swift":
            continue
        condition = setting.get("condition") or {}
        if condition.get("platformNames") and "linux" not in condition["platformNames"]:
            continue
        if condition.get("config") == "release":
            continue
        (kind, value), = setting["kind"].items()
        argument = value.get("_0") if isinstance(value, dict) else None
        if kind == "enableUpcomingFeature":
            flags += ["-enable-upcoming-feature", argument]
        elif kind == "enableExperimentalFeature":
            flags += ["-enable-experimental-feature", argument]
        elif kind == "define":
            flags += ["-D", argument]
        elif kind == "unsafeFlags":
            flags += list(argument)
        elif kind == "swiftLanguageMode":
            flags[1] = argument
        elif kind == "defaultIsolation":
            flags += ["-default-isolation", argument]
        elif kind == "strictMemorySafety":
            flags += ["-strict-memory-safety"]
        else:
            print(f"note: the Swift setting {kind} of {manifest_target['name']} is not passed to the AST dump")
    return flags


def package_name(root, bin_path):
    """The -package-name SwiftPM passes: the root package's identity."""
    description = bin_path / "description.json"
    if description.exists():
        for arguments in json.loads(description.read_text()).get("swiftTargetScanArgs", {}).values():
            if "-package-name" in arguments:
                return arguments[arguments.index("-package-name") + 1]
    return root.name.lower()


def library_modules(root, manifest, described, bin_path, requested):
    """The Swift modules to check, with the flags their AST dump needs."""
    targets = {t["name"]: t for t in described["targets"]}
    manifest_targets = {t["name"]: t for t in manifest["targets"]}
    library_products = {p["name"] for p in manifest["products"] if "library" in p["type"]}
    language_modes = manifest.get("swiftLanguageVersions") or []
    tools_major = str(manifest.get("toolsVersion", {}).get("_version", "6.0")).split(".")[0]
    default_mode = "6" if int(tools_major) >= 6 else "5"
    language_mode = max(language_modes, key=parse_version) if language_modes else default_mode
    if requested:
        unknown = [name for name in requested if name not in targets]
        if unknown:
            raise CheckError(f"no such target: {', '.join(unknown)}")
        names = requested
    else:
        names = [
            name for name, t in targets.items()
            if t["module_type"] == "SwiftTarget" and t["type"] == "library"
            and library_products & set(t.get("product_memberships", []))
        ]

    def dependency_closure(name, seen):
        for dependency in targets[name].get("target_dependencies", []):
            if dependency not in seen and dependency in targets:
                seen.add(dependency)
                dependency_closure(dependency, seen)
        return seen

    modules = []
    for name in sorted(names):
        target = targets[name]
        flags = ["-module-name", target["c99name"], "-package-name", package_name(root, bin_path), "-parse-as-library",
                 "-DSWIFT_PACKAGE", "-DDEBUG", "-I", str(bin_path / "Modules"),
                 "-module-cache-path", str(bin_path / "ModuleCache")]
        flags += swift_flags(manifest_targets[name], language_mode)
        dependencies = sorted(dependency_closure(name, set()))
        clang = [d for d in dependencies if targets[d]["module_type"] == "ClangTarget"]
        swift = [targets[d]["c99name"] for d in dependencies if targets[d]["module_type"] == "SwiftTarget"]
        for dependency in clang:
            module_map = bin_path / f"{dependency}.build" / "module.modulemap"
            flags += ["-Xcc", f"-fmodule-map-file={module_map}"]
        directory = root / target["path"]
        sources = [directory / s for s in sorted(target["sources"]) if s.endswith(".swift")]
        modules.append(Module(target["c99name"], directory, sources, flags, swift, clang, bin_path))
    return modules


def dump_asts(modules, triple, work):
    """Module name -> [(source path, AST JSON path)]."""

    def dump(module):
        directory = work / module.name
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)
        outputs = {str(source): {"ast-dump": str(directory / f"{i}.json")} for i, source in enumerate(module.sources)}
        file_map = directory / "output-file-map.json"
        file_map.write_text(json.dumps(outputs))
        arguments = ["swiftc", "-dump-ast", "-dump-ast-format", "json", "-target", triple, *module.flags,
                     "-output-file-map", str(file_map), *map(str, module.sources)]
        result = run(arguments, check=False)
        if result.returncode != 0:
            hint = "\n(build the package first, or run without --no-build)" if "no such module" in result.stderr else ""
            raise CheckError(f"the AST dump of {module.name} failed:\n{result.stderr[-6000:]}{hint}")
        return module.name, [(source, Path(outputs[str(source)]["ast-dump"])) for source in module.sources]

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(dump, modules))


# The AST walk ----------------------------------------------------------------------------------


class Use:
    __slots__ = ("kind", "what", "context", "file", "line", "detail")

    def __init__(self, kind, what, context, file, line, detail=None):
        # "ref": a declaration's USR; "type": a mangled type whose nominal types must be available;
        # "decl-type": a type declaration's own type; "meta", "meta-args", "meta-generic-argument": a
        # type whose metadata is needed (whole, in its generic arguments, or as a generic argument);
        # "feature": a runtime feature seen in the AST (a key of RUNTIME_FEATURES).
        self.kind = kind
        self.what = what
        self.context = context
        self.file = file
        self.line = line
        self.detail = detail


class Walker:
    """Walks one file's AST, recording every use with its availability context."""

    def __init__(self, module, file, source, floors, result):
        self.module = module
        self.file = file
        self.source = source
        self.lines = [0] + [i + 1 for i, byte in enumerate(source) if byte == 0x0A]
        self.floors = floors
        self.result = result

    def line(self, offset):
        return bisect.bisect_right(self.lines, offset)

    def use(self, kind, what, context, offset, detail=None):
        if what:
            self.result.uses.append(Use(kind, what, context, self.file, self.line(offset), detail))

    def attributes_requirement(self, node):
        requirement = {}
        for attribute in node.get("attrs", []):
            if attribute.get("_kind") != "available_attr":
                continue
            domain = attribute.get("domain")
            if domain == "*" and attribute.get("unavailable"):
                return {p: NEVER for p in PLATFORMS}
            if domain not in PLATFORMS:
                continue
            if attribute.get("unavailable") or attribute.get("obsoleted"):
                requirement[domain] = NEVER
            elif attribute.get("introduced"):
                requirement[domain] = parse_version(attribute["introduced"])
        return requirement

    def spec_requirement(self, condition):
        requirement = {}
        for query in condition.get("queries", []):
            if query.get("domain") in PLATFORMS and query.get("version"):
                requirement[query["domain"]] = parse_version(query["version"])
        return requirement

    def is_unavailable_condition(self, start, end):
        # The JSON dump prints `#unavailable(…)` as `#available`; the source tells them apart.
        return b"#unavailable" in self.source[start:end]

    def walk_file(self, ast):
        for item in ast.get("items", []):
            self.walk(item, self.floors, {}, 0, member=True)

    def walk(self, node, context, requirement, offset, member=False, reported=False):
        """Returns the context for the statements after `node` (raised after `guard #available`)."""
        if isinstance(node, list):
            for index, child in enumerate(node):
                inner, inner_requirement = context, requirement
                if isinstance(child, dict) and child.get("_kind") == "pattern_binding_decl":
                    # `@available` is printed on the variables a binding declares, which follow it.
                    for sibling in node[index + 1:]:
                        if not isinstance(sibling, dict) or sibling.get("_kind") != "var_decl":
                            break
                        own = self.attributes_requirement(sibling)
                        inner, inner_requirement = raised(inner, own), raised(inner_requirement, own)
                self.walk(child, inner, inner_requirement, offset, member, reported)
            return context
        if not isinstance(node, dict):
            return context
        kind = node.get("_kind", "")
        location = node.get("range")
        if location and "buffer_id" not in location:
            offset = location["start"]
        implicit = node.get("implicit", False)
        is_decl = kind.endswith("_decl") or kind in DECL_KINDS_WITHOUT_SUFFIX
        if is_decl:
            if implicit:
                return context  # synthesized (Codable, memberwise init, accessors of stored properties)
            own = self.attributes_requirement(node)
            context = raised(context, own)
            requirement = raised(requirement, own)
            reported = self.declaration(node, kind, context, requirement, offset, member, reported)
        elif kind in ("if_stmt", "guard_stmt", "while_stmt"):
            return self.conditional(node, kind, context, requirement, offset, reported)
        elif kind == "brace_stmt":
            inner = context
            for element in node.get("elements", []):
                inner = self.walk(element, inner, requirement, offset, False, reported)
            return context
        else:
            self.expression(node, kind, implicit, context, offset)
        for key, value in node.items():
            if key in UNCHECKED_KEYS or key in ("attrs", "inherits", "generic_signature", "requirement_signature",
                                                "captures", "substitutions", "conformances", "reqs"):
                continue
            if isinstance(value, (dict, list)):
                self.walk(value, context, requirement, offset, key == "members" or (member and key == "items"),
                          reported)
        return context

    def declaration(self, node, kind, context, requirement, offset, member, reported):
        usr = node.get("usr")
        if usr:
            self.result.declarations[usr] = requirement
        if kind == "var_decl":
            # A member's or global's type is its signature; a local's inferred type is not checked.
            if member:
                self.use("type", node.get("interface_type"), context, offset)
                self.use("meta-args", node.get("interface_type"), context, offset)
        elif kind == "typealias":
            self.use("type", node.get("type"), context, offset)
        elif kind in ("struct_decl", "class_decl", "enum_decl"):
            text = node.get("interface_type", "")
            if text:
                self.result.uses.append(Use("decl-type", text, context, self.file, self.line(offset)))
            if usr:
                self.result.type_declarations[usr] = self.module
            if self.declares_value_generic(node, offset):
                self.use("feature", "value-generic-type", context, offset)
        elif kind == "protocol" and usr:
            self.result.type_declarations[usr] = self.module
        elif kind == "destructor_decl":
            if any(a.get("_kind") == "isolated_attr" for a in node.get("attrs", [])):
                self.use("feature", "isolated-deinit", context, offset)
        for key in SIGNATURE_TYPE_KEYS:
            value = node.get(key)
            if isinstance(value, str) and value.startswith("$s"):
                self.use("type", value, context, offset)
                self.use("meta-args", value, context, offset)
        for requirement_node in (node.get("generic_signature") or {}).get("generic_reqs", []):
            self.use("ref", requirement_node.get("protocol"), context, offset)
            self.use("type", requirement_node.get("second_type"), context, offset)
        inherits = node.get("inherits") or {}
        for protocol in inherits.get("protocols", []):
            self.use("ref", protocol, context, offset)
        for conformance in inherits.get("conformances", []):
            if conformance.get("source_kind") != "explicit":
                continue
            if (conformance.get("context") or {}).get("module") != self.module:
                continue
            self.use("ref", conformance.get("protocol"), context, offset)
            if conformance.get("global_actor_isolated"):
                self.use("feature", "isolated-conformance", context, offset)
        access = node.get("access")
        if usr and access in ("public", "open") and not reported:
            self.result.public.append((usr, requirement, self.file, self.line(offset), kind))
            reported = self.result.public_above(requirement)
        return reported

    def declares_value_generic(self, node, offset):
        end = (node.get("range") or {}).get("end", offset)
        head = self.source[offset:end].split(b"{", 1)[0]
        return re.search(rb"<[^>]*\blet\s+\w+\s*:", head) is not None

    def conditional(self, node, kind, context, requirement, offset, reported):
        body_key = "body" if kind != "if_stmt" else "then_stmt"
        body = node.get(body_key) or {}
        body_start = (body.get("range") or {}).get("start", offset)
        inside, outside = context, context
        for condition in node.get("conditions", []):
            if isinstance(condition, dict) and condition.get("_kind") == "#available":
                spec = self.spec_requirement(condition)
                if self.is_unavailable_condition(offset, body_start):
                    outside = raised(outside, spec)
                else:
                    inside = raised(inside, spec)
            else:
                self.walk(condition, inside, requirement, offset, False, reported)
        if kind == "guard_stmt":
            # The else-body runs where the condition failed; the rest of the scope where it held.
            self.walk(body, outside, requirement, offset, False, reported)
            return inside
        self.walk(body, inside, requirement, offset, False, reported)
        if kind == "if_stmt" and "else_stmt" in node:
            self.walk(node["else_stmt"], outside, requirement, offset, False, reported)
        return context

    def expression(self, node, kind, implicit, context, offset):
        if kind == "decl_ref":
            for substitution in (node.get("substitutions") or {}).get("substitutions", []):
                self.use("meta-generic-argument", substitution.get("replacement_type"), context, offset)
            return
        if not implicit:
            for key, value in node.items():
                if isinstance(value, dict) and value.get("_kind") == "decl_ref" and key != "default_args_owner":
                    self.use("ref", value.get("decl_usr"), context, offset)
            if kind in ("type_expr", "coerce_expr"):
                self.use("type", node.get("type"), context, offset)
                if kind == "type_expr":
                    self.use("meta", node.get("type"), context, offset, "named as a value")
            elif kind == "parameter":
                self.use("type", node.get("interface_type"), context, offset)
            elif kind.endswith("checked_cast_expr") or kind == "is_expr":
                self.use("type", node.get("cast_to"), context, offset)
                self.use("meta", node.get("cast_to"), context, offset, "cast")
            elif kind == "pattern_typed":
                self.use("type", node.get("type"), context, offset)
            for key in ("type", "interface_type"):
                value = node.get(key)
                if isinstance(value, str) and value.startswith("$s"):
                    self.use("meta-args", value, context, offset)
        if kind == "erasure_expr":
            sub = node.get("sub_expr") or {}
            self.use("meta", sub.get("type"), context, offset, "converted to an existential")


class Analysis:
    def __init__(self, max_public):
        self.uses = []
        self.declarations = {}  # USR of the package's declarations -> their @available requirement
        self.type_declarations = {}
        self.public = []
        self.max_public = max_public

    def public_above(self, requirement):
        return bool(self.max_public) and bool(exceeds(requirement, self.max_public))


# Resolving uses --------------------------------------------------------------------------------


def angle_depth_spans(text):
    """For each index, the depth of `<…>` nesting (a `->` arrow is not a bracket)."""
    depths, depth = [], 0
    for i, character in enumerate(text):
        if character == "<":
            depth += 1
        elif character == ">" and not (i > 0 and text[i - 1] == "-"):
            depth -= 1
        depths.append(depth)
    return depths


def generic_signature_end(text):
    """Where a leading generic signature (`<A where A: P> (A) -> ()`) ends."""
    if not text.startswith("<"):
        return 0
    depths = angle_depth_spans(text)
    for i, depth in enumerate(depths):
        if depth == 0:
            return i + 1
    return 0


def generic_owners(text):
    """For each index, the generic types whose `<…>` encloses it, innermost last: each one's name as
    the demangler prints it (`Swift.Array`, `Swift.Optional`), `any` for a parameterized
    existential's own arguments, and `` for a bracket without a name (a substitution's wrapper)."""
    owners, stack = [], []
    for i, character in enumerate(text):
        if character == "<":
            name = re.search(r"(any )?([\w.]*)$", text[:i])
            stack.append("any" if name.group(1) else name.group(2))
        elif character == ">" and not (i > 0 and text[i - 1] == "-") and stack:
            stack.pop()
        owners.append(tuple(stack))
    return owners


def metadata_features(text, generic_arguments_only):
    """The runtime features whose type metadata `text` (a demangled type) needs.

    `generic_arguments_only`: the type is a declaration's or a value's own type, whose metadata the
    code needs only where the type is a generic argument, as the compiler checks signatures: a
    typed-throws or `@isolated(any)` function type, or a parameterized existential, inside the
    arguments of a generic type other than `Optional` (`[any P<T>]`, `Box<any P<T>>`, but not
    `(any P<T>)?` nor `any P<T>` itself). Otherwise the whole type's metadata is needed (a cast, a
    conversion to an existential, a type named as a value).
    """
    found = []
    if "throws(" not in text and "@isolated(any)" not in text and "any " not in text:
        return found
    start = generic_signature_end(text)
    owners = generic_owners(text)

    def needs_metadata(index):
        if not generic_arguments_only:
            return True
        return any(owner not in ("Swift.Optional", "any") for owner in owners[index])

    markers = (("throws(", "typed-throws-metadata"), ("@isolated(any)", "isolated-any-metadata"))
    for marker, feature in markers:
        for match in re.finditer(re.escape(marker), text):
            if match.start() >= start and needs_metadata(match.start()):
                found.append(feature)
                break
    for match in re.finditer(r"\bany [\w.]+<", text):
        if match.start() < start:
            continue
        # Converting an existential to another opens it: the metadata needed is the dynamic type's.
        if not generic_arguments_only and match.start() == start and text.startswith("any ", start):
            continue
        if needs_metadata(match.start()):
            found.append("parameterized-existential-metadata")
            break
    return found


class Resolver:
    def __init__(self, symbols, analysis, modules, demangled):
        self.symbols = symbols["symbols"]
        self.types = symbols["types"]
        self.analysis = analysis
        self.modules = set(modules)
        self.demangled = demangled
        self.own_types = {}
        for usr in analysis.type_declarations:
            name = demangled.get(usr)
            if name and analysis.declarations.get(usr):
                self.own_types[name] = usr
        self.unlisted_sdk = collections.defaultdict(list)
        self.sdk_used = collections.defaultdict(lambda: ["", []])

    def sdk_key(self, usr, path):
        """An SDK API's key in SDK_FLOORS: its symbol-graph path, with the signature for a global operator."""
        if "." in path or usr not in self.demangled:
            return path
        return re.sub(r"\b(?:" + "|".join(SDK_MODULES + STDLIB_MODULES) + r")\.", "", self.demangled[usr])

    def sdk_requirement(self, usr, path, graph_floors, use):
        """The floors of a Foundation or Dispatch API: SDK_FLOORS first, then the Linux symbol graph."""
        path = key = self.sdk_key(usr, path)
        if key in SDK_FLOOR_TABLE:
            source, floors = "SDK_FLOORS", SDK_FLOOR_TABLE[key]
        elif graph_floors:
            source, floors = "Linux symbol graph", graph_floors
        else:
            self.unlisted_sdk[path].append(use)
            source, floors = "unlisted", {}
        entry = self.sdk_used[path]
        entry[0] = source
        entry[1].append(use)
        return floors

    def declaration(self, usr, use):
        """(name, requirement) of a referenced declaration, or None when nothing constrains it."""
        if usr in self.analysis.declarations:
            requirement = self.analysis.declarations[usr]
            if not requirement:
                return None
            return self.readable(usr), requirement
        entry = self.symbols.get(usr)
        if entry is None:
            return None
        path, group, floors = entry
        floors = {p: tuple(v) for p, v in floors.items()}
        if group == "sdk":
            floors = self.sdk_requirement(usr, path, floors, use)
        return (path, floors) if floors else None

    def readable(self, usr):
        text = self.demangled.get(usr, usr)
        return text.split(" : ")[0].split(" -> ")[0]

    def named_types(self, mangled, use):
        """(name, requirement) of each standard-library, SDK or package type a mangled type names."""
        text = self.demangled.get(mangled, "")
        found = []
        for match in QUALIFIED_NAME.finditer(text):
            module, path = match.group(1), match.group(2)
            group = "stdlib" if module in STDLIB_MODULES else "sdk"
            components = path.split(".")
            for length in range(len(components), 0, -1):
                candidate = ".".join(components[:length])
                usr = self.types.get(group + ":" + candidate)
                if usr:
                    path, _, floors = self.symbols[usr]
                    floors = {p: tuple(v) for p, v in floors.items()}
                    if group == "sdk":
                        floors = self.sdk_requirement(usr, path, floors, use)
                    if floors:
                        found.append((candidate, floors))
                    break
        for name, usr in self.own_types.items():
            if name in text:
                requirement = self.analysis.declarations.get(usr)
                if requirement and re.search(r"(?<![\w.])" + re.escape(name) + r"(?![\w])", text):
                    found.append((name.split(".", 1)[-1], requirement))
        return found

    def violations(self):
        found = {}

        def add(use, name, requirement, note=None):
            platforms = exceeds(requirement, use.context)
            if not platforms:
                return
            key = (use.file, use.line, name)
            if key not in found:
                found[key] = (use, name, requirement, note)

        for use in self.analysis.uses:
            if use.kind == "ref":
                resolved = self.declaration(use.what, use)
                if resolved:
                    add(use, *resolved)
            elif use.kind == "type":
                for name, requirement in self.named_types(use.what, use):
                    add(use, name, requirement)
            elif use.kind == "decl-type":
                text = self.demangled.get(use.what, "")
                if "Pack{" in text:
                    add(use, "variadic-generic-type", RUNTIME_FLOORS["variadic-generic-type"],
                        RUNTIME_FEATURES["variadic-generic-type"]["what"])
            elif use.kind in ("meta", "meta-args", "meta-generic-argument"):
                text = self.demangled.get(use.what, "")
                if use.kind == "meta-generic-argument":
                    features = metadata_features("<" + text + ">", True)
                else:
                    features = metadata_features(text, use.kind == "meta-args")
                for feature in features:
                    where = use.detail or "a generic argument"
                    add(use, feature, RUNTIME_FLOORS[feature], f"{RUNTIME_FEATURES[feature]['what']}, {where}: {text}")
            elif use.kind == "feature":
                add(use, use.what, RUNTIME_FLOORS[use.what], RUNTIME_FEATURES[use.what]["what"])
        # `ContinuousClock.now` names the type and the member on one line: keep the member.
        names_on_line = collections.defaultdict(set)
        for file, line, name in found:
            names_on_line[(file, line)].add(name)
        kept = [
            value for (file, line, name), value in found.items()
            if not any(other.startswith(name + ".") for other in names_on_line[(file, line)])
        ]
        return sorted(kept, key=lambda v: (str(v[0].file), v[0].line, v[1]))

    def public_violations(self, max_public):
        found = []
        for usr, requirement, file, line, kind in self.analysis.public:
            platforms = exceeds(requirement, max_public)
            if not platforms:
                continue
            name = self.demangled.get(usr, usr)
            allowed = None
            for rule in ALLOWED_ABOVE_MAX_PUBLIC:
                if re.search(rule["match"], name) and not exceeds(requirement, parse_floors(rule["up_to"])):
                    allowed = rule
                    break
            found.append((file, line, name, requirement, allowed))
        return found


# What `#if` sees on Linux and on each Apple platform. A name not listed is false (`canImport(Foo)` for a
# module neither has, a custom compilation condition other than DEBUG and SWIFT_PACKAGE).
CONDITION_ENVIRONMENTS = {
    "Linux": {"os": {"Linux"}, "canImport": {"Glibc", "FoundationNetworking", "FoundationEssentials", "Observation",
                                             "Synchronization", "Foundation", "Dispatch", "Testing", "XCTest"}},
    **{
        platform: {
            "os": {platform},
            "canImport": {"Darwin", "ObjectiveC", "os", "Combine", "SwiftUI", "Foundation", "Dispatch", "Observation",
                          "Synchronization", "Testing", "XCTest"} | ({"AppKit"} if platform == "macOS" else {"UIKit"})
            | ({"WatchKit"} if platform == "watchOS" else set()),
        }
        for platform in PLATFORMS
    },
}


def condition_holds(condition, environment):
    """Evaluates a `#if` condition in an environment of CONDITION_ENVIRONMENTS."""
    names = CONDITION_ENVIRONMENTS[environment]

    def platform_test(match):
        function, argument = match.group(1), match.group(2).split(",")[0].strip()
        if function == "os":
            return str(argument in names["os"])
        if function == "canImport":
            return str(argument in names["canImport"])
        if function == "_runtime":
            return str(argument == "_ObjC" and environment != "Linux")
        return "True"  # arch, compiler, swift, hasFeature, hasAttribute, targetEnvironment(…) are taken as true

    text = re.sub(r"(\w+)\s*\(([^()]*)\)", platform_test, condition)
    text = re.sub(r"\b(DEBUG|SWIFT_PACKAGE)\b", "True", text)
    text = re.sub(r"\b(?!True\b|False\b)[A-Za-z_]\w*\b", "False", text)
    text = text.replace("&&", " and ").replace("||", " or ").replace("!", " not ")
    try:
        return bool(eval(text, {"__builtins__": {}}))  # only True, False, and, or, not, parentheses remain
    except SyntaxError:
        return True


def apple_only_regions(modules):
    """`#if` branches an Apple compiler sees and the Linux one skips: (file, first line, last line, condition,
    the Apple platforms that compile it)."""
    regions = []
    for module in modules:
        for source in module.sources:
            stack = []  # per open #if: [branch start line, branch condition, an earlier branch taken (per environment)]
            lines = source.read_text(encoding="utf-8").splitlines()

            def close(branch_end):
                start, condition, taken, label = stack[-1]
                active = {env: not taken[env] and condition_holds(condition, env) for env in CONDITION_ENVIRONMENTS}
                if not active["Linux"] and any(active[p] for p in PLATFORMS):
                    regions.append((source, start, branch_end, label, [p for p in PLATFORMS if active[p]]))
                return {env: taken[env] or active[env] for env in CONDITION_ENVIRONMENTS}

            for number, line in enumerate(lines, 1):
                directive = re.match(r"\s*#(if|elseif|else|endif)\b(.*)", line)
                if not directive:
                    continue
                word, condition = directive.group(1), directive.group(2).split("//")[0].strip()
                if word == "if":
                    taken = {env: False for env in CONDITION_ENVIRONMENTS}
                    stack.append([number, condition, taken, "#if " + condition])
                elif word in ("elseif", "else") and stack:
                    taken = close(number)
                    label = f"#elseif {condition}" if word == "elseif" else f"#else of {stack[-1][3]}"
                    stack[-1] = [number, condition if word == "elseif" else "True", taken, label]
                elif word == "endif" and stack:
                    close(number)
                    stack.pop()
    return regions


# Reporting ------------------------------------------------------------------------------------


def relative(path):
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def format_violation(use, name, requirement, note):
    needed = {p: v for p, v in requirement.items() if p in PLATFORMS}
    context = {p: use.context[p] for p in PLATFORMS if p in use.context}
    text = (f"{relative(use.file)}:{use.line}: {name} needs {show_floors(needed)}; "
            f"the context has {show_floors(context)}")
    if note:
        text += f"\n    (needs a newer Swift runtime: {note})"
    return text


def summary_by_symbol(violations):
    """'Duration: 140 uses in 20 files', grouped by the top-level name of each symbol."""
    groups = collections.defaultdict(lambda: [0, set()])
    for use, name, _, _ in violations:
        top = name.split(".")[0].split("(")[0]
        groups[top][0] += 1
        groups[top][1].add(use.file)
    rows = sorted(groups.items(), key=lambda item: (-item[1][0], item[0]))
    return [f"{name}: {count} use{'s' if count != 1 else ''} in {len(files)} file{'s' if len(files) != 1 else ''}"
            for name, (count, files) in rows]


def check(options):
    started = time.monotonic()
    root = Path(options.package_path).resolve() if options.package_path else ROOT
    _, triple = compiler_identity()
    if not options.no_build:
        run(["swift", "build"], cwd=root)
    bin_path = Path(run(["swift", "build", "--show-bin-path"], cwd=root).stdout.strip())
    manifest, described = package_description(root)
    floors = declared_floors(manifest)
    floors.update(parse_setting_pairs(options.floor, "--floor"))
    max_public = parse_setting_pairs(options.max_public, "--max-public")
    cache_dir = root / ".build" / "availability-check"
    cache_dir.mkdir(parents=True, exist_ok=True)
    modules = library_modules(root, manifest, described, bin_path, options.module)
    if not modules:
        raise CheckError("no library module to check")
    symbols = extract_symbol_graphs(triple, cache_dir)
    asts = dump_asts(modules, triple, cache_dir / "ast")
    report = analyse(modules, asts, floors, max_public, symbols, dependency_declarations(modules, triple, cache_dir))
    report["floors"] = floors
    report["max_public"] = max_public
    report["seconds"] = time.monotonic() - started
    return report


def analyse(modules, asts, floors, max_public, symbols, dependencies=None):
    analysis = Analysis(max_public)
    # Declarations of package modules imported but not walked in this run (--module).
    declarations, types = dependencies or ({}, set())
    analysis.declarations.update(declarations)
    analysis.type_declarations.update({usr: None for usr in types})
    for module in modules:
        for source, ast_path in asts[module.name]:
            ast = json.loads(ast_path.read_text())
            Walker(module.name, source, source.read_bytes(), floors, analysis).walk_file(ast)
    strings = set()
    for use in analysis.uses:
        strings.add(use.what)
    strings.update(analysis.declarations)
    strings.update(usr for usr, *_ in analysis.public)
    demangled = demangle(s for s in strings if s.startswith(("$s", "s:")))
    resolver = Resolver(symbols, analysis, [m.name for m in modules], demangled)
    violations = resolver.violations()
    return {
        "modules": modules,
        "violations": violations,
        "public": resolver.public_violations(max_public) if max_public else [],
        "unlisted_sdk": resolver.unlisted_sdk,
        "sdk_used": resolver.sdk_used,
        "apple_only": apple_only_regions(modules),
    }


def print_report(report, options):
    out = []
    floors = report["floors"]
    out.append(f"Modules: {', '.join(m.name for m in report['modules'])}")
    out.append(f"Floors: {show_floors(floors)}")
    violations = report["violations"]
    if violations:
        out.append("")
        out.append(f"{len(violations)} use{'s' if len(violations) != 1 else ''} above the availability context:")
        out += [format_violation(*v) for v in violations]
        out.append("")
        out.append("By symbol:")
        out += ["  " + line for line in summary_by_symbol(violations)]
    unlisted = report["unlisted_sdk"]
    if unlisted:
        out.append("")
        out.append("Foundation/Dispatch APIs with no Apple availability on Linux and no entry in SDK_FLOORS "
                   "(add each with its Apple floor):")
        for path, uses in sorted(unlisted.items()):
            places = sorted({f"{relative(u.file)}:{u.line}" for u in uses if u})
            out.append(f"  {path}  ({', '.join(places[:3])}{', …' if len(places) > 3 else ''})")
    public = report["public"]
    blocking_public = [p for p in public if not p[4]]
    if report["max_public"]:
        out.append("")
        out.append(f"Public declarations above {show_floors(report['max_public'])}:")
        if not public:
            out.append("  none")
        for file, line, name, requirement, allowed in public:
            status = f"allowed: {allowed['reason']}" if allowed else "NOT ALLOWED"
            out.append(f"  {relative(file)}:{line}: {name} requires {show_floors(requirement)} ({status})")
    if options.list_sdk:
        out.append("")
        out.append("Foundation/Dispatch APIs used, and where their Apple floor comes from:")
        for path, (source, uses) in sorted(report["sdk_used"].items()):
            out.append(f"  {path}: {source}")
    regions = report["apple_only"]
    if regions:
        out.append("")
        out.append("Not checked (Apple-only code the Linux compiler skips; review its APIs by hand):")
        for source, start, end, condition, platforms in regions:
            out.append(f"  {relative(source)}:{start}-{end}: {condition} ({', '.join(platforms)})")
            lines = Path(source).read_text(encoding="utf-8").splitlines()
            for number in range(start, min(end, len(lines))):
                for pattern, api, text in APPLE_ONLY_APIS:
                    if re.search(pattern, lines[number - 1].split("//")[0]):
                        needed = {p: v for p, v in parse_floors(text).items() if p in platforms}
                        text = show_floors(needed)
                        above = exceeds(needed, floors)
                        verdict = "above the floor: check it is gated" if above else "within the floor"
                        out.append(f"      {relative(source)}:{number}: {api} needs {text} ({verdict})")
    review = [f"{name} (Swift {f['runtime']} runtime: {show_floors(RUNTIME_FLOORS[name])})"
              for name, f in RUNTIME_FEATURES.items() if f["detected"] == "review" and f["runtime"]]
    if review:
        out.append("")
        out.append("Runtime features reviewed by hand, not detected: " + "; ".join(review))
    failed = bool(violations or unlisted or blocking_public)
    out.append("")
    if failed:
        out.append(f"FAILED: {len(violations)} use(s) above their context, {len(unlisted)} unlisted SDK API(s), "
                   f"{len(blocking_public)} public declaration(s) above --max-public ({report['seconds']:.1f} s)")
    else:
        out.append(f"availability: nothing above {show_floors(floors)} outside a matching @available/#available "
                   f"({report['seconds']:.1f} s)")
    text = "\n".join(out)
    print(text)
    if options.output:
        Path(options.output).write_text(text + "\n")
    return 1 if failed else 0


# Self-test ------------------------------------------------------------------------------------

SELF_TEST_SOURCE = '''\
import Foundation
import Observation

public struct Planted {
    public var timeout: Duration  // expect: Duration
    let started = ContinuousClock.now  // expect: ContinuousClock.now
    public init(timeout: Duration) { self.timeout = timeout }  // expect: Duration

    func ungated() -> Bool {
        _ = ContinuousClock.now  // expect: ContinuousClock.now
        _ = Date.now  // expect: Date.now
        _ = NotificationCenter.default  // expect: NotificationCenter.default
        _ = ProcessInfo.processInfo.hostName  // unlisted: ProcessInfo, ProcessInfo.processInfo, ProcessInfo.hostName
        _ = handlers {} as Any  // expect: typed-throws-metadata
        gatedHelper()  // expect: SelfTest.Planted.gatedHelper()
        return true
    }

    func gatedByIf() {
        if #available(iOS 16, macOS 13, tvOS 16, watchOS 9, *) {
            _ = ContinuousClock.now
            gatedHelper()
        } else {
            _ = ContinuousClock.now  // expect: ContinuousClock.now
        }
    }

    func gatedByGuard() {
        guard #available(iOS 16, macOS 13, tvOS 16, watchOS 9, *) else {
            _ = ContinuousClock.now  // expect: ContinuousClock.now
            return
        }
        _ = ContinuousClock.now
        let clock = ContinuousClock()
        _ = clock.now
    }

    func gatedByUnavailable() {
        if #unavailable(iOS 16, macOS 13, tvOS 16, watchOS 9) {
            _ = ContinuousClock.now  // expect: ContinuousClock.now
        } else {
            _ = ContinuousClock.now
        }
    }

    func partlyGated() {
        if #available(iOS 16, macOS 13, *) {
            _ = ContinuousClock.now  // expect: ContinuousClock.now
        }
    }

    @available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
    func gatedHelper() { _ = ContinuousClock.now }

    typealias Handler = () throws(CancellationError) -> Void
    func handlers(_ body: @escaping Handler) -> [Handler] {  // expect: typed-throws-metadata
        [body]  // expect: typed-throws-metadata
    }
}

@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
extension Planted {
    public func elapsed() -> Duration { ContinuousClock.now - ContinuousClock.now }
}

@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
struct GatedType {
    var clock = ContinuousClock()
}

struct UsesGatedType {
    var gated: GatedType?  // expect: GatedType
}

protocol Carrier<Value> {
    associatedtype Value
}

struct Carried<T> {
    var one: any Carrier<T>
    var maybe: (any Carrier<T>)?
    var many: [any Carrier<T>]  // expect: parameterized-existential-metadata
    var maybeMany: [any Carrier<T>]?  // expect: parameterized-existential-metadata
    var keyed: [String: (any Carrier<T>)?]  // expect: parameterized-existential-metadata

    func wrapped(_ one: any Carrier<T>) -> [any Carrier<T>] {  // expect: parameterized-existential-metadata
        [one]  // expect: parameterized-existential-metadata
    }

    func erased(_ one: (any Carrier<T>)?) -> Any {
        one as Any  // expect: parameterized-existential-metadata
    }

    func opened(_ one: any Carrier<T>) -> Any { one }
}

struct Pack<each Element> {}  // expect: variadic-generic-type

struct Fixed<let count: Int> {}  // expect: value-generic-type

protocol Named {
    var name: String { get }
}

@MainActor
final class Isolated: @MainActor Named {  // expect: isolated-conformance
    var name: String { "" }
    isolated deinit {}  // expect: isolated-deinit
}

@Observable
final class Model {  // expect: ObservationRegistrar
    var count = 0  // expect: ObservationRegistrar
}

@available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
@Observable
final class GatedModel {
    var count = 0
}
'''


def self_test():
    """Dumps a tiny module with planted violations and gated uses; the check must flag exactly the planted ones."""
    started = time.monotonic()
    _, triple = compiler_identity()
    cache_dir = ROOT / ".build" / "availability-check"
    cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="availability-self-test-") as scratch:
        scratch = Path(scratch)
        source = scratch / "Planted.swift"
        source.write_text(SELF_TEST_SOURCE)
        module = Module("SelfTest", scratch, [source], ["-module-name", "SelfTest", "-parse-as-library",
                                                        "-swift-version", "6"])
        symbols = extract_symbol_graphs(triple, cache_dir)
        asts = dump_asts([module], triple, scratch / "ast")
        floors = parse_floors("iOS 13, macOS 10.15, tvOS 13, watchOS 6")
        # An SDK API without availability on Linux takes its floor from SDK_FLOORS (a made-up one here).
        saved = dict(SDK_FLOOR_TABLE)
        SDK_FLOOR_TABLE["NotificationCenter.default"] = parse_floors("iOS 14, macOS 11, tvOS 14, watchOS 7")
        try:
            report = analyse([module], asts, floors, {}, symbols)
        finally:
            SDK_FLOOR_TABLE.clear()
            SDK_FLOOR_TABLE.update(saved)
    expected, expected_unlisted = {}, set()
    for number, line in enumerate(SELF_TEST_SOURCE.splitlines(), 1):
        marker = re.search(r"// (expect|unlisted): (.+)$", line)
        if marker and marker.group(1) == "expect":
            expected[number] = {name.strip() for name in marker.group(2).split(",")}
        elif marker:
            expected_unlisted |= {name.strip() for name in marker.group(2).split(",")}
    flagged = collections.defaultdict(set)
    for use, name, requirement, note in report["violations"]:
        flagged[use.line].add(name)
        print("flagged  " + format_violation(use, name, requirement, note).replace(str(source), "Planted.swift"))
    # Exactly the planted lines are flagged, each at least for the symbol its marker names (or a member of it).
    def unmatched(line):
        return {n for n in expected[line] if not any(f == n or f.startswith(n + ".") for f in flagged[line])}

    missed = sorted((line, unmatched(line)) for line in expected if unmatched(line))
    extra = sorted((line, flagged[line]) for line in flagged if line not in expected)
    for line, names in missed:
        print(f"MISSED   Planted.swift:{line}: {', '.join(sorted(names))}")
    for line, names in extra:
        print(f"EXTRA    Planted.swift:{line}: {', '.join(sorted(names))}")
    unlisted = set(report["unlisted_sdk"])
    if unlisted != expected_unlisted:
        print(f"UNLISTED Foundation APIs reported: {sorted(unlisted)}, expected {sorted(expected_unlisted)}")
    if missed or extra or unlisted != expected_unlisted:
        print(f"self-test FAILED: {len(missed)} planted violation(s) missed, {len(extra)} gated use(s) flagged")
        return 1
    print(f"self-test passed: all {len(expected)} planted violations flagged, no gated use flagged, the "
          f"{len(unlisted)} Foundation APIs without a known floor reported ({time.monotonic() - started:.1f} s)")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--floor", action="append", metavar="PLATFORM=VERSION",
                        help="check at this floor instead of Package.swift's (repeatable)")
    parser.add_argument("--max-public", action="append", metavar="PLATFORM=VERSION",
                        help="report public declarations that require more (repeatable)")
    parser.add_argument("--module", action="append", help="check this target only (repeatable)")
    parser.add_argument("--no-build", action="store_true", help="use the modules .build already has")
    parser.add_argument("--output", help="also write the report to this file")
    parser.add_argument("--list-sdk", action="store_true", help="list the Foundation/Dispatch APIs used")
    parser.add_argument("--package-path", help="check the package at this path (a scratch copy) instead")
    parser.add_argument("--self-test", action="store_true", help="check that planted violations are caught")
    options = parser.parse_args()
    try:
        if options.self_test:
            return self_test()
        return print_report(check(options), options)
    except CheckError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
