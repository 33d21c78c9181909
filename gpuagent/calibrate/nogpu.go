package calibrate

// This file says plainly that a machine has no GPU to measure. The probes
// run in child processes, so what the child found (no libcuda.so.1, or a
// driver that sees no device) crosses back as an exit status, and Run's
// error then wraps ErrNoGPU rather than reading "exit status 1".

import (
	"errors"
	"fmt"

	"github.com/vramplan/vramplan/gpuagent/backend/cudamalloc"
)

// ExitNoGPU is the exit status of a probe child that found no CUDA driver
// or no CUDA device; the command that hands the child to Probe exits with
// it when NoGPU reports its error.
const ExitNoGPU = 3

// ErrNoGPU is wrapped by Run's error when a probe found no CUDA driver or
// no CUDA device on this machine.
var ErrNoGPU = errors.New("no NVIDIA GPU and driver on this machine")

// NoGPU reports whether err, Probe's, says there is no CUDA driver or no
// CUDA device to measure.
func NoGPU(err error) bool {
	return errors.Is(err, cudamalloc.ErrNoDriver) || errors.Is(err, cudamalloc.ErrNoDevice)
}

// childError is the error of a probe child that failed with err: one
// wrapping ErrNoGPU when it exited with ExitNoGPU, else err.
func childError(err error) error {
	var exit interface{ ExitCode() int }
	if errors.As(err, &exit) && exit.ExitCode() == ExitNoGPU {
		return fmt.Errorf("%w (%v)", ErrNoGPU, err)
	}
	return err
}
