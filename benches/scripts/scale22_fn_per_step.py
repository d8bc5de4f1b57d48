import sys, glob, subprocess, re
# fnsum.py TAG LAST PATTERN...: mean inclusive Ir per step of functions matching each pattern over the last LAST per-step dumps
tag=sys.argv[1]; last=int(sys.argv[2]); pats=sys.argv[3:]
fs=sorted(glob.glob(f'/tmp/s22/d/{tag}/cg.out.*'), key=lambda f:int(f.rsplit('.',1)[1]))[-last:]
tot={p:0 for p in pats}
for f in fs:
    out=subprocess.run(['callgrind_annotate','--inclusive=yes','--threshold=100',f],capture_output=True,text=True).stdout
    seen=set()
    for line in out.splitlines():
        m=re.match(r'\s*([\d,]+)\s+\([^)]*\)\s+\S*?:(.*?) \[',line)
        if not m: continue
        name=m.group(2)
        for p in pats:
            if re.search(p,name) and (p,name) not in seen:
                seen.add((p,name)); tot[p]+=int(m.group(1).replace(',',''))
for p in pats: print(f'{tot[p]/len(fs)/1e6:8.3f} M  {p}')
