//go:build !unix

package gpuagenttest

// This file exists for platforms without mmap: the fake's device memory
// is ordinary heap memory there.

func hostAlloc(n int) ([]byte, error) { return make([]byte, n), nil }

func hostFree([]byte) {}
