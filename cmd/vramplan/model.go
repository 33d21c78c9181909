package main

import (
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/modelfile"
)

// loadModel resolves --model: a catalog name (or unambiguous prefix), a
// .gguf file (the first of a split model finds the rest), a config.json, a
// directory holding one (with safetensors headers when present), or a model
// shape in the planner's own JSON format.
func loadModel(name, weightsDtype, mmproj string) (planner.Model, error) {
	return modelfile.Open(name, modelfile.Options{WeightsDtype: weightsDtype, Mmproj: mmproj})
}
