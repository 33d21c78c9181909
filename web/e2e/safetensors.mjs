// safetensors.mjs writes sparse safetensors checkpoints for the tests: the
// header of every tensor a dense Llama-style config.json names, as its BF16
// checkpoint names them, with the data section left as a hole.

import { openSync, writeSync, ftruncateSync, closeSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** llamaTensors lists [name, shape] for a dense llama config.json. */
export function llamaTensors(c) {
  const h = c.hidden_size, kv = c.num_key_value_heads * (c.head_dim ?? h / c.num_attention_heads), ffn = c.intermediate_size;
  const out = [['model.embed_tokens.weight', [c.vocab_size, h]]];
  for (let i = 0; i < c.num_hidden_layers; i++) {
    const p = `model.layers.${i}.`;
    out.push([p + 'input_layernorm.weight', [h]], [p + 'self_attn.q_proj.weight', [h, h]],
      [p + 'self_attn.k_proj.weight', [kv, h]], [p + 'self_attn.v_proj.weight', [kv, h]],
      [p + 'self_attn.o_proj.weight', [h, h]], [p + 'post_attention_layernorm.weight', [h]],
      [p + 'mlp.gate_proj.weight', [ffn, h]], [p + 'mlp.up_proj.weight', [ffn, h]], [p + 'mlp.down_proj.weight', [h, ffn]]);
  }
  out.push(['model.norm.weight', [h]]);
  if (!c.tie_word_embeddings) out.push(['lm_head.weight', [c.vocab_size, h]]);
  return out;
}

/** writeSafetensors writes BF16 tensors to path, sparse, and returns their bytes. */
export function writeSafetensors(path, tensors) {
  const header = { __metadata__: { format: 'pt' } };
  let off = 0;
  for (const [name, shape] of tensors) {
    const n = 2 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'BF16', shape, data_offsets: [off, off + n] };
    off += n;
  }
  const h = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(h.length));
  const fd = openSync(path, 'w');
  writeSync(fd, len); writeSync(fd, h);
  ftruncateSync(fd, 8 + h.length + off);
  closeSync(fd);
  return off;
}

/** writeSharded writes tensors in n shards and their index into dir; it returns the shard names. */
export function writeSharded(dir, tensors, n) {
  const per = Math.ceil(tensors.length / n);
  const names = [];
  const weightMap = {};
  for (let i = 0; i < n; i++) {
    const name = `model-${String(i + 1).padStart(5, '0')}-of-${String(n).padStart(5, '0')}.safetensors`;
    const part = tensors.slice(i * per, (i + 1) * per);
    writeSafetensors(join(dir, name), part);
    for (const [t] of part) weightMap[t] = name;
    names.push(name);
  }
  writeFileSync(join(dir, 'model.safetensors.index.json'), JSON.stringify({ metadata: {}, weight_map: weightMap }));
  return names;
}
