//go:build !linux

package main

import "github.com/vramplan/vramplan/gpuagent/client"

// fakeImporter: the fake maps memory files, which exist on Linux only.
func fakeImporter() (func() (client.Importer, error), bool) { return nil, false }
