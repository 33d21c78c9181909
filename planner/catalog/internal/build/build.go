// Package build generates the catalog: one planner model per entry of
// spec.json, computed from a checked-in real config.json through the
// architecture templates, with the entry's weight format (a checkpoint's own
// quantization_config, a format, or a llama.cpp file type and its
// per-tensor rules) and, for GGUF vision models, an mmproj F16 tower.
package build

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/internal/arch"
)

// Entry is one line of spec.json.
type Entry struct {
	ID      string `json:"id"`
	Config  string `json:"config"`            // testdata/configs/<org>__<repo>.json
	Weights string `json:"weights,omitempty"` // "" for the checkpoint as published
	Mmproj  bool   `json:"mmproj,omitempty"`  // add llama.cpp's mmproj F16 vision tower
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// Generate returns each catalog file by name, from spec.json at specPath and
// the configs under configDir.
func Generate(specPath, configDir string) (map[string][]byte, error) {
	data, err := os.ReadFile(specPath)
	if err != nil {
		return nil, err
	}
	var entries []Entry
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("%s: %w", specPath, err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if !idPattern.MatchString(e.ID) || out[e.ID+".json"] != nil {
			return nil, fmt.Errorf("%s: id %q is not lowercase or is repeated", specPath, e.ID)
		}
		m, err := model(e, configDir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.ID, err)
		}
		out[e.ID+".json"] = encode(m)
	}
	return out, nil
}

func model(e Entry, configDir string) (planner.Model, error) {
	cfg, err := os.ReadFile(filepath.Join(configDir, e.Config+".json"))
	if err != nil {
		return planner.Model{}, err
	}
	s, err := arch.Parse(cfg)
	if err != nil {
		return planner.Model{}, err
	}
	sc := s.Scheme
	if e.Weights != "" {
		if sc, err = arch.Override(e.Weights, s.Base, s.Tensors); err != nil {
			return planner.Model{}, err
		}
	}
	m := s.Model(sc)
	m.ID, m.Name = e.ID, name(e)
	m.Source = fmt.Sprintf("generated from %s config.json (%s)", strings.Replace(e.Config, "__", "/", 1), weightsNote(e))
	vision(&m, s, e)
	return m, nil
}

func name(e Entry) string {
	_, repo, _ := strings.Cut(e.Config, "__")
	if e.Weights == "" {
		return repo
	}
	return repo + " " + strings.ToUpper(e.Weights)
}

func weightsNote(e Entry) string {
	switch {
	case e.Weights == "":
		return "weights as published: torch_dtype and quantization_config"
	case strings.HasPrefix(e.Weights, "q"):
		return "weights " + e.Weights + " by llama.cpp's per-tensor rules"
	}
	return "weights " + e.Weights + " for every linear layer but embeddings, lm_head and routers"
}

// vision sets the vision tower: llama.cpp's mmproj F16 for a GGUF entry
// that names one, none for other GGUF entries, the checkpoint's otherwise.
func vision(m *planner.Model, s *arch.Spec, e Entry) {
	gguf := strings.HasPrefix(e.Weights, "q")
	switch {
	case e.Mmproj && s.Vision != nil:
		w := arch.Summarize(s.Vision.Tensors, arch.MmprojScheme())
		m.Vision = &planner.Vision{Bytes: w.Bytes, Source: planner.SourceFormula,
			ImageSize: s.Vision.ImageSize, ImageTokens: s.Vision.ImageTokens}
	case gguf:
		m.Vision = nil
	}
}

func encode(m planner.Model) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.Encode(m)
	return b.Bytes()
}
