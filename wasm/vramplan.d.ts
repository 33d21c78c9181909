// Type declarations for the planner's WebAssembly bridge
// (wasm/planner/main_js.go) and its loader (web/static/bridge.js), and for
// the model-file reader (wasm/gguf/main_js.go) and its loader
// (web/static/reader.js).
//
// Every value crosses the boundary as a JSON string, encoded and decoded by
// the Go side's encoding/json with the planner's own types. A raw call that
// fails, or panics, returns an Error (with `field` set when an input field
// is at fault) instead of its result; the loader's functions throw it.

/** The plan document, schema "vramplan.plan/v1" (planner.Plan). */
export type PlanJSON = string;
/** The input a plan document carries (planner.Input). */
export type InputJSON = string;
/** A model shape (planner.Model), the planner's own model format. */
export type ModelJSON = string;
/** An engine's start-up log as vramplanGGUF.parseLog reads it (enginelog.Log), as JSON. */
export type LogJSON = string;
/** A calibration document (planner.Calibration). */
export type CalibrationJSON = string;
/** A calculator state (calc.State): model, gpu, batch, len, kv, block, prefill, cache, vision, spec, graphs, budget (bytes). */
export type StateJSON = string;
/** What the calculator shows for a state (calc.View). */
export type ViewJSON = string;
/** The "Which GPUs" table of a state (calc.GPUsView). */
export type GPUsViewJSON = string;
/** The calibration table: an array of calibration documents (planner.Calibration). */
export type CalibrationsJSON = string;
/** A URL query holding a state, e.g. "model=m&gpu=g&batch=8&len=4096". */
export type Query = string;

/** A failed call's error. */
export interface BridgeError extends Error {
  /** The input field or query key at fault, when one is. */
  field?: string;
}

/** The functions of globalThis.vramplan once the module has started. */
export interface Vramplan {
  /** The plan schema this build writes. */
  readonly version: string;
  /** Plans an input document: the plan, capacity and levers included, fitting or not. */
  plan(input: InputJSON): PlanJSON;
  /** The longest max_seq_len that fits for each batch 1..n, as [{batch, max_seq_len}]. */
  frontier(input: InputJSON, n: number): string;
  /** Validates a model-shape document and returns it re-encoded. */
  parseModel(model: ModelJSON): ModelJSON;
  /** The state a URL query holds (the server's parser, compiled in). */
  parseQuery(query: Query): StateJSON;
  /** The canonical query of a state. */
  encodeState(state: StateJSON): Query;
  /**
   * Plans a query's state against a model and calibration; the calculator's
   * hot path. Leave model and calibration out to reuse the last call's.
   */
  calculate(query: Query, model?: ModelJSON, calibration?: CalibrationJSON): ViewJSON;
  /**
   * The "Which GPUs" table of a query's state: the model at the state's
   * limits and engine on every calibration of the array (planner.GPUs),
   * filtered and sorted as its gsort, gmin and glabel say. Leave model and
   * calibrations out to reuse the last call's (calculate's model counts).
   */
  gpus(query: Query, model?: ModelJSON, calibrations?: CalibrationsJSON): GPUsViewJSON;
  /** The length, in tokens, at a position of the length slider (0..48). */
  lenAt(index: number): number;
  /** The length slider's position nearest to a length in tokens. */
  lenIndex(tokens: number): number;
  /**
   * Takes an engine's start-up log (llama.cpp, vLLM, SGLang) as the
   * model-file reader's parseLog read it, plans the configuration it
   * states for the model on the calibration and returns
   * what `vramplan check --log --json` compares: the log as read, one row
   * per charge (plan_bytes, log_bytes, residual_bytes, within_resolution),
   * the KV pool in tokens or blocks (pool: unit, plan, log, residual; for
   * pipeline stages, pool.stages: each stage's tokens, the plan's and the
   * log's binding stage), a later stage's rows against its own plan
   * (rank_rows: rank, stage, ranks, rows), the engine version, rank 0's
   * fraction and launch command (what the log contradicts of the
   * selection is the reader's checkConflicts, what the check assumed its
   * checkAssumptions, from this answer). The model and calibration that
   * calculate keeps are left alone.
   */
  checkLog(log: LogJSON, model: ModelJSON, calibration: CalibrationJSON): string;
}

/** Raw exports: each returns its result or a BridgeError. */
export type RawVramplan = {
  readonly version: string;
} & {
  [K in Exclude<keyof Vramplan, 'version'>]: (...args: Parameters<Vramplan[K]>) => ReturnType<Vramplan[K]> | BridgeError;
};

/**
 * The model-file reader, globalThis.vramplanGGUF, installed by gguf.wasm.
 * It reads Files the user picked in the page, through Blob slices (GGUF
 * headers in 4 MiB read-ahead blocks, safetensors headers only); nothing is
 * uploaded. Each function resolves to a model shape (planner.Model) or
 * rejects with an Error naming the file at fault; a panic is recovered into
 * a rejection and the module keeps working.
 */
export interface VramplanGGUF {
  /** The plan schema the planner this reader was built with writes. */
  readonly version: string;
  /**
   * Reads a GGUF model: one file, or every split of one
   * (`-00001-of-0000N.gguf`, in any order), with an optional vision
   * projector (mmproj) whose tower becomes the model's vision tower. The
   * model's id is the first file's name without `.gguf` and the split suffix.
   */
  read(files: Blob | ArrayLike<Blob>, mmproj?: Blob): Promise<ModelJSON>;
  /**
   * Reads a Hugging Face config.json (planner/hf.ParseConfig: weight bytes
   * by formula) and, when given, the safetensors headers (one
   * `.safetensors`, several, or a `model.safetensors.index.json` and the
   * shards it names) whose tensors make the weight bytes exact.
   * `options.weights_dtype` plans the weights in another format, as
   * `vramplan plan --weights-dtype` does (bf16, fp8, int4, nvfp4, mxfp4, or
   * a llama.cpp type: q8_0, q6_k, q4_k_m); the safetensors are then not read.
   */
  readConfig(config: Blob, safetensors?: ArrayLike<Blob>, options?: { weights_dtype?: string }): Promise<ModelJSON>;
  /**
   * Checks a calibration document's text as the server checks an upload
   * (calibrations/community.Check, the same Go code): synchronous, returns
   * the JSON of a CalibrationCheck, or an Error (returned, not thrown) when
   * text is not a string.
   */
  checkCalibration(text: string): string | Error;
  /**
   * Checks an engine observation document's text as the server checks one
   * (planner/enginelog/observation.Check): synchronous, returns the JSON of
   * an ObservationCheck, or an Error when text is not a string.
   */
  checkObservation(text: string): string | Error;
  /**
   * Builds the engine observation of a pasted start-up log for the model
   * and calibration the page has picked (their JSON), and checks it: the
   * JSON of an ObservationCheck whose document is what an upload sends. The
   * version defaults to the one the log states (llama.cpp's build line).
   * A log that contradicts the model, the calibration or the engine
   * selected (checkConflicts; `check` is checkLog's answer for the same
   * log) builds no observation: ok is false and the reasons say what.
   */
  observeLog(log: string, model: string, calibration: string,
    options?: { version?: string; day?: string; catalog?: string; engine?: string; check?: string }): string | Error;
  /**
   * What a pasted start-up log contradicts of the model, the calibration
   * and the engine selected, as a JSON list of sentences: its weights
   * against the model's (from `check`, the planner module's checkLog
   * answer), its charges against the GPU's memory, its engine against the
   * one selected. Empty when they agree as far as the log says.
   */
  checkConflicts(log: string, model: string, calibration: string, engine: string, check: string): string | Error;
  /**
   * What the check of a pasted start-up log (`check`, the planner module's
   * checkLog answer) assumed that the log does not state, as a JSON list of
   * { fact, planned, flag, decides, text }: those that decide the
   * comparison first, as `vramplan check` says them.
   */
  checkAssumptions(log: string, model: string, calibration: string, check: string): string | Error;
  /** Reads an engine's start-up log as checkLog takes it (the LogJSON), or returns an Error naming what is missing. */
  parseLog(log: string): string | Error;
}

/** checkObservation's and observeLog's answer. */
export interface ObservationCheck {
  /** Whether the server will take the document (it may still hold it). */
  ok: boolean;
  /** Every refusal, each naming its field. */
  reasons?: { field?: string; reason: string }[];
  /** The observation's id and digest, and its model shape's digest. */
  id?: string;
  digest?: string;
  model_digest?: string;
  /** The document as it will be sent and stored. */
  document?: string;
}

/** checkCalibration's answer. */
export interface CalibrationCheck {
  /** Whether the server will take the document (it may still hold it). */
  ok: boolean;
  /** Every refusal, each naming its field (empty for the whole document). */
  reasons?: { field?: string; reason: string }[];
  /** The upload's id, its content digest and its aggregation group. */
  id?: string;
  digest?: string;
  group?: string;
  /** The document as the server will store it. */
  calibration?: object;
}

declare global {
  // Installed by planner.wasm when it starts.
  var vramplan: RawVramplan;
  // Installed by gguf.wasm when it starts.
  var vramplanGGUF: VramplanGGUF;
}

/**
 * Loads dist/planner.wasm once, relative to bridge.js, and resolves to
 * functions that throw a BridgeError instead of returning it. It uses
 * globalThis.vramplanCompiled when the page's <head> started compiling the
 * module; `source` replaces the fetch, for tests.
 */
export declare function load(source?: () => Promise<Response | WebAssembly.Module | ArrayBuffer | Uint8Array>): Promise<Vramplan>;

/**
 * reader.js: fetches and starts dist/gguf.wasm once, relative to
 * reader.js, on first use (the page calls it when a file is picked), and
 * resolves to globalThis.vramplanGGUF. A failed load is retried on the next
 * call. `source` replaces the fetch, for tests.
 */
export declare function loadReader(source?: () => Promise<Response | ArrayBuffer | Uint8Array>): Promise<VramplanGGUF>;
