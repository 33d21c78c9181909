package calibrate

// This file is what runs in the child processes: each probe opens the
// device afresh, measures one thing and prints it as JSON.

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/backend/cudamalloc"
	"github.com/vramplan/vramplan/gpuagent/backend/vmm"
)

// Probes, by the name the child is run with.
const (
	ProbeContext = "context"
	ProbeLibrary = "library"
	ProbeVMM     = "vmm"
)

// A Report is what one probe measured.
type Report struct {
	Info    cudamalloc.Info `json:"info"`
	Total   backend.Bytes   `json:"total_bytes"`
	Free    backend.Bytes   `json:"free_bytes"` // right after the context was made current
	Context backend.Bytes   `json:"context_bytes,omitempty"`
	Library backend.Bytes   `json:"library_bytes,omitempty"`
	BLAS    string          `json:"blas,omitempty"`
	GEMMs   int             `json:"gemms,omitempty"`

	Granularity backend.Bytes `json:"granularity_bytes,omitempty"`
	POSIXFD     bool          `json:"posix_fd_export,omitempty"`
	Commit      []Latency     `json:"commit,omitempty"`
	Decommit    []Latency     `json:"decommit,omitempty"`
}

// ProbeOptions configures Probe.
type ProbeOptions struct {
	Device   int      `json:"device"`
	BLASDirs []string `json:"blas_dirs"` // directories to find cuBLAS in; "" is the loader's path
}

// Probe runs the named probe on a device nothing in this process has
// touched yet and writes its Report to w as JSON.
func Probe(name string, opts ProbeOptions, w io.Writer) error {
	var rep Report
	var err error
	switch name {
	case ProbeContext:
		err = probeContext(opts, &rep)
	case ProbeLibrary:
		err = probeLibrary(opts, &rep)
	case ProbeVMM:
		err = probeVMM(opts, &rep)
	default:
		return fmt.Errorf("unknown probe %q", name)
	}
	if err != nil {
		return fmt.Errorf("probe %s: %w", name, err)
	}
	return json.NewEncoder(w).Encode(&rep)
}

// openDevice opens the cudaMalloc backend, which creates the primary
// context, and records what the driver then reports.
func openDevice(opts ProbeOptions, rep *Report) (*cudamalloc.Backend, error) {
	b, err := cudamalloc.Open(cudamalloc.Options{Device: opts.Device})
	if err != nil {
		return nil, err
	}
	rep.Info = b.Info()
	if rep.Free, rep.Total, err = b.MemInfo(); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// probeContext measures the context as what the device no longer has free
// once a fresh process has made its primary context current.
func probeContext(opts ProbeOptions, rep *Report) error {
	b, err := openDevice(opts, rep)
	if err != nil {
		return err
	}
	defer b.Close()
	rep.Context = rep.Total - rep.Free
	return nil
}

// Shapes are the GEMMs of the library probe: an 8B-class decoder's linear
// layers (hidden 4096, MLP 14336) at decode batch 1 and 8 and prefill 512,
// in fp16 and bf16.
func Shapes() []cudamalloc.GEMM {
	var gs []cudamalloc.GEMM
	for _, t := range []cudamalloc.DType{cudamalloc.DTypeFP16, cudamalloc.DTypeBF16} {
		for _, m := range []int{1, 8, 512} {
			for _, nk := range [][2]int{{4096, 4096}, {14336, 4096}, {4096, 14336}} {
				gs = append(gs, cudamalloc.GEMM{M: m, N: nk[0], K: nk[1], Type: t})
			}
		}
	}
	return gs
}

// probeLibrary measures the library reserve: the drop in free memory
// across loading cuBLASLt and cuBLAS, creating their handles and running
// the first GEMM of each shape. The operands are allocated and zeroed
// before the first reading, so they are not counted.
func probeLibrary(opts ProbeOptions, rep *Report) error {
	b, err := openDevice(opts, rep)
	if err != nil {
		return err
	}
	defer b.Close()
	ops, err := operands(b, Shapes())
	if err != nil {
		return err
	}
	defer func() {
		for _, r := range ops {
			b.Release(r)
		}
	}()
	before, _, err := b.MemInfo()
	if err != nil {
		return err
	}
	if rep.BLAS, err = b.LoadBLAS(opts.BLASDirs); err != nil {
		return err
	}
	for _, g := range Shapes() {
		if err := b.Gemm(g, ops[0], ops[1], ops[2]); err != nil {
			return err
		}
		rep.GEMMs++
	}
	if err := b.Synchronize(); err != nil {
		return err
	}
	after, _, err := b.MemInfo()
	rep.Library = before - after
	return err
}

// operands acquires and zeroes W, X and Y large enough for every shape.
func operands(b *cudamalloc.Backend, shapes []cudamalloc.GEMM) ([]*backend.Region, error) {
	var size [3]uint64
	for _, g := range shapes {
		w, x, y := g.Bytes()
		size = [3]uint64{max(size[0], w), max(size[1], x), max(size[2], y)}
	}
	var rs []*backend.Region
	for _, n := range size {
		r, err := b.Acquire(backend.Bytes(n), 0, backend.TagWorkspace)
		if err == nil {
			err = b.Fill(r, 0)
		}
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return rs, b.Synchronize()
}

// vmmChunks and vmmRounds set the latency probe: each chunk size is
// committed and decommitted vmmRounds times after two warm-up rounds.
var vmmChunks = []backend.Bytes{2 * backend.MiB, 32 * backend.MiB, 64 * backend.MiB, 256 * backend.MiB, backend.GiB}

const vmmRounds = 50

// probeVMM measures the granularity, POSIX-fd export and the latency of
// commit (create + map + set access) and decommit (fence + unmap +
// release) through the VMM backend with no hysteresis, by chunk size.
func probeVMM(opts ProbeOptions, rep *Report) error {
	for _, chunk := range vmmChunks {
		if err := probeChunk(opts, chunk, rep); err != nil {
			return err
		}
	}
	return nil
}

func probeChunk(opts ProbeOptions, chunk backend.Bytes, rep *Report) error {
	b, err := vmm.Open(vmm.Options{Device: opts.Device, Chunk: chunk, Hysteresis: -1})
	if err != nil {
		return err
	}
	defer b.Close()
	if rep.Granularity == 0 {
		rep.Granularity = b.Granularity()
		if rep.POSIXFD, err = b.CanExportPOSIXFD(); err != nil {
			return err
		}
	}
	r, err := b.AcquireGrowable(chunk, 0, backend.TagKVPool)
	if err != nil {
		return err
	}
	defer b.Release(r)
	var commit, decommit []float64
	for i := range vmmRounds + 2 {
		t0 := time.Now()
		if err := b.Commit(r, chunk); err != nil {
			return err
		}
		t1 := time.Now()
		if err := b.Decommit(r, 0); err != nil {
			return err
		}
		if i >= 2 {
			commit = append(commit, float64(t1.Sub(t0).Nanoseconds())/1e3)
			decommit = append(decommit, float64(time.Since(t1).Nanoseconds())/1e3)
		}
	}
	rep.Commit = append(rep.Commit, latency(chunk, commit))
	rep.Decommit = append(rep.Decommit, latency(chunk, decommit))
	return nil
}
