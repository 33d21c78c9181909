package wire_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/vramplan/vramplan/gpuagent/wire"
)

func TestDecodeRoundTrip(t *testing.T) {
	for _, d := range []wire.Decode{
		{Seqs: wire.IDs{1}},
		{Seqs: wire.IDs{1, 2, 1 << 63}, Hashes: wire.IDs{0, 7, 1<<64 - 1}},
		{Seqs: wire.IDs{}},
	} {
		body := wire.AppendDecode(nil, "lease-1", &d)
		var got wire.Decode
		lease, err := wire.ParseDecode(body, &got)
		if err != nil || string(lease) != "lease-1" || len(got.Seqs) != len(d.Seqs) ||
			len(d.Seqs) > 0 && !reflect.DeepEqual(got.Seqs, d.Seqs) || len(got.Hashes) != len(d.Hashes) {
			t.Errorf("ParseDecode(AppendDecode(%+v)) = %q, %+v, %v", d, lease, got, err)
		}
	}
}

func TestParseDecodeRefuses(t *testing.T) {
	ok := wire.AppendDecode(nil, "l", &wire.Decode{Seqs: wire.IDs{1, 2}})
	tests := []struct {
		name string
		body []byte
		code string
	}{
		{"empty", nil, wire.CodeBadRequest},
		{"cut in the header", ok[:5], wire.CodeBadRequest},
		{"cut in the handles", ok[:len(ok)-1], wire.CodeBadRequest},
		{"trailing byte", append(bytes.Clone(ok), 0), wire.CodeBadRequest},
		{"unknown flag", append([]byte{2}, ok[1:]...), wire.CodeBadRequest},
		{"hash flag without hashes", append([]byte{1}, ok[1:]...), wire.CodeBadRequest},
		{"no lease", wire.AppendDecode(nil, "", &wire.Decode{}), wire.CodeBadRequest},
		{"lease too long", wire.AppendDecode(nil, string(make([]byte, wire.MaxLease+1)), &wire.Decode{}), wire.CodeBadRequest},
		{"count over MaxBatch", []byte{0, 1, 0, 'l', 0xff, 0xff, 0xff, 0xff}, wire.CodeTooLarge},
	}
	for _, tt := range tests {
		_, err := wire.ParseDecode(tt.body, new(wire.Decode))
		if err == nil || err.Code != tt.code {
			t.Errorf("%s: ParseDecode = %v, want code %s", tt.name, err, tt.code)
		}
	}
}

func TestDecodeResultRoundTrip(t *testing.T) {
	res := wire.DecodeResult{Blocks: []int32{0, 5, -1, 1<<31 - 1}, Errors: []wire.IndexErr{
		{Index: 2, Error: wire.Errorf(wire.CodeNoSequence, "no sequence 9 in this lease")},
		{Index: 3, Error: &wire.Error{Code: wire.CodeCapacity, Message: "full", NeedBlocks: 3, PoolBlocks: 8}},
	}}
	var got wire.DecodeResult
	if err := wire.ParseDecodeResult(wire.AppendDecodeResult(nil, &res), &got); err != nil || !reflect.DeepEqual(got, res) {
		t.Errorf("ParseDecodeResult(AppendDecodeResult(%+v)) = %+v, %v", res, got, err)
	}
	bad := wire.AppendDecodeResult(nil, &res)
	for _, b := range [][]byte{nil, bad[:3], bad[:len(bad)-1], append(bytes.Clone(bad), 0)} {
		if err := wire.ParseDecodeResult(b, &got); err == nil {
			t.Errorf("ParseDecodeResult(%x) accepted a malformed answer", b)
		}
	}
}

// FuzzDecodeFrame feeds arbitrary bytes to both binary readers: they must
// refuse or accept without panicking, and what they accept must encode
// back to bytes that read the same (a decode step with no sequences may
// carry the hash flag; its encoding drops it).
func FuzzDecodeFrame(f *testing.F) {
	f.Add(wire.AppendDecode(nil, "l", &wire.Decode{Seqs: wire.IDs{1, 2}, Hashes: wire.IDs{0, 3}}))
	f.Add(wire.AppendDecodeResult(nil, &wire.DecodeResult{Blocks: []int32{1, 0}, Errors: []wire.IndexErr{
		{Index: 1, Error: wire.Errorf(wire.CodeOverLimit, "x")}}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		var d wire.Decode
		if lease, err := wire.ParseDecode(b, &d); err == nil {
			again := wire.AppendDecode(nil, string(lease), &d)
			var d2 wire.Decode
			lease2, err := wire.ParseDecode(again, &d2)
			if err != nil || string(lease2) != string(lease) || !reflect.DeepEqual(d2, d) ||
				len(d.Seqs) > 0 && !bytes.Equal(again, b) {
				t.Fatalf("ParseDecode(%x) = %+v re-encodes as %x = %+v, %v", b, d, again, d2, err)
			}
		}
		var res wire.DecodeResult
		if err := wire.ParseDecodeResult(b, &res); err == nil && len(res.Errors) == 0 {
			if again := wire.AppendDecodeResult(nil, &res); !bytes.Equal(again, b) {
				t.Fatalf("ParseDecodeResult(%x) re-encodes as %x", b, again)
			}
		}
	})
}
