package gguf

import (
	"strings"

	parser "github.com/gpustack/gguf-parser-go"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/internal/arch"
)

// notGEMM lists the 2-D roles no GEMM reads: routers, convolutions and tables.
var notGEMM = map[string]bool{
	"ffn_gate_inp": true, "ffn_gate_inp_shexp": true, "ssm_conv1d": true, "position_embd": true,
	"token_types": true, "rope_freqs": true, "ssm_a": true, "ssm_d": true,
}

// weights sums the tensor infos, exactly, into classes and GEMM matrices.
func weights(tis parser.GGUFTensorInfos) planner.Weights {
	_, hasOutput := tis.Get("output.weight")
	tally := arch.NewTally()
	for i := range tis {
		ti := &tis[i]
		role, dtype := roleOf(ti.Name), strings.ToLower(ti.Type.String())
		tally.Add(arch.RoleClass(role), -1, int64(min(ti.Bytes(), satBytes)), int64(min(ti.Elements(), satBytes)), dtype)
		if x, n, ok := matrixOf(ti, role, !hasOutput); ok {
			x.Dtype = dtype
			tally.AddMatrix(x, n)
		}
	}
	w := tally.Weights()
	w.Source = planner.SourceExact
	return w
}

// matrixOf returns the GEMM an N×K (or experts×N×K) weight is, and how many.
func matrixOf(ti *parser.GGUFTensorInfo, role string, tied bool) (planner.Matrix, int, bool) {
	d := ti.Dimensions
	// A weight with a zero dimension holds no elements: no GEMM to copy.
	if len(d) < 2 || d[0] == 0 || d[1] == 0 || !strings.HasSuffix(ti.Name, ".weight") || notGEMM[role] {
		return planner.Matrix{}, 0, false
	}
	if role == "token_embd" && tied {
		role = "output"
	}
	if c := arch.RoleClass(role); c == "embedding" || c == "norm" {
		return planner.Matrix{}, 0, false
	}
	n := 1
	for _, x := range d[2:] {
		n *= int(min(x, 1<<12))
	}
	return planner.Matrix{Name: role, N: int(min(d[1], 1<<24)), K: int(min(d[0], 1<<24))}, n, true
}
