package interimcatalog

import "testing"

func TestAll(t *testing.T) {
	ms := All()
	if len(ms) < 2 {
		t.Fatalf("All() = %d models, want at least 2", len(ms))
	}
	for _, m := range ms {
		if m.ID == "" || m.NumLayers() == 0 {
			t.Errorf("model %q has no id or no layers", m.ID)
		}
	}
}
