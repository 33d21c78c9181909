// Package wire is the format engines and gpuagent exchange: JSON over
// HTTP/1.1, on a Unix socket or loopback TCP. It holds the request and
// response types, the error codes, the framing limits and the bounded
// decoder the server runs on every request body.
//
// # Framing
//
// Every call is one HTTP request, or one frame on an upgraded connection,
// with a JSON body of at most MaxBody bytes
// and one JSON response. Unknown fields, trailing data, negative numbers
// and numbers beyond the limits are errors that name the field. A step
// carries at most MaxOps general operations and at most MaxBatch decode
// sequences (the agent lowers both to its plan's max_batch); an operation
// carries at most MaxHashes content hashes.
//
// # Calls
//
//	POST /v1/lease        OpenLease  -> Lease
//	POST /v1/lease/renew  LeaseRef   -> Lease
//	POST /v1/lease/close  LeaseRef   -> {}
//	POST /v1/step         Step       -> StepResult   (batched; per-operation errors)
//	POST /v1/admit        AdmitCall  -> Result       (one admission; 503 on capacity)
//	GET  /v1/report                  -> report document
//	GET  /metrics                    -> Prometheus text
//	GET  /v1/frames (Upgrade)        -> the same calls as frames (FramesProtocol)
//	frame CallDecode      binary decode step -> binary DecodeResult (frames only)
//
// The decode step an engine sends every scheduler step has a binary form
// on frames (CallDecode, laid out in binary.go) that both ends read and
// write without allocating; its answers equal a JSON Step's with the
// same Decode.
//
// A lease belongs to the connection that opened it: it ends when that
// connection closes, when it is not renewed within its TTL, or when it is
// closed, and everything it holds is released then. Sequence handles are
// numbers private to one lease; another lease cannot name them.
package wire

// Framing limits. The server refuses anything larger.
const (
	MaxBody   = 1 << 20 // bytes in one request body
	MaxOps    = 1024    // general operations in one step
	MaxBatch  = 4096    // decode sequences in one step
	MaxHashes = 1 << 16 // content hashes in one operation
	MaxTokens = 1 << 27 // tokens in any count (the planner's own bound)
	MaxTTLms  = 600_000 // longest lease TTL, 10 minutes
)

// Operation names.
const (
	OpAdmit  = "admit"  // new sequence: max_tokens, optional prompt tokens and hashes
	OpAppend = "append" // grow a sequence by tokens; hashes for the blocks it completes
	OpFork   = "fork"   // new sequence sharing seq's blocks
	OpFree   = "free"   // end a sequence
	OpPin    = "pin"    // pin cached prefix blocks by hash for this lease
	OpUnpin  = "unpin"  // drop this lease's pins
	OpTable  = "table"  // read a sequence's block table
)

// OpenLease asks for a lease. TTLms 0 means the server's default.
type OpenLease struct {
	TTLms int64  `json:"ttl_ms,omitempty"`
	Name  string `json:"name,omitempty"` // for logs and metrics only
	// CacheSalt, when set, keeps the lease's prefix blocks apart from
	// those of leases with another salt: a prefix hit then says only that
	// a lease with the same salt processed the prefix. At most 256 bytes.
	CacheSalt string `json:"cache_salt,omitempty"`
}

// Lease describes an open lease and the limits its calls must respect.
type Lease struct {
	Lease  string `json:"lease"`
	TTLms  int64  `json:"ttl_ms"`
	Limits Limits `json:"limits"`
}

// Limits are the plan's bounds a client must stay inside.
type Limits struct {
	MaxSeqLen   int    `json:"max_seq_len"`
	MaxBatch    int    `json:"max_batch"` // decode sequences and operations per step
	BlockTokens int    `json:"block_tokens"`
	BlockBytes  int64  `json:"block_bytes"`
	Blocks      int64  `json:"blocks"`
	KVBase      uint64 `json:"kv_base"` // the KV pool's base address; it never moves
	// The lease's quotas: open sequences, and global blocks promised to
	// them. Admission past either is refused.
	LeaseSeqs   int   `json:"lease_seqs"`
	LeaseBlocks int64 `json:"lease_blocks"`
	Salted      bool  `json:"salted,omitempty"` // opened with a cache_salt
}

// LeaseRef names a lease.
type LeaseRef struct {
	Lease string `json:"lease"`
}

// Step is one scheduler step's worth of calls, applied in order: first the
// general operations, then one decode token for each sequence in Decode.
type Step struct {
	Lease  string  `json:"lease"`
	Ops    []Op    `json:"ops,omitempty"`
	Decode *Decode `json:"decode,omitempty"`
}

// Op is one general operation. Which fields matter depends on Op.
type Op struct {
	Op        string `json:"op"`
	Seq       uint64 `json:"seq,omitempty"`        // append, fork, free, table
	MaxTokens int    `json:"max_tokens,omitempty"` // admit, fork (0: the parent's)
	Tokens    int    `json:"tokens,omitempty"`     // admit (prompt), append
	Hashes    IDs    `json:"hashes,omitempty"`     // admit, append: blocks completed; pin
}

// Decode appends one token to each sequence in Seqs. Hashes, when given,
// has one entry per sequence: the content hash of the block that token
// completes, or 0.
type Decode struct {
	Seqs   IDs `json:"seqs"`
	Hashes IDs `json:"hashes,omitempty"`
}

// StepResult answers a Step: one Result per operation, in order, and the
// decode outcome.
type StepResult struct {
	Results []Result      `json:"results,omitempty"`
	Decode  *DecodeResult `json:"decode,omitempty"`
}

// Result is the outcome of one operation. Blocks are the block ids the
// operation added to the sequence's table (the whole table for table and
// fork), in position order; -1 is a hole.
type Result struct {
	Seq    uint64  `json:"seq,omitempty"`
	Blocks []int32 `json:"blocks,omitempty"`
	Hits   int     `json:"hits,omitempty"`   // blocks shared from the prefix cache
	Copies []Copy  `json:"copies,omitempty"` // fork: content the engine must copy
	Pinned int     `json:"pinned,omitempty"`
	Error  *Error  `json:"error,omitempty"`
}

// Copy asks the engine to copy block From into block To.
type Copy struct {
	SWA  bool  `json:"swa,omitempty"`
	From int32 `json:"from"`
	To   int32 `json:"to"`
}

// DecodeResult has one entry per decode sequence: the block id the token
// added, or 0 when it fit in the last block. Errors lists the sequences
// that failed; their entry in Blocks is 0.
type DecodeResult struct {
	Blocks []int32    `json:"blocks"`
	Errors []IndexErr `json:"errors,omitempty"`
}

// IndexErr is the error of the decode sequence at Index.
type IndexErr struct {
	Index int    `json:"index"`
	Error *Error `json:"error"`
}

// AdmitCall is a single admission outside a step.
type AdmitCall struct {
	Lease string `json:"lease"`
	Op    Op     `json:"op"`
}
