import subprocess, sys, time, os, glob
# cgd.py BIN SCENE TAG [ON_AFTER=3000] [STEPS=3100]: one callgrind dump per step_with (zeroed before it), instrumentation on after row ON_AFTER
binp, scene, tag = sys.argv[1], sys.argv[2], sys.argv[3]
on_after = int(sys.argv[4]) if len(sys.argv) > 4 else 3000
steps = int(sys.argv[5]) if len(sys.argv) > 5 else 3100
d=f'/tmp/s22/d/{tag}'; os.makedirs(d, exist_ok=True)
for f in glob.glob(d+'/*'): os.remove(f)
p = subprocess.Popen(['nice','-n','5','valgrind','--tool=callgrind','--instr-atstart=no',
    '--zero-before=rtphys::pipeline::Pipeline::step_with','--dump-after=rtphys::pipeline::Pipeline::step_with',
    f'--callgrind-out-file={d}/cg.out',binp,'run',scene,'--steps',str(steps)],
    stdout=subprocess.PIPE, stderr=open(f'{d}/err','w'))
n = 0
log = open(f'{d}/log','w')
log.write(f'start {time.strftime("%T")}\n'); log.flush()
for line in p.stdout:
    n += 1
    if n == on_after + 1:
        subprocess.run(['callgrind_control','-i','on',str(p.pid)], capture_output=True)
        log.write(f'on after row {n-1} {time.strftime("%T")}\n'); log.flush()
p.wait()
log.write(f'rows {n-1} end {time.strftime("%T")} rc {p.returncode}\n')
