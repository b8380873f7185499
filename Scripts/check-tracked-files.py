#!/usr/bin/env python3
"""Fails when git tracks a built program or a file no user of the package needs.

Every clone downloads every tracked file, and an SDK that embeds the package clones it: a compiled
probe or test binary committed by mistake (`git add -A` after `swiftc -o probe …` at the root) costs
every one of them megabytes. This reads the first bytes of each tracked file, so it needs neither
`file(1)` nor a build, and also rejects any tracked file over 1 MB outside `API/` (the API baselines
are the one large text this package keeps on purpose).

Usage: Scripts/check-tracked-files.py [--self-test]
"""
import os
import subprocess
import sys
import tempfile

MAGIC = {
    b"\x7fELF": "an ELF program or object",
    b"\xcf\xfa\xed\xfe": "a Mach-O program (64-bit)",
    b"\xce\xfa\xed\xfe": "a Mach-O program (32-bit)",
    b"\xca\xfe\xba\xbe": "a universal Mach-O program",
    b"!<arch>\n": "an ar archive (a static library)",
    b"MZ": "a Windows program",
    b"\x00asm": "a WebAssembly module",
}
LIMIT = 1 << 20
ALLOWED_LARGE = ("API/",)


def problem(path):
    """What is wrong with `path`, or None."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(8)
        size = os.path.getsize(path)
    except OSError:
        return None  # deleted in the work tree: git reports it elsewhere
    for magic, kind in MAGIC.items():
        if head.startswith(magic):
            return f"is {kind}"
    if size > LIMIT and not path.startswith(ALLOWED_LARGE):
        return f"is {size / LIMIT:.1f} MB (over 1 MB)"
    return None


def check(paths):
    return [(path, why) for path in paths if (why := problem(path))]


def self_test():
    with tempfile.TemporaryDirectory() as folder:
        cases = {"probe": b"\x7fELF\x02\x01\x01" + b"\0" * 64, "lib.a": b"!<arch>\nfoo", "notes.md": b"# text\n"}
        for name, data in cases.items():
            with open(os.path.join(folder, name), "wb") as handle:
                handle.write(data)
        found = {os.path.basename(path) for path, _ in check([os.path.join(folder, n) for n in cases])}
        assert found == {"probe", "lib.a"}, found
    print("check-tracked-files self-test passed")


def main():
    if "--self-test" in sys.argv:
        self_test()
        return 0
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True)
    os.chdir(root.stdout.strip())
    listed = subprocess.run(["git", "ls-files", "-z"], capture_output=True, check=True).stdout
    paths = [p.decode() for p in listed.split(b"\0") if p]
    found = check(paths)
    for path, why in found:
        print(f"error: {path} {why}: remove it from git (git rm --cached) and keep build outputs under .build*/",
              file=sys.stderr)
    if found:
        return 1
    print(f"{len(paths)} tracked files: no built program, none over 1 MB outside API/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
