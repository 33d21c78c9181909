package wire

// The pool connection: how an engine process maps the agent's KV pool.
//
// A leased client dials the agent's Unix socket a second time and asks
//
//	GET /v1/pool HTTP/1.1
//	Connection: Upgrade
//	Upgrade: gpuagent-pool/1
//	Gpuagent-Lease: <lease id>
//
// After "101 Switching Protocols" the agent sends PoolMsg frames (AppendFrame:
// a 4-byte big-endian length, then JSON) and the client answers each with a
// PoolAck frame. A "map" message carries, as SCM_RIGHTS ancillary data on
// the same socket, one POSIX file descriptor per chunk, in the order of
// Chunks; the first one also carries the Layout. The client imports each
// descriptor, maps it at base+offset of one range it reserved of
// Layout.Reserve bytes, closes the descriptor and acks. An "unmap" message
// names chunks the agent is about to decommit: the client waits for its
// own work on them, unmaps them and acks. Descriptors are sent only on a
// Unix socket, never over TCP.
//
// Growth is pushed: every mapped client is sent every new chunk, and a
// lease is handed no block before its own client has acked every map sent
// so far; other clients' answers are not waited for. A client that answers
// with an error, or not within the agent's map timeout of the message
// being queued, loses its lease; the lease's next call says why. Messages
// to one client arrive in order, and it answers them in order. Closing the
// pool connection ends the lease.

// PoolProtocol is the Upgrade token of the pool connection.
const PoolProtocol = "gpuagent-pool/1"

// PoolLeaseHeader names the lease a pool connection maps for.
const PoolLeaseHeader = "Gpuagent-Lease"

// MaxPoolFDs is the most descriptors one map message carries (the
// kernel's limit per message is 253); more chunks take more messages.
const MaxPoolFDs = 128

// Pool message operations.
const (
	PoolMap   = "map"
	PoolUnmap = "unmap"
	PoolError = "error" // the agent refused the mapping: Error says why, and the connection ends
)

// PoolMsg is one message from the agent on a pool connection.
type PoolMsg struct {
	Seq    uint64      `json:"seq"`
	Op     string      `json:"op"`
	Layout *PoolLayout `json:"layout,omitempty"`
	Chunks []PoolChunk `json:"chunks"`
	Error  string      `json:"error,omitempty"`
}

// PoolChunk is one chunk of the pool: Size bytes at Offset from its base.
type PoolChunk struct {
	Offset int64 `json:"offset"`
	Size   int64 `json:"size"`
}

// PoolAck answers the PoolMsg with the same Seq; Error is empty when the
// client did what it asked.
type PoolAck struct {
	Seq   uint64 `json:"seq"`
	Error string `json:"error,omitempty"`
}

// PoolLayout is where things are in the pool. Block b (1 to Blocks) is the
// BlockBytes at offset (b-1)·BlockBytes; inside a block, each attention
// layer's keys and values are at the offsets Layers gives, token-major
// (token, then KV head, then element) in the plan's KV dtype.
type PoolLayout struct {
	Reserve     int64         `json:"reserve_bytes"` // address space to reserve
	Granularity int64         `json:"granularity_bytes"`
	Chunk       int64         `json:"chunk_bytes"` // the plan's commit chunk
	Blocks      int64         `json:"blocks"`
	BlockBytes  int64         `json:"block_bytes"`
	BlockTokens int           `json:"block_tokens"`
	Dtype       string        `json:"dtype"`
	Layers      []LayerLayout `json:"layers,omitempty"`
}

// LayerLayout is one attention layer's keys and values inside a block. An
// MLA layer's latent is K, with an empty V.
type LayerLayout struct {
	Layer   int   `json:"layer"`    // decoder layer index
	KVHeads int   `json:"kv_heads"` // 1 for MLA
	K       Span  `json:"k"`
	V       Span  `json:"v"`
	KRow    int64 `json:"k_row_bytes"` // one head's key row
	VRow    int64 `json:"v_row_bytes"`
}

// Span is Bytes bytes at Offset.
type Span struct {
	Offset int64 `json:"offset"`
	Bytes  int64 `json:"bytes"`
}
