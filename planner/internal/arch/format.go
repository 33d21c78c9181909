package arch

// This file holds the storage formats of weights and what an N×K matrix
// occupies in each, scales and zero points included.

import "strings"

type fmtKind int

const (
	fmtBlock    fmtKind = iota // fixed blocks along K (ggml types, fp8, 16-bit floats)
	fmtFP8Block                // fp8 with one f32 scale per blockN×blockK tile
	fmtInt                     // packed integers with f16 scales per group (GPTQ, AWQ, compressed-tensors)
)

// Format is the storage format of a weight tensor.
type Format struct {
	Name         string
	kind         fmtKind
	elems, bytes int64 // fmtBlock: elements and bytes per block along K
	perMatrix    int64 // bytes added once per matrix (global scales)
	perRow       int64 // bytes added once per output row (channel scales)
	tileN, tileK int64 // fmtFP8Block tiles
	bits, group  int64 // fmtInt: bits per weight and group size along K (0: whole row)
	zeros, gidx  bool  // fmtInt: zero points; GPTQ's g_idx
}

var blockFormats = []Format{
	{Name: "f32", elems: 1, bytes: 4},
	{Name: "f16", elems: 1, bytes: 2},
	{Name: "bf16", elems: 1, bytes: 2},
	{Name: "fp8", elems: 1, bytes: 1, perMatrix: 4},
	{Name: "q8_0", elems: 32, bytes: 34},
	{Name: "q5_1", elems: 32, bytes: 24},
	{Name: "q5_0", elems: 32, bytes: 22},
	{Name: "q4_1", elems: 32, bytes: 20},
	{Name: "q4_0", elems: 32, bytes: 18},
	{Name: "iq4_nl", elems: 32, bytes: 18},
	{Name: "q6_k", elems: 256, bytes: 210},
	{Name: "q5_k", elems: 256, bytes: 176},
	{Name: "q4_k", elems: 256, bytes: 144},
	{Name: "q3_k", elems: 256, bytes: 110},
	{Name: "q2_k", elems: 256, bytes: 84},
	{Name: "mxfp4", elems: 32, bytes: 17},
	{Name: "nvfp4", elems: 16, bytes: 9, perMatrix: 8},
}

// FormatNamed returns the format called name ("bf16", "q6_k", "int4").
func FormatNamed(name string) (Format, bool) {
	n := strings.ToLower(name)
	switch n {
	case "fp16", "float16":
		n = "f16"
	case "bfloat16":
		n = "bf16"
	case "float32", "fp32":
		n = "f32"
	case "float8_e4m3fn", "f8_e4m3", "fp8_e4m3":
		n = "fp8"
	case "int4":
		return intFormat(4, 128, true, false), true
	case "int8":
		return intFormat(8, 0, false, false), true
	}
	for _, f := range blockFormats {
		if f.Name == n {
			return f, true
		}
	}
	return Format{}, false
}

func mustFormat(name string) Format {
	f, ok := FormatNamed(name)
	if !ok {
		panic("arch: no format " + name)
	}
	return f
}

func intFormat(bits, group int, zeros, gidx bool) Format {
	name := "int" + string(rune('0'+bits))
	return Format{Name: name, kind: fmtInt, bits: int64(bits), group: int64(group), zeros: zeros, gidx: gidx}
}

func fp8Block(n, k int) Format {
	return Format{Name: "fp8", kind: fmtFP8Block, tileN: int64(max(n, 1)), tileK: int64(max(k, 1))}
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// Bytes reports what one n×k matrix occupies in format f.
func (f Format) Bytes(n, k int64) int64 {
	switch f.kind {
	case fmtFP8Block:
		return n*k + ceilDiv(n, f.tileN)*ceilDiv(k, f.tileK)*4
	case fmtInt:
		return f.intBytes(n, k)
	}
	return n*ceilDiv(k, f.elems)*f.bytes + n*f.perRow + f.perMatrix
}

// intBytes is packed weights, one 16-bit scale per group and, when present,
// packed zero points per group and GPTQ's int32 g_idx per input.
func (f Format) intBytes(n, k int64) int64 {
	groups := int64(1)
	if f.group > 0 {
		groups = ceilDiv(k, f.group)
	}
	b := ceilDiv(n*k*f.bits, 8) + groups*n*2
	if f.zeros {
		b += ceilDiv(groups*n*f.bits, 8)
	}
	if f.gidx {
		b += k * 4
	}
	return b + f.perMatrix
}

// blockAligned reports whether a row of k elements fills whole blocks.
func (f Format) blockAligned(k int64) bool { return f.kind != fmtBlock || k%f.elems == 0 }
