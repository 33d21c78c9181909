//go:build linux

package gpuagenttest_test

import "github.com/vramplan/vramplan/gpuagent/gpuagenttest"

func newImporter() gpuagenttest.Importer { return gpuagenttest.NewFileImporter() }
