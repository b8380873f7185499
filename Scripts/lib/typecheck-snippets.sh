# Sourced by the checks that type-check snippets of app code against the package's built modules, as
# another package's code would be compiled (Scripts/check-handle-idioms.sh, Scripts/check-app-side.sh).
#
# It gives them a scratch folder (`$work`), a `status` that ends 1 once any expectation fails,
# `expect_compiles NAME SNIPPET`, `expect_rejected NAME SNIPPET DIAGNOSTIC`, and
# `prepare_compiler ARG`, which handles the scripts' shared arguments: `--self-test` checks the
# expectations themselves on plain Swift and exits; `--no-build` skips building the package;
# otherwise it builds the SDKEventBus target first. Either way it then sets `compiler` to type-check
# against the built modules without the package's name, so no `package` declaration is in reach.

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

# Type-checks the file $1 with the compiler command in the array `compiler`.
typecheck() {
    "${compiler[@]}" "$1"
}

# Requires the snippet $2 (named $1) to type-check.
expect_compiles() {
    local file="$work/$1.swift" output
    printf '%s\n' "$2" >"$file"
    if output=$(typecheck "$file" 2>&1); then
        echo "ok: $1 compiles"
    else
        echo "error: $1 must compile, and does not:"
        echo "$output" | sed 's/^/    /'
        status=1
    fi
}

# Requires the snippet $2 (named $1) to fail to type-check with a diagnostic containing $3.
expect_rejected() {
    local file="$work/$1.swift" output
    printf '%s\n' "$2" >"$file"
    if output=$(typecheck "$file" 2>&1); then
        echo "error: $1 compiles; it must be rejected with: $3"
        status=1
    elif [[ "$output" != *"$3"* ]]; then
        echo "error: $1 is rejected, but not with \"$3\":"
        echo "$output" | grep -E 'error:' | sed 's/^/    /'
        status=1
    else
        echo "ok: $1 is rejected: $3"
    fi
}

# The checks themselves, on plain Swift: a rejection with the expected diagnostic passes; one that
# compiles, or fails for another reason, fails; a snippet that must compile and does not fails.
self_test() {
    compiler=(swiftc -typecheck -swift-version 6)
    run() { (status=0; "$@" >/dev/null; echo $status); }
    [[ $(run expect_compiles Good 'let x = 1') == 0 ]] || { echo "self-test: good code failed"; exit 1; }
    [[ $(run expect_compiles Bad 'let x: Int = "a"') == 1 ]] || { echo "self-test: bad code passed"; exit 1; }
    [[ $(run expect_rejected Rejected 'struct S {}; S().stop()' "has no member 'stop'") == 0 ]] || {
        echo "self-test: an expected rejection failed"
        exit 1
    }
    [[ $(run expect_rejected Compiles 'struct S { func stop() {} }; S().stop()' "has no member 'stop'") == 1 ]] || {
        echo "self-test: a snippet that compiles passed as rejected"
        exit 1
    }
    [[ $(run expect_rejected Other 'let x: Int = "a"' "has no member 'stop'") == 1 ]] || {
        echo "self-test: a rejection for another reason passed"
        exit 1
    }
    echo "self-test passed"
    exit 0
}

prepare_compiler() {
    if [[ "${1:-}" == "--self-test" ]]; then self_test; fi
    if [[ "${1:-}" != "--no-build" ]]; then
        echo "Build: swift build --target SDKEventBus"
        swift build --target SDKEventBus >/dev/null || swift build --target SDKEventBus
    fi
    local bin
    bin=$(swift build --show-bin-path)
    compiler=(
        swiftc -typecheck -parse-as-library -swift-version 6 -I "$bin/Modules"
        -Xcc "-fmodule-map-file=$bin/_SDKEventBusAtomics.build/module.modulemap"
        -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility
        -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature NonisolatedNonsendingByDefault
    )
}
