#!/usr/bin/env python3
"""Which rooms (the .c files of one directory) call which, and the circles.

A room calls another when its code, comments stripped by the preprocessor,
names a function the other defines without `static`: a call, or a function
handed on as a value.  Prints each circle (rooms that reach one another
through such calls) with the calls that make it, then a summary line.
Exit status: 0 if there is none, 1 if there is, 2 on bad use.

    scripts/rooms.py DIR [DIR ...]
"""
import collections
import os
import re
import subprocess
import sys

DEFINITION = re.compile(r'^(?!static\b)[a-z][^;{}()]*?\b([a-z_][a-z0-9_]*)\([^;]*?\)\s*\{',
                        re.M | re.S)
WORD = re.compile(r'\b[a-z_][a-z0-9_]*\b')


def uncommented(path):
    """The file without its comments (and without expanding anything)."""
    run = subprocess.run(['cc', '-fpreprocessed', '-dD', '-E', '-P', path],
                         capture_output=True, text=True, check=True)
    return run.stdout


def calls(directory):
    """{room: {(callee room, function)}} for the rooms of directory."""
    code = {f[:-2]: uncommented(os.path.join(directory, f))
            for f in sorted(os.listdir(directory)) if f.endswith('.c')}
    owner = {}
    for room, text in code.items():
        for m in DEFINITION.finditer(text):
            owner[m.group(1)] = room
    graph = collections.defaultdict(set)
    for room, text in code.items():
        for word in set(WORD.findall(text)):
            callee = owner.get(word)
            if callee and callee != room:
                graph[room].add((callee, word))
    return code.keys(), graph


def circles(rooms, graph):
    """The strongly connected parts of more than one room (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted({c for c, _ in graph[v]}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(rooms):
        if v not in index:
            visit(v)
    return found


def main(dirs):
    if not dirs:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    status = 0
    for d in dirs:
        rooms, graph = calls(d)
        found = circles(rooms, graph)
        for part in found:
            print('%s: circle: %s' % (d, ' '.join(part)))
            for a in part:
                for b, fn in sorted(graph[a]):
                    if b in part:
                        print('  %s -> %s (%s)' % (a, b, fn))
        ncalls = sum(len({c for c, _ in s}) for s in graph.values())
        print('%s: %d rooms, %d calling pairs, %d circle(s)' % (d, len(rooms), ncalls, len(found)))
        status |= 1 if found else 0
    return status


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
