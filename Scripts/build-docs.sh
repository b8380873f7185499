#!/usr/bin/env bash
# Builds the DocC documentation of the library modules with the toolchain's own docc (no
# plugin in the library's manifest), each from its own symbol graph and catalog, and fails on any
# documentation warning, on DocC articles out of date with Docs/ (or a guide that does not link a
# public name it uses), and on a public top-level symbol a module's landing page does not curate.
#
# Links across modules (``/SDKEventBusCore/CatalogBus`` in the built-in catalog's pages, say)
# resolve against the other modules' archives: a first pass builds every archive with DocC's
# external link support, a second builds each again with the other two as dependencies, with
# warnings as errors, and `docc merge` combines them.
#
# Output: .build/docs/SDKEventBus.doccarchive, the combined archive (open it in Xcode, or run
# `docc process-archive transform-for-static-hosting` on it for a web server), and each module's own
# archive in .build/docs/modules/.
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(SDKEventBusCore SDKEventBusWire SDKEventBusConfig SDKEventBusAppEvents SDKEventBusTimeline SDKEventBus SDKEventBusCoreTesting SDKEventBusTesting)

python3 Scripts/sync-docc.py --check

# The guide "Seeing what the bus did" shows the demo's own trace: the demo still writes a trace of its
# shape that follows the format, and the picture is what the guide's normalized trace renders
# (Scripts/render-trace.py says how to regenerate both).
python3 Scripts/render-trace.py --self-test
swift run SDKEventBusDemo --trace .build/docs-demo-trace.json >/dev/null
python3 Scripts/render-trace.py check-docs .build/docs-demo-trace.json

symbols=.build/docs-symbol-graphs
rm -rf "$symbols" && mkdir -p "$symbols"
# The dump also tries the package's test modules, which exist only after `swift build --build-tests`
# and are not documented: judge it by the library modules' graphs, not by its exit status.
output=$(swift package dump-symbol-graph --minimum-access-level public --emit-extension-block-symbols 2>&1) || true
dumped=$(echo "$output" | sed -n 's/^Files written to //p' | tail -1)
for module in "${modules[@]}"; do
    [[ -n $dumped && -f "$dumped/$module.symbols.json" ]] || { echo "$output"; echo "no symbol graph for $module"; exit 1; }
done
# Each module's own graphs (its symbols, and its extensions of other modules' types); the C shim,
# the test server and the test targets are not part of the documented API.
for module in "${modules[@]}"; do
    mkdir -p "$symbols/$module"
    cp "$dumped/$module.symbols.json" "$symbols/$module/"
    cp "$dumped/$module"@*.symbols.json "$symbols/$module/" 2>/dev/null || true
done

python3 - "$symbols" "${modules[@]}" <<'PY'
import json, re, sys
symbols, modules = sys.argv[1], sys.argv[2:]
failed = False
for module in modules:
    graph = json.load(open(f"{symbols}/{module}/{module}.symbols.json"))
    landing = open(f"Sources/{module}/{module}.docc/{module}.md").read()
    top = {s["pathComponents"][0] for s in graph["symbols"] if len(s["pathComponents"]) == 1}
    curated = set(re.findall(r"^- ``(\w+)``", landing, re.M))
    missing, unknown = sorted(top - curated), sorted(curated - top)
    if missing:
        print(f"{module}: the landing page's Topics do not curate: " + ", ".join(missing))
    if unknown:
        print(f"{module}: the landing page curates what the module does not declare: " + ", ".join(unknown))
    failed = failed or bool(missing or unknown)
    if not (missing or unknown):
        print(f"{module}: the landing page curates all {len(top)} public top-level symbols")
sys.exit(1 if failed else 0)
PY

docs=.build/docs
rm -rf "$docs" && mkdir -p "$docs/bootstrap" "$docs/modules"

convert() { # module output [docc options…]
    local module=$1 output=$2
    shift 2
    docc convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$symbols/$module" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.sdkeventbus.$module" \
        --output-path "$output" \
        --enable-experimental-external-link-support \
        "$@"
}

# First pass: what each archive offers to link to. Its links to the others cannot resolve yet.
for module in "${modules[@]}"; do
    convert "$module" "$docs/bootstrap/$module.doccarchive" >/dev/null 2>&1 \
        || { echo "docc could not build $module"; convert "$module" "$docs/bootstrap/$module.doccarchive"; exit 1; }
done

# Second pass: every link resolves, and any warning fails the build.
for module in "${modules[@]}"; do
    dependencies=()
    for other in "${modules[@]}"; do
        [[ $other == "$module" ]] || dependencies+=(--dependency "$docs/bootstrap/$other.doccarchive")
    done
    convert "$module" "$docs/modules/$module.doccarchive" "${dependencies[@]}" --warnings-as-errors
done

archives=()
for module in "${modules[@]}"; do archives+=("$docs/modules/$module.doccarchive"); done
docc merge "${archives[@]}" \
    --output-path "$docs/SDKEventBus.doccarchive" \
    --synthesized-landing-page-name SDKEventBus \
    --synthesized-landing-page-kind Package
echo "documentation: $docs/SDKEventBus.doccarchive"
