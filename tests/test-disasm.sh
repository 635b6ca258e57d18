#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test-disasm.sh OBJDUMP LIBATOMCOST.a [ATOMCOST]
# The timed loops, checked in the disassembly of the atomcost executable
# against the probe table (`atomcost list --json` names each probe's loops),
# so a new probe is checked without editing this file (docs/method.md):
#   - every latency, throughput and sweep loop holds the instruction its
#     `insn` declares (lock prefix, mnemonic, operand kinds) 64 times per
#     iteration (at least 64 for the lock and refcount families, whose optional work paths
#     repeat the ops), and no stack traffic between the ops;
#   - each sweep footprint (W words on each of L lines) addresses exactly
#     W x L displacements off one base register, on L lines with W on each,
#     each as often (64 / (W x L) ops);
#   - every latency loop declares a chain and really is one:
#       memory    each op is a read-modify-write of one memory operand whose
#                 registers do not move (or are recomputed identically from
#                 loop invariants, as the per-CPU slot from the CPU number);
#                 for out-of-line lock functions, every call gets the same
#                 lock word in %rdi and the lock function RMWs (%rdi);
#       register  op i's destination register is read by op i+1, and nothing
#                 between them writes it.
#   - the 2007 SLUB reproduction: the rmb (lfence) of the post's cmpxchg kfree
#     path is in its loops, between the freelist load and the commit, and
#     absent from cmpxchg_local's and the cmpxchg+barrier twin's.
# Exit 77 on other architectures.
set -u
objdump=$1 lib=$2 ac=${3:-$(dirname "$2")/atomcost}
[ -x "$ac" ] || { echo "FAIL: no atomcost executable at $ac"; exit 1; }
dis=$(mktemp) list=$(mktemp)
trap 'rm -f "$dis" "$list"' EXIT
"$objdump" -d --no-show-raw-insn -M att "$ac" >"$dis" 2>/dev/null || { echo "objdump failed"; exit 1; }
grep -q 'file format elf64-x86-64' "$dis" || { echo "SKIP: not an x86-64 build"; exit 77; }
"$ac" list --json >"$list" || { echo "FAIL: atomcost list --json"; exit 1; }

exec python3 - "$dis" "$list" <<'PY'
import json
import re
import sys

dis_path, list_path = sys.argv[1:3]
UNROLL = 64

# ---- the disassembly: function -> [(address, text)] ----------------------
funcs, cur = {}, None
for line in open(dis_path):
    m = re.match(r'^([0-9a-f]+) <([^>]+)>:$', line)
    if m:
        cur = funcs.setdefault(m.group(2), [])
        continue
    if cur is None or not line.strip():
        cur = None
        continue
    m = re.match(r'^\s*([0-9a-f]+):\t(.*)$', line.rstrip('\n'))
    if m:
        cur.append((int(m.group(1), 16), re.sub(r'\s+#.*$', '', m.group(2)).strip()))

PREFIXES = ('lock', 'ds', 'notrack', 'bnd')
BASES = {'cmpxchg16b', 'cmpxchg', 'xadd', 'xchg', 'bts', 'btr', 'btc', 'bt', 'or', 'and', 'xor',
         'add', 'sub', 'adc', 'sbb', 'inc', 'dec', 'neg', 'not', 'imul', 'mov', 'lea', 'shl',
         'shr', 'sar', 'cmp', 'test', 'push', 'pop', 'pushf', 'popf', 'call'}
RMW_MEM = {'or', 'and', 'xor', 'add', 'sub', 'adc', 'sbb', 'inc', 'dec', 'neg', 'not', 'bts',
           'btr', 'btc', 'xchg', 'xadd', 'cmpxchg', 'cmpxchg16b'}
READS_DEST = RMW_MEM | {'imul', 'shl', 'shr', 'sar', 'cmp', 'test', 'bt'}
NO_WRITE = {'cmp', 'test', 'bt', 'push', 'call', 'ret', 'nop', 'nopw', 'nopl', 'xchg_'}


def split_ops(s):
    out, depth, tok = [], 0, ''
    for c in s:
        if c == ',' and depth == 0:
            out.append(tok)
            tok = ''
            continue
        depth += (c == '(') - (c == ')')
        tok += c
    if tok:
        out.append(tok)
    return [o.strip() for o in out]


def base(m):
    if m in BASES:
        return m
    if m[:-1] in BASES and m[-1] in 'bwlq':
        return m[:-1]
    return m


def parse(text):
    """(prefix, mnemonic, [operands])"""
    toks = text.split(None, 1)
    pre = ''
    while toks and toks[0] in PREFIXES:
        pre = toks[0]
        toks = toks[1].split(None, 1) if len(toks) > 1 else []
    if not toks:
        return pre, '', []
    return pre, toks[0], split_ops(toks[1]) if len(toks) > 1 else []


def kind(op):
    if op.startswith('$'):
        return 'imm'
    if '(' in op or ':' in op or op == 'mem':
        return 'fsmem' if op.startswith('%fs:') else 'mem'
    return 'reg'


R64 = {}
for r in 'abcd':
    for n in ('r%sx', 'e%sx', '%sx', '%sl', '%sh'):
        R64[n % r] = 'r%sx' % r
for r in ('si', 'di', 'bp', 'sp'):
    for n in ('r' + r, 'e' + r, r, r + 'l'):
        R64[n] = 'r' + r
for n in range(8, 16):
    for suf in ('', 'd', 'w', 'b'):
        R64['r%d%s' % (n, suf)] = 'r%d' % n


def regs(op):
    return {R64[r] for r in re.findall(r'%([a-z0-9]+)', op) if r in R64}


def dest(ins):
    """the register an instruction writes through its last operand"""
    pre, m, ops = parse(ins)
    b = base(m)
    if not ops or b in NO_WRITE or m.startswith('j') or m.startswith('nop'):
        return set()
    w = set()
    if kind(ops[-1]) == 'reg':
        w |= regs(ops[-1])
    if b in ('xchg', 'xadd') and kind(ops[0]) == 'reg':
        w |= regs(ops[0])
    if b == 'cmpxchg':
        w.add('rax')
    if b == 'cmpxchg16b':
        w |= {'rax', 'rdx'}
    return w


def writes(ins):
    pre, m, ops = parse(ins)
    if m in ('pop', 'popq'):
        return regs(ops[0]) if ops else set()
    if m.startswith('pushf') or m.startswith('set'):
        return regs(ops[0]) if ops else set()
    return dest(ins)


def reads(ins):
    pre, m, ops = parse(ins)
    r = set()
    for o in ops[:-1]:
        r |= regs(o)
    if ops:
        last = ops[-1]
        if kind(last) != 'reg' or base(m) in READS_DEST:
            r |= regs(last)
    if base(m) == 'cmpxchg':
        r.add('rax')
    return r


def insn_instrs(insn):
    """the instructions an insn string declares: (prefix, mnemonic, kinds or None)"""
    out = []
    for seg in re.split(r';| / ', insn):
        toks = seg.split()
        pre = ''
        while toks and toks[0] in PREFIXES:
            pre = toks.pop(0)
        if not toks:
            continue
        mn = toks[0].rstrip(':;,')
        kinds = None
        if len(toks) > 1:
            o = toks[1].rstrip(':;')
            if ',' in o or o[:1] in ('$', '%', '(') or o == 'mem':
                kinds = [kind(x) for x in split_ops(o)]
        out.append((pre, mn, kinds))
    return out


def matches(text, want):
    pre, m, ops = parse(text)
    wpre, wm, wkinds = want
    if pre != wpre:
        return False
    if not (m == wm or (wm[-1:] in ('b', 'w', 'l', 'q') and m == wm[:-1])):
        return False
    return wkinds is None or [kind(o) for o in ops] == wkinds


def loop_region(body, is_op):
    """indexes [lo, hi] of the backward-jump loop holding the most ops"""
    addr = {a: i for i, (a, _) in enumerate(body)}
    best = None
    for i, (a, t) in enumerate(body):
        pre, m, ops = parse(t)
        if not m.startswith('j') or not ops:
            continue
        tm = re.match(r'([0-9a-f]+)', ops[0])
        if not tm or int(tm.group(1), 16) > a or int(tm.group(1), 16) not in addr:
            continue
        lo = addr[int(tm.group(1), 16)]
        n = sum(1 for k in range(lo, i + 1) if is_op(body[k][1]))
        if best is None or n > best[0] or (n == best[0] and i - lo < best[2] - best[1]):
            best = (n, lo, i)
    return (best[1], best[2]) if best else (0, len(body) - 1)


def mem_operand(text):
    pre, m, ops = parse(text)
    mem = [o for o in ops if kind(o) in ('mem', 'fsmem')]
    return mem[0] if mem else None


def call_target(text):
    m = re.search(r'<([^>+]+)', text)
    return m.group(1) if m else None


npass = nfail = 0


def check(ok, msg):
    global npass, nfail
    if ok:
        npass += 1
    else:
        nfail += 1
        print('FAIL: ' + msg)


def norm(t):
    """an instruction with its branch targets and rip displacements elided"""
    pre, m, ops = parse(t)
    if m.startswith('j') or m == 'call':
        t = re.sub(r'[0-9a-f]+ <([^>+]+)(\+0x[0-9a-f]+)?>', r'<\1>', t)
    return re.sub(r'-?0x[0-9a-f]+\(%rip\)', 'X(%rip)', t)


def is_nop(t):
    m = parse(t)[1]
    return m.startswith('nop') or m in ('xchg', 'data16', 'cs') and t.startswith(('xchg   %ax,%ax', 'data16', 'cs'))


def is_copy(t, P):
    pre, m, ops = parse(t)
    return base(m) == 'mov' and len(ops) == 2 and kind(ops[0]) == 'reg' and \
        kind(ops[1]) == 'reg' and regs(ops[0]) <= P and regs(ops[0])


def is_seed(i, t):
    """the prologue's p = ctx->mem (the first word of struct probe_ctx)"""
    pre, m, ops = parse(t)
    return i < 8 and base(m) == 'mov' and len(ops) == 2 and ops[0] in ('(%rdi)', '0x0(%rdi)') \
        and kind(ops[1]) == 'reg'


def pointer_regs(body):
    """registers that only ever hold p: the prologue's load of ctx->mem and
    plain copies of it (PROBE_LAUNDER makes gcc shuffle p between registers)"""
    P = set()
    for i, (_, t) in enumerate(body):
        if is_seed(i, t):
            P |= regs(parse(t)[2][1])
    while True:
        grow = set()
        for _, t in body:
            if is_copy(t, P):
                grow |= regs(parse(t)[2][1]) - P
        bad = set()
        for i, (_, t) in enumerate(body):
            if parse(t)[1].startswith('pop'):
                continue   # the epilogue restores callee-saved registers
            w = writes(t) & (P | grow)
            if w and not (is_copy(t, P | grow) or is_seed(i, t)):
                bad |= w
        nP = (P | grow) - bad
        if nP == P:
            return P
        P = nP


def memory_chain(p, sym, body, lo, hi, opi):
    texts = [body[i][1] for i in opi]
    if base(parse(texts[0])[1]) == 'call':
        return call_chain(p, sym, body, lo, hi, opi)
    check(base(parse(texts[0])[1]) in RMW_MEM,
          '%s: %s: memory chain, but %s does not read its memory operand' % (p, sym, texts[0]))
    ops = {mem_operand(t) for t in texts}
    check(len(ops) == 1 and None not in ops,
          '%s: %s: memory chain on more than one operand: %s' % (p, sym, sorted(map(str, ops))))
    if len(ops) != 1 or None in ops:
        return
    span = range(lo, hi + 1)
    P = pointer_regs(body)
    written = set()
    for k in span:
        # the epilogue's pops restore callee-saved registers (as in
        # pointer_regs); padding (`xchg %ax,%ax`) writes nothing
        t = body[k][1]
        if not is_copy(t, P) and not is_nop(t) and not parse(t)[1].startswith('pop'):
            written |= writes(t)
    moving = regs(ops.pop()) & written
    if not moving:
        return
    # the address registers move: each gap between ops must recompute them
    # identically from registers the loop never writes (the per-CPU slot
    # from the CPU number)
    gaps = [tuple(norm(body[k][1]) for k in range(a + 1, b) if not is_nop(body[k][1]))
            for a, b in zip(opi, opi[1:])]
    gapset = set(gaps)
    ok = len(gapset) == 1 and all(any(writes(t) & moving for t in g) for g in gaps)
    if ok:
        g = gapset.pop()
        fresh, live_in = set(), set()
        for t in g:
            live_in |= reads(t) - fresh
            fresh |= writes(t)
        # other writes inside the loop (the prologue's loads of loop
        # invariants, before it, are what the gaps may read)
        op_texts = {body[k][1] for k in opi}
        llo, lhi = loop_region(body, lambda t: t in op_texts)
        other = set()
        for k in range(max(lo, llo), min(hi, lhi) + 1):
            if norm(body[k][1]) not in g and not is_copy(body[k][1], P):
                other |= writes(body[k][1])
        ok = not (live_in & (fresh | other))
    check(ok, '%s: %s: the memory operand\'s registers %s are not recomputed identically '
          'from loop invariants between the ops' % (p, sym, sorted(moving)))


def call_chain(p, sym, body, lo, hi, opi):
    P = pointer_regs(body)
    check('rdi' in P, '%s: %s: the calls do not all get the lock word (p) in %%rdi' % (p, sym))
    counts = {}
    for k in opi:
        t = call_target(body[k][1])
        counts[t] = counts.get(t, 0) + 1
    top = [t for t in counts if counts[t] >= UNROLL]   # the lock and unlock functions
    if any(t is None or t.endswith('@plt') for t in top):
        return   # a libc lock: its RMW of the word is inside libc

    def rmw_rdi(name, depth):
        fb = funcs.get(name, [])
        if any(base(parse(t)[1]) in RMW_MEM and mem_operand(t) == '(%rdi)' for _, t in fb):
            return True
        return depth > 0 and any(rmw_rdi(call_target(t), depth - 1) for _, t in fb
                                 if base(parse(t)[1]) == 'call' and call_target(t))
    check(any(rmw_rdi(t, 1) for t in top),
          '%s: %s: no lock function among %s read-modify-writes (%%rdi)' % (p, sym, top))


def sweep_footprint(p, sym, mems, words, lines):
    """the ops of a sweep kernel address words x lines displacements off
    one base, words on each of lines 64-byte lines, each equally often; the
    base may be the segment alone (%fs:disp: this_cpu_inc's absolute form)"""
    parts = [re.match(r'^(%[a-z]s:)?(-?0x[0-9a-f]+|-?[0-9]+)?(\(.*\))?$', m or '') for m in mems]
    if not all(parts):
        check(False, '%s: %s: an op without a base+displacement operand: %s' % (p, sym, sorted(set(map(str, mems)))))
        return
    bases = {m.group(1, 3) for m in parts}
    check(len(bases) == 1, '%s: %s: ops off more than one base: %s' % (p, sym, sorted(map(str, bases))))
    disp = [int(m.group(2), 0) if m.group(2) else 0 for m in parts]
    d0 = min(disp)
    per_line = {}
    for d in set(disp):
        per_line.setdefault((d - d0) // 64, set()).add(d)
    shape = sorted(len(v) for v in per_line.values())
    check(shape == [words] * lines,
          '%s: %s: %d lines swept with %s words, expected %d with %d each'
          % (p, sym, len(per_line), shape, lines, words))
    counts = {disp.count(d) for d in set(disp)}
    check(counts == {UNROLL // (words * lines)},
          '%s: %s: ops per address %s, expected %d each' % (p, sym, sorted(counts), UNROLL // (words * lines)))


def register_chain(p, sym, body, lo, hi, opi):
    for a, b in zip(opi, opi[1:]):
        d = dest(body[a][1])
        between = set().union(*(writes(body[k][1]) for k in range(a + 1, b))) if b > a + 1 else set()
        if not d or not (d & reads(body[b][1])) or (d & between):
            check(False, '%s: %s: register chain broken between "%s" and "%s"'
                  % (p, sym, body[a][1], body[b][1]))
            return
    check(True, '')


LOAD = ('', 'mov', ['mem', 'reg'])
table = json.load(open(list_path))
for pr in table['probes']:
    p = pr['probe']
    if pr.get('unsupported'):
        continue
    kernels = pr.get('kernels', {})
    if pr['latency'] and p != 'empty':
        check(pr['chain'] != 'none', '%s: a latency form with no chain declared' % p)
    if pr['chain'] != 'none':
        check(pr['latency'], '%s: a chain declared without a latency form' % p)
    instrs = insn_instrs(pr['insn'])
    if p == 'empty':
        continue
    # ordering (probes/ordering.c): barrier() emits nothing, so those loops
    # hold no fence and no lock, and only the latency loop's 64 chained loads
    # are counted; a barrier an insn declares after its op is counted too
    ordering = pr['family'] == 'ordering'
    if ordering:
        instrs = [x for x in instrs if x[1] != 'barrier()']
        if not instrs:
            for sym in (kernels.get(m) for m in ('latency', 'throughput')):
                bad = [t for _, t in funcs.get(sym, []) if parse(t)[0] == 'lock' or parse(t)[1].endswith('fence')]
                check(sym in funcs and not bad, '%s: %s: barrier() emitted %s' % (p, sym, bad[:2]))
            kernels, instrs = {'latency': kernels['latency']}, [LOAD]
    check(bool(instrs), '%s: insn "%s" declares no instruction' % (p, pr['insn']))
    if not instrs:
        continue
    first = instrs[0]
    want = UNROLL * sum(1 for x in instrs if x == first)
    atleast = pr['family'] in ('lock', 'refcount')
    todo = []
    for mode in ('latency', 'throughput'):
        if mode in kernels:
            todo.append((mode, kernels[mode], None))
    for s in kernels.get('sweep', []):
        todo.append(('sweep', s['kernel'], (s.get('words', 1), s['lines'])))
    for mode, sym, foot in todo:
        check(sym is not None and sym in funcs, '%s: %s kernel symbol %s not in the executable' % (p, mode, sym))
        if sym is None or sym not in funcs:
            continue
        body = funcs[sym]
        is_op = lambda t: matches(t, first)
        # a register chain is checked in its loop: the prologue's loads of
        # the context are no links of it
        whole = atleast and not (mode == 'latency' and pr['chain'] == 'register')
        lo, hi = (0, len(body) - 1) if whole else loop_region(body, is_op)
        opi = [k for k in range(lo, hi + 1) if is_op(body[k][1])]
        n = len(opi)
        check(n >= want if atleast else n == want,
              '%s: %s: %d instructions match "%s", expected %s%d' %
              (p, sym, n, ' '.join(filter(None, first[:2])), 'at least ' if atleast else '', want))
        if not opi:
            continue
        for x in {(a, b, tuple(c or ())) for a, b, c in instrs[1:] if a == 'lock' or b.endswith('fence')} \
                if ordering else ():
            x = (x[0], x[1], list(x[2]) or None)
            c = sum(1 for k in range(lo, hi + 1) if matches(body[k][1], x))
            check(c == UNROLL * instrs.count(x), '%s: %s: %d instructions match "%s", expected %d'
                  % (p, sym, c, ' '.join(filter(None, x[:2])), UNROLL * instrs.count(x)))
        if ordering and mode == 'latency' and pr['chain'] == 'register':
            opi = [k for k in range(lo, hi + 1) if matches(body[k][1], LOAD)]
            check(len(opi) == UNROLL, '%s: %s: %d chained loads, expected %d' % (p, sym, len(opi), UNROLL))
        if not atleast:
            st = [body[k][1] for k in range(opi[0], opi[-1] + 1)
                  if '(%rsp)' in body[k][1] and not any(matches(body[k][1], x) for x in instrs)]
            check(not st, '%s: %s: stack traffic between the ops: %s' % (p, sym, st[:3]))
        if foot is not None:
            sweep_footprint(p, sym, [mem_operand(body[k][1]) for k in opi], *foot)
        if mode == 'latency':
            if pr['chain'] == 'memory':
                memory_chain(p, sym, body, lo, hi, opi)
            elif pr['chain'] == 'register':
                register_chain(p, sym, body, lo, hi, opi)

# ---- the 2007 SLUB reproduction (src/repro/slub-cmpxchg-local.c) ----------
# The post's cmpxchg kfree had smp_rmb() (lfence on the x86-64 of 2007)
# between the freelist read and the slab check; cmpxchg_local, and the
# cmpxchg+barrier twin that isolates the fence's share, had barrier(). In
# each timed loop, an lfence not beside rdtsc/rdtscp (the timer's) is the
# rmb: the cmpxchg loops need one right after a load and before their
# lock cmpxchg, the others none.
def rmb_fences(body):
    out = []
    for k, (_, t) in enumerate(body):
        near = [body[j][1] for j in (k - 1, k + 1) if 0 <= j < len(body)]
        if t == 'lfence' and not any(n.startswith('rdtsc') for n in near):
            out.append(k)
    return out


for test in ('repeat', 'pair'):
    for form, want in (('LOCKED', True), ('LOCKED_BARRIER', False), ('LOCAL', False)):
        sym = 'time_%s_y07_%s' % (test, form)
        check(sym in funcs, '2007 SLUB: %s not in the executable' % sym)
        if sym not in funcs:
            continue
        body, fences = funcs[sym], rmb_fences(funcs[sym])
        if not want:
            check(not fences, '2007 SLUB: %s: %d fences where the post had barrier()' % (sym, len(fences)))
            continue
        check(bool(fences), '2007 SLUB: %s: no rmb (lfence) in the cmpxchg kfree path' % sym)
        for k in fences:
            after = [t for _, t in body[k + 1:k + 13]]
            check(k > 0 and re.match(r'mov\s+\S*\(%\w+\),%\w+$', body[k - 1][1]) and
                  any(t.startswith('lock cmpxchg') for t in after),
                  '2007 SLUB: %s: the lfence at %x is not between the freelist load and the commit'
                  % (sym, body[k][0]))

print('disasm: %d passed, %d failed' % (npass, nfail))
sys.exit(1 if nfail else 0)
PY
