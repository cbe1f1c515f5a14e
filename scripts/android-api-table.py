#!/usr/bin/env python3
"""Derives crates/android/platform/api.tsv from Android's symbol lists (*.map.txt).

Run by hand, once per update of the lists; neither the build nor the tests run it (they read
the committed table). Usage:

    python3 scripts/android-api-table.py /work/shared/android-api > crates/android/platform/api.tsv

The folder holds libc.map.txt, libm.map.txt, libdl.map.txt, liblog.map.txt and
libandroid.map.txt as AOSP publishes them, and a README.md naming the mirror, path and commit
of each; the table's header repeats those lines, so the table says where it came from.

The rules are the ones the NDK's stub generator follows:
- a version block named *_PRIVATE or *_PLATFORM, or tagged platform-only, is left out;
- a symbol or block tagged apex, llndk or systemapi (not for apps) is left out;
- arch tags (arm, arm64, x86, x86_64, riscv64) restrict a symbol to those arches, a
  block's arch tags restrict its symbols;
- introduced=N and introduced-<arch>=N (on the symbol or its block; the later of the two
  counts) give the first API level; a codename (P, Tiramisu, ...) is its number; `future`
  is never;
- versioned=N: below API N the symbol is unversioned;
- var: a data object; weak: a weak definition; anything else is a function.
"""

import os
import re
import sys

ARCHES = ["arm", "arm64", "x86", "x86_64", "riscv64"]
# Arches the lists still name but no current NDK builds for: their tags are ignored.
RETIRED_ARCHES = {"mips", "mips64"}
LIBRARIES = ["libc", "libm", "libdl", "liblog", "libandroid"]
MODE_TAGS = {"apex", "llndk", "systemapi"}
CODENAMES = {
    "G": 9, "I": 14, "J": 16, "J-MR1": 17, "J-MR2": 18, "K": 19, "L": 21, "L-MR1": 22,
    "M": 23, "N": 24, "N-MR1": 25, "O": 26, "O-MR1": 27, "P": 28, "Q": 29, "R": 30,
    "S": 31, "Sv2": 32, "Tiramisu": 33, "UpsideDownCake": 34, "VanillaIceCream": 35,
    "Baklava": 36,
}
FUTURE = 10**6


def level(value):
    if value == "future":
        return FUTURE
    if value.isdigit():
        return int(value)
    if value in CODENAMES:
        return CODENAMES[value]
    sys.exit(f"error: unknown API level {value!r}")


def parse_tags(comment, where, warnings):
    """The tags of a `# ...` comment: (arches, {arch or None: introduced}, versioned, flags)."""
    arches, introduced, versioned, flags = set(), {}, None, set()
    for tag in comment.split():
        if tag in ARCHES:
            arches.add(tag)
        elif tag in RETIRED_ARCHES:
            arches.add(tag)
        elif tag.startswith("introduced="):
            introduced[None] = level(tag.split("=", 1)[1])
        elif tag.startswith("introduced-"):
            arch, value = tag[len("introduced-"):].split("=", 1)
            if arch in ARCHES:
                introduced[arch] = level(value)
            elif arch not in RETIRED_ARCHES:
                warnings.append(f"{where}: tag {tag!r} names no known arch, ignored")
        elif tag.startswith("versioned="):
            versioned = level(tag.split("=", 1)[1])
        elif tag == "future":
            introduced[None] = FUTURE
        else:
            flags.add(tag)
    return arches, introduced, versioned, flags


def parse_map(path, library, warnings):
    """Yields (version, symbol, kind, weak, {arch: api}, versioned) for one list."""
    block = None  # (name, arches, introduced, skip)
    nested = 0
    for lineno, raw in enumerate(open(path, encoding="utf-8"), 1):
        where = f"{os.path.basename(path)}:{lineno}"
        code, _, comment = raw.partition("#")
        code = code.strip()
        if not code:
            continue
        if nested:  # extern "C++" { ... }: only in platform blocks, never for apps
            nested += code.count("{") - code.count("}")
            continue
        if code.startswith("extern"):
            nested = code.count("{") - code.count("}")
            if block and not block[3]:
                sys.exit(f"error: {where}: extern block in an app-visible version")
            continue
        m = re.fullmatch(r"([A-Za-z0-9_]+)\s*\{", code)
        if m:
            name = m.group(1)
            arches, introduced, _, flags = parse_tags(comment, where, warnings)
            skip = (name.endswith("_PRIVATE") or name.endswith("_PLATFORM")
                    or "platform-only" in flags or bool(flags & MODE_TAGS))
            block = (name, arches, introduced, skip)
            continue
        if code.startswith("}"):
            block = None
            continue
        if code in ("global:", "local:"):
            continue
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)\s*;", code)
        if not m:
            if code == "*;":
                continue
            sys.exit(f"error: {where}: cannot read {code!r}")
        if block is None:
            sys.exit(f"error: {where}: symbol outside a version block")
        name, b_arches, b_intro, skip = block
        if skip:
            continue
        arches, intro, versioned, flags = parse_tags(comment, where, warnings)
        if flags & MODE_TAGS:
            continue
        unknown = flags - {"var", "weak"}
        if unknown:
            warnings.append(f"{where}: tags {sorted(unknown)} not understood, ignored")
        allowed = [a for a in ARCHES
                   if (not arches or a in arches) and (not b_arches or a in b_arches)]
        apis = {}
        for arch in allowed:
            sym_api = intro.get(arch, intro.get(None, 0))
            blk_api = b_intro.get(arch, b_intro.get(None, 0))
            apis[arch] = max(sym_api, blk_api)
        if not apis:
            continue
        kind = "data" if "var" in flags else "function"
        yield name, m.group(1), kind, "weak" in flags, apis, versioned


def source_lines(folder):
    """The README's table rows (file, mirror, path, commit), for the header."""
    rows = []
    readme = os.path.join(folder, "README.md")
    for line in open(readme, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].endswith(".map.txt"):
            rows.append(cells)
    return rows


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: android-api-table.py FOLDER-WITH-MAP-FILES > api.tsv")
    folder = sys.argv[1]
    warnings = []
    out = sys.stdout
    out.write("# Android's NDK API for apps, as data: one row per (library, version node, symbol,\n")
    out.write("# API level); a symbol introduced at different levels on different arches has one\n")
    out.write("# row per level. Generated by scripts/android-api-table.py (do not edit by hand) from\n")
    out.write("# AOSP's symbol lists, the ones the NDK's stub libraries are generated from:\n")
    for file, mirror, path, commit in source_lines(folder):
        out.write(f"#   {file}: github.com/{mirror} {path} @ {commit}\n")
    for line in [
        "Columns: library; version node; symbol; kind (function|data); weak (yes|no);",
        "api: the first API level (0: no introduced tag, there from the start; future: never);",
        "arches: comma-separated (all: arm,arm64,x86,x86_64,riscv64); versioned: the API level",
        "from which the symbol carries its version node (-: always). Left out: *_PRIVATE,",
        "*_PLATFORM and platform-only blocks, apex, llndk and systemapi symbols.",
    ]:
        out.write(f"# {line}\n")
    out.write("library\tversion\tsymbol\tkind\tweak\tapi\tarches\tversioned\n")
    rows = 0
    for library in LIBRARIES:
        path = os.path.join(folder, f"{library}.map.txt")
        for version, symbol, kind, weak, apis, versioned in parse_map(path, library, warnings):
            by_level = {}
            for arch in ARCHES:
                if arch in apis:
                    by_level.setdefault(apis[arch], []).append(arch)
            for api in sorted(by_level):
                api_text = "future" if api >= FUTURE else str(api)
                out.write("\t".join([
                    library, version, symbol, kind, "yes" if weak else "no", api_text,
                    "all" if by_level[api] == ARCHES else ",".join(by_level[api]),
                    "-" if versioned is None else str(versioned),
                ]) + "\n")
                rows += 1
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    print(f"{rows} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
