package gguf

import (
	"fmt"

	parser "github.com/gpustack/gguf-parser-go"

	"github.com/vramplan/vramplan/planner"
)

// poolFactor is how many patches each projector merges into one embedding.
var poolFactor = map[string]int{"gemma3": 16, "qwen2vl_merger": 4, "qwen2.5vl_merger": 4, "qwen3vl_merger": 4, "idefics3": 9}

// toVision reads a clip (mmproj) file: exact tower bytes and image geometry.
func toVision(gf *parser.GGUFFile) (v *planner.Vision, err error) {
	defer recoverInto(&err)
	md := newMeta(gf)
	if md.arch != "clip" {
		return nil, fmt.Errorf("general.architecture is %q, not a vision projector (clip)", md.arch)
	}
	if len(gf.TensorInfos) == 0 {
		return nil, errNoTensors
	}
	size, err1 := md.int("clip.vision.image_size", 0)
	patch, err2 := md.int("clip.vision.patch_size", 0)
	if err := errorsJoin(err1, err2); err != nil {
		return nil, err
	}
	v = &planner.Vision{Bytes: planner.Bytes(totalBytes(gf.TensorInfos)), Source: planner.SourceExact, ImageSize: size}
	if patch > 0 {
		proj, _ := md.kv["clip.projector_type"].(string)
		v.ImageTokens = (size / patch) * (size / patch) / max(poolFactor[proj], 1)
	}
	if v.ImageTokens > 1<<20 || v.Bytes > 1<<50 {
		return nil, fmt.Errorf("vision projector: %d image tokens or %d bytes is out of range", v.ImageTokens, int64(v.Bytes))
	}
	return v, nil
}

func errorsJoin(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
