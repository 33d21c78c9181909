// Type declarations for the planner's WebAssembly bridge
// (wasm/planner/main_js.go) and its loader (web/static/bridge.js).
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
/** A calibration document (planner.Calibration). */
export type CalibrationJSON = string;
/** A calculator state (calc.State): model, gpu, batch, len, kv, block, prefill, cache, vision, spec, graphs, budget (bytes). */
export type StateJSON = string;
/** What the calculator shows for a state (calc.View). */
export type ViewJSON = string;
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
  /** The length, in tokens, at a position of the length slider (0..48). */
  lenAt(index: number): number;
  /** The length slider's position nearest to a length in tokens. */
  lenIndex(tokens: number): number;
}

/** Raw exports: each returns its result or a BridgeError. */
export type RawVramplan = {
  readonly version: string;
} & {
  [K in Exclude<keyof Vramplan, 'version'>]: (...args: Parameters<Vramplan[K]>) => ReturnType<Vramplan[K]> | BridgeError;
};

declare global {
  // Installed by planner.wasm when it starts.
  var vramplan: RawVramplan;
}

/**
 * Loads dist/planner.wasm once, relative to bridge.js, and resolves to
 * functions that throw a BridgeError instead of returning it. It uses
 * globalThis.vramplanCompiled when the page's <head> started compiling the
 * module; `source` replaces the fetch, for tests.
 */
export declare function load(source?: () => Promise<Response | WebAssembly.Module | ArrayBuffer | Uint8Array>): Promise<Vramplan>;
