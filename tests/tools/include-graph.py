#!/usr/bin/env python3
"""The include graph of hardinit's C (init/ crypto/ arch/ block/ tpm/
stages/ prog/) and the rules it keeps (tests/bats/includes.bats).

  include-graph.py circles [TOP]   print each include circle, one a line
                                   ("a -> b -> a"); status 1 when any
  include-graph.py headers [TOP]   print each non-static function or object
                                   defined in X.c that X.h does not declare,
                                   or that another header declares too
  include-graph.py floors [TOP]    print each #include of a header from a
                                   folder the including file's floor may not
                                   see; stdin: one "FOLDER=-IA -IB ..." a
                                   line, the Makefile's floor_inc of FOLDER

A node is a file's stem: X.c and X.h are one node, X (a header without a
.c is a node of its own), and an edge X -> Y is an #include "Y.h" in X.c or
X.h. So report.c including fsutil.h while fsutil.c includes report.h is a
circle, even though no header includes itself.
"""
import os, re, subprocess, sys, tempfile

FLOORS = ["init", "crypto", "arch", "block", "tpm", "stages", "prog"]
# Defined without a header of their own: main; what tests/bats/symbols.bats
# allows unprefixed (the glibc fortify entry points of prog/compat.c, the
# glibc names of prog/glibc_names.c and
# PCRE2's JIT entry points of prog/pcre2_nojit.c: the libraries' archives
# call them, no file of hardinit does).
ALLOWED = re.compile(r"^(main|__[a-z_0-9]+_(chk|2)|__isoc23_[a-z]+|fcntl64|_?pcre2_jit_[a-z_]+_8)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def files(top):
    return sorted(os.path.join(d, f) for d in FLOORS if os.path.isdir(os.path.join(top, d))
                  for f in os.listdir(os.path.join(top, d)) if f.endswith((".c", ".h")))


def graph(top):
    fs = files(top)
    home = {os.path.basename(f): f[:-2] for f in fs if f.endswith(".h")}
    g = {}
    for f in fs:
        node = g.setdefault(f[:-2], set())
        for inc in INCLUDE.findall(open(os.path.join(top, f)).read()):
            if inc in home and home[inc] != f[:-2]:
                node.add(home[inc])
    return g


def circles(g):
    """Tarjan's strongly connected components; each of more than one node
    is printed as one circle through all of them."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1
        stack.append(v); on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(100000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def path_in(g, comp):
    """One closed walk a -> ... -> a through the component, for the message."""
    start, seen, walk = comp[0], set(), [comp[0]]
    v = start
    while True:
        nxt = sorted(w for w in g[v] if w in comp)
        back = [w for w in nxt if w == start]
        fresh = [w for w in nxt if w not in seen and w != start]
        if fresh:
            v = fresh[0]; seen.add(v); walk.append(v)
        elif back:
            walk.append(start)
            return " -> ".join(walk)
        else:
            return " -> ".join(walk) + " -> ..."
        if len(walk) > len(comp) + 1:
            return " -> ".join(walk)


def defined_all(top, cs):
    """The non-static functions and objects each file of cs defines: its
    object's global symbols (compiled here at -O0, as symbols.bats does)."""
    inc = [a for d in FLOORS for a in ("-I", os.path.join(top, d))]
    with tempfile.TemporaryDirectory() as t:
        procs, objs = [], {}
        for c in cs:
            objs[c] = os.path.join(t, c.replace("/", "_") + ".o")
            procs.append(subprocess.Popen(["gcc", "-std=gnu11", "-O0", *inc, '-DHARDINIT_VERSION="x"',
                                           '-DHARDINIT_PROFILE_DIR="x"', "-c", os.path.join(top, c), "-o", objs[c]]))
            if len(procs) >= 2 and procs.pop(0).wait() != 0:
                sys.exit("include-graph: a file did not compile")
        if any(p.wait() != 0 for p in procs):
            sys.exit("include-graph: a file did not compile")
        out = {}
        for c, o in objs.items():
            nm = subprocess.run(["nm", "-g", "--defined-only", o], capture_output=True, text=True, check=True).stdout
            out[c] = [l.split()[2] for l in nm.splitlines() if len(l.split()) == 3]
        return out


def strip(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def headers(top):
    fs = files(top)
    hs = {f: strip(open(os.path.join(top, f)).read()) for f in fs if f.endswith(".h")}
    bad = []
    cs = [f for f in fs if f.endswith(".c")]
    defs = defined_all(top, cs)
    for c in cs:
        own = c[:-2] + ".h"
        for name in defs[c]:
            if ALLOWED.match(name):
                continue
            w = re.compile(r"\b%s\b" % re.escape(name))
            if own not in hs or not w.search(hs[own]):
                bad.append(f"{c}: {name} is not declared in {own}")
            for h, text in hs.items():
                if h != own and re.search(r"\b%s\s*(\(|\[|;)" % re.escape(name), text) and \
                        not re.search(r"#\s*define\s+\w+.*\b%s\b" % re.escape(name), text):
                    bad.append(f"{c}: {name} is declared in {h}, not only in {own}")
    return bad


def floors(top, spec):
    """Each include whose header lives in a folder outside the including
    file's floor (spec: FOLDER=-IA -IB lines, as the Makefile compiles it):
    from above, or from a peer family."""
    allowed = {}
    for line in spec.splitlines():
        if "=" in line:
            d, incs = line.split("=", 1)
            allowed[d.strip()] = [a[2:] for a in incs.split() if a.startswith("-I")]
    fs = files(top)
    home = {os.path.basename(f): f for f in fs if f.endswith(".h")}
    bad = []
    for f in fs:
        d = f.split("/")[0]
        if d not in allowed:
            continue
        for inc in INCLUDE.findall(strip(open(os.path.join(top, f)).read())):
            h = home.get(inc)
            if h and h.split("/")[0] not in allowed[d]:
                bad.append(f"{f}: includes {h}, which {d}/ may not see (it sees {' '.join(allowed[d])})")
    return bad


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "circles"
    top = sys.argv[2] if len(sys.argv) > 2 else "."
    if what == "circles":
        g = graph(top)
        found = [path_in(g, c) for c in circles(g)]
    elif what == "headers":
        found = headers(top)
    elif what == "floors":
        found = floors(top, sys.stdin.read())
    else:
        sys.exit("usage: include-graph.py circles|headers|floors [TOP]")
    for line in found:
        print(line)
    sys.exit(1 if found else 0)


main()
