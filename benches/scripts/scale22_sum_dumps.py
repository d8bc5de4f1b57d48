import sys, glob
# sumd.py TAG [LAST=90]: Ir per step over the last LAST numbered per-step dumps (the last numbered dump = the run's last step)
tag=sys.argv[1]; last=int(sys.argv[2]) if len(sys.argv)>2 else 90
fs=sorted(glob.glob(f'/tmp/s22/d/{tag}/cg.out.*'), key=lambda f:int(f.rsplit('.',1)[1]))
def summ(f):
    for l in open(f):
        if l.startswith('summary:'): return int(l.split()[1])
vals=[summ(f) for f in fs][-last:]
print(f'{tag}: {len(fs)} dumps, last {len(vals)}: total {sum(vals):,} mean/step {sum(vals)/len(vals):,.0f} min {min(vals):,} max {max(vals):,}')
