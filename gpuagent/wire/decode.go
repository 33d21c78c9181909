package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
)

// Unmarshal decodes one JSON document from data into v. It refuses more
// than MaxBody bytes, unknown fields, anything after the document, a key
// an object names twice, and a key that matches its field only when case
// is ignored ("LEASE" for "lease"): encoding/json would take the last of
// the one and accept the other.
func Unmarshal(data []byte, v any) *Error {
	if len(data) > MaxBody {
		return Errorf(CodeTooLarge, "body over %d bytes", MaxBody)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return Errorf(CodeBadRequest, "decoding: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Errorf(CodeBadRequest, "decoding: trailing data after the document")
	}
	return checkKeys(data, reflect.TypeOf(v))
}

// Bounds are the limits Check holds a step to: the framing limits lowered
// to one plan's.
type Bounds struct {
	MaxOps    int // general operations per step
	MaxBatch  int // decode sequences per step
	MaxTokens int // tokens in any count
	MaxHashes int // hashes in one operation
}

// Check reports the first way s breaks b or the operation grammar.
func (s *Step) Check(b Bounds) *Error {
	if s.Lease == "" {
		return Errorf(CodeBadRequest, "lease: missing")
	}
	if len(s.Ops) > b.MaxOps {
		return Errorf(CodeTooLarge, "ops: %d operations, at most %d", len(s.Ops), b.MaxOps)
	}
	for i := range s.Ops {
		if err := s.Ops[i].Check(b); err != nil {
			err.Message = "ops[" + strconv.Itoa(i) + "]: " + err.Message
			return err
		}
	}
	if d := s.Decode; d != nil {
		if len(d.Seqs) > b.MaxBatch {
			return Errorf(CodeTooLarge, "decode.seqs: %d sequences, at most %d", len(d.Seqs), b.MaxBatch)
		}
		if len(d.Hashes) != 0 && len(d.Hashes) != len(d.Seqs) {
			return Errorf(CodeBadRequest, "decode.hashes: %d hashes for %d sequences", len(d.Hashes), len(d.Seqs))
		}
	}
	return nil
}

// opFields says which fields an operation may carry.
var opFields = map[string]struct{ seq, maxTokens, tokens, hashes bool }{
	OpAdmit:  {false, true, true, true},
	OpAppend: {true, false, true, true},
	OpFork:   {true, true, false, false},
	OpFree:   {true, false, false, false},
	OpPin:    {false, false, false, true},
	OpUnpin:  {false, false, false, false},
	OpTable:  {true, false, false, false},
}

// Check reports the first way o breaks b or the operation grammar.
func (o *Op) Check(b Bounds) *Error {
	f, ok := opFields[o.Op]
	switch {
	case !ok:
		return Errorf(CodeBadRequest, "op %q: unknown", o.Op)
	case o.Seq != 0 && !f.seq, o.MaxTokens != 0 && !f.maxTokens, o.Tokens != 0 && !f.tokens, len(o.Hashes) != 0 && !f.hashes:
		return Errorf(CodeBadRequest, "op %q: a field it does not take", o.Op)
	case f.seq && o.Seq == 0:
		return Errorf(CodeBadRequest, "op %q: seq missing", o.Op)
	case o.MaxTokens < 0 || o.Tokens < 0:
		return Errorf(CodeBadRequest, "op %q: negative token count", o.Op)
	case o.MaxTokens > b.MaxTokens || o.Tokens > b.MaxTokens:
		return Errorf(CodeOverLimit, "op %q: tokens over max_seq_len %d", o.Op, b.MaxTokens)
	case len(o.Hashes) > b.MaxHashes:
		return Errorf(CodeTooLarge, "op %q: %d hashes, at most %d", o.Op, len(o.Hashes), b.MaxHashes)
	case o.Op == OpAdmit && o.MaxTokens == 0:
		return Errorf(CodeBadRequest, "op admit: max_tokens missing")
	}
	return nil
}
