// files.js reads the local model files picked or dropped on the
// calculator, in the page: nothing is uploaded. A GGUF or a config.json
// (with its safetensors) goes to the model-file reader's WebAssembly,
// loaded on the first pick; a planner model-shape .json to the planner's.

import { loadReader } from './reader.js';
import { group } from './bind.js';

const lower = (f) => f.name.toLowerCase();
const isGGUF = (f) => lower(f).endsWith('.gguf');
export const isMmproj = (f) => isGGUF(f) && lower(f).includes('mmproj');
const isTensors = (f) => lower(f).endsWith('.safetensors') || lower(f).endsWith('.safetensors.index.json');

// A FileProblem is what is wrong with the files picked, in a person's
// words; other errors are a reader's, which plainWords puts in words.
export class FileProblem extends Error {}

/**
 * readModel reads what was picked: GGUF files (the splits of one model and
 * an optional mmproj), a config.json with optional safetensors files (one,
 * or an index and its shards), or a planner model-shape .json. It resolves
 * to the shape and the files it did not use, with why: a GGUF holds the
 * whole shape, so a config.json or safetensors picked beside it is not read.
 */
export async function readModel(files, dtype, api) {
  const others = (used, why) => ({ files: files.filter((f) => !used.includes(f)), why });
  if (files.some(isGGUF)) {
    const mmproj = files.filter(isMmproj);
    const parts = files.filter((f) => isGGUF(f) && !isMmproj(f));
    if (mmproj.length > 1 || !parts.length) throw new FileProblem('pick one GGUF model (or all its splits) and at most one mmproj file');
    const m = JSON.parse(await (await loadReader()).read(parts, mmproj[0]));
    return [m, others([...parts, ...mmproj], files.some((f) => lower(f).endsWith('.json') || isTensors(f))
      ? "the GGUF holds the whole shape, with its tensors' exact sizes; pick the config.json alone to plan from it instead"
      : 'not a model file')];
  }
  const tensors = files.filter(isTensors);
  const docs = files.filter((f) => lower(f).endsWith('.json') && !isTensors(f));
  if (docs.length !== 1) throw new FileProblem(tensors.length ? 'pick the config.json together with the safetensors files' : 'pick one .json file');
  let doc;
  try {
    doc = JSON.parse(await docs[0].text());
  } catch {
    throw new FileProblem('it is not valid JSON');
  }
  if (doc?.layers) return [JSON.parse(api.parseModel(JSON.stringify(doc))), others(docs, 'a model-shape file carries its own weights')];
  if (doc?.model_type || doc?.architectures) {
    const m = JSON.parse(await (await loadReader()).readConfig(docs[0], tensors.length ? tensors : undefined,
      dtype ? { weights_dtype: dtype } : undefined));
    return [m, { ...others([...docs, ...tensors], 'not a model file'), config: true }];
  }
  throw new FileProblem(`it is JSON, but not a model's config.json (it names no model_type or architectures) or a vramplan model-shape file (it has no layers)`);
}

/** plainWords says what is wrong with the files, from a reader's message. */
export function plainWords(files, err, detail) {
  if (err instanceof FileProblem) return detail;
  if (/\bpick\b|not picked|split/i.test(detail)) return detail.replace(/^[^:]*\.(gguf|json): /i, '');
  if (files.some(isGGUF)) return 'it is not a GGUF model file this planner can read (it is cut short, damaged, or not GGUF)';
  return 'it is not a config.json or model-shape file this planner can read';
}

/** summary describes a model shape in a few words. */
export function summary(m) {
  const layers = m.layers.reduce((n, l) => n + l.count, 0);
  const mib = Math.floor(m.weights.bytes / 2 ** 20);
  const kind = m.weights.dtype ? `${m.weights.dtype}, ${m.weights.source}` : m.weights.source;
  return `${m.arch || m.id}, ${layers} layers, ${group(mib)} MiB of weights (${kind})${m.vision ? ', a vision tower' : ''}`;
}

/** ignoredNote says which picked files the plan does not use, and why. */
export function ignoredNote(ignored) {
  return ignored.files.length ? ` Not used: ${ignored.files.map((f) => f.name).join(', ')} (${ignored.why}).` : '';
}
