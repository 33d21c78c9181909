package hf

import "testing"

// BenchmarkParseConfig reads Llama-3.1-8B's config.json.
func BenchmarkParseConfig(b *testing.B) {
	cfg := readConfig(b, "meta-llama__Llama-3.1-8B-Instruct")
	for b.Loop() {
		if _, err := ParseConfig(cfg, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseConfigDeepSeekV3 reads the largest template: 61 MLA layers,
// 256 experts, fp8 block scales.
func BenchmarkParseConfigDeepSeekV3(b *testing.B) {
	cfg := readConfig(b, "deepseek-ai__DeepSeek-V3")
	for b.Loop() {
		if _, err := ParseConfig(cfg, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadDir reads Llama-3.1-8B as published: config.json, the index
// and 4 shards' headers (291 tensors).
func BenchmarkLoadDir(b *testing.B) { benchLoadDir(b, "meta-llama__Llama-3.1-8B-Instruct", 4) }

// BenchmarkLoadDirMoE reads Qwen3-30B-A3B as published: 16 shards holding
// 18,867 tensors, one per expert projection.
func BenchmarkLoadDirMoE(b *testing.B) { benchLoadDir(b, "Qwen__Qwen3-30B-A3B", 16) }

func benchLoadDir(b *testing.B, config string, shards int) {
	cfg := readConfig(b, config)
	dir := b.TempDir()
	writeCheckpoint(b, dir, cfg, checkpointTensors(b, cfg), shards)
	b.ResetTimer()
	for b.Loop() {
		if _, err := LoadDir(dir, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
