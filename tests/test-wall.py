#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# test-wall.py BUILD_DIR SRC_DIR - the wall between the model and the
# engines is built, not painted: every source of src/model and src/report
# compiles in the model library alone, with the model's include directory
# alone (src/model, where build-config.h is generated) and no hwloc; its
# headers (gcc -M) come from src/model, src/report and /usr only, never
# hwloc; and a file that includes any engine, probe or arch header fails to
# compile with the model library's own command (each header of src/,
# its engine folders and probes/ planted in turn, beside a control that must
# compile). And the architecture headers #error when an engine file
# includes one other than through arch/arch.h. Commands come from
# BUILD_DIR/compile_commands.json, so the compiler, flags and include path
# are the build's own (cross, sanitizers).
# Exit 0 pass, 1 fail.
import glob
import json
import os
import shlex
import subprocess
import sys
import tempfile

build, src = (os.path.realpath(p) for p in sys.argv[1:3])
LIB = 'libatomcost-model.a.p'
fails = 0


def check(ok, what, detail=''):
    global fails
    print(('ok   ' if ok else 'FAIL ') + what + ('' if ok or not detail else ':\n' + detail))
    fails += not ok


def inside(path, dirs):
    return any(path == d or path.startswith(d + os.sep) for d in dirs)


def model_command(e, source, extra):
    """The model library's command for entry e, compiling source with extra
    flags instead of e's file (no object, no dependency file)."""
    out, skip = [], False
    for a in shlex.split(e['command']):
        if skip:
            skip = False
        elif a in ('-o', '-MQ', '-MF', '-MT'):
            skip = True
        elif a not in ('-c', '-MD', '-MMD', e['file']):
            out.append(a)
    return out + ['-fdiagnostics-color=never'] + extra + [source]


def run(argv, cwd):
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True)


with open(os.path.join(build, 'compile_commands.json')) as f:
    entries = json.load(f)
want = sorted(glob.glob(os.path.join(src, 'src/model/*.c')) + glob.glob(os.path.join(src, 'src/report/*.c')))
model = {}
for e in entries:
    path = os.path.realpath(os.path.join(e['directory'], e['file']))
    if path in want:
        in_lib = e['output'].startswith(LIB + '/')
        check(in_lib, f"{os.path.relpath(path, src)} compiles in the model library only",
              f"also in {e['output']}")
        if in_lib:
            model[path] = e
check(sorted(model) == want, f'{len(want)} model and writer sources in the model library',
      'missing: ' + ' '.join(os.path.relpath(p, src) for p in want if p not in model))
if not model:
    sys.exit(1)

# The include path: src/model (source and build) and the library's own
# object folder, nothing else.
allowed_inc = [os.path.join(src, 'src/model'), os.path.join(build, 'src/model'), os.path.join(build, LIB)]
e0 = model[want[0]]
incs = [a[2:] for a in shlex.split(e0['command']) if a.startswith('-I') and len(a) > 2]
bad = [i for i in incs if not inside(os.path.realpath(os.path.join(e0['directory'], i)), allowed_inc)]
check(not bad and incs, 'the model include path is src/model alone', ' '.join(bad) or 'no -I at all')

# Every header a model or writer source reads.
allowed_dep = [os.path.join(src, 'src/model'), os.path.join(src, 'src/report'),
               os.path.join(build, 'src/model'), '/usr']
for path, e in sorted(model.items()):
    r = run(model_command(e, path, ['-M']), e['directory'])
    deps = shlex.split(r.stdout.replace('\\\n', ' '))[1:] if r.returncode == 0 else []
    deps = [os.path.realpath(os.path.join(e['directory'], d)) for d in deps]
    bad = [d for d in deps if not inside(d, allowed_dep) or '/hwloc' in d]
    check(r.returncode == 0 and not bad, f'gcc -M {os.path.relpath(path, src)}: src/model, src/report, /usr only',
          r.stderr + '\n'.join(bad))

# Plant an engine header in a model file: each must fail to compile, with
# the header not found; the control (model headers) must compile.
engine = sorted(glob.glob(os.path.join(src, 'src/*.h')) + glob.glob(os.path.join(src, 'probes/*.h')))
engine = [os.path.basename(h) for h in engine]
# and the engine folders' headers by their folder path (arch/arch.h, cmd/cmd.h, repro/repro.h)
engine += sorted(os.path.relpath(h, os.path.join(src, 'src')) for h in glob.glob(os.path.join(src, 'src/*/*.h'))
                 if os.path.basename(os.path.dirname(h)) not in ('model', 'report'))
with tempfile.TemporaryDirectory() as tmp:
    def planted(name, text, e=e0):
        p = os.path.join(tmp, name)
        with open(p, 'w') as f:
            f.write(text)
        return run(model_command(e, p, ['-fsyntax-only']), e['directory'])

    r = planted('wall-control.c', '#include "result.h"\n#include "sections.h"\n#include "card.h"\n'
                '#include "build-config.h"\nint wall_control(void);\nint wall_control(void) { return 0; }\n')
    check(r.returncode == 0, 'control: a model file with model headers compiles', r.stderr)
    for h in engine:
        r = planted('wall-probe.c', f'#include "{h}"\n')
        check(r.returncode != 0 and h in r.stderr and
              ('No such file' in r.stderr or 'file not found' in r.stderr),  # gcc, clang
              f'a model file including "{h}" does not compile', r.stderr or 'it compiled')

    # The arch headers, planted in an engine file (runner.c's command).
    eng = [e for e in entries if e['file'].endswith('src/runner.c')]
    check(len(eng) == 1, 'the engine command (src/runner.c) found')
    if eng:
        r = planted('arch-control.c', '#include "arch/arch.h"\n', eng[0])
        check(r.returncode == 0, 'control: an engine file including "arch/arch.h" compiles', r.stderr)
        for h in [h for h in engine if h.startswith('arch/') and h != 'arch/arch.h']:
            r = planted('arch-probe.c', f'#include "{h}"\n', eng[0])
            check(r.returncode != 0 and 'include arch/arch.h, not ' + h in r.stderr,
                  f'an engine file including "{h}" directly stops at its #error', r.stderr or 'it compiled')
print(f'wall: {fails} failed')
sys.exit(1 if fails else 0)
