package planner

// This file holds a rank's communication memory: the NCCL buffers of its
// communicators and vLLM's custom all-reduce buffer. It is calibration data,
// not a formula: NCCL sizes its buffers per channel and per peer, and picks
// the channel count from the topology, which a planner cannot see. Until
// `gpuagent calibrate` measures it for a GPU (Calibration.Comm), the plan
// charges the published figures below, tagged SourceEstimated.

// CommCost is the communication memory of one rank whose largest
// communicator has GroupRanks ranks.
type CommCost struct {
	GroupRanks int   `json:"group_ranks"`
	Bytes      Bytes `json:"bytes"`
}

// Published figures (notes/engines.md, Multi-GPU): NVIDIA AIConfigurator's
// tables charge NCCL 0, 342 and 392 MB at TP 1, 2 and ≥ 4; vLLM's custom
// all-reduce holds about 24 MiB per rank
// (vllm/distributed/device_communicators/custom_all_reduce.py).
const (
	ncclTwo         Bytes = 342_000_000
	ncclFour        Bytes = 392_000_000
	customAllReduce Bytes = 24 * MiB
)

// estimatedComm is the published estimate for a largest group of g ranks,
// with the custom all-reduce's buffers unless p turns it off. A group of
// three takes the figure for four: the tables have no row for it.
func estimatedComm(g int, p *Parallel) Bytes {
	nccl := ncclFour
	switch {
	case g <= 1:
		return 0
	case g == 2:
		nccl = ncclTwo
	}
	if p.NoCustomAllReduce {
		return nccl
	}
	return nccl + customAllReduce
}

// commGroup is the size of a rank's largest communicator: its tensor group,
// its expert group, and for a pipeline the two-rank send/receive pair;
// none for llama.cpp's layer split.
func commGroup(p *Parallel) int {
	if p.llamaSplit() {
		// llama.cpp's layer split opens no communicator: ggml's scheduler
		// copies activations between the devices, and only the meta device
		// of -sm tensor calls the backend's ggml_backend_comm_init
		// (ggml/src/ggml-backend-meta.cpp at 81ff7abe).
		return 1
	}
	g := max(p.tp(), p.ep())
	if p.pp() > 1 {
		g = max(g, 2)
	}
	return g
}

// commFor returns the communication memory of a rank in layout p on GPU c:
// the calibration's figure for the largest measured group not larger than
// the rank's, else the published estimate.
func commFor(p *Parallel, c *Calibration) (Bytes, Source) {
	g := commGroup(p)
	if g == 1 {
		return 0, SourceCalibrated
	}
	best := -1
	for i, x := range c.Comm {
		if x.GroupRanks <= g && (best < 0 || x.GroupRanks > c.Comm[best].GroupRanks) {
			best = i
		}
	}
	if best >= 0 {
		return c.Comm[best].Bytes, SourceCalibrated
	}
	return estimatedComm(g, p), SourceEstimated
}

// commDetail states how a rank's communication memory was found.
func (c *charges) commDetail(in *Input) string {
	r := in.Rank
	g := int64(commGroup(&r.Layout))
	if r.CommSource == SourceEstimated && llamaTensorRank(in) {
		return c.linef("NCCL over %d GPUs (ggml_backend_comm_init): %B, AIConfigurator's tables, estimated", g, int64(r.Comm))
	}
	if r.CommSource == SourceEstimated && r.Layout.NoCustomAllReduce {
		return c.linef("largest group %d ranks: NCCL %B (AIConfigurator's tables; no custom all-reduce), estimated", g, int64(r.Comm))
	}
	if r.CommSource == SourceEstimated {
		return c.linef("largest group %d ranks: NCCL %B (AIConfigurator's tables) + custom all-reduce %B (vLLM), estimated",
			g, int64(r.Comm-customAllReduce), int64(customAllReduce))
	}
	return c.linefs("largest group %d ranks, measured: %s", in.Calibration.ID, g)
}

// commCharge charges a rank's communication memory, under every engine
// profile: NCCL and the custom all-reduce allocate it outside the
// engine's allocator, before the engine sizes its KV pool.
func (c *charges) commCharge(in *Input) {
	if r := in.Rank; r != nil && r.Comm > 0 {
		c.set(keyComm, r.Comm)
	}
}
