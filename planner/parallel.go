package planner

// This file is the input side of a multi-GPU plan: the parallel layout, the
// coordinates of a rank in it, and the checks that refuse a layout the
// engines refuse. A layout is planned as a layer on top of the single-GPU
// planner (layout.go): each distinct rank's share of the model (shard.go) is
// planned as one GPU's input, and the plans are joined.
//
// Ranks are numbered as vLLM numbers them (vllm/distributed/parallel_state.py,
// initialize_model_parallel: the world is laid out as DP × PP × TP with the
// tensor-parallel rank fastest): rank r has tensor rank r mod tp, pipeline
// stage (r / tp) mod pp and replica r / (tp × pp).

import (
	"bytes"

	"github.com/vramplan/vramplan/internal/printf"
)

// Parallel is a parallel layout: how many GPUs split each layer (tensor
// parallelism), how many split the layers (pipeline stages), how many split
// the experts of a mixture-of-experts model, and how many copies serve
// independently (data-parallel replicas). Zero sizes mean 1, so the zero
// value is one GPU and every single-GPU input stays valid.
type Parallel struct {
	// Tensor is the tensor-parallel size (vLLM --tensor-parallel-size, SGLang --tp).
	Tensor int `json:"tensor_parallel,omitempty"`
	// Pipeline is the number of pipeline stages (--pipeline-parallel-size, --pp).
	Pipeline int `json:"pipeline_parallel,omitempty"`
	// Expert is the expert-parallel size. It either divides Tensor (SGLang
	// --ep-size: each expert's FFN is split further by Tensor / Expert) or is
	// a multiple of Tensor that divides Tensor × Data (vLLM
	// --enable-expert-parallel, where it is Tensor × Data: whole experts).
	Expert int `json:"expert_parallel,omitempty"`
	// Data is the number of data-parallel replicas. Limits apply to each
	// replica: a replica serves MaxBatch sequences of its own.
	Data int `json:"data_parallel,omitempty"`
	// Calibrations holds one calibration per rank, for mixed cards; empty
	// means every rank is the input's Calibration.
	Calibrations []Calibration `json:"calibrations,omitempty"`
	// TensorSplit is llama.cpp's -ts under its layer split (-sm layer): the
	// share of each pipeline stage, one device each (engine_llamacpp_layer_split.go). It is
	// set, equal shares by default, for a llama.cpp layout of more than one
	// stage. Under llama.cpp's -sm tensor (tensor_parallel above 1) it is
	// the share of each tensor-parallel device, empty for llama.cpp's even
	// split (engine_llamacpp_tensor_split.go).
	TensorSplit []float64 `json:"tensor_split,omitempty"`
	// NoCustomAllReduce is vLLM's and SGLang's --disable-custom-all-reduce:
	// the tensor group all-reduces through NCCL alone, and the custom
	// all-reduce's buffers are not allocated (comm.go).
	NoCustomAllReduce bool `json:"no_custom_all_reduce,omitempty"`

	// ngl is llama.cpp's -ngl over every device of a layer split
	// (serving.llama_cpp.gpu_layers; 0: every layer), set with the split.
	ngl int
}

// Rank places a single-GPU input in a parallel layout: its model is already
// the rank's share, and Comm is what its communicators hold. A layout plan
// carries one such input per distinct rank; gpuagent serves one of them.
type Rank struct {
	// Ranks lists the global ranks this input plans; they hold the same bytes.
	Ranks []int `json:"ranks"`
	// Layout is the layout's sizes, without calibrations.
	Layout Parallel `json:"layout"`
	// Stage is the pipeline stage; Layers its first and one-past-last decoder layer.
	Stage  int    `json:"stage"`
	Layers [2]int `json:"layers"`
	// Experts is how many of the model's experts the rank holds.
	Experts int `json:"experts,omitempty"`
	// Comm is the rank's communication memory (NCCL buffers, custom
	// all-reduce), CommSource where the figure comes from.
	Comm       Bytes  `json:"comm_bytes,omitempty"`
	CommSource Source `json:"comm_source,omitempty"`
}

// MaxParallel is the largest size of one dimension of a layout (tensor,
// pipeline, data or expert parallel) that an input may have.
const MaxParallel = 1 << 10

// maxWorld bounds a layout's GPUs in all.
const maxWorld = 1 << 12

func (p *Parallel) tp() int { return max(p.Tensor, 1) }
func (p *Parallel) pp() int { return max(p.Pipeline, 1) }
func (p *Parallel) ep() int { return max(p.Expert, 1) }
func (p *Parallel) dp() int { return max(p.Data, 1) }

// rankTP is the tensor-parallel size of the layout in's rank belongs to, 1
// for a single GPU.
func rankTP(in *Input) int {
	if r := in.Rank; r != nil {
		return r.Layout.tp()
	}
	return 1
}

// GPUs reports how many GPUs the layout uses.
func (p *Parallel) GPUs() int { return p.tp() * p.pp() * p.dp() }

// multi reports whether p asks for more than the plain single-GPU plan.
func (p *Parallel) multi() bool { return p.GPUs() > 1 || p.ep() > 1 || len(p.Calibrations) > 0 }

// sizes returns p with its sizes resolved and no calibrations.
func (p *Parallel) sizes() Parallel {
	return Parallel{Tensor: p.tp(), Pipeline: p.pp(), Expert: p.ep(), Data: p.dp(), TensorSplit: p.TensorSplit,
		NoCustomAllReduce: p.NoCustomAllReduce, ngl: p.ngl}
}

// moeTP is the tensor-parallel split of each expert's FFN.
func (p *Parallel) moeTP() int {
	if p.ep() <= p.tp() {
		return p.tp() / p.ep()
	}
	return 1
}

// coord is a rank's place in the layout.
type coord struct{ rank, tpRank, stage, replica, epRank int }

func (p *Parallel) coord(r int) coord {
	tp, pp := p.tp(), p.pp()
	c := coord{rank: r, tpRank: r % tp, stage: (r / tp) % pp, replica: r / (tp * pp)}
	c.epRank = ((c.replica*tp + c.tpRank) / p.moeTP()) % p.ep()
	return c
}

// stageLayers is vLLM's get_pp_indices (vllm/distributed/utils.py): L / pp
// layers per stage, the remainder one each to the second-to-last stage,
// then the third-to-last, and so on; the last stage takes no extra layer.
func stageLayers(layers, pp, stage int) (start, end int) {
	per, rem := layers/pp, layers%pp
	for s := 0; s <= stage; s++ {
		n := per
		if i := pp - 1 - s; i >= 1 && i <= rem { // partitions[-2], [-3], … get +1
			n++
		}
		start, end = end, end+n
	}
	return start, end
}

// localExperts is fused_moe/layer.py's rule: E / ep experts per rank, one
// more for each of the first E mod ep ranks.
func localExperts(e, ep, epRank int) int {
	n := e / ep
	if epRank < e%ep {
		n++
	}
	return n
}

// paddedVocab is vLLM's pad_vocab_size (vocab_parallel_embedding.py): the
// vocabulary rounded up to a multiple of 64 before it is split by TP.
func paddedVocab(v int) int { return (v + 63) / 64 * 64 }

// validateParallel checks the layout against the model as the engines do:
// vLLM asserts every division (vllm/distributed/utils.py divide), so a
// layout that does not divide is an input error naming the field.
func validateParallel(in *Input) error {
	p := &in.Parallel
	for _, f := range [...]struct {
		field string // whole, not joined: every plan validates
		v     int
	}{{"parallel.tensor_parallel", p.Tensor}, {"parallel.pipeline_parallel", p.Pipeline},
		{"parallel.expert_parallel", p.Expert}, {"parallel.data_parallel", p.Data}} {
		if err := inRange(f.field, f.v, 0, MaxParallel); err != nil {
			return err
		}
	}
	if p.GPUs() > maxWorld {
		return bad("parallel", "%d GPUs in all, more than %d", p.GPUs(), maxWorld)
	}
	if err := validateTensorSplit(in); err != nil {
		return err
	}
	if !p.multi() {
		return validateRank(in)
	}
	if in.Rank != nil {
		return bad("rank", "a rank's input has no parallel layout of its own")
	}
	if llamaTensor(in) { // llama.cpp's -sm tensor: its own rules (engine_llamacpp_tensor_split.go)
		if err := validateLlamaTensor(in); err != nil {
			return err
		}
		return validateCalibrations(in)
	}
	if err := validateTensor(in); err != nil { // called directly: see Validate
		return err
	}
	if err := validatePipeline(in); err != nil {
		return err
	}
	if err := validateExpert(in); err != nil {
		return err
	}
	return validateCalibrations(in)
}

func notDivisible(what string, n, d int, name string) error {
	return bad("parallel."+name, "%s %d is not divisible by %s %d", what, n, name, d)
}

func validateTensor(in *Input) error {
	m, tp := &in.Model, in.Parallel.tp()
	if tp == 1 {
		return nil
	}
	if m.QueryHeads > 0 && m.QueryHeads%tp != 0 {
		return notDivisible("model.query_heads", m.QueryHeads, tp, "tensor_parallel")
	}
	if m.IntermediateSize > 0 && m.IntermediateSize%tp != 0 {
		return notDivisible("model.intermediate_size", m.IntermediateSize, tp, "tensor_parallel")
	}
	if v := paddedVocab(m.VocabSize); v%tp != 0 {
		return notDivisible("the vocabulary padded to 64", v, tp, "tensor_parallel")
	}
	for i := range m.Layers {
		if err := validateLayerTP(i, &m.Layers[i].Layer, tp); err != nil {
			return err
		}
	}
	return nil
}

// validateLayerTP applies vLLM's attention check (models/llama.py,
// LlamaAttention.__init__): KV heads divide by TP, or TP by KV heads, in
// which case every rank holds one replicated head.
func validateLayerTP(i int, l *Layer, tp int) error {
	switch l.Kind {
	case LayerFull, LayerSliding:
		if kv := l.KVHeads; kv%tp != 0 && tp%kv != 0 {
			return bad("parallel.tensor_parallel", "%s %d and tensor_parallel %d: neither divides the other",
				layerField(i, "kv_heads"), kv, tp)
		}
	case LayerRecurrent:
		if r := l.Recurrent; r != nil && (r.Heads%tp != 0 || r.ConvChannels%tp != 0) {
			return bad("parallel.tensor_parallel", "%s heads %d and conv_channels %d are not divisible by tensor_parallel %d",
				layerField(i, "recurrent"), r.Heads, r.ConvChannels, tp)
		}
	}
	return nil
}

func validatePipeline(in *Input) error {
	if pp, n := in.Parallel.pp(), in.Model.NumLayers(); pp > n {
		return bad("parallel.pipeline_parallel", "%d stages but the model has %d layers", pp, n)
	}
	return nil
}

func validateExpert(in *Input) error {
	p, m := &in.Parallel, &in.Model
	ep, tp := p.ep(), p.tp()
	if ep == 1 {
		return validateMoETP(m, tp)
	}
	switch {
	case m.MoE == nil || m.MoE.Experts == 0:
		return bad("parallel.expert_parallel", "%d, but the model has no experts", ep)
	case m.MoE.Experts < ep:
		return bad("parallel.expert_parallel", "%d is more than the model's %d experts", ep, m.MoE.Experts)
	case tp%ep != 0 && (ep%tp != 0 || (tp*p.dp())%ep != 0):
		return bad("parallel.expert_parallel", "%d must divide tensor_parallel %d, or be a multiple of it that divides "+
			"tensor_parallel × data_parallel %d", ep, tp, tp*p.dp())
	}
	return validateMoETP(m, p.moeTP())
}

func validateMoETP(m *Model, moeTP int) error {
	if e := m.MoE; e != nil && e.IntermediateSize > 0 && e.IntermediateSize%moeTP != 0 {
		return bad("parallel.tensor_parallel", "model.moe.intermediate_size %d is not divisible by the experts' "+
			"tensor split %d", e.IntermediateSize, moeTP)
	}
	return nil
}

func validateCalibrations(in *Input) error {
	cs := in.Parallel.Calibrations
	if len(cs) == 0 {
		return nil
	}
	if n := in.Parallel.GPUs(); len(cs) != n {
		return bad("parallel.calibrations", "%d calibrations for %d GPUs (give one per rank, or none)", len(cs), n)
	}
	for i := range cs {
		t := Input{Calibration: cs[i], Budget: in.Budget}
		for _, check := range [...]func(*Input) error{validateCalibration, validateBudget, validateOwnComm} {
			if err := check(&t); err != nil {
				return calibrationError(i, err)
			}
		}
	}
	return nil
}

// validateOwnComm checks a calibration's communication costs; the field is
// named when the error is, not for every calibration of every plan.
func validateOwnComm(in *Input) error { return validateComm("comm", in.Calibration.Comm) }

// calibrationError names the field of err, an error of the i'th calibration
// of a layout, in the layout input.
func calibrationError(i int, err error) error {
	ie := err.(*InputError)
	return bad(printf.Sprintf("parallel.calibrations[%d].%s", i, ie.Field), "%s", ie.Msg)
}

func validateRank(in *Input) error {
	if err := validateComm("calibration.comm", in.Calibration.Comm); err != nil {
		return err
	}
	r := in.Rank
	if r == nil {
		return nil
	}
	n := r.Layout.GPUs()
	if len(r.Ranks) == 0 || len(r.Ranks) > n || n > maxWorld {
		return bad("rank.ranks", "%d ranks of a %d-GPU layout", len(r.Ranks), n)
	}
	for _, x := range r.Ranks {
		if x < 0 || x >= n {
			return bad("rank.ranks", "rank %d is out of range [0, %d)", x, n)
		}
	}
	if r.Comm < 0 || r.Comm > maxBudget {
		return bad("rank.comm_bytes", "%d is out of range [0, 1 PiB]", r.Comm)
	}
	return nil
}

func validateComm(field string, cs []CommCost) error {
	for i, c := range cs {
		if c.GroupRanks < 1 || c.GroupRanks > maxWorld || c.Bytes < 0 || c.Bytes > maxBudget {
			return bad(printf.Sprintf("%s[%d]", field, i), "group of %d ranks, %d bytes: out of range", c.GroupRanks, c.Bytes)
		}
	}
	return nil
}

// rankCalibration returns the calibration of global rank r.
func (in *Input) rankCalibration(r int) *Calibration {
	if cs := in.Parallel.Calibrations; len(cs) > 0 {
		return &cs[r]
	}
	return &in.Calibration
}

// sameCalibration reports whether a and b are the same figures.
func sameCalibration(a, b *Calibration) bool {
	if a == b {
		return true
	}
	ca, cb := *a, *b // marshalled as copies, so that a and b do not escape
	x, _ := marshal(&ca)
	y, _ := marshal(&cb)
	return bytes.Equal(x, y)
}
