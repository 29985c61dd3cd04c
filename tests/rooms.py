#!/usr/bin/env python3
"""The rooms of src/ (docs/DESIGN.md "Rooms"), checked from the includes.

A module is a .c with its .h (src/model/verdict.{c,h}); a room is its folder.
Rooms are layered, bottom first; an include may go down, or sideways within
its room, never up, and no modules may include each other in a circle. The
few upward includes allowed are listed in ALLOWED_UP, each with its reason in
docs/DESIGN.md. Prints files per room, arrows, upward arrows and circles;
exits 1 on a violation.
  tests/rooms.py [SRCDIR]
"""
import os, re, sys

LAYERS = ['bpf', 'common', 'facts', 'host', 'model', 'static', 'watch', 'live', 'check', 'hold', 'top']
ALLOWED_UP = set()	# (from module, to module); none today

def module(path):
	"""src/model/verdict.c -> model/verdict; bpf/events_abi.h -> bpf/events_abi"""
	rel = os.path.relpath(path, ROOT)
	parts = rel.split(os.sep)
	base = os.path.splitext(parts[-1])[0]
	if parts[0] == 'bpf':
		return 'bpf/' + base
	if len(parts) == 2:	# src/main.c
		return 'top/' + base
	return parts[1] + '/' + base

def room(mod):
	return mod.split('/')[0]

def includes(path):
	with open(path) as f:
		for line in f:
			m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
			if m:
				yield m.group(1)

def resolve(inc):
	for base in (os.path.join(ROOT, 'src'), ROOT):
		p = os.path.join(base, inc)
		if os.path.isfile(p):
			return p
	return None	# generated (skeletons) or system

def sccs(nodes, edges):
	"""Tarjan; the components of more than one node."""
	index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
	def visit(v):
		index[v] = low[v] = n[0]; n[0] += 1
		stack.append(v); on.add(v)
		for w in sorted(edges.get(v, ())):
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
	for v in sorted(nodes):
		if v not in index:
			visit(v)
	return out

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else '.')
files = []
for d in ('src', 'bpf'):
	for dp, _, fs in os.walk(os.path.join(ROOT, d)):
		files += [os.path.join(dp, f) for f in fs if f.endswith(('.c', '.h'))]
mods, edges, bad = {}, {}, 0
for f in sorted(files):
	m = module(f)
	mods.setdefault(m, []).append(f)
	if room(m) not in LAYERS:
		print('rooms: %s: room %s is not in the layers' % (f, room(m))); bad = 1
	for inc in includes(f):
		p = resolve(inc)
		if p and module(p) != m:
			edges.setdefault(m, set()).add(module(p))
arrows = sum(len(v) for v in edges.values())
up = sorted((a, b) for a, v in edges.items() for b in v
	    if room(a) in LAYERS and room(b) in LAYERS and LAYERS.index(room(b)) > LAYERS.index(room(a)))
per = {}
for m, fs in mods.items():
	per[room(m)] = per.get(room(m), 0) + len(fs)
print('rooms: files per room: ' + ', '.join('%s %d' % (r, per.get(r, 0)) for r in LAYERS))
print('rooms: %d modules, %d arrows, %d upward' % (len(mods), arrows, len(up)))
for a, b in up:
	ok = (a, b) in ALLOWED_UP
	print('rooms: %s %s -> %s' % ('allowed' if ok else 'UPWARD', a, b))
	bad |= not ok
for c in sccs(mods, edges):
	print('rooms: CIRCLE ' + ' <-> '.join(c)); bad = 1
print('rooms: ' + ('ok' if not bad else 'FAILED'))
sys.exit(bad)
