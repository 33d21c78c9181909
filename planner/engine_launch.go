package planner

import (
	"strconv"
	"strings"
)

// This file holds what the engines' launch commands share.

// modelArg is the model as an engine's command line names it.
func modelArg(in *Input) string {
	m := &in.Model
	if r, ok := strings.CutPrefix(m.Source, "generated from "); ok && loads(in) == ModelHF {
		if repo, _, ok := strings.Cut(r, " "); ok && strings.Contains(repo, "/") {
			return repo // the catalog model's Hugging Face repository, which vLLM and SGLang load
		}
	}
	for _, s := range []string{m.Source, m.ID} {
		if s != "" && !strings.ContainsAny(s, " \t'\"") {
			return s
		}
	}
	if m.ID != "" {
		return strconv.Quote(m.ID)
	}
	return "MODEL"
}

// loads is the form in which in's engine loads its model.
func loads(in *Input) ModelFormat {
	if p := profileFor(in); p != nil {
		return p.Loads
	}
	return seedProfile.Loads
}

func flagIf(name string, v int) string {
	if v <= 1 {
		return ""
	}
	return name + strconv.Itoa(v)
}
