package enginelog

import (
	"testing"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner/catalog"
)

// TestVLLMRunner: a V1 log says Model Runner V2 ran by the worker's line
// or by a line of that runner's model_runner.py (the corpus's 0.27.1 and
// 0.29.0 logs), and the check plans it so; V1's gpu_model_runner.py and a
// log with neither do not.
func TestVLLMRunner(t *testing.T) {
	m, err := catalog.Lookup("qwen3-0.6b-bf16")
	if err != nil {
		t.Fatal(err)
	}
	cal, err := calibrations.Lookup("est-rtx3090")
	if err != nil {
		t.Fatal(err)
	}
	const kv = "(EngineCore pid=20075) INFO 08-22 20:52:36 [gpu_worker.py:563] Available KV cache memory: 20.52 GiB\n"
	for _, c := range []struct {
		line string
		want bool
	}{
		{"(EngineCore pid=1) INFO 09-18 22:22:50 [gpu_worker.py:283] Using V2 Model Runner\n", true},
		{"(EngineCore pid=20075) INFO 08-22 20:52:25 [model_runner.py:329] Model loading took 0.93 GiB and 6.206722 seconds\n", true},
		{"(EngineCore pid=20075) INFO 08-22 20:52:39 [model_runner.py:791] Graph capturing finished in 2 secs, took 0.00 GiB\n", true},
		{"(EngineCore_DP0 pid=337) INFO 11-02 04:10:11 [gpu_model_runner.py:2392] Model loading took 1.12 GiB and 3.1 seconds\n", false},
		{"", false},
	} {
		l, err := Parse([]byte(c.line + kv))
		if err != nil {
			t.Fatal(err)
		}
		if got := l.ModelRunnerV2(); got != c.want {
			t.Errorf("Parse(%q).ModelRunnerV2() = %v, want %v", c.line, got, c.want)
		}
		in, err := l.Input(m, cal)
		if err != nil {
			t.Fatal(err)
		}
		if in.Serving.VLLM.ModelRunnerV2 != c.want {
			t.Errorf("Input(%q).Serving.VLLM.ModelRunnerV2 = %v, want %v", c.line, in.Serving.VLLM.ModelRunnerV2, c.want)
		}
	}
}
