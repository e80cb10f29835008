#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The source FMU's file list (docs/fmi.md, "Source FMUs"), written at build time.

The translation units are given; the headers they need are what the compiler reports it
includes (-E -H: every header actually opened, system directories too, since /usr/include holds
the libraries as well; not the ones a __has_include only probes), so the list is exactly the
closure, nothing guessed. Each header is either the project's, a
header-only library the archive carries (Eigen, nlohmann/json), or the C and C++ runtime of the
platform; anything else is an error, since the archive must build with the compiler alone.
Every file carried gets its licence from its own text; a file whose licence is not recognized
is an error, not a guess.

Usage: source_manifest.py OUT COMPILER SOURCE_DIR INCLUDE_DIR... -- UNIT...
Writes OUT, one file per line, tab-separated: kind (unit, header, licence), path in the
archive's sources/ (licence texts: in documentation/licenses/), licence, absolute path.
"""
import os
import re
import subprocess
import sys

# Header-only libraries the archive carries: the part of the path from this folder on is the
# path in sources/ (so that #include <Eigen/Dense> finds it with sources/ on the include path).
VENDORED = ("Eigen", "Spectra", "nlohmann")
# The platform's C and C++ runtime, which any compiler brings along.
RUNTIME = (re.compile(r"^/usr/include/c\+\+/"), re.compile(r"^/usr/lib/(gcc|llvm-\d+)/"),
           re.compile(r"^/usr/include/(x86_64|aarch64|i386|arm)[^/]*/"), re.compile(r"^/usr/include/(linux|asm[^/]*)/"),
           re.compile(r"^/usr/include/[^/]+\.h$"))
# The copyright statements of the libraries carried (Debian's machine-readable copyright files:
# holders, and the licence of the files that carry no notice of their own).
COPYRIGHT = {"Eigen": "/usr/share/doc/libeigen3-dev/copyright", "Spectra": "/usr/share/doc/libspectra-dev/copyright",
             "nlohmann": "/usr/share/doc/nlohmann-json3-dev/copyright"}
# Licence texts, by SPDX identifier (BSD-3-Clause and MIT: their text is in the file's own notice
# and in the library's copyright file, which the archive carries as well).
LICENCE_TEXTS = {
    "GPL-3.0-or-later": "COPYING",
    "MPL-2.0": "/usr/share/common-licenses/MPL-2.0",
    "Apache-2.0": "/usr/share/common-licenses/Apache-2.0",
    "BSD-3-Clause": COPYRIGHT["Eigen"],
    "MIT": COPYRIGHT["nlohmann"],
}
# Debian's licence short names as SPDX identifiers.
DEBIAN_NAMES = {"MPL-2": "MPL-2.0", "Expat": "MIT", "BSD-3-clause": "BSD-3-Clause", "Apache-2.0": "Apache-2.0"}


def notice_licence(head):
    """The licence a file states itself, or None."""
    m = re.search(r"SPDX-License-Identifier:\s*([A-Za-z0-9.+-]+)", head)
    if m:
        return m.group(1)
    if "Mozilla" in head and "v. 2.0" in head:
        return "MPL-2.0"
    if "Apache License, Version 2.0" in head:
        return "Apache-2.0"
    if "Redistribution and use in source and binary forms" in head and "Neither the name" in head:
        return "BSD-3-Clause"
    return None


def debian_licence(copyright_file, rel):
    """The licence Debian's copyright file gives `rel` (the last stanza whose pattern matches)."""
    found = None
    with open(copyright_file, encoding="utf-8") as f:
        stanzas = f.read().split("\n\n")
    for s in stanzas:
        files = re.search(r"^Files:(.*(?:\n[ \t].*)*)", s, re.M)
        lic = re.search(r"^License:\s*(\S.*)$", s, re.M)
        if not files or not lic:
            continue
        for pattern in files.group(1).split():
            rx = "^" + re.escape(pattern).replace("\\*", ".*").replace("\\?", ".") + "$"
            if re.match(rx, rel) or re.match(rx, "include/" + rel):
                found = lic.group(1).strip()
    return DEBIAN_NAMES.get(found) if found else None


def licence_of(path, rel, where):
    with open(path, encoding="utf-8", errors="replace") as f:
        head = f.read(4000)
    own = notice_licence(head)
    if own or where == "project":
        return own
    library = rel.split("/")[1] if rel.startswith("unsupported/") else rel.split("/")[0]
    return debian_licence(COPYRIGHT[library], rel)


def archive_path(path, source_dir):
    if path.startswith(source_dir + os.sep):
        return "project", os.path.relpath(path, source_dir)
    parts = path.split(os.sep)
    for i, p in enumerate(parts):
        if p in VENDORED and i + 1 < len(parts):
            first = i - 1 if i > 0 and parts[i - 1] == "unsupported" else i  # Eigen's unsupported modules
            return "vendored", "/".join(parts[first:])
    if any(r.search(path) for r in RUNTIME):
        return "runtime", None
    return "foreign", None


def main():
    args = sys.argv[1:]
    split = args.index("--")
    out, compiler, source_dir, includes, units = args[0], args[1], os.path.realpath(args[2]), args[3:split], args[split + 1:]
    # The headers for the compiler's default target; then all of Eigen's SIMD kernels, which it
    # includes by the target's flags, so that the sources build for any instruction set (AVX2,
    # AVX-512, NEON, AltiVec, ...; fmi_source_fmus builds them for x86-64-v3).
    cmd = [compiler, "-std=c++20", "-E", "-H"] + ["-I" + d for d in [source_dir] + includes] + units
    listed = subprocess.run(cmd, cwd=source_dir, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if listed.returncode != 0:
        sys.exit("source FMU manifest: the units do not preprocess:\n" + listed.stderr[-4000:])
    files = {os.path.realpath(os.path.join(source_dir, u)) for u in units}
    for line in listed.stderr.splitlines():
        m = re.match(r"^\.+ (\S.*)$", line)
        if m:
            files.add(os.path.realpath(os.path.join(source_dir, m.group(1))))
    arch = {os.path.join(os.path.dirname(f).split("/src/Core/arch/")[0], "src", "Core", "arch")
            for f in files if "/Eigen/src/Core/arch/" in f}
    for folder in arch:
        for root, _, names in os.walk(folder):
            files.update(os.path.realpath(os.path.join(root, n)) for n in names if n.endswith(".h"))
    problems, rows = [], []
    unit_paths = {os.path.realpath(os.path.join(source_dir, u)) for u in units}
    for path in sorted(files):
        where, rel = archive_path(path, source_dir)
        if where == "runtime":
            continue
        if where == "foreign":
            problems.append(f"{path}: needed by the FMU's sources but neither the project's, nor a library the archive "
                            f"carries ({', '.join(VENDORED)}), nor the C/C++ runtime")
            continue
        if not os.path.isfile(path):
            problems.append(f"{path}: not found (a generated header? the source FMU carries source files only)")
            continue
        licence = licence_of(path, rel, where)
        if licence is None:
            problems.append(f"{path}: its licence is stated neither in the file nor in its library's copyright file")
            continue
        rows.append(("unit" if path in unit_paths else "header", rel, licence, path))
    used = sorted({r[2] for r in rows})
    texts = [(lic, LICENCE_TEXTS.get(lic)) for lic in used]
    libraries = {part for r in rows if r[0] == "header" for part in r[1].split("/")[:2] if part in COPYRIGHT}
    texts += [(f"{lib} copyright", COPYRIGHT[lib]) for lib in sorted(libraries)]
    for lic, source in texts:
        if source is None:
            problems.append(f"no licence text for {lic}")
            continue
        path = source if os.path.isabs(source) else os.path.join(source_dir, source)
        if not os.path.isfile(path):
            problems.append(f"{path}: the licence text the archive carries is missing")
            continue
        name = lic.replace(" ", "-") + ".txt"
        rows.append(("licence", name, lic.split(" ")[0] if " " in lic else lic, path))
    if len(unit_paths) != sum(1 for r in rows if r[0] == "unit"):
        problems.append("a translation unit is missing from the compiler's dependency list")
    if problems:
        sys.exit("source FMU manifest:\n  " + "\n  ".join(problems))
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        for r in rows:
            f.write("\t".join(r) + "\n")
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
