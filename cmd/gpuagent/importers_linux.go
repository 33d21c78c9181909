//go:build linux

package main

import (
	"github.com/vramplan/vramplan/gpuagent/client"
	"github.com/vramplan/vramplan/gpuagent/gpuagenttest"
)

func fakeImporter() (func() (client.Importer, error), bool) {
	return func() (client.Importer, error) { return gpuagenttest.NewFileImporter(), nil }, true
}
