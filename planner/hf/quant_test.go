package hf

import (
	"strings"
	"testing"

	"github.com/vramplan/vramplan/planner"
)

// tinyLlama is one llama layer: hidden 256, FFN 512, 2 heads and 1 KV head
// of 128, 1000 tokens. Its seven matrices hold Σ N·K = 589,824 weights; the
// bf16 embedding, lm_head and three norms 1,025,536 bytes.
const tinyLlama = `{"model_type": "llama", "hidden_size": 256, "intermediate_size": 512,
	"num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 128,
	"vocab_size": 1000, "torch_dtype": "bfloat16", "quantization_config": %s}`

// TestQuantFormats checks each quantization_config's bytes per matrix.
func TestQuantFormats(t *testing.T) {
	const base = 1025536
	tests := []struct {
		name, qc string
		want     planner.Bytes
	}{
		// N·K/2 packed + f16 scale, int4 zero per 128 inputs per row + int32 g_idx per input:
		// q 35,072, k and v 18,048, o 35,072, gate and up 69,120, down 70,144.
		{"gptq", `{"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": false}`, base + 314624},
		// AWQ is GPTQ without g_idx: 7 matrices × 4 B × K fewer (K = 256 for six, 512 for down).
		{"awq", `{"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": true}`, base + 314624 - 4*(6*256+512)},
		// NVFP4: 4.5 bits per weight plus two f32 global scales per matrix.
		{"modelopt nvfp4", `{"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16}`, base + 589824*9/16 + 7*8},
		{"compressed nvfp4", `{"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized"}`, base + 589824*9/16 + 7*8},
		// Symmetric int4, groups of 128: no zero points, 16 bytes of weight_shape per matrix.
		{"compressed int4", `{"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups": {"group_0": {"targets": ["Linear"],
			"weights": {"num_bits": 4, "type": "int", "symmetric": true, "strategy": "group", "group_size": 128}}}}`, base + 304240},
		// FP8 with one f32 scale per 128×128 tile: 4+2+2+4 attention, 8+8+8 MLP tiles.
		{"fp8 block", `{"quant_method": "fp8", "weight_block_size": [128, 128]}`, base + 589824 + 36*4},
		// An ignored module stays bf16: the MLP's three matrices (393,216 weights).
		{"fp8 ignore", `{"quant_method": "fp8", "weight_block_size": [128, 128], "modules_to_not_convert": ["mlp"]}`,
			base + 196608 + 12*4 + 393216*2},
	}
	for _, tt := range tests {
		cfg := strings.Replace(tinyLlama, "%s", tt.qc, 1)
		m, err := ParseConfig([]byte(cfg), Options{})
		if err != nil || m.Weights.Bytes != tt.want {
			t.Errorf("ParseConfig(%s).Weights.Bytes = %d, %v; want %d", tt.name, int64(m.Weights.Bytes), err, int64(tt.want))
		}
	}
	bad := strings.Replace(tinyLlama, "%s", `{"quant_method": "bitsandbytes"}`, 1)
	if _, err := ParseConfig([]byte(bad), Options{}); err == nil || !strings.Contains(err.Error(), "quant_method") {
		t.Errorf("ParseConfig(bitsandbytes) = %v, want an error naming quant_method", err)
	}
}
