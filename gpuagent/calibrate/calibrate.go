// Package calibrate measures what a GPU, its driver and its platform
// charge before an engine allocates anything, and what their virtual
// memory management costs, and writes it as a calibration document in the
// planner's schema (seed A1.5, A3.1).
//
// Where a clean start matters each figure is measured in a fresh child
// process, several times, with CUDA_MODULE_LOADING unset (lazy, the
// driver's default) and set to EAGER; the document holds the medians.
// The child is this program again, run with the probe's name: the command
// that calls Run must hand such a run to Probe.
package calibrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/vramplan/vramplan/gpuagent/backend"
)

// Options configures Run. Its zero value measures device 0, three fresh
// processes per figure, by re-running this executable with
// "calibrate-probe".
type Options struct {
	Device   int      `json:"device"`
	Runs     int      `json:"runs"`      // fresh processes per figure and loading mode; 0 means 3
	BLASDirs []string `json:"blas_dirs"` // where to find cuBLAS; empty means the loader's path
	Machine  string   `json:"machine"`   // provenance: the host, in words
	Command  string   `json:"command"`   // provenance: the command line
	Date     string   `json:"date"`      // provenance: YYYY-MM-DD; empty means today (UTC)

	// Child runs probe in a fresh process with env and returns its
	// standard output. Nil means re-running os.Executable() as
	// "calibrate-probe --device N [--blas-dir D]... probe".
	Child func(probe string, env []string) ([]byte, error) `json:"-"`
	Log   io.Writer                                        `json:"-"` // progress and per-run figures; nil means none
}

// A Figure is one quantity measured in several fresh processes.
type Figure struct {
	Name   string          `json:"name"`
	Runs   []backend.Bytes `json:"runs"`
	Median backend.Bytes   `json:"median"`
	Spread float64         `json:"spread"` // (max − min) / median
}

// Run measures the device and returns its calibration and the figures
// behind it. Its error wraps ErrNoGPU when the machine has no CUDA driver
// or no device.
func Run(opts Options) (*Calibration, []Figure, error) {
	opts = opts.withDefaults()
	var figs []Figure
	reps := map[string]Report{}
	var missing []string
	for _, f := range []struct{ name, probe, mode string }{
		{"context", ProbeContext, ""}, {"context eager", ProbeContext, "EAGER"},
		{"library", ProbeLibrary, ""}, {"library eager", ProbeLibrary, "EAGER"},
	} {
		fig, rep, err := opts.figure(f.name, f.probe, f.mode)
		if err != nil && f.probe == ProbeLibrary {
			// A machine without cuBLAS still gets a document; the note says so.
			fmt.Fprintf(opts.Log, "calibrate: %s not measured: %v\n", f.name, err)
			missing = append(missing, fmt.Sprintf("%s not measured (%v)", f.name, err))
			figs = append(figs, Figure{Name: f.name})
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		figs, reps[f.probe] = append(figs, fig), rep
	}
	vmmRep, err := opts.run(ProbeVMM, "")
	if err != nil {
		return nil, nil, err
	}
	c := assemble(opts, reps[ProbeContext], reps[ProbeLibrary], vmmRep, figs)
	if len(missing) > 0 {
		c.Provenance.Notes += " " + strings.Join(missing, "; ") + "."
	}
	return c, figs, nil
}

func (o Options) withDefaults() Options {
	if o.Runs <= 0 {
		o.Runs = 3
	}
	if o.Date == "" {
		o.Date = time.Now().UTC().Format(time.DateOnly)
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Child == nil {
		o.Child = o.reexec
	}
	return o
}

// figure runs probe o.Runs times with CUDA_MODULE_LOADING=mode (unset when
// mode is empty).
func (o Options) figure(name, probe, mode string) (Figure, Report, error) {
	fig := Figure{Name: name}
	var rep Report
	for range o.Runs {
		r, err := o.run(probe, mode)
		if err != nil {
			return fig, rep, err
		}
		v := r.Context
		if probe == ProbeLibrary {
			v = r.Library
		}
		fig.Runs, rep = append(fig.Runs, v), r
	}
	fig.Median, fig.Spread = medianBytes(fig.Runs), spread(fig.Runs)
	fmt.Fprintf(o.Log, "calibrate: %-14s median %v, runs %v, spread %.3f %%\n", name, fig.Median, fig.Runs, 100*fig.Spread)
	return fig, rep, nil
}

func (o Options) run(probe, mode string) (Report, error) {
	var rep Report
	out, err := o.Child(probe, moduleEnv(os.Environ(), mode))
	if err != nil {
		return rep, fmt.Errorf("calibrate-probe %s (CUDA_MODULE_LOADING=%q): %w", probe, mode, childError(err))
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &rep); err != nil {
		return rep, fmt.Errorf("calibrate-probe %s: %w in %q", probe, err, out)
	}
	return rep, nil
}

// moduleEnv returns env with CUDA_MODULE_LOADING set to mode, or removed
// when mode is empty.
func moduleEnv(env []string, mode string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "CUDA_MODULE_LOADING=") {
			out = append(out, kv)
		}
	}
	if mode != "" {
		out = append(out, "CUDA_MODULE_LOADING="+mode)
	}
	return out
}

// reexec runs this executable as "calibrate-probe".
func (o Options) reexec(probe string, env []string) ([]byte, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{"calibrate-probe", "--device", strconv.Itoa(o.Device)}
	for _, d := range o.BLASDirs {
		args = append(args, "--blas-dir", d)
	}
	cmd := exec.Command(exe, append(args, probe)...)
	cmd.Env, cmd.Stderr = env, o.Log
	return cmd.Output()
}
