package hf

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
)

func readConfig(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata/configs", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestParams checks the parameter count of every fixture against the count
// its model card or safetensors index publishes (multi-token-prediction
// layers, which llama.cpp and vLLM do not load, excluded).
func TestParams(t *testing.T) {
	tests := []struct {
		config string
		params int64
		bytes  planner.Bytes
	}{
		{"meta-llama__Llama-3.1-8B-Instruct", 8030261248, 16060522496},
		{"meta-llama__Llama-3.2-1B-Instruct", 1235814400, 2471628800},
		{"Qwen__Qwen2.5-7B-Instruct", 7615616512, 15231233024},
		{"Qwen__Qwen2.5-0.5B-Instruct", 494032768, 988065536},
		{"Qwen__Qwen3-4B-Instruct-2507", 4022468096, 8044936192},
		{"Qwen__Qwen3-8B", 8190735360, 16381470720},
		{"Qwen__Qwen3-30B-A3B", 30532122624, 61064245248},
		{"mistralai__Mistral-7B-Instruct-v0.1", 7241732096, 14483464192},
		{"mistralai__Mixtral-8x7B-Instruct-v0.1", 46702792704, 93405585408},
		{"google__gemma-2-2b-it", 2614341888, 5228683776},
		{"google__gemma-2-9b-it", 9241705984, 18483411968},
		{"google__gemma-3-1b-it", 999885952, 1999771904},
		{"microsoft__Phi-3.5-mini-instruct", 3821079552, 7642159104},
		{"deepseek-ai__DeepSeek-V2-Lite-Chat", 15706484224, 31412968448},
		{"deepseek-ai__DeepSeek-V3", 671026419200, 673150582112},
		{"openai__gpt-oss-20b", 20914757184, 13761264768},
		{"openai__gpt-oss-120b", 116829156672, 65248815744},
		// Language models of the hybrid and multimodal fixtures (their
		// published totals, towers included, are TestVisionTowers').
		{"ibm-granite__granite-4.0-h-micro", 3191396096, 6382792192},
		{"ibm-granite__granite-4.0-micro", 3402836480, 6805672960},
		{"LiquidAI__LFM2-700M", 742489344, 1484978688},
		{"Qwen__Qwen3.5-9B", 8953803264, 17907606528},
		{"Qwen__Qwen2-VL-2B-Instruct", 1543714304, 3087428608},
		{"Qwen__Qwen3-VL-30B-A3B-Instruct", 30532122624, 61064245248},
		{"meta-llama__Llama-3.2-11B-Vision", 9775192080, 19550384160},
	}
	for _, tt := range tests {
		m, err := ParseConfig(readConfig(t, tt.config), Options{})
		if err != nil {
			t.Errorf("ParseConfig(%s): %v", tt.config, err)
			continue
		}
		if got := m.Params(); got != tt.params {
			t.Errorf("ParseConfig(%s).Params() = %d, want %d", tt.config, got, tt.params)
		}
		if m.Weights.Bytes != tt.bytes {
			t.Errorf("ParseConfig(%s).Weights.Bytes = %d, want %d", tt.config, m.Weights.Bytes, tt.bytes)
		}
	}
}

// planKV plans m for batch sequences of n tokens in KV format d.
func planKV(t *testing.T, m planner.Model, batch, n int, d planner.KVDtype) planner.KVPlan {
	t.Helper()
	cal, err := calibrations.Lookup("rtx5090-wsl2-cuda13.3")
	if err != nil {
		t.Fatal(err)
	}
	in := planner.Input{Model: m, Calibration: cal, Budget: 1 << 45,
		Limits: planner.Limits{MaxBatch: batch, MaxSeqLen: n, KVDtype: d}}
	p, err := planner.PlanMemory(in)
	if err != nil {
		t.Fatal(err)
	}
	return p.KV
}

// TestLlama31KV checks the example end to end through the planner:
// Llama-3.1-8B at bf16 holds exactly 4 GiB of KV for 8 sequences of 4096
// tokens, and each block-quantized format its scale bytes.
func TestLlama31KV(t *testing.T) {
	m, err := ParseConfig(readConfig(t, "meta-llama__Llama-3.1-8B-Instruct"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	const tokens = 8 * 4096
	tests := []struct {
		dtype planner.KVDtype
		want  planner.Bytes
	}{
		{planner.KVDtypeBF16, 4 << 30},
		{planner.KVDtypeF16, 4 << 30},
		{planner.KVDtypeFP8, 2 << 30},
		{planner.KVDtypeQ8_0, 32 * 8 * 2 * (128 / 32 * 34) * tokens}, // 34 B per 32 elements
		{planner.KVDtypeQ4_0, 32 * 8 * 2 * (128 / 32 * 18) * tokens}, // 18 B per 32 elements
		{planner.KVDtypeNVFP4, 32 * 8 * 2 * (128 / 16 * 9) * tokens}, // 9 B per 16 elements
	}
	for _, tt := range tests {
		if got := planKV(t, m, 8, 4096, tt.dtype).Bytes; got != tt.want {
			t.Errorf("PlanMemory(Llama-3.1-8B, 8×4096, %s).KV.Bytes = %d, want %d", tt.dtype, got, tt.want)
		}
	}
}

// TestKVKinds checks the other geometries through the planner: MLA keeps one
// latent per token, a sliding window its own pool sized by the window, and
// recurrent layers nothing per token.
func TestKVKinds(t *testing.T) {
	ds, _ := ParseConfig(readConfig(t, "deepseek-ai__DeepSeek-V2-Lite-Chat"), Options{})
	if got, want := planKV(t, ds, 4, 4096, planner.KVDtypeBF16).Bytes, planner.Bytes(27*(512+64)*2*4*4096); got != want {
		t.Errorf("DeepSeek-V2-Lite KV = %d, want %d (27 layers × 576-element latent × 2 B × 16384 tokens)", got, want)
	}
	oss, _ := ParseConfig(readConfig(t, "openai__gpt-oss-20b"), Options{})
	kv := planKV(t, oss, 8, 4096, planner.KVDtypeBF16)
	// 12 full layers × 8 heads × 64 × 2 (K, V) × 2 B per token; the 12 sliding
	// layers keep ⌈128/16⌉+1 = 9 blocks of 16 tokens per sequence, apart.
	if full := planner.Bytes(12 * 8 * 64 * 2 * 2 * 8 * 4096); kv.SWA == nil || kv.Bytes != full+kv.SWA.Bytes || kv.SWA.Bytes != 12*8*64*2*2*8*9*16 {
		t.Errorf("gpt-oss-20b KV = %+v, want %d full plus a %d-byte SWA pool", kv, full, 12*8*64*2*2*8*9*16)
	}
	next, _ := ParseConfig(readConfig(t, "Qwen__Qwen3-Next-80B-A3B-Instruct"), Options{})
	short, long := planKV(t, next, 4, 1024, planner.KVDtypeBF16), planKV(t, next, 4, 4096, planner.KVDtypeBF16)
	// Only the 12 full-attention layers grow with tokens: 12 × 2 heads × 256 × 2 × 2 B.
	if got, want := long.Bytes-short.Bytes, planner.Bytes(12*2*256*2*2*4*(4096-1024)); got != want {
		t.Errorf("Qwen3-Next KV growth 1024→4096 tokens = %d, want %d", got, want)
	}
}

// TestGeometry checks the per-layer KV geometry of each family.
func TestGeometry(t *testing.T) {
	tests := []struct {
		config string
		layer  int
		want   planner.Layer
	}{
		{"meta-llama__Llama-3.1-8B-Instruct", 31, planner.Layer{Kind: planner.LayerFull, KVHeads: 8, KeyDim: 128, ValueDim: 128}},
		{"mistralai__Mistral-7B-Instruct-v0.1", 0, planner.Layer{Kind: planner.LayerSliding, KVHeads: 8, KeyDim: 128, ValueDim: 128, Window: 4096}},
		{"mistralai__Mistral-7B-Instruct-v0.3", 0, planner.Layer{Kind: planner.LayerFull, KVHeads: 8, KeyDim: 128, ValueDim: 128}},
		{"google__gemma-2-9b-it", 0, planner.Layer{Kind: planner.LayerSliding, KVHeads: 8, KeyDim: 256, ValueDim: 256, Window: 4096}},
		{"google__gemma-2-9b-it", 1, planner.Layer{Kind: planner.LayerFull, KVHeads: 8, KeyDim: 256, ValueDim: 256}},
		{"google__gemma-3-4b-it", 4, planner.Layer{Kind: planner.LayerSliding, KVHeads: 4, KeyDim: 256, ValueDim: 256, Window: 1024}},
		{"google__gemma-3-4b-it", 5, planner.Layer{Kind: planner.LayerFull, KVHeads: 4, KeyDim: 256, ValueDim: 256}},
		{"google__gemma-3-1b-it", 0, planner.Layer{Kind: planner.LayerSliding, KVHeads: 1, KeyDim: 256, ValueDim: 256, Window: 512}},
		{"deepseek-ai__DeepSeek-V3", 60, planner.Layer{Kind: planner.LayerMLA, LatentDim: 576}},
		{"openai__gpt-oss-20b", 0, planner.Layer{Kind: planner.LayerSliding, KVHeads: 8, KeyDim: 64, ValueDim: 64, Window: 128}},
		{"openai__gpt-oss-20b", 1, planner.Layer{Kind: planner.LayerFull, KVHeads: 8, KeyDim: 64, ValueDim: 64}},
		{"Qwen__Qwen3-Next-80B-A3B-Instruct", 3, planner.Layer{Kind: planner.LayerFull, KVHeads: 2, KeyDim: 256, ValueDim: 256}},
		{"Qwen__Qwen3-Next-80B-A3B-Instruct", 0, planner.Layer{Kind: planner.LayerRecurrent, Recurrent: &planner.Recurrent{
			ConvChannels: 8192, ConvKernel: 4, Heads: 32, HeadDim: 128, StateDim: 128, StateBytes: 4}}},
		{"microsoft__Phi-3.5-mini-instruct", 0, planner.Layer{Kind: planner.LayerFull, KVHeads: 32, KeyDim: 96, ValueDim: 96}},
		// Mamba2: x, B and C through a 4-tap convolution; 64 heads of 64 × 128 f32 state.
		{"ibm-granite__granite-4.0-h-micro", 0, planner.Layer{Kind: planner.LayerRecurrent, Recurrent: &planner.Recurrent{
			ConvChannels: 4096 + 2*128, ConvKernel: 4, Heads: 64, HeadDim: 64, StateDim: 128, StateBytes: 4}}},
		{"ibm-granite__granite-4.0-h-micro", 5, planner.Layer{Kind: planner.LayerFull, KVHeads: 8, KeyDim: 64, ValueDim: 64}},
		{"ibm-granite__granite-4.0-micro", 39, planner.Layer{Kind: planner.LayerFull, KVHeads: 8, KeyDim: 64, ValueDim: 64}},
		// LFM2's short convolution keeps kernel−1 columns of the hidden width and no other state.
		{"LiquidAI__LFM2-700M", 0, planner.Layer{Kind: planner.LayerRecurrent, Recurrent: &planner.Recurrent{ConvChannels: 1536, ConvKernel: 3}}},
		{"LiquidAI__LFM2-700M", 2, planner.Layer{Kind: planner.LayerFull, KVHeads: 8, KeyDim: 64, ValueDim: 64}},
		{"Qwen__Qwen3.5-9B", 0, planner.Layer{Kind: planner.LayerRecurrent, Recurrent: &planner.Recurrent{
			ConvChannels: 8192, ConvKernel: 4, Heads: 32, HeadDim: 128, StateDim: 128, StateBytes: 4}}},
		{"Qwen__Qwen3.5-9B", 31, planner.Layer{Kind: planner.LayerFull, KVHeads: 4, KeyDim: 256, ValueDim: 256}},
		{"Qwen__Qwen2-VL-2B-Instruct", 27, planner.Layer{Kind: planner.LayerFull, KVHeads: 2, KeyDim: 128, ValueDim: 128}},
		// A cross-attention layer is charged as vLLM V0's cache engine charges it:
		// K and V per token, like the self-attention layers.
		{"meta-llama__Llama-3.2-11B-Vision", 3, planner.Layer{Kind: planner.LayerFull, KVHeads: 8, KeyDim: 128, ValueDim: 128}},
	}
	for _, tt := range tests {
		m, err := ParseConfig(readConfig(t, tt.config), Options{})
		if err != nil {
			t.Errorf("ParseConfig(%s): %v", tt.config, err)
			continue
		}
		got := layerAt(m, tt.layer)
		if !equalLayer(got, tt.want) {
			t.Errorf("ParseConfig(%s) layer %d = %+v, want %+v", tt.config, tt.layer, got, tt.want)
		}
	}
}

func layerAt(m planner.Model, i int) planner.Layer {
	for _, g := range m.Layers {
		if i < g.Count {
			return g.Layer
		}
		i -= g.Count
	}
	return planner.Layer{}
}

func equalLayer(a, b planner.Layer) bool {
	if (a.Recurrent == nil) != (b.Recurrent == nil) || (a.Recurrent != nil && *a.Recurrent != *b.Recurrent) {
		return false
	}
	a.Recurrent, b.Recurrent = nil, nil
	return a == b
}

// TestQuantized checks bytes per weight from quantization_config and the override.
func TestQuantized(t *testing.T) {
	tests := []struct {
		config, dtype string
		bytes         planner.Bytes
	}{
		// AWQ: int4 qweight, fp16 scales and int4 zeros per 128 inputs; embeddings and lm_head fp16.
		{"hugging-quants__Meta-Llama-3.1-8B-Instruct-AWQ-INT4", "", 5727854592},
		// FP8 with one f32 scale per 128×128 tile; tied bf16 embedding.
		{"Qwen__Qwen3-4B-Instruct-2507-FP8", "", 4412507392},
		{"meta-llama__Llama-3.1-8B-Instruct", "f16", 16060522496},
		// llama.cpp Q8_0: every matrix q8_0, norms f32 (the file's 256-byte rope_freqs is not a checkpoint tensor).
		{"meta-llama__Llama-3.1-8B-Instruct", "q8_0", 8532934656},
	}
	for _, tt := range tests {
		m, err := ParseConfig(readConfig(t, tt.config), Options{WeightsDtype: tt.dtype})
		if err != nil {
			t.Errorf("ParseConfig(%s, %q): %v", tt.config, tt.dtype, err)
			continue
		}
		if m.Weights.Bytes != tt.bytes {
			t.Errorf("ParseConfig(%s, %q).Weights.Bytes = %d, want %d", tt.config, tt.dtype, m.Weights.Bytes, tt.bytes)
		}
	}
}

// TestBadConfig checks that bad input gets an error naming the field.
func TestBadConfig(t *testing.T) {
	tests := []struct{ config, want string }{
		{`{"model_type":"llama","hidden_size":-4096}`, "hidden_size: -4096 is negative"},
		{`{"model_type":"llama","hidden_size":1e30}`, "hidden_size: 1e+30 is out of range"},
		{`{"model_type":"llama","hidden_size":NaN}`, "config.json: invalid character"},
		{`{"model_type":"llama","hidden_size":"big"}`, `hidden_size: "big" is not a number`},
		{`{"model_type":"frobnicator","hidden_size":8}`, `model_type "frobnicator" has no template`},
		{`{"model_type":"frobnicator","hidden_size":8}`, `num_hidden_layers: missing`},
		{`{"model_type":"llama","hidden_size":8,"num_hidden_layers":99999999,"num_attention_heads":1,"vocab_size":8,"intermediate_size":8}`, "num_hidden_layers: 99999999 is more than"},
		{`[1,2,3]`, "config.json:"},
		{`null`, "not a JSON object"},
		{`{"model_type":"deepseek_v3","hidden_size":8,"num_hidden_layers":1,"num_attention_heads":1,"vocab_size":8,"intermediate_size":8}`, "kv_lora_rank: missing"},
		{tinyDecoder("granitemoehybrid", `"shared_intermediate_size":8`), "layer_types: missing"},
		{tinyDecoder("granitemoehybrid", `"shared_intermediate_size":8,"layer_types":["mamba"]`), "mamba_n_heads: missing"},
		{tinyDecoder("granitemoehybrid", `"shared_intermediate_size":8,"layer_types":["rwkv"]`), `unknown layer type "rwkv"`},
		{tinyDecoder("lfm2", `"conv_L_cache":3,"full_attn_idxs":[7]`), "full_attn_idxs: layer 7 of 1"},
		{tinyDecoder("mllama_text_model", `"cross_attention_layers":[1]`), "cross_attention_layers: layer 1 of 1"},
		{`{"model_type":"qwen2_vl",` + tinyDecoder("", `"vision_config":{"depth":99999999,"embed_dim":8,"hidden_size":8}`)[1:], "depth: 99999999 is out of range"},
		{`{"model_type":"mllama","text_config":` + tinyDecoder("mllama_text_model", "") +
			`,"vision_config":{"hidden_size":8,"intermediate_size":8,"num_hidden_layers":1,"num_global_layers":1,"image_size":1000000,"patch_size":14,"max_num_tiles":4,"vision_output_dim":8}}`,
			"image_size: 1000000 is out of range"},
	}
	for _, tt := range tests {
		_, err := ParseConfig([]byte(tt.config), Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseConfig(%s) = %v, want an error containing %q", tt.config, err, tt.want)
		}
	}
}

// tinyDecoder is a one-layer config of model_type mt (none when mt is "")
// with the common fields and extra ones.
func tinyDecoder(mt, extra string) string {
	cfg := `{"hidden_size":8,"num_hidden_layers":1,"num_attention_heads":1,"vocab_size":8,"intermediate_size":8`
	if mt != "" {
		cfg += `,"model_type":"` + mt + `"`
	}
	if extra != "" {
		cfg += "," + extra
	}
	return cfg + "}"
}

// TestGeneric reads an unknown model_type that has the fields a decoder needs.
func TestGeneric(t *testing.T) {
	cfg := `{"model_type":"newthing","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,
		"num_key_value_heads":2,"vocab_size":100,"intermediate_size":128,"torch_dtype":"float16"}`
	m, err := ParseConfig([]byte(cfg), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// embed 6400 + lm_head 6400 + final norm 64 + 2 × (q 4096 + k,v 2×2048 + o 4096 + mlp 24576 + norms 128)
	if got, want := m.Params(), int64(6400+6400+64+2*(4096+4096+4096+24576+128)); got != want {
		t.Errorf("ParseConfig(generic).Params() = %d, want %d", got, want)
	}
}

// TestFixtureFacts pins the config.json fields that were once reproduced
// wrongly, against the upstream files: gemma-2-2b-it's checkpoint is
// bfloat16 (its safetensors index totals 5,228,683,776 bytes, two per
// parameter), and Qwen3-Coder-30B-A3B-Instruct's dense intermediate_size
// and max_window_layers differ from Qwen3-30B-A3B's.
func TestFixtureFacts(t *testing.T) {
	for _, tt := range []struct {
		file, key string
		want      any
	}{
		{"google__gemma-2-2b-it", "torch_dtype", "bfloat16"},
		{"Qwen__Qwen3-Coder-30B-A3B-Instruct", "intermediate_size", 5472.0},
		{"Qwen__Qwen3-Coder-30B-A3B-Instruct", "max_window_layers", 28.0},
		{"Qwen__Qwen3-Coder-30B-A3B-Instruct", "moe_intermediate_size", 768.0},
	} {
		data, err := os.ReadFile("testdata/configs/" + tt.file + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var cfg map[string]any
		if err := json.Unmarshal(data, &cfg); err != nil {
			t.Fatal(err)
		}
		if cfg[tt.key] != tt.want {
			t.Errorf("%s: %s = %v, want %v (upstream)", tt.file, tt.key, cfg[tt.key], tt.want)
		}
	}
}

// TestClassLayers: a class that only some layers hold alike says which
// (DeepSeek's routed experts from first_k_dense_replace on); a class every
// layer holds alike, or holds unalike (DeepSeek's ffn: layer 0's dense MLP,
// the shared experts after), says none.
func TestClassLayers(t *testing.T) {
	for _, tc := range []struct {
		config, class     string
		from, until, step int
	}{
		{"deepseek-ai__DeepSeek-V2-Lite-Chat", "experts", 1, 27, 1},
		{"deepseek-ai__DeepSeek-V2-Lite-Chat", "ffn", 0, 0, 0},
		{"deepseek-ai__DeepSeek-V2-Lite-Chat", "attention", 0, 0, 0},
		{"deepseek-ai__DeepSeek-V3", "experts", 3, 61, 1},
		{"Qwen__Qwen3-30B-A3B", "experts", 0, 0, 0},
		{"meta-llama__Llama-3.1-8B-Instruct", "ffn", 0, 0, 0},
	} {
		data, err := os.ReadFile("testdata/configs/" + tc.config + ".json")
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseConfig(data, Options{})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(m.Weights.Classes, func(c planner.WeightClass) bool { return c.Class == tc.class })
		if i < 0 {
			t.Fatalf("%s: no %s class", tc.config, tc.class)
		}
		c := m.Weights.Classes[i]
		if c.From != tc.from || c.Until != tc.until || c.Step != tc.step {
			t.Errorf("%s %s: layers from %d until %d by %d, want %d, %d, %d", tc.config, tc.class, c.From, c.Until, c.Step, tc.from, tc.until, tc.step)
		}
	}
}
