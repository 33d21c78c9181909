"""Independent check of planner/engine_sglang_load.go (issue 29).

Simulates PyTorch's caching allocator (c10/cuda/CUDACachingAllocator.cpp:
512 B rounding, 2 MiB small segments, 20 MiB segments for 1-10 MiB requests,
2 MiB rounding above, best fit, split over 1 MiB, empty_cache releasing wholly
free segments) block by block, every norm and bias included, over SGLang's
construction order of the Llama/Qwen2/Qwen3 classes, and prints for each
corpus run that prints `mem usage` the tensors, the reserved segments and
what the log holds beyond each. Run: python3 scripts/sglang/load_sim.py
(standard library only; no GPU).
"""
import bisect
MiB=1<<20
class Alloc:
    def __init__(s):
        s.segs={}   # segid -> size
        s.blocks={} # id -> [seg, off, size, free]
        s.free={'s':[], 'l':[]}  # sorted list of (size, id)
        s.n=0
    def rs(s,n): return 512 if n<512 else (n+511)//512*512
    def malloc(s,n):
        n=s.rs(n); p='s' if n<=MiB else 'l'
        fl=s.free[p]; i=bisect.bisect_left(fl,(n,-1))
        if i<len(fl):
            sz,bid=fl.pop(i); b=s.blocks[bid]
        else:
            a=2*MiB if n<=MiB else (20*MiB if n<10*MiB else (n+2*MiB-1)//(2*MiB)*2*MiB)
            seg=len(s.segs); s.segs[seg]=a; s.n+=1; bid=s.n; b=[seg,0,a,True,p]; s.blocks[bid]=b
        rem=b[2]-n
        if (p=='s' and rem>=512) or (p=='l' and rem>MiB):
            s.n+=1; nb=[b[0],b[1]+n,rem,True,p]; s.blocks[s.n]=nb; bisect.insort(fl,(rem,s.n)); b[2]=n
        b[3]=False
        return bid
    def freeb(s,bid):
        b=s.blocks[bid]; b[3]=True; p=b[4]
        # merge neighbours
        for oid,o in list(s.blocks.items()):
            if oid!=bid and o[0]==b[0] and o[3] and (o[1]+o[2]==b[1] or b[1]+b[2]==o[1]):
                s.free[p].remove((o[2],oid)); del s.blocks[oid]
                b[1]=min(b[1],o[1]); b[2]+=o[2]
        bisect.insort(s.free[p],(b[2],bid))
    def empty_cache(s):
        for seg,a in list(s.segs.items()):
            bl=[(k,v) for k,v in s.blocks.items() if v[0]==seg]
            if len(bl)==1 and bl[0][1][3]:
                k,v=bl[0]; s.free[v[4]].remove((v[2],k)); del s.blocks[k]; del s.segs[seg]
    def reserved(s): return sum(s.segs.values())

def model(h,inter,heads,kv,hd,L,vocab,tied,bias=False,qknorm=False,tp=1,maxpos=40960,rot_fp32=True,dt=2):
    A=Alloc(); tensors=0
    def p(n):
        nonlocal tensors; tensors+=n; return A.malloc(n)
    vp=(vocab+63)//64*64
    p(vp//tp*h*dt)
    rope=None
    for l in range(L):
        q=heads*hd//tp; k=max(kv//tp,1)*hd
        p((q+2*k)*h*dt)
        if bias: p((q+2*k)*dt)
        p(h*q*dt)
        if l==0:
            # rotary cache
            r=hd
            t1=A.malloc(r//2*4); t2=A.malloc(r//2*4)  # arange, inv_freq
            t=A.malloc(maxpos*4); fr=A.malloc(maxpos*r//2*4); c=A.malloc(maxpos*r//2*4); sn=A.malloc(maxpos*r//2*4)
            cache=A.malloc(maxpos*r*4)
            for x in (t1,t2,t,fr,c,sn): A.freeb(x)
            if not rot_fp32:
                c2=A.malloc(maxpos*r*2); A.freeb(cache)
        if qknorm: p(hd*dt); p(hd*dt)
        p(2*inter//tp*h*dt); p(h*inter//tp*dt)
        p(h*dt); p(h*dt)
    p(h*dt)
    if not tied: p(vp//tp*h*dt)
    A.empty_cache()
    return tensors, A.reserved()

runs={
 'llama3.1-8b (0.4.1)': (dict(h=4096,inter=14336,heads=32,kv=8,hd=128,L=32,vocab=128256,tied=False,maxpos=131072),15.09),
 'qwq-32b tp4 (0.4.3.post4)': (dict(h=5120,inter=27648,heads=40,kv=8,hd=128,L=64,vocab=152064,tied=False,bias=True,tp=4,maxpos=40960),15.54),
 'qwen3-0.6b wsl (0.4.6.post2)': (dict(h=1024,inter=3072,heads=16,kv=8,hd=128,L=28,vocab=151936,tied=True,qknorm=True,maxpos=40960),1.20),
 'qwen3-0.6b rtx5080 (~0.4.10)': (dict(h=1024,inter=3072,heads=16,kv=8,hd=128,L=28,vocab=151936,tied=True,qknorm=True,maxpos=40960),1.25),
 'llama3.2-3b (0.5.7)': (dict(h=3072,inter=8192,heads=24,kv=8,hd=128,L=28,vocab=128256,tied=True,maxpos=131072),6.13),
 'qwen3-14b tp4 (main)': (dict(h=5120,inter=17408,heads=40,kv=8,hd=128,L=40,vocab=151936,tied=False,qknorm=True,tp=4,maxpos=40960),7.08),
 'r1-qwen-7b (0.4)': (dict(h=3584,inter=18944,heads=28,kv=4,hd=128,L=28,vocab=152064,tied=False,bias=True,maxpos=131072),14.39),
 'qwen2.5-0.5b h100nvl (0.5.10)': (dict(h=896,inter=4864,heads=14,kv=2,hd=64,L=24,vocab=151936,tied=True,bias=True,maxpos=32768),0.98),
}
for name,(cfg,log) in runs.items():
    for fp in ([cfg.get('rot_fp32',True)]):
        t,r=model(**cfg)
        logb=log*(1<<30)
        print(f"{name:40s} tensors {t/2**30:.3f} GiB  reserved {r/2**30:.3f}  over {(r-t)/MiB:6.1f} MiB  log-tensors {(logb-t)/MiB:6.1f} MiB  log-reserved {(logb-r)/MiB:6.1f} MiB (±5)")
