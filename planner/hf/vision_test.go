package hf

import (
	"testing"

	"github.com/vramplan/vramplan/planner"
)

// TestVisionTowers holds each multimodal fixture's language model plus its
// vision tower (bf16, two bytes a parameter) to the total its model page
// publishes, and checks the image geometry the config states.
func TestVisionTowers(t *testing.T) {
	tests := []struct {
		config      string
		vision      int64 // tower and projector parameters
		published   int64 // the checkpoint's total, as published
		unloaded    int64 // published parameters the engines do not load
		image, toks int
	}{
		{"Qwen__Qwen2-VL-2B-Instruct", 665271296, 2208985600, 0, 0, 0},
		{"Qwen__Qwen3-VL-30B-A3B-Instruct", 538631408, 31070754032, 0, 0, 0},
		// 4 tiles × (40² patches + the class token).
		{"meta-llama__Llama-3.2-11B-Vision", 895028755, 10670220835, 0, 560, 4 * 1601},
		// The safetensors index totals 19,306,216,416 bytes of bf16, the
		// multi-token-prediction module included (one gated-attention layer
		// with its MLP, the 8192→4096 fc and three norms: 243,290,624).
		{"Qwen__Qwen3.5-9B", 456010480, 19306216416 / 2, 243290624, 0, 0},
	}
	for _, tt := range tests {
		m, err := ParseConfig(readConfig(t, tt.config), Options{})
		if err != nil {
			t.Errorf("ParseConfig(%s): %v", tt.config, err)
			continue
		}
		v := m.Vision
		if v == nil || v.Bytes != planner.Bytes(2*tt.vision) || v.ImageSize != tt.image || v.ImageTokens != tt.toks {
			t.Errorf("ParseConfig(%s).Vision = %+v, want %d bytes, image %d, %d tokens", tt.config, v, 2*tt.vision, tt.image, tt.toks)
			continue
		}
		total := m.Params() + tt.vision + tt.unloaded
		if d := total - tt.published; d*2000 > tt.published || -d*2000 > tt.published {
			t.Errorf("%s: %d language + %d vision + %d unloaded = %d parameters, want %d (within 0.05 %%)",
				tt.config, m.Params(), tt.vision, tt.unloaded, total, tt.published)
		}
	}
}

// TestVisionEncoders checks the encoder shape each Qwen tower's config
// gives, which vLLM's profile runs on its largest dummy image: the
// width, depth and MLP of vision_config, 16,384 embeddings from the
// processors' max_pixels (3,584² pixels in 14-pixel patches, 4,096² in
// 16-pixel ones, merged 2 × 2), Qwen3-VL's embeddings four outputs wide
// (the final merger and three deepstack ones) with its video processor's
// 25,165,824 pixels over at most 24,576 dummy frames, and mllama none.
func TestVisionEncoders(t *testing.T) {
	tests := []struct {
		config string
		want   *planner.VisionEncoder
	}{
		{"Qwen__Qwen2-VL-2B-Instruct", &planner.VisionEncoder{Width: 1280, Depth: 32, MLP: 5120, Heads: 16, Patch: 14,
			Temporal: 2, Channels: 3, Merge: 2, ItemTokens: 16384, OutWidth: 1536, QuickGELU: true}},
		{"Qwen__Qwen3-VL-30B-A3B-Instruct", &planner.VisionEncoder{Width: 1152, Depth: 27, MLP: 4304, Heads: 16, Patch: 16,
			Temporal: 2, Channels: 3, Merge: 2, ItemTokens: 16384, OutWidth: 4 * 2048,
			VideoPixels: 25165824, VideoFrames: 24576}},
		{"meta-llama__Llama-3.2-11B-Vision", nil},
	}
	for _, tt := range tests {
		m, err := ParseConfig(readConfig(t, tt.config), Options{})
		if err != nil {
			t.Errorf("ParseConfig(%s): %v", tt.config, err)
			continue
		}
		if m.Vision == nil {
			t.Errorf("ParseConfig(%s).Vision = nil, want the tower", tt.config)
			continue
		}
		got := m.Vision.Encoder
		if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
			t.Errorf("ParseConfig(%s).Vision.Encoder = %+v, want %+v", tt.config, got, tt.want)
		}
	}
}
