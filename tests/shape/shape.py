#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The shape of the production code (issue 24's measures), checked.

Sources (cni/*/, ib-sriov/ and its rooms, rdma-ns/, ipam/, installer/): no file
over 500 lines, no function over 80 lines or with more than 6 parameters, no GNU "?:", no
__thread. Objects (the build tree given as argv[1]): no call cycle between
two objects, no call from a layer of cni/ into one its README does not allow, none into
the dispatcher (skel.o) from the runtime
(the includes are checked by tests/unit/test_layers.c; this checks what the
linker sees), no plugin calling another plugin but ib-sriov's main.o into
the built-in ib-host-local, nothing but ib-sriov's main.o calling into ADD's
room (ib-sriov/add/), the installer calling only what its README allows.

Kernel style (clang-format enforced): a function body opens with "{" and
closes with "}" in column 0. Prints every offender; exit 1 when any."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAYERS = ['base', 'kernel', 'state', 'protocol']
ALLOW = {'base': {'base'}, 'kernel': {'base', 'kernel'}, 'state': {'base', 'state'},
         'protocol': {'base', 'protocol'}}
PLUGINS = ['ib-sriov', 'rdma-ns', 'ipam']
# The installer (installer/README.md), a peer of the plugins: it calls base/,
# protocol/ and ib-host-local's node ranges check, nothing else of ours.
INSTALLER, INSTALLER_LAYERS, INSTALLER_IPAM = 'installer', {'base', 'protocol'}, {'ipam/noderanges.o'}
MAX_FILE, MAX_FUNC, MAX_PARAMS = 500, 80, 6
# ADD's steps share a private struct: nothing but main.o (ibsriov_add)
# calls into the room.
ADD_ROOM = 'ib-sriov/add/'
# Callbacks whose parameter list a library fixes (nghttp2's
# nghttp2_on_data_chunk_recv_callback and nghttp2_on_header_callback).
FIXED_SIGNATURE = {('cni/protocol/podres.c', 'on_read_body'), ('cni/protocol/podres.c', 'on_header')}


def rooms(plugin):
    """A plugin's rooms: its subdirectories (ib-sriov/README.md)."""
    top = os.path.join(ROOT, plugin)
    return sorted(d for d in os.listdir(top) if os.path.isdir(os.path.join(top, d)))


def sources():
    out = []
    dirs = ['cni/' + l for l in LAYERS]
    for p in PLUGINS:
        dirs += [p] + [p + '/' + r for r in rooms(p)]
    for d in dirs + [INSTALLER]:
        for f in sorted(os.listdir(os.path.join(ROOT, d))):
            if f.endswith(('.c', '.h')):
                out.append(os.path.join(d, f))
    return out


def strip(text):
    """Comments, strings and character constants blanked (lines kept)."""
    def blank(m):
        t = m.group(0)
        if t[0] in '"\'':  # a literal stays a token: `c ? "" : x` is no "?:"
            return t[0] + '_' * (len(t) - 2) + t[-1]
        return re.sub(r'[^\n]', ' ', t)
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])*\'', blank, text,
                  flags=re.S)


def params(sig):
    """Top-level parameters of the last parenthesised list in sig."""
    end = sig.rfind(')')
    depth, start = 0, None
    for i in range(end, -1, -1):
        if sig[i] == ')':
            depth += 1
        elif sig[i] == '(':
            depth -= 1
            if depth == 0:
                start = i
                break
    inner = sig[start + 1:end].strip() if start is not None else ''
    if inner in ('', 'void'):
        return 0
    depth, n = 0, 1
    for c in inner:
        if c in '([':
            depth += 1
        elif c in ')]':
            depth -= 1
        elif c == ',' and depth == 0:
            n += 1
    return n


def check_source(path, problems, stats):
    text = open(os.path.join(ROOT, path)).read()
    lines = text.split('\n')
    if text.endswith('\n'):
        lines.pop()
    if len(lines) > MAX_FILE:
        problems.append(f'{path}: {len(lines)} lines (at most {MAX_FILE})')
    code = strip(text).split('\n')
    for i, l in enumerate(code, 1):
        if re.search(r'\?\s*:', l):
            problems.append(f'{path}:{i}: GNU "?:" (write a statement)')
        if re.search(r'\b__thread\b', l):
            problems.append(f'{path}:{i}: __thread (pass the state explicitly)')
    i = 0
    while i < len(code):
        if code[i].startswith('{'):
            j = i - 1
            while j > 0 and code[j].strip() and not code[j].startswith(('}', '#')) and \
                    not code[j].rstrip().endswith(';') and '(' not in code[j]:
                j -= 1
            while j > 0 and code[j - 1].strip() and not code[j - 1].startswith(('}', '#')) and \
                    not code[j - 1].rstrip().endswith((';', '*/')) and \
                    code[j - 1][0] not in ' \t' and '(' not in code[j]:
                j -= 1
            sig = ' '.join(code[j:i])
            k = i
            while k < len(code) and not code[k].startswith('}'):
                k += 1
            if '(' in sig and not re.search(r'\b(struct|enum|union)\s+\w+\s*$', sig.strip()) \
                    and '=' not in sig.split('(')[0]:
                name = re.findall(r'(\w+)\s*\(', sig)
                name = name[0] if name else '?'
                body = k - i - 1
                n = params(sig)
                stats.append((path, name, body, n))
                if body > MAX_FUNC:
                    problems.append(f'{path}:{i}: {name}() is {body} lines (at most {MAX_FUNC})')
                if n > MAX_PARAMS and (path, name) not in FIXED_SIGNATURE:
                    problems.append(f'{path}:{i}: {name}() takes {n} parameters (at most {MAX_PARAMS})')
            i = k
        i += 1


def module_of(obj):
    rel = obj.split('/build/obj/', 1)[-1]
    parts = rel.split('/')
    if parts[0] == 'cni' and len(parts) == 3:
        return 'cni', parts[1], rel
    if parts[0] in PLUGINS + [INSTALLER]:
        return parts[0], None, rel
    return None, None, rel


def check_objects(objdir, problems):
    objs = []
    objdir = os.path.abspath(objdir)
    for d, _, files in os.walk(objdir):
        for f in files:
            o = os.path.join(d, f)
            src = os.path.join(ROOT, os.path.relpath(o, objdir))[:-2] + '.c'
            # Objects of sources that no longer exist are a stale build's.
            if f.endswith('.o') and f != 'verbs-static.o' and os.path.exists(src):
                objs.append(o)
    defined, used = {}, {}
    for o in objs:
        owner, _, rel = module_of(o)
        if owner is None:
            continue
        out = subprocess.run(['nm', o], capture_output=True, text=True).stdout
        used[rel] = set()
        for line in out.splitlines():
            f = line.split()
            if len(f) == 2 and f[0] == 'U':
                used[rel].add(f[1])
            elif len(f) == 3 and f[1] in 'TDBRGSV':
                defined.setdefault(f[2], set()).add(rel)
    if len(used) < 50:
        problems.append(f'{objdir}: only {len(used)} objects: build first')
    edges = {m: set() for m in used}
    for m, syms in used.items():
        for s in syms:
            for d in defined.get(s, ()):
                if d != m:
                    edges[m].add(d)
    for m, ds in sorted(edges.items()):
        mo, ml, _ = module_of(m)
        for d in sorted(ds):
            do, dl, _ = module_of(d)
            if mo == 'cni' and d == 'cni/protocol/skel.o':
                problems.append(f'{m} calls the dispatcher (skel.o): an upward call')
            elif mo == 'cni' and do == 'cni' and dl not in ALLOW[ml]:
                problems.append(f'{m} calls into {d}: {ml}/ may not call {dl}/')
            elif mo == 'cni' and do != 'cni':
                problems.append(f'{m} calls into the plugin {d}')
            elif mo in PLUGINS and do in PLUGINS and mo != do and \
                    not (m == 'ib-sriov/main.o' and do == 'ipam'):
                problems.append(f'{m} calls into another plugin: {d}')
            elif d.startswith(ADD_ROOM) and not m.startswith(ADD_ROOM) and \
                    m != 'ib-sriov/main.o':
                problems.append(f'{m} calls into {d}: ADD\'s room is ADD\'s alone '
                                '(ib-sriov/add/README.md)')
            elif (mo == INSTALLER) != (do == INSTALLER) and not (
                    mo == INSTALLER and (dl in INSTALLER_LAYERS or d in INSTALLER_IPAM)):
                problems.append(f'{m} calls into {d}: installer/README.md does not allow it')
    # Tarjan's strongly connected components over the objects.
    index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in edges:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    for c in sccs:
        problems.append('call cycle: ' + ' <-> '.join(c))


def main():
    problems, stats = [], []
    for s in sources():
        check_source(s, problems, stats)
    if len(sys.argv) > 1:
        check_objects(sys.argv[1], problems)
    for p in problems:
        print('  ' + p)
    big = max(stats, key=lambda s: s[2])
    print(f'shape: {len(sources())} files, {len(stats)} functions (longest {big[1]}() '
          f'{big[2]} lines), {len(problems)} problem(s)')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
