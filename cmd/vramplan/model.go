package main

import (
	"fmt"

	"github.com/vramplan/vramplan/planner"
)

// loadModel resolves --model: a model-shape file in the planner's own JSON
// format.
func loadModel(name string) (planner.Model, error) {
	data, err := readLimited(name)
	if err != nil {
		return planner.Model{}, fmt.Errorf("%q is not a readable model file: %v", name, err)
	}
	var in planner.Input
	in.Model, err = planner.ParseModel(data)
	return in.Model, err
}
