package planner

// CalibrationSchema is the schema identifier of a calibration document.
const CalibrationSchema = "vramplan.calibration/v1"

// Calibration is what one GPU + driver + platform charges before the engine
// allocates anything, and what its virtual-memory management costs. It is
// measured by `gpuagent calibrate`; the planner takes it as a value.
type Calibration struct {
	Schema   string `json:"schema"`
	ID       string `json:"id"`
	GPU      string `json:"gpu"`
	Arch     string `json:"arch,omitempty"` // e.g. "sm_90", "sm_120a"
	SMCount  int    `json:"sm_count,omitempty"`
	Driver   string `json:"driver"`
	CUDA     string `json:"cuda"`
	Platform string `json:"platform"` // "linux", "wsl2", "windows"
	// Source says where the figures come from: CalibrationMeasured (the
	// default when empty), CalibrationCommunity or CalibrationEstimated.
	Source string `json:"source,omitempty"`

	// DeviceTotal is the memory the device reports in total.
	DeviceTotal Bytes `json:"device_total_bytes"`
	// UnifiedMemory reports whether the device's memory is the host's, an
	// integrated GPU such as the GB10: what is free is then the system's
	// available memory, which the OS and other processes share, and NVML
	// reports no memory total. Engine profiles read it (engine_vllm_uma.go).
	UnifiedMemory bool `json:"unified_memory,omitempty"`
	// Context is what creating the CUDA context costs, with lazy module
	// loading (the driver default); ContextEager with CUDA_MODULE_LOADING=EAGER.
	Context      Bytes `json:"context_bytes"`
	ContextEager Bytes `json:"context_eager_bytes,omitempty"`
	// LibraryReserve is what cuBLAS/cuBLASLt/CUTLASS claim on their first
	// dispatches, outside any allocator the engine sees (seed A1.5).
	LibraryReserve      Bytes `json:"library_reserve_bytes"`
	LibraryReserveEager Bytes `json:"library_reserve_eager_bytes,omitempty"`
	// GraphExec is the device memory one instantiated CUDA graph holds.
	GraphExec Bytes `json:"graph_exec_bytes"`
	// Comm is what one rank's communicators hold on this GPU, by the size of
	// its largest group (parallel.go); empty means the published estimates.
	Comm []CommCost `json:"comm,omitempty"`

	VMM        VMM        `json:"vmm"`
	Provenance Provenance `json:"provenance"`
}

// The sources of a calibration's figures.
const (
	// CalibrationMeasured figures were measured on the card by one run.
	CalibrationMeasured = "measured"
	// CalibrationCommunity figures are the medians of operators' uploads.
	CalibrationCommunity = "community"
	// CalibrationEstimated figures were carried over from the nearest
	// measured card; only the device total is the card's own.
	CalibrationEstimated = "estimated"
)

// Kind returns c's source, CalibrationMeasured when it names none.
func (c *Calibration) Kind() string {
	if c.Source == "" {
		return CalibrationMeasured
	}
	return c.Source
}

// ItemSource returns a line item's source s as it holds on c: a calibrated
// charge on an estimated card is SourceEstimated, its figure copied from a
// measured card; any other source is s.
func (c *Calibration) ItemSource(s Source) Source {
	if s == SourceCalibrated && c.Kind() == CalibrationEstimated {
		return SourceEstimated
	}
	return s
}

// PlatformName returns c's platform as a person writes it: "Linux",
// "WSL2", "Windows"; another platform as it is spelled.
func (c *Calibration) PlatformName() string {
	switch c.Platform {
	case "linux":
		return "Linux"
	case "wsl2":
		return "WSL2"
	case "windows":
		return "Windows"
	}
	return c.Platform
}

// VMM holds the virtual-memory-management facts of a device.
type VMM struct {
	Supported     bool      `json:"supported"`
	Granularity   Bytes     `json:"granularity_bytes"`
	POSIXFDExport bool      `json:"posix_fd_export"`
	Commit        []Latency `json:"commit,omitempty"`   // create + map + set access
	Decommit      []Latency `json:"decommit,omitempty"` // unmap + release
}

// Latency is the measured cost of one VMM operation on a chunk of a size.
// A statistic that was not measured is zero.
type Latency struct {
	Chunk  Bytes   `json:"chunk_bytes"`
	P50us  float64 `json:"p50_us,omitempty"`
	P90us  float64 `json:"p90_us,omitempty"`
	MeanUs float64 `json:"mean_us,omitempty"`
}

// Provenance records how and where a calibration was measured.
type Provenance struct {
	Method   string `json:"method"`            // "gpuagent calibrate", "seed measurement"
	Date     string `json:"date"`              // YYYY-MM-DD
	Machine  string `json:"machine,omitempty"` // host description
	Command  string `json:"command,omitempty"`
	Notes    string `json:"notes,omitempty"`
	Uploader string `json:"uploader,omitempty"`
	// Tool is the measuring program's version and commit
	// ("gpuagent (devel) abc1234"); Runs the fresh processes per figure;
	// Spread the largest (max − min) / median over the figures' runs.
	Tool   string  `json:"tool,omitempty"`
	Runs   int     `json:"runs,omitempty"`
	Spread float64 `json:"spread,omitempty"`
	// Uncertainty is how much less memory than the figures say the card
	// may leave an engine, for an entry that is not its own measurement
	// (CalibrationEstimated): a plan with less headroom than this may not
	// fit on the card. Zero when it is not known.
	Uncertainty Bytes `json:"uncertainty_bytes,omitempty"`
}

// context returns the context charge for the module-loading mode.
func (c *Calibration) context(eager bool) Bytes {
	if eager && c.ContextEager > 0 {
		return c.ContextEager
	}
	return c.Context
}

// library returns the library reserve for the module-loading mode.
func (c *Calibration) library(eager bool) Bytes {
	if eager && c.LibraryReserveEager > 0 {
		return c.LibraryReserveEager
	}
	return c.LibraryReserve
}

// granularity returns the VMM granularity, 2 MiB when unknown.
func (c *Calibration) granularity() Bytes {
	if c.VMM.Granularity > 0 {
		return c.VMM.Granularity
	}
	return 2 * MiB
}
