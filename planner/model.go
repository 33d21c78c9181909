package planner

// LayerKind classifies a decoder layer by what it keeps per sequence.
type LayerKind string

// Layer kinds.
const (
	LayerFull      LayerKind = "full"      // full attention: K and V for every token
	LayerSliding   LayerKind = "sliding"   // sliding-window attention: K and V for the trailing window
	LayerMLA       LayerKind = "mla"       // multi-head latent attention: one latent per token
	LayerRecurrent LayerKind = "recurrent" // SSM or linear attention: fixed state per sequence
	LayerNone      LayerKind = "none"      // keeps nothing per sequence
)

// Layer is the per-sequence memory geometry of one decoder layer.
type Layer struct {
	Kind LayerKind `json:"kind"`
	// KVHeads is the number of key/value heads (full and sliding layers).
	KVHeads int `json:"kv_heads,omitempty"`
	// KeyDim and ValueDim are the per-head dimensions of K and V, in elements.
	KeyDim   int `json:"key_dim,omitempty"`
	ValueDim int `json:"value_dim,omitempty"`
	// Window is the attention window of a sliding layer, in tokens.
	Window int `json:"window,omitempty"`
	// LatentDim is the per-token latent of an MLA layer, kv_lora_rank plus
	// the rope dimension, in elements.
	LatentDim int `json:"latent_dim,omitempty"`
	// Recurrent is the state of a recurrent layer.
	Recurrent *Recurrent `json:"recurrent,omitempty"`
}

// Recurrent is the per-sequence state of an SSM or linear-attention layer
// (seed A1.7: n_ssm × max_batch × (conv_ch·(k−1)·4 + heads·hd·state·dtype)).
type Recurrent struct {
	ConvChannels int `json:"conv_channels"` // channels of the causal convolution
	ConvKernel   int `json:"conv_kernel"`   // its width; the state keeps kernel−1 columns
	Heads        int `json:"heads"`         // state heads
	HeadDim      int `json:"head_dim"`      // elements per head
	StateDim     int `json:"state_dim"`     // state size per head element
	StateBytes   int `json:"state_bytes"`   // bytes per state element (4 for f32)
}

// LayerGroup is Count consecutive layers with the same geometry.
type LayerGroup struct {
	Count int `json:"count"`
	Layer
}

// MLA holds the dimensions of multi-head latent attention that size its
// scratch buffers (seed A1.7: max_tokens × {kv_a, latent, k_rope, kv_b} × 2 B).
type MLA struct {
	KVLoraRank int `json:"kv_lora_rank"`
	RopeDim    int `json:"rope_dim"`
	NopeDim    int `json:"nope_dim"`
	ValueDim   int `json:"value_dim"`
}

// MoE holds the mixture-of-experts dimensions that size the MoE scratch.
type MoE struct {
	Experts          int `json:"experts"`
	ExpertsUsed      int `json:"experts_used"`
	IntermediateSize int `json:"intermediate_size"` // per expert
	SharedExperts    int `json:"shared_experts,omitempty"`
}

// Matrix is a GEMM weight, Count instances of an N×K matrix (N outputs,
// K inputs) stored as Dtype. Weight caches are sized from matrices.
type Matrix struct {
	Name  string `json:"name"`
	N     int    `json:"n"`
	K     int    `json:"k"`
	Count int    `json:"count"`
	Dtype string `json:"dtype"`
}

// Weights is what a model's weights occupy on the device.
type Weights struct {
	// Bytes is the sum of every tensor the engine uploads.
	Bytes Bytes `json:"bytes"`
	// Source is SourceExact when Bytes was summed from tensor headers.
	Source Source `json:"source"`
	// Dtype names the dominant storage format, for display ("q8_0", "bf16").
	Dtype string `json:"dtype,omitempty"`
	// Converted is the format the weights are converted to from a
	// checkpoint stored otherwise, as the engine loads it (vLLM's and
	// SGLang's --quantization fp8, --dtype float16); "" when they are
	// planned as stored.
	Converted string `json:"converted,omitempty"`
	// Classes breaks Bytes down by tensor class ("embedding", "attention",
	// "ffn", "experts", "norm", "output", "other").
	Classes []WeightClass `json:"classes,omitempty"`
	// Matrices lists the GEMM weights a weight cache would copy.
	Matrices []Matrix `json:"matrices,omitempty"`
}

// WeightClass is the share of the weights held by one class of tensors.
type WeightClass struct {
	Class  string `json:"class"`
	Bytes  Bytes  `json:"bytes"`
	Params int64  `json:"params"`
	// From, Until and Step are the decoder layers that hold the class,
	// alike, when not every layer does: From, From+Step, … below Until
	// (DeepSeek's routed experts from first_k_dense_replace on). Step 0
	// spreads the class over every layer alike. A pipeline stage holds the
	// class's share of the layers it runs.
	From  int `json:"from,omitempty"`
	Until int `json:"until,omitempty"`
	Step  int `json:"step,omitempty"`
}

// Vision is a vision tower loaded next to the language model (an mmproj
// file): resident weights plus its pixel and embedding buffers (seed A5.4).
type Vision struct {
	Bytes  Bytes  `json:"bytes"`
	Source Source `json:"source"`
	// SplitBytes is the share of Bytes in the tower's projection matrices,
	// which vLLM splits across tensor-parallel ranks; 0 when not known
	// (the tower is then charged whole on every rank).
	SplitBytes Bytes `json:"split_bytes,omitempty"`
	// File is the projector file the tower was read from (llama.cpp's
	// --mmproj), "" when it came with the model.
	File        string `json:"file,omitempty"`
	ImageSize   int    `json:"image_size"`   // pixels per side
	ImageTokens int    `json:"image_tokens"` // embeddings produced per image
	// Encoder is the tower's transformer shape, for an engine that runs
	// the tower on dummy images while it profiles its memory (vLLM); nil
	// when the tower's family has no encoder reader.
	Encoder *VisionEncoder `json:"encoder,omitempty"`
}

// VisionEncoder is a patch-based vision transformer (the Qwen-VL towers):
// its width, depth and MLP, how pixels become patches and patches become
// the language model's embeddings, and the largest image its processor
// makes.
type VisionEncoder struct {
	Width    int `json:"width"`    // hidden size of each patch
	Depth    int `json:"depth"`    // transformer blocks
	MLP      int `json:"mlp"`      // MLP width
	Heads    int `json:"heads"`    // attention heads
	Patch    int `json:"patch"`    // pixels per patch side
	Temporal int `json:"temporal"` // frames per patch
	Channels int `json:"channels"` // input channels
	Merge    int `json:"merge"`    // patches per embedding side
	// ItemTokens is the embeddings of the largest image, from the
	// processor's max_pixels; OutWidth is the width of each as the tower
	// returns it (deepstack features included).
	ItemTokens int `json:"item_tokens"`
	OutWidth   int `json:"out_width"`
	// VideoPixels is the video processor's pixel budget over all of a
	// video's frames (its size's longest_edge), VideoFrames the most
	// frames the engine's dummy video may have; both 0 for a tower whose
	// processor reads no video this way.
	VideoPixels int `json:"video_pixels,omitempty"`
	VideoFrames int `json:"video_frames,omitempty"`
	// QuickGELU is the MLP's activation x·sigmoid(1.702x), whose unfused
	// form holds one more MLP-wide tensor than a GELU.
	QuickGELU bool `json:"quick_gelu,omitempty"`
}

// Model is the memory-relevant shape of a model: per-layer geometry, exact
// weight bytes by class, and the dimensions the workspace formulas need.
type Model struct {
	ID     string `json:"id"`
	Name   string `json:"name,omitempty"`
	Arch   string `json:"arch,omitempty"`
	Source string `json:"source,omitempty"` // where the shape was read from

	HiddenSize       int `json:"hidden_size"`
	VocabSize        int `json:"vocab_size"`
	IntermediateSize int `json:"intermediate_size,omitempty"` // dense FFN width
	QueryHeads       int `json:"query_heads,omitempty"`
	MaxContext       int `json:"max_context,omitempty"` // trained context, in tokens

	Layers  []LayerGroup `json:"layers"`
	Weights Weights      `json:"weights"`
	MoE     *MoE         `json:"moe,omitempty"`
	MLA     *MLA         `json:"mla,omitempty"`
	Vision  *Vision      `json:"vision,omitempty"`
	// Variants are the same model in other weight formats, as a catalog
	// holds them (variants.go): a failing report offers a smaller one.
	Variants []Variant `json:"variants,omitempty"`
}

// NumLayers reports the number of decoder layers.
//
//go:noinline
func (m *Model) NumLayers() int {
	n := 0
	for _, g := range m.Layers {
		n += g.Count
	}
	return n
}

// Params reports the parameter count summed over the weight classes.
func (m *Model) Params() int64 {
	var n int64
	for _, c := range m.Weights.Classes {
		n += c.Params
	}
	return n
}
