package calibrate

import (
	"encoding/json"

	"github.com/vramplan/vramplan/gpuagent/backend"
)

// Schema is the schema identifier of the documents Run produces.
const Schema = "vramplan.calibration/v1"

// Calibration is a calibration document in the planner's schema
// (planner.Calibration, "vramplan.calibration/v1"), field for field and
// tag for tag, so that its JSON is what the planner and the calibrations
// table read. It is declared here because this branch of gpuagent does not
// carry the planner; once both are in one tree it becomes an alias of
// planner.Calibration.
type Calibration struct {
	Schema   string `json:"schema"`
	ID       string `json:"id"`
	GPU      string `json:"gpu"`
	Arch     string `json:"arch,omitempty"`
	SMCount  int    `json:"sm_count,omitempty"`
	Driver   string `json:"driver"`
	CUDA     string `json:"cuda"`
	Platform string `json:"platform"`

	DeviceTotal         backend.Bytes `json:"device_total_bytes"`
	Context             backend.Bytes `json:"context_bytes"`
	ContextEager        backend.Bytes `json:"context_eager_bytes,omitempty"`
	LibraryReserve      backend.Bytes `json:"library_reserve_bytes"`
	LibraryReserveEager backend.Bytes `json:"library_reserve_eager_bytes,omitempty"`
	GraphExec           backend.Bytes `json:"graph_exec_bytes"`

	VMM        VMM        `json:"vmm"`
	Provenance Provenance `json:"provenance"`
}

// VMM holds the virtual-memory-management facts of a device.
type VMM struct {
	Supported     bool          `json:"supported"`
	Granularity   backend.Bytes `json:"granularity_bytes"`
	POSIXFDExport bool          `json:"posix_fd_export"`
	Commit        []Latency     `json:"commit,omitempty"`   // create + map + set access
	Decommit      []Latency     `json:"decommit,omitempty"` // fence + unmap + release
}

// Latency is the measured cost of one VMM operation on a chunk of a size,
// in microseconds.
type Latency struct {
	Chunk  backend.Bytes `json:"chunk_bytes"`
	P50us  float64       `json:"p50_us,omitempty"`
	P90us  float64       `json:"p90_us,omitempty"`
	MeanUs float64       `json:"mean_us,omitempty"`
}

// Provenance records how and where a calibration was measured.
type Provenance struct {
	Method   string `json:"method"`
	Date     string `json:"date"`
	Machine  string `json:"machine,omitempty"`
	Command  string `json:"command,omitempty"`
	Notes    string `json:"notes,omitempty"`
	Uploader string `json:"uploader,omitempty"`
}

// Format returns the canonical encoding of c: two-space indented, as
// encoding/json writes it, with a final newline.
func Format(c *Calibration) []byte {
	b, _ := json.MarshalIndent(c, "", "  ") // a Calibration always marshals
	return append(b, '\n')
}
