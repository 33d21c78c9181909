"""Measure what a cold Inductor compile adds to torch's allocated peak.

vLLM V1 compiles its model on the first forward of the memory profile
(`Worker.determine_available_memory` runs `profile_run` inside
`memory_profiling`), and sizes the KV cache from torch's allocated peak over
that window. This script reproduces the shape of that window without vLLM:
a stack of decoder layers of a named model's widths (random bf16 weights;
attention is left out, as vLLM leaves it out of the compiled pieces), compiled
by Inductor with the token dimension dynamic over (1, tokens), as vLLM's
compile range is, and run once at `tokens`. It prints, in one JSON line:

- `first`: torch's allocated peak over the first call (compile and run) less
  what was allocated before it, and the growth of memory outside torch
  (device used memory less torch's reserved memory) over the same call;
- `steady`: the same over a second call (the forward alone);
- `eager`: the eager forward's peak, for scale.

With COMPILE_PEAK_VLLM=1 it compiles with the Inductor options vLLM sets by
default on CUDA with torch 2.9 and later (`CompilationConfig.__post_init__`,
vllm/config/compilation.py: `combo_kernels` and `benchmark_combo_kernel` on,
`enable_auto_functionalized_v2` off), and the layers get Qwen3's per-head
q/k RMSNorm and a rotary-style multiply on q and k, the horizontal pair that
vLLM's comment there says combo kernels are for.

Run it twice with the same TORCHINDUCTOR_CACHE_DIR and TRITON_CACHE_DIR:
the first process compiles cold, the second loads from the cache (warm).
It is a measurement of PyTorch's compiler, not of vLLM: vLLM splits the graph
at attention and runs its own passes, so the figures are a lead, not a rule.
"""

import json
import os
import sys
import time

import torch
import torch.nn.functional as F

SHAPES = {
    # name: hidden, intermediate, q heads, kv heads, head dim, layers
    "qwen3-14b": (5120, 17408, 40, 8, 128, 40),
    "llama3.1-8b": (4096, 14336, 32, 8, 128, 32),
    "qwen2.5-0.5b": (896, 4864, 14, 2, 64, 24),
    "qwen3-0.6b": (1024, 3072, 16, 8, 128, 28),
}

GiB = float(1 << 30)
VLLM = os.environ.get("COMPILE_PEAK_VLLM") == "1"
VLLM_OPTIONS = {"enable_auto_functionalized_v2": False, "combo_kernels": True,
                "benchmark_combo_kernel": True}


def rms(x, w, eps=1e-6):
    v = x.float().pow(2).mean(-1, keepdim=True)
    return (x.float() * torch.rsqrt(v + eps)).to(x.dtype) * w


class Layer(torch.nn.Module):
    def __init__(self, h, i, nq, nkv, d):
        super().__init__()
        mk = lambda o, n: torch.nn.Parameter(torch.randn(o, n, dtype=torch.bfloat16) * 0.02)
        self.qkv = mk((nq + 2 * nkv) * d, h)
        self.o = mk(h, nq * d)
        self.gate_up = mk(2 * i, h)
        self.down = mk(h, i)
        self.n1 = torch.nn.Parameter(torch.ones(h, dtype=torch.bfloat16))
        self.n2 = torch.nn.Parameter(torch.ones(h, dtype=torch.bfloat16))
        self.qd, self.kd, self.d = nq * d, nkv * d, d
        self.qn = torch.nn.Parameter(torch.ones(d, dtype=torch.bfloat16))
        self.kn = torch.nn.Parameter(torch.ones(d, dtype=torch.bfloat16))

    def forward(self, x, res):
        res = x + res
        y = F.linear(rms(res, self.n1), self.qkv)
        if VLLM:  # Qwen3's q/k norm and a rotary-style multiply: two independent kernels
            t = y.shape[0]
            q = rms(y[:, : self.qd].reshape(t, -1, self.d), self.qn) * 0.5
            k = rms(y[:, self.qd : self.qd + self.kd].reshape(t, -1, self.d), self.kn) * 0.5
            y = torch.cat([q.reshape(t, -1), k.reshape(t, -1)], dim=-1)
        y = F.linear(y[:, : self.qd], self.o)  # attention left out, as vLLM splits it off
        res = y + res
        g, u = F.linear(rms(res, self.n2), self.gate_up).chunk(2, dim=-1)
        return F.linear(F.silu(g) * u, self.down), res


class Stack(torch.nn.Module):
    def __init__(self, h, i, nq, nkv, d, n):
        super().__init__()
        self.layers = torch.nn.ModuleList(Layer(h, i, nq, nkv, d) for _ in range(n))

    def forward(self, x):
        res = torch.zeros_like(x)
        for l in self.layers:
            x, res = l(x, res)
        return x + res


def window(fn):
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    free0, total = torch.cuda.mem_get_info()
    res0 = torch.cuda.memory_reserved()
    t = time.time()
    out = fn()
    torch.cuda.synchronize()
    secs = time.time() - t
    peak = torch.cuda.max_memory_allocated() - before
    free1, _ = torch.cuda.mem_get_info()
    nontorch = ((total - free1) - torch.cuda.memory_reserved()) - ((total - free0) - res0)
    del out
    return {"peak_gib": round(peak / GiB, 3), "nontorch_gib": round(nontorch / GiB, 3), "s": round(secs, 2)}


def main():
    name, tokens = sys.argv[1], int(sys.argv[2])
    h, i, nq, nkv, d, n = SHAPES[name]
    if len(sys.argv) > 3:  # fewer layers: the transient is per kernel, the compile time per layer
        n = int(sys.argv[3])
    torch.manual_seed(0)
    m = Stack(h, i, nq, nkv, d, n).cuda()
    x = torch.randn(tokens, h, dtype=torch.bfloat16, device="cuda")
    out = {"model": name, "tokens": tokens, "layers": n, "torch": torch.__version__,
           "weights_gib": round(torch.cuda.memory_allocated() / GiB, 3)}
    with torch.inference_mode():
        out["eager"] = window(lambda: m(x))
        c = torch.compile(m, options=VLLM_OPTIONS if VLLM else None)
        torch._dynamo.mark_dynamic(x, 0, min=1, max=tokens)
        out["first"] = window(lambda: c(x))
        out["steady"] = window(lambda: c(x))
    out["cache"] = os.environ.get("TORCHINDUCTOR_CACHE_DIR", "")
    out["vllm_options"] = VLLM
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
