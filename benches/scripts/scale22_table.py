import json, sys, re
# scale22_table.py DIR: the timing table of scale22_bench{1,2}.sh's DIR — rtphys us_per_step.median (on-CPU),
# MuJoCo's and rapier's us_per_step (one "NAME ... us_per_step=X" line per scene in their outputs)
d = sys.argv[1]


def rt(f):
    try:
        j = json.load(open(f))
    except (OSError, ValueError):
        return {}
    return {s['name']: s['us_per_step']['median'] for s in j['scenes']}


def peer(f, pattern=r'(\w+) .*?us_per_step=([\d.]+)'):
    out = {}
    for line in open(f):
        m = re.match(pattern, line)
        if m:
            out[m.group(1)] = float(m.group(2))
    return out


for r in (1, 2):
    print('main', r, rt(f'{d}/main.{r}.json'))
    print('branch', r, rt(f'{d}/br.{r}.json'))
    print('rapier', r, peer(f'{d}/rap.{r}.txt'))
for m in ('mj1', 'mj2', 'mj3'):
    print(m, peer(f'{d}/{m}.txt'))
