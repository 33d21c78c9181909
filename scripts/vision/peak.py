#!/usr/bin/env python3
"""Measure a vision tower's activation peak on a real GPU.

For each checked-in config.json named on the command line, the vision tower
that transformers builds from the config (random weights, bf16, SDPA
attention) runs one forward pass per input size under inference mode, and the
script prints, per size, the tower's weights and torch's peak allocated bytes
above them (torch.cuda.max_memory_allocated after reset_peak_memory_stats),
one JSON object a line. Nothing is downloaded: the configs are the files
under planner/hf/testdata/configs.

    python3 scripts/vision/peak.py planner/hf/testdata/configs/Qwen__Qwen2-VL-2B-Instruct.json ...
"""
import json, os, shutil, sys, tempfile

import torch
import transformers
from transformers import AutoConfig


def tower(path):
    """Return (config, vision module on cuda in bf16)."""
    d = tempfile.mkdtemp()
    shutil.copy(path, os.path.join(d, "config.json"))
    cfg = AutoConfig.from_pretrained(d)
    cfg._attn_implementation = "sdpa"
    for sub in ("vision_config",):
        if getattr(cfg, sub, None) is not None:
            getattr(cfg, sub)._attn_implementation = "sdpa"
    auto = transformers.AutoModelForImageTextToText
    cls = auto._model_mapping[type(cfg)]
    with torch.device("meta"):
        full = cls(cfg)
    vis = None
    for name in ("visual", "vision_tower", "vision_model"):
        for owner in (full, getattr(full, "model", None)):
            if owner is not None and hasattr(owner, name):
                vis = getattr(owner, name)
                break
        if vis is not None:
            break
    if vis is None:
        raise SystemExit(f"{path}: no vision submodule")
    vcls, vcfg = type(vis), vis.config
    del full
    torch.set_default_dtype(torch.bfloat16)
    with torch.device("cuda"):
        vis = vcls._from_config(vcfg, torch_dtype=torch.bfloat16) if hasattr(vcls, "_from_config") else vcls(vcfg)
    torch.set_default_dtype(torch.float32)
    vis = vis.to(device="cuda", dtype=torch.bfloat16).eval()
    return cfg, vis


def inputs(cfg, n):
    """Yield (label, kwargs) for the tower of cfg at input size n."""
    mt = cfg.model_type
    vc = cfg.vision_config
    if mt.startswith("qwen2_vl") or mt.startswith("qwen2_5_vl") or mt.startswith("qwen3_vl"):
        p, t = vc.patch_size, vc.temporal_patch_size
        side = n  # patches per side
        grid = torch.tensor([[1, side, side]], device="cuda")
        pix = torch.randn(side * side, vc.in_channels * t * p * p, device="cuda", dtype=torch.bfloat16)
        return f"{side}x{side} patches", dict(hidden_states=pix, grid_thw=grid)
    if mt == "mllama":
        tiles = vc.max_num_tiles
        pix = torch.randn(1, n, tiles, 3, vc.image_size, vc.image_size, device="cuda", dtype=torch.bfloat16)
        ar_ids = torch.ones(1, n, dtype=torch.long, device="cuda") * 6
        ar_mask = torch.ones(1, n, tiles, dtype=torch.long, device="cuda")
        return f"{n} images x {tiles} tiles", dict(pixel_values=pix, aspect_ratio_ids=ar_ids, aspect_ratio_mask=ar_mask)
    if mt == "gemma3":
        pix = torch.randn(n, 3, vc.image_size, vc.image_size, device="cuda", dtype=torch.bfloat16)
        return f"{n} images", dict(pixel_values=pix)
    raise SystemExit(f"model_type {mt}: no input rule")


SIZES = {"qwen": [32, 64, 128, 256], "mllama": [1, 2, 4, 8], "gemma3": [1, 4, 16, 64]}


def sizes(mt):
    return SIZES["qwen"] if mt.startswith("qwen") else SIZES[mt]


def main():
    print(json.dumps({"torch": torch.__version__, "transformers": transformers.__version__,
                      "gpu": torch.cuda.get_device_name(0)}))
    for path in sys.argv[1:]:
        cfg, vis = tower(path)
        weights = torch.cuda.memory_allocated()
        for n in sizes(cfg.model_type):
            label, kw = inputs(cfg, n)
            torch.cuda.synchronize()
            base = torch.cuda.memory_allocated()
            torch.cuda.reset_peak_memory_stats()
            try:
                with torch.inference_mode():
                    out = vis(**kw)
                torch.cuda.synchronize()
                peak = torch.cuda.max_memory_allocated() - base
                err = ""
            except torch.OutOfMemoryError as e:
                peak, err = -1, "out of memory"
            out = None
            print(json.dumps({"config": os.path.basename(path), "model_type": cfg.model_type,
                              "weights_bytes": weights, "input": label, "n": n,
                              "input_bytes": base - weights, "peak_above_input_bytes": peak, "error": err}))
            del kw
            torch.cuda.empty_cache()
        del vis
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
