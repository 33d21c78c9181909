#!/usr/bin/env python3
"""The H200 proof of issue 18: a PyTorch process maps gpuagent's KV pool.

Two leases map the pool through gpuagent_pool (ctypes over libcuda.so.1).
Lease A admits sequences until the pool has grown tenfold, writing a known
pattern into every K/V block it is given (each layer's K and V spans tagged
by the plan's layout), and checks every byte; lease B admits with A's
prefix hashes, gets A's blocks from the prefix cache and reads A's pattern
through its own mapping; then the load stops, the agent shrinks the pool,
and the device's free memory comes back by what was decommitted.

    python3 scripts/gpu-pool-test.py SOCKET OUT.json
"""

import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpuagent", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpuagent_pool as gp  # noqa: E402


def quantiles(xs):
    xs = sorted(xs)
    if not xs:
        return {}
    pick = lambda f: xs[min(len(xs) - 1, int(f * len(xs)))]
    return {"n": len(xs), "p50_us": pick(0.5) * 1e6, "p90_us": pick(0.9) * 1e6, "max_us": xs[-1] * 1e6}


class Pattern:
    """Every int32 word of a block: block, salt, layer and K/V, and index."""

    def __init__(self, layout):
        n = layout["block_bytes"] // 4
        tag = torch.zeros(n, dtype=torch.int32, device="cuda")
        for L in layout["layers"]:
            for kv, span in ((1, L["k"]), (2, L["v"])):
                lo, hi = span["offset"] // 4, (span["offset"] + span["bytes"]) // 4
                tag[lo:hi] = L["layer"] * 2 + kv
        self.tag_hi = tag << 20
        self.idx = torch.arange(n, dtype=torch.int32, device="cuda")

    def of(self, block, salt):
        return ((block * 131 + salt) ^ self.tag_hi) + self.idx


VIA = {"how": "torch.as_tensor(__cuda_array_interface__)"}


def view(pool, b):
    """Block b as an int32 tensor over the mapped memory, no copy."""
    if VIA["how"].startswith("torch"):
        try:
            return torch.as_tensor(pool.block(b), device="cuda").view(torch.int32)
        except Exception as e:  # fall back to CuPy's view, handed over by DLPack
            VIA["how"], VIA["why"] = "cupy.ndarray -> torch.from_dlpack", repr(e)
    import cupy
    n = pool.layout["block_bytes"]
    mem = cupy.cuda.UnownedMemory(pool.addr(b), n, pool)
    arr = cupy.ndarray((n,), dtype=cupy.uint8, memptr=cupy.cuda.MemoryPointer(mem, 0))
    return torch.from_dlpack(arr).view(torch.int32)


def main(sock, out):
    torch.zeros(1, device="cuda")  # PyTorch's primary context first
    res = {}
    a, b = gp.Agent(sock), gp.Agent(sock)
    a.open(name="torch-a")
    b.open(name="torch-b")
    t0 = time.perf_counter()
    pa = gp.Pool(a)
    res["first_map_s"] = time.perf_counter() - t0
    pb = gp.Pool(b)
    lay = pa.layout
    res["layout"] = {k: v for k, v in lay.items() if k != "layers"}
    res["layers"] = len(lay["layers"])
    pat = Pattern(lay)
    st = a.stats()
    committed0 = st["kv"]["committed_bytes"]
    res["committed_initial"] = committed0
    max_tok = a.limits["max_seq_len"]
    per_seq = max_tok // lay["block_tokens"]
    seqs, written = [], {}
    growth = []
    i = 0
    while st["kv"]["committed_bytes"] < 10 * committed0:
        hashes = [((i + 1) << 32) | (j + 1) for j in range(8)]
        r = a.admit(max_tok, max_tok, hashes)
        seqs.append((r["seq"], hashes))
        for blk in r["blocks"]:
            view(pa, blk).copy_(pat.of(blk, 1))
            written[blk] = 1
        st = a.stats()
        growth.append(st["kv"]["committed_bytes"])
        i += 1
    torch.cuda.synchronize()
    res["growth_committed"] = growth
    res["growth_factor"] = st["kv"]["committed_bytes"] / committed0
    res["sequences_a"] = len(seqs)
    bad = [blk for blk, salt in written.items() if not torch.equal(view(pa, blk), pat.of(blk, salt))]
    res["blocks_written_a"], res["blocks_bad_a"] = len(written), len(bad)
    # Shared prefix: A's first sequence's sealed blocks go to the cache; B gets them.
    first_seq, first_hashes = seqs.pop(0)
    a.free(first_seq)
    rb = b.admit(max_tok, max_tok, first_hashes)
    res["b_hits"] = rb.get("hits", 0)
    shared = rb["blocks"][: res["b_hits"]]
    res["shared_blocks_bad"] = sum(not torch.equal(view(pb, blk), pat.of(blk, written[blk])) for blk in shared)
    for blk in rb["blocks"][res["b_hits"]:]:
        view(pb, blk).copy_(pat.of(blk, 2))
        written[blk] = 2
    torch.cuda.synchronize()
    # Every block either lease wrote, read through A's mapping: every byte.
    live = set(rb["blocks"]) | {blk for blk in written}
    bad = [blk for blk in live if not torch.equal(view(pa, blk), pat.of(blk, written[blk]))]
    res["blocks_checked"], res["blocks_bad"] = len(live), len(bad)
    res["bytes_checked"] = len(live) * lay["block_bytes"]
    # The load stops: free everything, then watch the pool shrink.
    b.free(rb["seq"])
    for s, _ in seqs:
        a.free(s)
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    peak = a.stats()["kv"]["committed_bytes"]
    free_peak = torch.cuda.mem_get_info()[0]
    t0 = time.perf_counter()
    for _ in range(400):
        st = a.stats()
        if st["kv"]["committed_bytes"] <= committed0 + 2 * lay["chunk_bytes"]:
            break
        time.sleep(0.05)
    res["shrink_wait_s"] = time.perf_counter() - t0
    time.sleep(0.2)
    st = a.stats()
    free_after = torch.cuda.mem_get_info()[0]
    res["committed_peak"], res["committed_after"] = peak, st["kv"]["committed_bytes"]
    res["decommitted"] = peak - st["kv"]["committed_bytes"]
    res["device_free_rose"] = free_after - free_peak
    res["mapped_after"] = [pa.mapped_bytes(), pb.mapped_bytes()]
    res["map_times"] = quantiles(pa.map_times + pb.map_times)
    res["sharing"] = {k: v for k, v in st["sharing"].items() if k != "recent_pushes"}
    res["pushes"] = st["sharing"].get("recent_pushes", [])[-64:]
    res["steady_state"] = st["steady_state_allocations"]
    res["errors"] = [repr(pa.error), repr(pb.error)]
    res["view"] = VIA
    ok = (res["growth_factor"] >= 10 and res["blocks_bad"] == 0 and res["blocks_bad_a"] == 0 and res["b_hits"] == 8
          and res["shared_blocks_bad"] == 0 and res["decommitted"] > 0
          and abs(res["device_free_rose"] - res["decommitted"]) <= 16 << 20 and not res["steady_state"]
          and res["mapped_after"] == [res["committed_after"]] * 2)
    res["result"] = "PASS" if ok else "FAIL"
    pa.close()
    pb.close()
    json.dump(res, open(out, "w"), indent=1)
    print(json.dumps({k: v for k, v in res.items() if k not in ("pushes", "growth_committed")}, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
