// gguf.mjs writes a GGUF v3 file shaped like a real model: the full
// metadata, tokenizer arrays included, and every tensor's header, with the
// tensor data left as a hole (a sparse file), so a multi-gigabyte model
// costs a few megabytes of disk; and a small vision projector (mmproj).
// Used by the browser tests, the reader's Node test and the benchmarks.

import { openSync, writeSync, ftruncateSync, closeSync } from 'node:fs';

const T = { u32: 4, i32: 5, f32: 6, bool: 7, str: 8, arr: 9, u64: 10 };
const Q8_0 = 8, F32 = 0;

class Writer {
  constructor() { this.chunks = []; this.size = 0; }
  push(b) { this.chunks.push(b); this.size += b.length; }
  u32(v) { const b = Buffer.alloc(4); b.writeUInt32LE(v); this.push(b); }
  u64(v) { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); this.push(b); }
  f32(v) { const b = Buffer.alloc(4); b.writeFloatLE(v); this.push(b); }
  str(s) { const b = Buffer.from(s, 'utf8'); this.u64(b.length); this.push(b); }
  kv(key, type, value) {
    this.str(key); this.u32(type);
    if (type === T.arr) {
      this.u32(value.type); this.u64(value.items.length);
      for (const x of value.items) value.type === T.str ? this.str(x) : this.u32(x);
    } else if (type === T.str) this.str(value);
    else if (type === T.f32) this.f32(value);
    else if (type === T.u64) this.u64(value);
    else this.u32(value);
  }
}

/** llama3_8b is the shape of Meta-Llama-3-8B at Q8_0. */
export const llama3_8b = { layers: 32, hidden: 4096, ffn: 14336, heads: 32, kvHeads: 8, vocab: 128256, merges: 280147, context: 8192 };

function tensors(s) {
  const kvDim = s.hidden / s.heads * s.kvHeads;
  const out = [['token_embd.weight', [s.hidden, s.vocab], Q8_0]];
  for (let i = 0; i < s.layers; i++) {
    const p = `blk.${i}.`;
    out.push([p + 'attn_norm.weight', [s.hidden], F32], [p + 'attn_q.weight', [s.hidden, s.hidden], Q8_0],
      [p + 'attn_k.weight', [s.hidden, kvDim], Q8_0], [p + 'attn_v.weight', [s.hidden, kvDim], Q8_0],
      [p + 'attn_output.weight', [s.hidden, s.hidden], Q8_0], [p + 'ffn_norm.weight', [s.hidden], F32],
      [p + 'ffn_gate.weight', [s.hidden, s.ffn], Q8_0], [p + 'ffn_up.weight', [s.hidden, s.ffn], Q8_0],
      [p + 'ffn_down.weight', [s.ffn, s.hidden], Q8_0]);
  }
  out.push(['output_norm.weight', [s.hidden], F32], ['output.weight', [s.hidden, s.vocab], Q8_0]);
  return out;
}

const bytesOf = (dims, type) => {
  const n = dims.reduce((a, b) => a * b, 1);
  return type === Q8_0 ? n / 32 * 34 : n * 4;
};

/** writeGGUF writes a sparse GGUF of shape s to path and returns its size in bytes. */
export function writeGGUF(path, s = llama3_8b) {
  return write(path, [
    ['general.architecture', T.str, 'llama'],
    ['general.name', T.str, 'synthetic llama-3-8b'],
    ['general.file_type', T.u32, 7],
    ['llama.block_count', T.u32, s.layers],
    ['llama.context_length', T.u32, s.context],
    ['llama.embedding_length', T.u32, s.hidden],
    ['llama.feed_forward_length', T.u32, s.ffn],
    ['llama.attention.head_count', T.u32, s.heads],
    ['llama.attention.head_count_kv', T.u32, s.kvHeads],
    ['llama.rope.freq_base', T.f32, 500000],
    ['llama.attention.layer_norm_rms_epsilon', T.f32, 1e-5],
    ['tokenizer.ggml.model', T.str, 'gpt2'],
    ['tokenizer.ggml.tokens', T.arr, { type: T.str, items: Array.from({ length: s.vocab }, (_, i) => `tok${i}`) }],
    ['tokenizer.ggml.merges', T.arr, { type: T.str, items: Array.from({ length: s.merges }, (_, i) => `m${i % 977} n${i}`) }],
  ], tensors(s));
}

/**
 * writeMmproj writes a small sparse vision projector (a clip GGUF, as
 * llama.cpp's mmproj files are) shaped like gemma-3's: 896 px images in
 * 14 px patches, pooled to 256 tokens. It returns its size and tensor bytes.
 */
export function writeMmproj(path) {
  const w = 1152;
  const ts = [['v.patch_embd.weight', [14, 14, 3, w], F32], ['v.position_embd.weight', [w, 4096], F32],
    ['v.blk.0.attn_q.weight', [w, w], Q8_0], ['v.blk.0.ln1.weight', [w], F32], ['mm.input_projection.weight', [w, 2560], Q8_0]];
  const out = write(path, [
    ['general.architecture', T.str, 'clip'],
    ['clip.projector_type', T.str, 'gemma3'],
    ['clip.vision.image_size', T.u32, 896],
    ['clip.vision.patch_size', T.u32, 14],
  ], ts);
  return { ...out, tensorBytes: ts.reduce((a, [, d, t]) => a + bytesOf(d, t), 0) };
}

// write writes a GGUF v3 header of kvs and tensors, tensor data a hole.
function write(path, kvs, ts) {
  const w = new Writer();
  w.push(Buffer.from('GGUF')); w.u32(3); w.u64(ts.length); w.u64(kvs.length);
  for (const kv of kvs) w.kv(...kv);
  let offset = 0;
  for (const [name, dims, type] of ts) {
    w.str(name); w.u32(dims.length);
    for (const d of dims) w.u64(d);
    w.u32(type); w.u64(offset);
    offset += Math.ceil(bytesOf(dims, type) / 32) * 32;
  }
  const header = Buffer.concat(w.chunks);
  const dataStart = Math.ceil(header.length / 32) * 32;
  const fd = openSync(path, 'w');
  writeSync(fd, header);
  ftruncateSync(fd, dataStart + offset);
  closeSync(fd);
  return { size: dataStart + offset, header: header.length };
}
