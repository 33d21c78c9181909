package planner

import "testing"

// qwen2VLEncoder is Qwen2-VL-2B-Instruct's vision tower as its config.json
// and its processor's max_pixels give it (planner/hf's TestVisionTowers
// reads the same from the checkpoint's config).
func qwen2VLEncoder() *VisionEncoder {
	return &VisionEncoder{Width: 1280, Depth: 32, MLP: 5120, Heads: 16, Patch: 14, Temporal: 2, Channels: 3, Merge: 2,
		ItemTokens: 16384, OutWidth: 1536, QuickGELU: true}
}

// qwen2VLRun is the corpus's vllm-0.10.2-qwen2-vl-2b-rtx-4080 start-up
// (vLLM 0.10.2, an RTX 4080 of 15.99 GiB at --gpu-memory-utilization 0.8,
// --max-model-len 4096, chunked prefill at 2048 tokens), whose log prints
// "Encoder cache will be initialized with a budget of 16384 tokens, and
// profiled with 1 image items of the maximum feature size" and "2.65 GiB
// for peak activation". The text model is a catalog stand-in: the encoder's
// peak is what the test holds, and it is more than the stand-in's sampler.
func qwen2VLRun(t *testing.T) Input {
	m := catalogModel(t, "qwen2.5-0.5b-instruct-bf16")
	m.Vision = &Vision{Bytes: 2 * 665271296, Source: SourceFormula, Encoder: qwen2VLEncoder()}
	return Input{Model: m, Features: Features{Vision: true},
		Calibration: Calibration{Schema: CalibrationSchema, ID: "rtx4080", GPU: "NVIDIA GeForce RTX 4080", DeviceTotal: gib(15.99)},
		Limits:      Limits{MaxSeqLen: 4096},
		Serving:     Serving{Engine: EngineVLLM, Version: "0.10.2", VLLM: VLLMOptions{GPUMemoryUtilization: 0.8}}}
}

// TestVLLMVisionEncoder holds V1's profile of a vision checkpoint to the
// formula of engine_vllm_vision.go, computed by hand for Qwen2-VL-2B: one
// dummy image of 16,384 embeddings (a budget of max(2048, 16384) tokens
// holds one), 2 × 2 patches each, 65,536 patches; per patch the float32
// pixels (3 × 2 × 14² × 4 B = 4,704 B) and, 16-bit, the block's input and
// norm (2 × 1280) beside QuickGELU's three MLP-wide tensors (3 × 5120):
// 4,704 + 2 × 17,920 = 40,544 B, 2.475 GiB against the log's 2.65 (−6.6 %).
// Eager, QuickGELU is one kernel (two MLP-wide tensors); at a budget of
// 32,768 tokens the batch is two images; with the tower switched off the
// peak is the text pass's alone.
func TestVLLMVisionEncoder(t *testing.T) {
	const patches = 65536
	for _, tc := range []struct {
		name string
		edit func(*Input)
		want Bytes
	}{
		{"one image", func(*Input) {}, patches * (4704 + 2*(2*1280+3*5120))},
		{"eager", func(in *Input) { in.Serving.VLLM.EnforceEager = true }, patches * (4704 + 2*(2*1280+2*5120))},
		{"two images", func(in *Input) { in.Limits.MaxSeqLen, in.Limits.MaxPrefillTokens = 32768, 32768 }, 2 * patches * (4704 + 2*(2*1280+3*5120))},
	} {
		in := qwen2VLRun(t)
		tc.edit(&in)
		p, err := report(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := itemBytes(&p, "activation_peak"); got != tc.want {
			t.Errorf("%s: activation %d B, want the encoder's %d B", tc.name, got, tc.want)
		}
	}
	in := qwen2VLRun(t)
	p, err := report(in)
	if err != nil {
		t.Fatal(err)
	}
	got, logged := int64(itemBytes(&p, "activation_peak")), int64(gib(2.65))
	t.Logf("Qwen2-VL-2B's encoder peak %.3f GiB, the log's 2.65 (%+.1f %%)", float64(got)/float64(GiB), pct(got, logged))
	if !within(got, logged, 0.08, 0) {
		t.Errorf("encoder peak %.3f GiB, the log's 2.65 GiB (%+.1f %%): the item's description states −6.6 %%", float64(got)/float64(GiB), pct(got, logged))
	}
	in.Features.Vision = false
	p, err = report(in)
	if err != nil {
		t.Fatal(err)
	}
	text := Bytes(256*int64(in.Model.VocabSize)*38 + 2048*int64(in.Model.HiddenSize)*4)
	if got := itemBytes(&p, "activation_peak"); got != text {
		t.Errorf("tower off: activation %d B, want the text pass's %d B", got, text)
	}
}

// TestVLLMVisionCache: when the text pass's peak is the larger, the
// encoder's outputs sit beside it, images × embeddings × the embedding
// width × 2 B, and so do the dummy batch's float32 pixels (4,704 B a
// patch), on top of the sampler's warm-up.
func TestVLLMVisionCache(t *testing.T) {
	in := qwen2VLRun(t)
	e := in.Model.Vision.Encoder
	e.Width, e.MLP, e.ItemTokens = 64, 128, 1024 // a tower whose forward pass is small
	p, err := report(in)
	if err != nil {
		t.Fatal(err)
	}
	// A budget of 2048 tokens: two images of 1024 embeddings.
	text := Bytes(256*int64(in.Model.VocabSize)*38 + 2048*int64(in.Model.HiddenSize)*4)
	if got, want := itemBytes(&p, "activation_peak"), text+2*1024*1536*2+2*1024*4*4704; got != want {
		t.Errorf("activation %d B, want the text pass's %d B and the encoder cache and pixels' %d B", got, text, want-text)
	}
}

// TestVLLMVisionTP: the tower's MLP is column-parallel, so each rank of a
// TP 2 start-up holds half of its MLP-wide tensors (two images, so that
// the encoder's peak is more than the text pass beside its outputs).
func TestVLLMVisionTP(t *testing.T) {
	in := qwen2VLRun(t)
	in.Parallel = Parallel{Tensor: 2}
	in.Limits.MaxSeqLen, in.Limits.MaxPrefillTokens = 32768, 32768
	p, err := report(in)
	if err != nil {
		t.Fatal(err)
	}
	if p.Layout == nil || len(p.Layout.Ranks) == 0 {
		t.Fatal("TP 2: no ranks planned")
	}
	want := Bytes(2 * 65536 * (4704 + 2*(2*1280+3*2560)))
	if got := itemBytes(&p.Layout.Ranks[0].Plan, "activation_peak"); got != want {
		t.Errorf("TP 2: activation %d B, want %d B", got, want)
	}
}
