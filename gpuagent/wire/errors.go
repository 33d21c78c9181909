package wire

import (
	"fmt"
	"net/http"
	"strings"
)

// Error codes.
const (
	CodeBadRequest   = "bad_request"  // malformed, out of bounds or unknown
	CodeTooLarge     = "too_large"    // body, batch or list beyond a limit
	CodeNoLease      = "no_lease"     // unknown, expired, closed or another connection's lease
	CodeNoSequence   = "no_sequence"  // the handle names no sequence of this lease
	CodeOverLimit    = "over_limit"   // tokens beyond the sequence's max_tokens or the plan's max_seq_len
	CodeCapacity     = "capacity"     // admission refused: the plan cannot guarantee the blocks (I6)
	CodeUnavailable  = "unavailable"  // the agent is not serving or has too many leases/connections
	CodeInternal     = "internal"     // a bug; the agent logs it
	CodeForbidden    = "forbidden"    // a browser's request or a foreign Host
	CodeUnauthorized = "unauthorized" // a TCP request without the agent's bearer token
	CodeMediaType    = "media_type"   // a POST whose body is not declared application/json
)

// statusOf maps codes to HTTP statuses.
var statusOf = map[string]int{
	CodeBadRequest: http.StatusBadRequest, CodeTooLarge: http.StatusRequestEntityTooLarge,
	CodeNoLease: http.StatusNotFound, CodeNoSequence: http.StatusNotFound,
	CodeOverLimit: http.StatusUnprocessableEntity, CodeCapacity: http.StatusServiceUnavailable,
	CodeUnavailable: http.StatusServiceUnavailable, CodeInternal: http.StatusInternalServerError,
	CodeForbidden: http.StatusForbidden, CodeMediaType: http.StatusUnsupportedMediaType,
	CodeUnauthorized: http.StatusUnauthorized,
}

// Error is a typed failure. Capacity errors carry the block arithmetic.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Capacity: the blocks asked for, the blocks the plan can still
	// guarantee, and the pool's size.
	NeedBlocks      int64 `json:"need_blocks,omitempty"`
	AvailableBlocks int64 `json:"available_blocks,omitempty"`
	PoolBlocks      int64 `json:"pool_blocks,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Status returns the HTTP status for e's code.
func (e *Error) Status() int {
	if s, ok := statusOf[e.Code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// MaxMessage bounds an error's message: the formatted text is cut there, so
// an error about a hostile request never echoes the request back whole (a
// 100 KB op name came back in full).
const MaxMessage = 512

// Errorf returns an *Error with code and a formatted message, cut to
// MaxMessage bytes.
func Errorf(code, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if len(msg) > MaxMessage {
		msg = fmt.Sprintf("%s… (%d bytes more)", strings.ToValidUTF8(msg[:MaxMessage], ""), len(msg)-MaxMessage)
	}
	return &Error{Code: code, Message: msg}
}
