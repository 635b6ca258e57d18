#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen-fleet.py SOURCE OUTDIR N PLANTED [--group-every K] [--seed S] [--quiet] [--cells C]

A generated fleet from one real summary (atomcost report X.json -o
X.summary.json): N summaries host-00000 ... in OUTDIR, written as atomcost
writes them (5 significant digits). Each machine: every figure of its
card, hierarchy, split lock and c2c times its own lognormal factor, and
each result row times one (1% between machines; a row's epochs keep the
source's spread). Keys to group by: microcode 0xffff on every K-th machine
(else the source's), kernel 6.1.0-28-amd64 on every 4th from the second,
labels partition batch/gpu by halves and group web/db alternating.

Planted, and written to PLANTED as "cell<TAB>host<TAB>row" and
"group<TAB>key value<TAB>row": C (6) cells on up to 4 machines (x1.10,
x1.2, x1.5, in result rows whose epochs, if any, are under 2% apart (the
steadiest rows where too few are); a
source without epochs, as configs/quick.conf makes, has a few such rows:
--cells 2), and the microcode group
x1.2 in one more such row (--quiet: nothing planted, PLANTED empty).
Nothing else differs beyond the 1% noise.
Also 3 bad files: zz-truncated, zz-foreign (another schema), zz-again (a
repeated host). Used by tests/bench-fleet.sh, tests/fleet/verdicts.sh and
tests/fleet/run.sh.
"""
import argparse
import json
import math
import random

ap = argparse.ArgumentParser()
ap.add_argument("source")
ap.add_argument("out")
ap.add_argument("n", type=int)
ap.add_argument("planted")
ap.add_argument("--group-every", type=int, default=10)
ap.add_argument("--seed", type=int, default=21)
ap.add_argument("--quiet", action="store_true", help="plant nothing: an A/A fleet")
ap.add_argument("--cells", type=int, default=6, help="cells planted (6 at most)")
a = ap.parse_args()
base = json.load(open(a.source))
rnd = random.Random(a.seed)


def label(r):
    place = r.get("placement", "")
    return "%s %s %s%s" % (r["probe"], r["pattern"], r["mode"], " " + place if place else "")


def rel_sd(v):
    m = sum(v) / len(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1)) / m


# The document as text pieces between slots: a float slot names the factor
# group it takes (("r", i): result row i, ("own", k): its own, None: kept);
# a string slot the fingerprint key it is.
pieces, slots, cur = [], [], []
STRINGS = {("fingerprint", "host"): "host", ("fingerprint", "cpu", "microcode"): "microcode",
           ("fingerprint", "kernel", "release"): "kernel"}
own = [0]


def emit(node, path, group):
    if isinstance(node, dict):
        cur.append("{")
        for k, (key, v) in enumerate(node.items()):
            cur.append(("," if k else "") + json.dumps(key) + ":")
            p = path + (key,)
            g = group
            if len(p) == 1 and key in ("card", "hierarchy", "splitlock", "c2c"):
                g = "own"
            emit(v, p, g)
        if path == ("fingerprint",):
            slot("labels")
        cur.append("}")
    elif isinstance(node, list):
        cur.append("[")
        for k, v in enumerate(node):
            if k:
                cur.append(",")
            emit(v, path + (k,), ("r", k) if path == ("results",) else group)
        cur.append("]")
    elif isinstance(node, float) and group:
        if group == "own":
            group = ("own", own[0])
            own[0] += 1
        slot((group, node))
    elif path in STRINGS:
        slot(STRINGS[path])
    else:
        cur.append(json.dumps(node))


def slot(s):
    pieces.append("".join(cur))
    cur.clear()
    slots.append(s)


fp = base["fingerprint"]
fp.pop("labels", None)
emit(base, (), None)
pieces.append("".join(cur))

results = base["results"]
labels = [label(r) for r in results]
def spread(r):
    return rel_sd(r["epoch_medians"]) if len(r.get("epoch_medians", [])) >= 2 else 0.0


candidates = [i for i, r in enumerate(results)
              if labels.count(labels[i]) == 1 and r.get("cycles", {}).get("median", 0) > 0]
steady = [i for i in candidates if spread(results[i]) < 0.02]
if len(steady) < a.cells + 1:
    # a short source (configs/quick.conf) whose rows moved this run: the
    # steadiest there are
    steady = sorted(candidates, key=lambda i: spread(results[i]))[:a.cells + 1]
rows = rnd.sample(steady, a.cells + 1)
machines = rnd.sample(range(a.n), 4)
plant = {}
for m, i, f in zip(machines + machines[:2], rows[:a.cells], [1.10, 1.2, 1.5, 1.10, 1.5, 1.2]):
    plant[(m, i)] = f
group_row = rows[a.cells]
if a.quiet:
    plant, group_row = {}, None


def host(m):
    return "host-%05d" % m


with open(a.planted, "w") as p:
    for (m, i), f in sorted(plant.items()):
        p.write("cell\t%s\t%s\n" % (host(m), labels[i]))
    if group_row is not None:
        p.write("group\tmicrocode 0xffff\t%s\n" % labels[group_row])

for m in range(a.n):
    shifted = m % a.group_every == a.group_every - 1
    strings = {
        "host": json.dumps(host(m)),
        "microcode": json.dumps("0xffff" if shifted else fp["cpu"]["microcode"]),
        "kernel": json.dumps("6.1.0-28-amd64" if m % 4 == 1 else fp["kernel"]["release"]),
        "labels": ',"labels":' + json.dumps({"partition": "batch" if m < a.n // 2 else "gpu",
                                             "group": "web" if m % 2 else "db"}),
    }
    factor = {}
    out = []
    for k, s in enumerate(slots):
        out.append(pieces[k])
        if isinstance(s, str):
            out.append(strings[s])
            continue
        g, v = s
        f = factor.get(g)
        if f is None:
            f = factor[g] = math.exp(rnd.gauss(0, 0.01)) * plant.get((m, g[1]) if g[0] == "r" else None, 1.0) * \
                (1.2 if shifted and g == ("r", group_row) else 1.0)
        x = "%.5g" % (v * f)
        out.append(x if "." in x or "e" in x or "n" in x else x + ".0")  # a real, as jansson writes it
    out.append(pieces[-1])
    with open("%s/%s.summary.json" % (a.out, host(m)), "w") as o:
        o.write("".join(out))

text = open("%s/%s.summary.json" % (a.out, host(0))).read()
open("%s/zz-truncated.summary.json" % a.out, "w").write(text[:len(text) // 2])
open("%s/zz-foreign.summary.json" % a.out, "w").write('{"schema": "atomcost-other/9"}\n')
open("%s/zz-again.summary.json" % a.out, "w").write(text)
