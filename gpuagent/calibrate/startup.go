package calibrate

import (
	"fmt"

	"github.com/vramplan/vramplan/gpuagent/backend"
)

// Startup re-measures, from a process that already holds a context on the
// device, what one CUDA context and the library reserve cost now (the
// seed's open question: compare the assumed charge with the actual one at
// every start). A fresh child process makes its own context, so free memory
// read here by free just before the child starts, less the free memory the
// child reads right after its context is current, is one context's cost
// even beside other processes; the library reserve is the child's own delta
// across loading cuBLAS and its first GEMMs. eager selects
// CUDA_MODULE_LOADING=EAGER for both children.
func Startup(o Options, eager bool, free func() (backend.Bytes, error)) (context, library backend.Bytes, err error) {
	o = o.withDefaults()
	mode := ""
	if eager {
		mode = "EAGER"
	}
	before, err := free()
	if err != nil {
		return 0, 0, fmt.Errorf("reading free memory: %w", err)
	}
	ctx, err := o.run(ProbeContext, mode)
	if err != nil {
		return 0, 0, err
	}
	lib, err := o.run(ProbeLibrary, mode)
	if err != nil {
		return 0, 0, fmt.Errorf("%w (give --blas-dir where cuBLAS is)", err)
	}
	return before - ctx.Free, lib.Library, nil
}
