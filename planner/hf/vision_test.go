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
