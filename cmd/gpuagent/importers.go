package main

import (
	"github.com/vramplan/vramplan/gpuagent/backend/vmm"
	"github.com/vramplan/vramplan/gpuagent/client"
)

// importers returns how soak --map makes each lease's Importer: nil for
// no mapping, and false for an unknown kind.
func importers(kind string, device int) (func() (client.Importer, error), bool) {
	switch kind {
	case "":
		return nil, true
	case "vmm":
		return func() (client.Importer, error) { return vmm.NewImporter(device) }, true
	case "fake":
		return fakeImporter()
	}
	return nil, false
}
