package planner

// KVDtype is the storage format of KV-cache entries.
type KVDtype string

// KV-cache formats. The zero value means KVDtypeF16.
const (
	KVDtypeF16   KVDtype = "f16"
	KVDtypeBF16  KVDtype = "bf16"
	KVDtypeFP8   KVDtype = "fp8"   // e4m3, one byte per element
	KVDtypeQ8_0  KVDtype = "q8_0"  // llama.cpp: 32 int8 + one f16 scale = 34 bytes
	KVDtypeQ4_0  KVDtype = "q4_0"  // llama.cpp: 32 int4 + one f16 scale = 18 bytes
	KVDtypeNVFP4 KVDtype = "nvfp4" // 16 e2m1 + one e4m3 scale = 9 bytes
)

// KVDtypes lists the KV formats in the order the KV-dtype lever walks them:
// the 16-bit formats, then the hardware 8-bit float, the 8-bit block format,
// the 4-bit float with fp8 scales, and the 4-bit block format.
var KVDtypes = []KVDtype{KVDtypeF16, KVDtypeBF16, KVDtypeFP8, KVDtypeQ8_0, KVDtypeNVFP4, KVDtypeQ4_0}

type blockFormat struct {
	elems int64 // elements per quantization block
	bytes int64 // bytes per block, scales included
}

var kvFormats = map[KVDtype]blockFormat{
	KVDtypeF16:   {1, 2},
	KVDtypeBF16:  {1, 2},
	KVDtypeFP8:   {1, 1},
	KVDtypeQ8_0:  {32, 34},
	KVDtypeQ4_0:  {32, 18},
	KVDtypeNVFP4: {16, 9},
}

// normalize returns d with the zero value resolved to its default.
func (d KVDtype) normalize() KVDtype {
	if d == "" {
		return KVDtypeF16
	}
	return d
}

// Valid reports whether d names a known KV format (the zero value is valid).
func (d KVDtype) Valid() bool {
	_, ok := kvFormats[d.normalize()]
	return ok
}

// RowBytes returns the bytes one row of n elements occupies in format d,
// rounding n up to whole quantization blocks.
func (d KVDtype) RowBytes(n int) Bytes {
	f := kvFormats[d.normalize()]
	if f.elems == 0 || n <= 0 {
		return 0
	}
	return satMul(ceilDiv(int64(n), f.elems), f.bytes)
}

// WeightCache is the policy for pre-dequantized weight caches (seed A1.7):
// copies of the model's GEMM weights in a format the fast kernels read.
type WeightCache string

// Weight-cache policies. The zero value means WeightCacheNone.
const (
	WeightCacheNone  WeightCache = "none"
	WeightCacheFP16  WeightCache = "fp16"
	WeightCacheFP8   WeightCache = "fp8"
	WeightCacheNVFP4 WeightCache = "nvfp4"
)

// WeightCaches lists the policies from the largest cache to none, the order
// the weight-cache lever walks them.
var WeightCaches = []WeightCache{WeightCacheFP16, WeightCacheFP8, WeightCacheNVFP4, WeightCacheNone}

func (w WeightCache) normalize() WeightCache {
	if w == "" {
		return WeightCacheNone
	}
	return w
}

// Valid reports whether w names a known policy (the zero value is valid).
func (w WeightCache) Valid() bool {
	switch w.normalize() {
	case WeightCacheNone, WeightCacheFP16, WeightCacheFP8, WeightCacheNVFP4:
		return true
	}
	return false
}

// Source says where an item's bytes come from.
type Source string

// Sources of a line item's bytes.
const (
	SourceExact      Source = "exact"      // summed from tensor headers or exact geometry
	SourceFormula    Source = "formula"    // computed from the seed's sizing formulas
	SourceCalibrated Source = "calibrated" // measured on a GPU + driver, or by a previous run
	// SourceEstimated marks what an engine measures at start, estimated from
	// the model shape by a formula whose measured basis its profile states.
	SourceEstimated Source = "estimated"
	// SourceUnmeasured marks a charge the calibration has not measured
	// (a CUDA graph's size): it is named, and charged 0 bytes.
	SourceUnmeasured Source = "unmeasured"
)

// Tier names the lifetime tier that owns a line item (seed A2). Charges the
// engine does not allocate itself carry TierDriver.
type Tier string

// Tiers, in the order the plan allocates them (seed A4.2).
const (
	TierDriver           Tier = "driver" // CUDA context and library reserve
	TierEnginePersistent Tier = "T2"     // process lifetime, bump arena
	TierModelResident    Tier = "T1"     // model load to unload, bump arena
	TierPooled           Tier = "T3"     // fixed-block pools
	TierScratch          Tier = "T4"     // one forward pass, LIFO stack
)
