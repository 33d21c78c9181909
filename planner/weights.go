package planner

import "strings"

// cacheBytes is what weight-cache policy p adds for model m (seed A1.7):
// FP16 2·elems, FP8 elems, NVFP4 elems/2 + elems/16 plus the CUTLASS
// scale-factor slab Σ align256(sf_size(N, K)). A matrix already stored in
// the policy's format needs no copy; an NVFP4 matrix still needs its slab.
func cacheBytes(m *Model, p WeightCache) Bytes {
	var total Bytes
	for i := range m.Weights.Matrices {
		total = satAdd(total, matrixCache(&m.Weights.Matrices[i], p))
	}
	return total
}

func matrixCache(x *Matrix, p WeightCache) Bytes {
	elems := satMul(int64(x.N), int64(x.K))
	native := sameFormat(x.Dtype, p)
	var per Bytes
	switch p.normalize() {
	case WeightCacheFP16:
		if !native {
			per = satMul(int64(elems), 2)
		}
	case WeightCacheFP8:
		if !native {
			per = elems
		}
	case WeightCacheNVFP4:
		if !native {
			per = satAdd(elems/2, elems/16)
		}
		per = satAdd(per, sfSlab(x.N, x.K))
	}
	return satMul(int64(per), int64(x.Count))
}

// sfSlab is the CUTLASS NVFP4 scale-factor layout of an N×K matrix: one byte
// per 16 elements, rows padded to 128 and scale columns to 4, each slab
// aligned to 256 bytes.
func sfSlab(n, k int) Bytes {
	rows := ceilDiv(int64(n), 128) * 128
	cols := ceilDiv(ceilDiv(int64(k), 16), 4) * 4
	return roundUp(satMul(rows, cols), 256)
}

// sameFormat reports whether weights stored as dtype are already in the
// format of cache policy p.
func sameFormat(dtype string, p WeightCache) bool {
	d := strings.ToLower(dtype)
	switch p.normalize() {
	case WeightCacheFP16:
		return d == "f16" || d == "fp16" || d == "bf16" || d == "f32"
	case WeightCacheFP8:
		return strings.HasPrefix(d, "fp8") || strings.HasPrefix(d, "f8")
	case WeightCacheNVFP4:
		return d == "nvfp4"
	}
	return false
}

// visionStaging is the vision tower's pixel and embedding buffers:
// image_size²·3·2 B + image_tokens·hidden·2 B (seed A1.7).
func visionStaging(m *Model) Bytes {
	v := m.Vision
	return satAdd(satMul3(int64(v.ImageSize), int64(v.ImageSize), 6),
		satMul3(int64(v.ImageTokens), int64(m.HiddenSize), 2))
}
