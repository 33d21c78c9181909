#!/usr/bin/env python3
"""Write GGUF files with real model shapes and zero weights, as sparse files.

Each model is written with llama.cpp's own gguf-py (GGUFWriter): the header,
the metadata and the tensor infos are written normally; the tensor data is
left as a hole (the file is truncated to its full size), so a 30 GB model
takes no disk and loads as zeros. The tokenizer is "no_vocab" with
{arch}.vocab_size, which llama.cpp reads as that many dummy tokens
(src/llama-vocab.cpp, llama_vocab::impl::load).

usage: mkgguf.py OUTDIR   (gguf-py must be importable)
"""
import os
import sys

import numpy as np
import gguf

Q8 = gguf.GGMLQuantizationType.Q8_0
F32 = gguf.GGMLQuantizationType.F32


def nbytes(ne, t):
    n = 1
    for x in ne[1:]:
        n *= x
    if t == Q8:
        return ne[0] // 32 * 34 * n
    return ne[0] * 4 * n


def write(path, arch, meta, tensors):
    w = gguf.GGUFWriter(path, arch)
    w.add_string("general.name", os.path.basename(path))
    w.add_uint32("general.file_type", 7)  # MOSTLY_Q8_0
    w.add_string("tokenizer.ggml.model", "no_vocab")
    for k, v in meta.items():
        key = k.replace("{arch}", arch)
        if isinstance(v, float):
            w.add_float32(key, v)
        else:
            w.add_uint32(key, v)
    data = 0
    for name, ne, t in tensors:
        n = nbytes(ne, t)
        w.add_tensor_info(name, list(reversed(ne)), np.dtype(np.float32), n, raw_dtype=t)
        data += gguf.GGUFWriter.ggml_pad(n, w.data_alignment)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    f = w.fout[0]
    start = gguf.GGUFWriter.ggml_pad(f.tell(), w.data_alignment)
    w.close()
    os.truncate(path, start + data)
    print(f"{path}: {len(tensors)} tensors, {data} bytes of tensor data")


def attn(i, e, nq, nkv, hd, norms):
    t = [(f"blk.{i}.attn_norm.weight", [e], F32),
         (f"blk.{i}.attn_q.weight", [e, nq * hd], Q8),
         (f"blk.{i}.attn_k.weight", [e, nkv * hd], Q8),
         (f"blk.{i}.attn_v.weight", [e, nkv * hd], Q8),
         (f"blk.{i}.attn_output.weight", [nq * hd, e], Q8)]
    if norms:
        t += [(f"blk.{i}.attn_q_norm.weight", [hd], F32), (f"blk.{i}.attn_k_norm.weight", [hd], F32)]
    return t


def ffn(i, e, f):
    return [(f"blk.{i}.ffn_norm.weight", [e], F32),
            (f"blk.{i}.ffn_gate.weight", [e, f], Q8),
            (f"blk.{i}.ffn_up.weight", [e, f], Q8),
            (f"blk.{i}.ffn_down.weight", [f, e], Q8)]


def llama(out):
    """Llama-3.1-8B's shape: 32 layers, GQA 32/8, untied output."""
    e, L, f, v = 4096, 32, 14336, 128256
    t = [("token_embd.weight", [e, v], Q8), ("output_norm.weight", [e], F32), ("output.weight", [e, v], Q8)]
    for i in range(L):
        t += attn(i, e, 32, 8, 128, False) + ffn(i, e, f)
    write(os.path.join(out, "dense-llama3-8b.gguf"), "llama", {
        "{arch}.context_length": 131072, "{arch}.embedding_length": e, "{arch}.block_count": L,
        "{arch}.feed_forward_length": f, "{arch}.attention.head_count": 32, "{arch}.attention.head_count_kv": 8,
        "{arch}.rope.dimension_count": 128, "{arch}.rope.freq_base": 500000.0,
        "{arch}.attention.layer_norm_rms_epsilon": 1e-5, "{arch}.vocab_size": v}, t)


def gemma3(out):
    """gemma-3-4b's text shape: 34 layers, 5 sliding (window 1024) to 1 global, tied output."""
    e, L, f, v = 2560, 34, 10240, 262144
    t = [("token_embd.weight", [e, v], Q8), ("output_norm.weight", [e], F32)]
    for i in range(L):
        t += attn(i, e, 8, 4, 256, True) + ffn(i, e, f)
        t += [(f"blk.{i}.post_attention_norm.weight", [e], F32), (f"blk.{i}.post_ffw_norm.weight", [e], F32)]
    write(os.path.join(out, "swa-gemma3-4b.gguf"), "gemma3", {
        "{arch}.context_length": 131072, "{arch}.embedding_length": e, "{arch}.block_count": L,
        "{arch}.feed_forward_length": f, "{arch}.attention.head_count": 8, "{arch}.attention.head_count_kv": 4,
        "{arch}.attention.key_length": 256, "{arch}.attention.value_length": 256,
        "{arch}.attention.sliding_window": 1024, "{arch}.rope.freq_base": 1000000.0,
        "{arch}.attention.layer_norm_rms_epsilon": 1e-6, "{arch}.vocab_size": v}, t)


def qwen3moe(out):
    """Qwen3-30B-A3B's shape: 48 layers, GQA 32/4, 128 experts, 8 used, expert FFN 768."""
    e, L, x, fe, v = 2048, 48, 128, 768, 151936
    t = [("token_embd.weight", [e, v], Q8), ("output_norm.weight", [e], F32), ("output.weight", [e, v], Q8)]
    for i in range(L):
        t += attn(i, e, 32, 4, 128, True)
        t += [(f"blk.{i}.ffn_norm.weight", [e], F32),
              (f"blk.{i}.ffn_gate_inp.weight", [e, x], F32),
              (f"blk.{i}.ffn_gate_exps.weight", [e, fe, x], Q8),
              (f"blk.{i}.ffn_up_exps.weight", [e, fe, x], Q8),
              (f"blk.{i}.ffn_down_exps.weight", [fe, e, x], Q8)]
    write(os.path.join(out, "moe-qwen3-30b-a3b.gguf"), "qwen3moe", {
        "{arch}.context_length": 40960, "{arch}.embedding_length": e, "{arch}.block_count": L,
        "{arch}.feed_forward_length": 6144, "{arch}.expert_feed_forward_length": fe,
        "{arch}.expert_count": x, "{arch}.expert_used_count": 8,
        "{arch}.attention.head_count": 32, "{arch}.attention.head_count_kv": 4,
        "{arch}.attention.key_length": 128, "{arch}.attention.value_length": 128,
        "{arch}.rope.freq_base": 1000000.0, "{arch}.attention.layer_norm_rms_epsilon": 1e-6,
        "{arch}.vocab_size": v}, t)


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for mk in (llama, gemma3, qwen3moe):
        mk(out)
