"""Measure the GPU memory vLLM V1's profile-run sampler warm-up allocates.

vLLM V1 sizes its KV cache from torch's peak allocated bytes over a profile
run whose last step is GPUModelRunner._dummy_sampler_run
(vllm/v1/worker/gpu_model_runner.py): min(max_num_seqs,
max_num_batched_tokens) rows of model-dtype logits, sampled with
temperature 0.5, top-p 0.9, top-k vocab - 1, no min-p, no penalties
(no_penalties=True), no logprobs, and no rejection sampler unless a
speculative config is set. The sampler (vllm/v1/sample/sampler.py,
Sampler.forward and Sampler.sample) casts the logits to float32, takes the
greedy argmax (all_greedy and all_random are both False), divides by the
temperature in place and hands the logits to TopKTopPSampler
(vllm/v1/sample/ops/topk_topp_sampler.py), which takes one of two paths:

  native      apply_top_k_top_p: a full sort of each row (values and int64
              indices), a top-k threshold gathered from the sorted values
              and masked in, softmax, cumulative sum written over the
              softmax, a top-p mask, then a scatter back to vocabulary order
              into a new tensor; then softmax and an exponential-noise
              argmax (random_sample).
  flashinfer  flashinfer.sampling.top_k_top_p_sampling_from_logits with its
              default filter_apply_order "top_k_first": top_k_mask_logits
              writes a masked copy, softmax makes the probabilities, and a
              rejection-sampling kernel draws from them (no sort). This
              script does not need FlashInfer: it allocates what those steps
              allocate (an output tensor for the mask, softmax's output);
              the kernels' own workspace, if any, is not measured.

Each step below is this script's own implementation of the step the source
describes, written for its allocations, not a copy of vLLM's code. For every
(rows, vocab) pair the script prints torch's peak allocated bytes above the
model-dtype logits (which _dummy_sampler_run holds throughout) and that peak
per row and vocabulary entry, with and without the logits themselves.

Usage: python sampler_peak.py [--out results.json]
"""

import argparse
import json
import sys

import torch

PAIRS = [
    (256, 128256),   # Llama-3 vocabulary at V1's small-GPU max_num_seqs
    (256, 151936),   # Qwen3 / Qwen2.5-7B
    (256, 152064),   # Qwen2-7B
    (256, 201088),   # gpt-oss
    (1024, 128256),  # the big-GPU max_num_seqs (llm-d's H100 figures)
    (1024, 151936),
    (1024, 201088),
]


def native(logits32, top_k, top_p):
    """The torch-native top-k/top-p path, then softmax and noise argmax."""
    values, order = logits32.sort(dim=-1)
    cut = values.gather(1, (values.size(1) - top_k.long()).unsqueeze(1))
    values.masked_fill_(values < cut, float("-inf"))
    probs = values.softmax(dim=-1)
    torch.cumsum(probs, dim=-1, out=probs)
    drop = probs <= (1 - top_p).unsqueeze(1)
    drop[:, -1] = False
    values.masked_fill_(drop, float("-inf"))
    del probs, drop
    filtered = values.scatter(-1, order, values)
    del values, order
    probs = filtered.softmax(dim=-1, dtype=torch.float32)
    noise = torch.empty_like(probs).exponential_()
    return probs.div_(noise).argmax(dim=-1)


def flashinfer_like(logits32, top_k, top_p):
    """FlashInfer's top_k_first order: a masked copy, softmax, a draw."""
    masked = torch.empty_like(logits32)
    masked.copy_(logits32)  # top_k_mask_logits writes a new tensor
    probs = torch.softmax(masked, dim=-1)
    # top_p_sampling_from_probs returns one int32 per row.
    return torch.empty(probs.size(0), dtype=torch.int32, device=probs.device)


def warm_up(logits, path):
    """Sampler.forward and Sampler.sample as the dummy run drives them."""
    rows, vocab = logits.shape
    dev = logits.device
    temperature = torch.full((rows,), 0.5, device=dev)
    top_p = torch.full((rows,), 0.9, device=dev)
    top_k = torch.full((rows,), vocab - 1, device=dev)
    logits32 = logits.to(torch.float32)
    greedy = logits32.argmax(dim=-1)
    logits32.div_(temperature.unsqueeze(1))
    sampled = path(logits32, top_k, top_p)
    return torch.where(temperature < 1e-5, greedy, sampled.long())


def measure(rows, vocab, path, dtype):
    torch.cuda.empty_cache()
    logits = torch.randn(rows, vocab, device="cuda", dtype=dtype)
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    out = warm_up(logits, path)
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - base
    del out, logits
    entries = rows * vocab
    held = entries * torch.finfo(dtype).bits // 8
    return {"rows": rows, "vocab": vocab, "path": path.__name__, "logits_dtype": str(dtype),
            "peak_above_logits_bytes": peak,
            "per_entry_above_logits": round(peak / entries, 3),
            "per_entry_with_logits": round((peak + held) / entries, 3)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("sampler_peak: no CUDA device")
    results = {"torch": torch.__version__, "cuda": torch.version.cuda,
               "device": torch.cuda.get_device_name(), "runs": []}
    for path in (native, flashinfer_like):
        for rows, vocab in PAIRS:
            r = measure(rows, vocab, path, torch.bfloat16)
            results["runs"].append(r)
            print(f"{r['path']:16} {rows:5} x {vocab:6}  peak above logits {r['peak_above_logits_bytes'] / 2**30:6.3f} GiB"
                  f"  {r['per_entry_above_logits']:6.2f} B/entry  ({r['per_entry_with_logits']:6.2f} with the bf16 logits)")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
