#!/usr/bin/env bash
# Builds the shipped products of a checkout of the package as binary SDKs link them on Linux: one
# shared library per product, built with library evolution, with its .swiftinterface beside it.
#
#   OUTPUT/lib/libSDKEventBusCore.so         soname libSDKEventBusCore.so: the same in every 1.x
#   OUTPUT/lib/libSDKEventBusWire.so         …one per shipped product, each linked against the
#   OUTPUT/interfaces/SDKEventBusCore.swiftinterface     libraries of the products it depends on
#
# The shipped products are the ones Docs/ABI.md lists: SDKEventBusCore, SDKEventBusWire,
# SDKEventBusConfig, SDKEventBusAppEvents and SDKEventBus (the testing library is built from source
# with an SDK's tests, never shipped in one). The dependencies between them are read from the
# checkout's own manifest, so an older release builds as it was.
#
# This is the Linux form of one dynamic framework per product (install name
# @rpath/SDKEventBusCore.framework/SDKEventBusCore) that Docs/EmbeddingInYourSDK.md describes for two
# binary SDKs in one app. Scripts/check-binary-compatibility.sh builds 1.0.0 and today's sources
# with it.
#
# Usage: Scripts/build-shared-libraries.sh SOURCE-DIRECTORY SCRATCH-DIRECTORY OUTPUT-DIRECTORY
#   (a release build; reusing the scratch directory of Scripts/check-library-evolution.sh,
#   .build/library-evolution, for today's sources costs no second build)
set -euo pipefail

if [[ $# -ne 3 ]]; then
    echo "usage: $0 SOURCE-DIRECTORY SCRATCH-DIRECTORY OUTPUT-DIRECTORY" >&2
    exit 2
fi
source_dir=$1
scratch=$2
output=$3
shipped=(SDKEventBusCore SDKEventBusWire SDKEventBusConfig SDKEventBusAppEvents SDKEventBus)
flags=(-c release --package-path "$source_dir" --scratch-path "$scratch"
    -Xswiftc -enable-library-evolution -Xswiftc -emit-module-interface)

# Foundation on Linux is not built with library evolution: the compiler says so for every module
# that imports it, which is expected here and not on Apple platforms.
build() {
    local log
    if ! log=$(swift build "${flags[@]}" --target "$1" 2>&1); then
        echo "$log" | grep -v "was not compiled with library evolution support" >&2
        echo "error: building $1 in $source_dir failed" >&2
        exit 1
    fi
}
# SDKEventBus re-exports every other shipped product, so one build makes them all; a product it
# does not reach is built on its own.
build SDKEventBus
bin=$(swift build "${flags[@]}" --show-bin-path)
for product in "${shipped[@]}"; do
    [[ -f "$bin/$product.build/$product.swiftinterface" ]] || build "$product"
done

# Each shipped product's targets, and the shipped products its targets depend on (directly or
# through targets that are no product, such as the header-only _SDKEventBusAtomics), in an order
# where every product comes after those it links.
plan=$(swift package --package-path "$source_dir" describe --type json | python3 -c '
import json, sys
shipped = sys.argv[1:]
package = json.load(sys.stdin)
targets = {target["name"]: target for target in package["targets"]}
products = {product["name"]: product["targets"] for product in package["products"] if product["name"] in shipped}
missing = [name for name in shipped if name not in products]
if missing:
    sys.exit(f"error: the manifest has no product {missing}")
owner = {target: product for product, names in products.items() for target in names}

def linked(product):
    """The shipped products whose targets the product reaches, itself excluded."""
    seen, found, stack = set(), set(), list(products[product])
    while stack:
        for dependency in targets[stack.pop()].get("target_dependencies", []):
            if dependency in seen:
                continue
            seen.add(dependency)
            if dependency in owner and owner[dependency] != product:
                found.add(owner[dependency])
            else:
                stack.append(dependency)
    return found

order, done = [], set()
def visit(product):
    if product in done:
        return
    done.add(product)
    for dependency in sorted(linked(product)):
        visit(dependency)
    order.append(product)
for product in shipped:
    visit(product)
for product in order:
    print(product, ",".join(products[product]), " ".join(sorted(linked(product))))
' "${shipped[@]}")

rm -rf "$output"
mkdir -p "$output/lib" "$output/interfaces"
while read -r product product_targets dependencies; do
    objects=()
    for target in ${product_targets//,/ }; do
        while IFS= read -r object; do objects+=("$object"); done < <(find "$bin/$target.build" -name '*.o' | sort)
        cp "$bin/$target.build/$target.swiftinterface" "$output/interfaces/"
    done
    libraries=()
    for dependency in $dependencies; do libraries+=("-l$dependency"); done
    # --no-undefined: a symbol the objects need and no linked library has fails here, not at run time.
    swiftc -emit-library -o "$output/lib/lib$product.so" "${objects[@]}" -L "$output/lib" "${libraries[@]}" \
        -Xlinker -soname="lib$product.so" -Xlinker --no-undefined
done <<<"$plan"
echo "Shared libraries of $source_dir: $(cd "$output/lib" && echo *.so)"
