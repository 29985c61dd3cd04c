#!/usr/bin/env python3
"""The rooms of src/ (docs/DESIGN.md "Rooms"), checked from the includes and the calls.

A module is a .c with its .h (src/model/verdict.{c,h}); a room is its folder.
Rooms are layered, bottom first; an include may go down, or sideways within
its room, never up nor to a room beside its own on the same layer, and no
modules may include each other in a circle. The
few upward includes allowed are listed in ALLOWED_UP, each with its reason in
docs/DESIGN.md.

Includes alone miss a circle when one header declares both sides (a module
calling back into the one that calls it): so the calls are read too, a
module's functions naming a function another module defines, and they may
not make a circle either. Prints files per room, arrows, upward arrows and
circles (by include, by call); exits 1 on a violation.
  tests/rooms.py [SRCDIR]
  tests/rooms.py --self-test
"""
import os, re, sys

# A tuple is rooms side by side: neither may include the other (the live
# tool's room and check's, both over render/).
LAYERS = ['bpf', 'common', 'facts', 'host', 'model', 'static', 'watch', 'render', ('live', 'check'),
	  'hold', 'top']
ALLOWED_UP = set()	# (from module, to module); none today
LEVEL = {r: i for i, l in enumerate(LAYERS) for r in (l if isinstance(l, tuple) else (l,))}
ROOMS = list(LEVEL)

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

# What a function body's tokens are read from: no comments, strings or
# character constants (a name in a message is no call).
STRIP = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
KEYWORDS = {'if', 'for', 'while', 'switch', 'return', 'sizeof', 'do', 'else', 'case',
	    '__attribute__', 'typeof', '__typeof__', 'defined'}

def functions(path):
	"""The functions a file defines, at brace depth 0 after a ')': [(name,
	is_static, body text)]. Kernel style (the body's '{' follows the
	declarator) is all src/ holds; a macro's braces are on its own lines."""
	with open(path) as f:
		text = STRIP.sub(' ', f.read())
	text = re.sub(r'^\s*#.*?(?<!\\)$', ' ', text, flags=re.M | re.S)
	out, depth, start, head = [], 0, 0, 0
	for i, ch in enumerate(text):
		if ch == '{':
			if depth == 0:
				start = i
			depth += 1
		elif ch == '}':
			depth -= 1
			if depth == 0:
				decl = text[head:start]
				m = re.search(r'(\w+)\s*\((?:[^()]|\([^()]*\))*\)\s*(?:__attribute__\s*\(\(.*?\)\)\s*)?$', decl, re.S)
				if m and m.group(1) not in KEYWORDS and '=' not in decl[:m.start()]:
					st = re.search(r'\bstatic\b', decl[:m.start()]) is not None
					out.append((m.group(1), st, text[start:i + 1]))
				head = i + 1
		elif ch == ';' and depth == 0:
			head = i + 1
	return out

def calls(files_of):
	"""Module -> the modules whose functions it names (a call or a function
	pointer handed on), from every function body; a name defined in several
	modules (a test's double) is no one's."""
	defs, bodies = {}, {}
	for m, fs in files_of.items():
		for f in fs:
			for name, st, body in functions(f):
				bodies.setdefault(m, []).append(body)
				if not st or f.endswith('.h'):
					defs.setdefault(name, set()).add(m)
	edges = {}
	for m, bs in bodies.items():
		for name in set(re.findall(r'\b[A-Za-z_]\w*\b', ' '.join(bs))):
			owner = defs.get(name, ())
			if len(owner) == 1 and m not in owner:
				edges.setdefault(m, set()).add(next(iter(owner)))
	return edges

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

def run(root):
	"""Check the tree at root, printing what it finds; 1 on a violation."""
	global ROOT
	ROOT = os.path.abspath(root)
	files = []
	for d in ('src', 'bpf'):
		for dp, _, fs in os.walk(os.path.join(ROOT, d)):
			files += [os.path.join(dp, f) for f in fs if f.endswith(('.c', '.h'))]
	mods, edges, bad = {}, {}, 0
	for f in sorted(files):
		m = module(f)
		mods.setdefault(m, []).append(f)
		if room(m) not in LEVEL:
			print('rooms: %s: room %s is not in the layers' % (f, room(m))); bad = 1
		for inc in includes(f):
			p = resolve(inc)
			if p and module(p) != m:
				edges.setdefault(m, set()).add(module(p))
	arrows = sum(len(v) for v in edges.values())
	up = sorted((a, b) for a, v in edges.items() for b in v
		    if room(a) in LEVEL and room(b) in LEVEL and LEVEL[room(b)] > LEVEL[room(a)])
	across = sorted((a, b) for a, v in edges.items() for b in v
			if room(a) in LEVEL and room(b) in LEVEL and room(a) != room(b) and
			LEVEL[room(b)] == LEVEL[room(a)])
	per = {}
	for m, fs in mods.items():
		per[room(m)] = per.get(room(m), 0) + len(fs)
	print('rooms: files per room: ' + ', '.join('%s %d' % (r, per.get(r, 0)) for r in ROOMS))
	print('rooms: %d modules, %d arrows, %d upward' % (len(mods), arrows, len(up)))
	for a, b in up:
		ok = (a, b) in ALLOWED_UP
		print('rooms: %s %s -> %s' % ('allowed' if ok else 'UPWARD', a, b))
		bad |= not ok
	for a, b in across:
		print('rooms: ACROSS %s -> %s (rooms side by side)' % (a, b)); bad = 1
	for c in sccs(mods, edges):
		print('rooms: CIRCLE by include ' + ' <-> '.join(c)); bad = 1
	cedges = calls(mods)
	print('rooms: %d call arrows between modules' % sum(len(v) for v in cedges.values()))
	for c in sccs(mods, cedges):
		print('rooms: CIRCLE by call ' + ' <-> '.join(c)); bad = 1
	print('rooms: ' + ('ok' if not bad else 'FAILED'))
	return bad

# --self-test: the call check finds a circle that no include shows (one
# header declaring both sides, as kread.h and decode.h did), and passes
# the same tree without the call back.
SELF = {
	'src/static/both.h': 'int a_fn(void);\nint b_fn(void);\n',
	'src/static/a.c': '#include "static/both.h"\nint a_fn(void)\n{\n\treturn b_fn();\n}\n',
	'src/static/b.c': '#include "static/both.h"\nint b_fn(void)\n{\n\treturn 0;\n}\n'
			  'static int b_back(void)\n{\n\t/* a_fn() in a comment is no call */\n'
			  '\treturn %s;\n}\n',
}

def self_test():
	import tempfile, io, contextlib
	ok = True
	for back, want in (('a_fn()', 1), ('0', 0)):
		with tempfile.TemporaryDirectory() as d:
			for rel, text in SELF.items():
				os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
				with open(os.path.join(d, rel), 'w') as f:
					f.write(text % back if '%s' in text else text)
			out = io.StringIO()
			with contextlib.redirect_stdout(out):
				got = run(d)
			circle = 'CIRCLE by call static/a <-> static/b' in out.getvalue()
			if got != want or circle != bool(want):
				print('rooms: self-test FAILED: b calling back %s: exit %d, want %d\n%s' %
				      (back, got, want, out.getvalue()))
				ok = False
	# rooms side by side: the live tool's room including check's fails
	with tempfile.TemporaryDirectory() as d:
		for rel, text in (('src/check/c.h', 'int c_fn(void);\n'),
				  ('src/live/l.c', '#include "check/c.h"\n')):
			os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
			with open(os.path.join(d, rel), 'w') as f:
				f.write(text)
		out = io.StringIO()
		with contextlib.redirect_stdout(out):
			got = run(d)
		if got != 1 or 'ACROSS live/l -> check/c' not in out.getvalue():
			print('rooms: self-test FAILED: live/ including check/: exit %d\n%s' %
			      (got, out.getvalue()))
			ok = False
	print('rooms: self-test ' + ('ok' if ok else 'FAILED'))
	return 0 if ok else 1

if __name__ == '__main__':
	if sys.argv[1:2] == ['--self-test']:
		sys.exit(self_test())
	sys.exit(run(sys.argv[1] if len(sys.argv) > 1 else '.'))
