package planner

import (
	"math"
	"testing"
)

// qwen3VLEncoder is Qwen3-VL-30B-A3B-Instruct's vision tower as its
// config.json gives it (planner/hf's TestVisionEncoders reads the same).
func qwen3VLEncoder() *VisionEncoder {
	return &VisionEncoder{Width: 1152, Depth: 27, MLP: 4304, Heads: 16, Patch: 16, Temporal: 2, Channels: 3, Merge: 2,
		ItemTokens: 16384, OutWidth: 4 * 2048, VideoPixels: 25165824, VideoFrames: 24576}
}

// vllmVideoFrames is vLLM's own count, step by step: from 2 frames, one
// more while the next count's tokens stay within seqLen
// (Qwen2VLProcessingInfo._get_max_video_frames), then at most the cap
// (get_num_frames_with_most_features), with transformers' video resize
// written out as Python computes it.
func vllmVideoFrames(e *VisionEncoder, seqLen int) int {
	tokens := func(n int) int {
		factor := float64(e.Patch * e.Merge)
		h := math.Sqrt(float64(e.ItemTokens)) * factor
		tBar := math.Ceil(float64(n)/float64(e.Temporal)) * float64(e.Temporal)
		if tBar*h*h > float64(e.VideoPixels) {
			beta := math.Sqrt(float64(n) * h * h / float64(e.VideoPixels))
			h = math.Max(factor, math.Floor(h/beta/factor)*factor)
		}
		gridT := (n + n%e.Temporal) / e.Temporal
		g := int(h) / e.Patch
		return gridT * g * g / (e.Merge * e.Merge)
	}
	n := 2
	for tokens(n+1) <= seqLen && n <= e.VideoFrames {
		n++
	}
	return min(n, e.VideoFrames)
}

// TestQwen3VLVideoFrames holds qwen3VLVideo's two cases to vLLM's count
// at lengths around its turns: 2 frames of 3,520² (12,100 embeddings)
// below the three-frame count's 16,200 tokens, 24,576 frames of 32²
// (12,288 embeddings, 153,600 tokens, the 0.11 and 0.12 logs' budget)
// from there.
func TestQwen3VLVideoFrames(t *testing.T) {
	e := qwen3VLEncoder()
	for _, seqLen := range []int{1024, 8192, 12100, 12288, 16199, 16200, 16201, 32768, 65536, 262144} {
		n := vllmVideoFrames(e, seqLen)
		wantEmbeds := int64(12288)
		if n == 2 {
			wantEmbeds = 12100
		}
		got := qwen3VLVideo(e, seqLen)
		if got.embeds != wantEmbeds || got.tokens != wantEmbeds*25/2 || got.patches != 4*wantEmbeds {
			t.Errorf("qwen3VLVideo(%d) = %+v, want vLLM's %d frames: %d embeddings, %d tokens", seqLen, got, n, wantEmbeds, wantEmbeds*25/2)
		}
		if (seqLen < 16200) != (n == 2) || n != 2 && n != e.VideoFrames {
			t.Errorf("vLLM's count at %d tokens: %d frames", seqLen, n)
		}
	}
	if got := qwen3VLVideo(e, 65536); got.tokens != 153600 {
		t.Errorf("budget at 65,536 tokens = %d, want the logs' 153,600", got.tokens)
	}
}

// qwen3VLRun is a Qwen3-VL tower beside a catalog text stand-in (the
// encoder's charges are what the tests hold) at max_model_len 65,536,
// 256 sequences and 2,048 batched tokens, as the corpus's 0.11.0 run.
func qwen3VLRun(t *testing.T, version string) Input {
	m := catalogModel(t, "qwen2.5-0.5b-instruct-bf16")
	m.Vision = &Vision{Bytes: 2 * 538631408, SplitBytes: 2 * 534000000, Source: SourceFormula, Encoder: qwen3VLEncoder()}
	return Input{Model: m, Features: Features{Vision: true},
		Calibration: Calibration{Schema: CalibrationSchema, ID: "h100", GPU: "NVIDIA H100 80GB HBM3", DeviceTotal: gib(79.22)},
		Limits:      Limits{MaxSeqLen: 65536, MaxBatch: 256, MaxPrefillTokens: 2048},
		Serving:     Serving{Engine: EngineVLLM, Version: version}}
}

// TestVLLMVideoProfile: at 0.11 and 0.12 the profile encodes one video of
// 49,152 patches and holds its output widened to 153,600 rows of 8,192
// (2,516,582,400 B) and its float32 pixels (49,152 × 6,144 B) beside the
// text pass; at 0.10 and 0.13 one image, 16,384 rows and 65,536 patches.
func TestVLLMVideoProfile(t *testing.T) {
	in := qwen3VLRun(t, "0.12.0")
	text := Bytes(256*int64(in.Model.VocabSize)*38 + 2048*int64(in.Model.HiddenSize)*4)
	video := text + 153600*8192*2 + 49152*6144
	image := text + 16384*8192*2 + 65536*6144
	for _, tc := range []struct {
		version string
		want    Bytes
	}{{"0.10.2", image}, {"0.11.0", video}, {"0.12.0", video}, {"0.13.0", image}} {
		in := qwen3VLRun(t, tc.version)
		p, err := report(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := itemBytes(&p, "activation_peak"); got != tc.want {
			t.Errorf("vLLM %s: activation %d B, want %d B", tc.version, got, tc.want)
		}
	}
}

// TestVLLMTowerTP: vLLM splits a tower's projections over the
// tensor-parallel ranks, so each of TP 2 holds the rest whole and half of
// them.
func TestVLLMTowerTP(t *testing.T) {
	in := qwen3VLRun(t, "0.12.0")
	in.Parallel = Parallel{Tensor: 2}
	p, err := report(in)
	if err != nil {
		t.Fatal(err)
	}
	if p.Layout == nil || len(p.Layout.Ranks) == 0 {
		t.Fatal("TP 2: no ranks planned")
	}
	v := in.Model.Vision
	if got, want := itemBytes(&p.Layout.Ranks[0].Plan, "vision_tower"), v.Bytes-v.SplitBytes/2; got != want {
		t.Errorf("TP 2: vision tower %d B a rank, want %d B", got, want)
	}
	in.Parallel = Parallel{}
	if p, err = report(in); err != nil || itemBytes(&p, "vision_tower") != v.Bytes {
		t.Errorf("TP 1: vision tower %d B (%v), want the whole %d B", itemBytes(&p, "vision_tower"), err, v.Bytes)
	}
}

// TestVideoBounds: the video fields are bounded as the tower's others
// are, so that no product of them overflows, and a real tower passes.
func TestVideoBounds(t *testing.T) {
	if err := validEncoder(qwen3VLEncoder()); err != nil {
		t.Fatalf("Qwen3-VL's tower: %v", err)
	}
	for _, c := range []struct {
		field string
		set   func(e *VisionEncoder)
	}{
		{"model.vision.encoder.video_pixels", func(e *VisionEncoder) { e.VideoPixels = 1 << 40 }},
		{"model.vision.encoder.video_pixels", func(e *VisionEncoder) { e.VideoPixels = -1 }},
		{"model.vision.encoder.video_frames", func(e *VisionEncoder) { e.VideoFrames = 1 << 30 }},
		{"model.vision.encoder.depth", func(e *VisionEncoder) { e.Depth = -1 }},
		{"model.vision.encoder.merge", func(e *VisionEncoder) { e.Merge = 0 }},
	} {
		e := qwen3VLEncoder()
		c.set(e)
		err := validEncoder(e)
		if ie, ok := err.(*InputError); !ok || ie.Field != c.field {
			t.Errorf("%s out of range: %v, want an error on that field", c.field, err)
		}
	}
}
