#!/usr/bin/env bash
# Proves the promise Docs/Versioning.md makes binary SDKs, by running binaries across versions:
#
# 1. A binary built against 1.0.0 runs on today's build. The release client
#    (Scripts/binary-compatibility/ReleaseClient, a library built with library evolution, and its
#    runner) is compiled against 1.0.0's .swiftinterface files and linked against 1.0.0's shared
#    libraries (Scripts/build-shared-libraries.sh, from `git archive` of the release's commit, into
#    .build/); then it runs, not rebuilt, against today's libraries in their place, and every check
#    must hold: the inlined fire, on and off (Docs/ABI.md), typed payloads, a catalog and a facade of
#    its own, replay, delivery contexts, sequences, the wire form and the release's wire vectors, the
#    store, readiness, the lifecycle on a clock of its own, the client, shutdown, the app buses.
# 2. Two binary SDKs share one app: VendorAnalytics, built against 1.0.0, and VendorFlags, built
#    against today's sources, each a shared library built separately with library evolution that
#    links the package's libraries without embedding them; an app built against both SDKs'
#    interfaces links both and one copy of the package's libraries, today's, and receives both SDKs'
#    events, on the firing thread and on the main actor, through one engine
#    (Docs/EmbeddingInYourSDK.md, "Two binary SDKs in one app").
#
# No binary finds the package's libraries by itself (no run path names them): each run says where
# they are with LD_LIBRARY_PATH, and the checks confirm which copy was loaded.
#
# --self-test proves the harness can fail: the release client against today's libraries with one
# public method it calls (CatalogEmitter.clearReplay(of:)) taken out of libSDKEventBusCore.so, and
# against no libraries; the app told to expect the package from a directory it did not load it
# from. Each must fail.
#
# Usage: Scripts/check-binary-compatibility.sh [--self-test]
#   (release builds of the library targets only: on 2 cores about a minute and a half, most of it
#   1.0.0's build; today's costs nothing more after Scripts/check-library-evolution.sh, whose build
#   it shares)
set -euo pipefail
cd "$(dirname "$0")/.."

release=1.0.0
release_commit=867f14977c6dd30f0fe1d89b0700ca3b9fa3c984
work=.build/binary-compatibility
sources=Scripts/binary-compatibility
released="$work/$release"
today="$work/today"
binaries="$work/binaries"
cache="$work/module-cache"

# The release's sources come from git, never from a tag alone (a clone may have no tags): when the
# tag exists it must name the release's commit.
if tagged=$(git rev-parse --verify --quiet "refs/tags/$release^{commit}"); then
    if [[ "$tagged" != "$release_commit" ]]; then
        echo "error: tag $release names $tagged, not the release's commit $release_commit" >&2
        exit 1
    fi
fi
git cat-file -e "$release_commit^{commit}" 2>/dev/null || {
    echo "error: commit $release_commit ($release) is not in this clone; fetch the full history" >&2
    exit 1
}

# The compiler's notes that Foundation on Linux is not built with library evolution are expected.
quiet() {
    local log
    if ! log=$("$@" 2>&1); then
        echo "$log" | grep -v "was not compiled with library evolution support" >&2
        return 1
    fi
    echo "$log" | grep -E "(warning|error): " | grep -v "was not compiled with library evolution support" >&2 || true
}

# Whether the file $1 is missing or older than any of the files after it.
stale() {
    local output=$1 input
    shift
    [[ -e "$output" ]] || return 0
    for input in "$@"; do [[ "$input" -nt "$output" ]] && return 0; done
    return 1
}

# Compiles the Swift files of $sources/$1 into lib$1.so and $1.swiftinterface in $binaries, with library
# evolution, against the products in $2, linking the package's libraries $3…
build_library() {
    local name=$1 products=$2 files
    shift 2
    files=("$sources/$name"/*.swift)
    if stale "$binaries/lib$name.so" "${files[@]}" "$products"/interfaces/* "$products"/lib/*; then
        echo "Building $name with library evolution against $products"
        local libraries=()
        for library in "$@"; do libraries+=("-l$library"); done
        quiet swiftc -emit-library -O -swift-version 6 -enable-library-evolution -module-name "$name" \
            -emit-module-interface-path "$binaries/$name.swiftinterface" \
            -I "$products/interfaces" -module-cache-path "$cache" -L "$products/lib" "${libraries[@]}" \
            -Xlinker -soname="lib$name.so" -Xlinker --no-undefined "${files[@]}" -o "$binaries/lib$name.so"
    fi
}

# Runs $2… with the shared libraries of the directories in $1 (colon-separated) and nothing else,
# every symbol bound as it loads (a symbol a binary needs and no library has fails the run, whether
# or not the code that needs it runs), bounded so that a hang fails the check.
run_with() {
    local libraries=$1
    shift
    env LD_LIBRARY_PATH="$libraries" LD_BIND_NOW=1 timeout 120 "$@"
}

# Builds the products of the checkout $1 into $3 (scratch directory $2); files that did not change
# keep their dates, so that nothing built against them is rebuilt.
build_products() {
    local checkout=$1 scratch=$2 output=$3 file target
    Scripts/build-shared-libraries.sh "$checkout" "$scratch" "$output.new"
    mkdir -p "$output/lib" "$output/interfaces"
    for file in "$output.new"/lib/* "$output.new"/interfaces/*; do
        target="$output/${file#"$output.new/"}"
        cmp -s "$file" "$target" || cp "$file" "$target"
    done
    rm -rf "$output.new"
}

build() {
    echo "==> The shipped products as shared libraries: $release ($release_commit) and today's"
    if [[ "$(cat "$released/source/.commit" 2>/dev/null)" != "$release_commit" ]]; then
        rm -rf "$released"
        mkdir -p "$released/source"
        git archive "$release_commit" | tar -x -C "$released/source"
        echo "$release_commit" >"$released/source/.commit"
    fi
    build_products "$released/source" "$released/build" "$released/products"
    # Shares the build of Scripts/check-library-evolution.sh (the same flags and scratch directory).
    build_products . .build/library-evolution "$today"
    mkdir -p "$binaries" "$cache"

    echo "==> The release client, built against $release"
    build_library ReleaseClient "$released/products" \
        SDKEventBusCore SDKEventBusWire SDKEventBusConfig SDKEventBusAppEvents SDKEventBus
    runner="$sources/ReleaseClientRunner/main.swift"
    if stale "$binaries/release-client" "$runner" "$binaries/libReleaseClient.so"; then
        quiet swiftc -O -swift-version 6 -I "$binaries" -I "$released/products/interfaces" -module-cache-path "$cache" \
            -L "$binaries" -lReleaseClient "$runner" -o "$binaries/release-client"
    fi

    echo "==> Two binary SDKs: VendorAnalytics built against $release, VendorFlags against today's sources"
    build_library VendorAnalytics "$released/products" SDKEventBusCore
    build_library VendorFlags "$today" SDKEventBusCore SDKEventBusWire SDKEventBusConfig
    if stale "$binaries/two-sdk-app" "$sources/TwoSDKApp/main.swift" "$binaries"/libVendor*.so "$today"/interfaces/*; then
        # As an app's build sees them: the SDKs' interfaces, with the package's (today's) beside them.
        for vendor in VendorAnalytics VendorFlags; do
            quiet swiftc -frontend -typecheck-module-from-interface "$binaries/$vendor.swiftinterface" \
                -module-name "$vendor" -I "$today/interfaces" -module-cache-path "$cache"
        done
        quiet swiftc -O -swift-version 6 -I "$binaries" -I "$today/interfaces" -module-cache-path "$cache" \
            -L "$binaries" -L "$today/lib" -lVendorAnalytics -lVendorFlags -lSDKEventBusCore -lSDKEventBusConfig \
            "$sources/TwoSDKApp/main.swift" -o "$binaries/two-sdk-app"
    fi

    # Nothing may find the package's libraries but through LD_LIBRARY_PATH.
    for binary in "$binaries"/*.so "$binaries/release-client" "$binaries/two-sdk-app"; do
        if readelf -d "$binary" | grep -E "R(UN)?PATH" | grep -q "$work"; then
            echo "error: $binary has a run path into $work: it must load the libraries it is given" >&2
            exit 1
        fi
    done
}

fixtures="$released/source/Tests/SDKEventBusTests/Resources"

# Runs the release client against the libraries in $1; fails unless every check held and every one
# of the package's libraries came from $1.
run_release_client() {
    local libraries=$1 resolved loaded
    resolved=$(LD_LIBRARY_PATH="$binaries:$libraries" ldd "$binaries/release-client")
    if grep -q "not found" <<<"$resolved"; then
        echo "error: the release client finds no library for:" \
            "$(grep "not found" <<<"$resolved" | awk '{ print $1 }' | xargs)"
        return 1
    fi
    loaded=$(awk '$1 ~ /^libSDKEventBus/ { print $3 }' <<<"$resolved" | xargs -r realpath | sort -u)
    if [[ -z "$loaded" ]] || grep -qv "^$(realpath "$libraries")/" <<<"$loaded"; then
        echo "error: the release client would not load the package from $libraries: ${loaded:-nothing}"
        return 1
    fi
    run_with "$binaries:$libraries" "$binaries/release-client" "$fixtures"
}

# Runs the two-SDK app with the package's libraries in $1, telling it to expect them from $2.
run_app() {
    run_with "$binaries:$1" "$binaries/two-sdk-app" "$2"
}

build

if [[ "${1:-}" == "--self-test" ]]; then
    echo "==> Self-test: each of these runs must fail"
    broken="$work/self-test"
    rm -rf "$broken"
    mkdir -p "$broken/removed-method" "$broken/empty"
    cp "$today"/lib/*.so "$broken/removed-method/"
    # Today's libSDKEventBusCore.so with CatalogEmitter.clearReplay(of:), which no library of the
    # package calls, taken out: as a release that removed it.
    nm -D --defined-only "$today/lib/libSDKEventBusCore.so" | awk '{ print $3 }' >"$broken/core-symbols"
    symbols=$(swift demangle --compact <"$broken/core-symbols" | paste - "$broken/core-symbols" \
        | grep -E $'^[^\t]*CatalogEmitter\\.clearReplay\\(of:' | cut -f2)
    if [[ -z "$symbols" ]]; then
        echo "self-test: no symbol of CatalogEmitter.clearReplay(of:) in libSDKEventBusCore.so"
        exit 1
    fi
    { echo "{ global: *; local:"; sed 's/$/;/' <<<"$symbols"; echo "};"; } >"$broken/hide-clear-replay.map"
    core_objects=()
    bin=$(swift build -c release --scratch-path .build/library-evolution -Xswiftc -enable-library-evolution \
        -Xswiftc -emit-module-interface --show-bin-path)
    while IFS= read -r object; do
        core_objects+=("$object")
    done < <(find "$bin/SDKEventBusCore.build" -name '*.o' | sort)
    swiftc -emit-library -o "$broken/removed-method/libSDKEventBusCore.so" "${core_objects[@]}" \
        -Xlinker -soname=libSDKEventBusCore.so -Xlinker --version-script="$broken/hide-clear-replay.map"

    failed=0
    expect_failure() {
        local name=$1 expected=$2 output
        shift 2
        if output=$("$@" 2>&1); then
            echo "self-test: $name passed; it must fail"
            failed=1
        elif [[ "$output" != *"$expected"* ]]; then
            echo "self-test: $name failed, but without \"$expected\":"
            echo "$output" | tail -5
            failed=1
        else
            echo "ok: $name fails: $(grep -m1 -F "$expected" <<<"$output")"
        fi
    }
    expect_failure "the release client without CatalogEmitter.clearReplay(of:)" "undefined symbol" \
        run_release_client "$broken/removed-method"
    expect_failure "the release client without the package's libraries" "finds no library for" \
        run_release_client "$broken/empty"
    expect_failure "the app told to expect the package from $released/products/lib" "two-SDK app FAILED" \
        run_app "$today/lib" "$released/products/lib"
    if [[ $failed -ne 0 ]]; then exit 1; fi
    echo "self-test passed"
    exit 0
fi

echo "==> The release client against $release, the version it was built with"
run_release_client "$released/products/lib" || {
    echo "error: the release client fails on $release, the release it was built against: the client is wrong" >&2
    exit 1
}
echo "==> The same binary against today's libraries, not rebuilt"
run_release_client "$today/lib" || {
    echo "error: a binary built against $release does not run on today's build: an ABI break (Docs/ABI.md)" >&2
    exit 1
}
echo "==> The app with both binary SDKs, on today's libraries"
run_app "$today/lib" "$today/lib" || {
    echo "error: two binary SDKs do not share one app (Docs/EmbeddingInYourSDK.md)" >&2
    exit 1
}
echo "A binary built against $release runs on today's build; two binary SDKs share one app"
