package calc

import (
	"math"
	"testing"
)

func TestGroup(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 32607: "32,607", -1234: "-1,234",
		-999: "-999", 1048576: "1,048,576", 143771: "143,771", math.MaxInt64: "9,223,372,036,854,775,807",
		math.MinInt64: "-9,223,372,036,854,775,808"} {
		if got := Group(n); got != want {
			t.Errorf("Group(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSize(t *testing.T) {
	for mib, want := range map[int64]string{0: "0 MiB", 8192: "8,192 MiB", 10239: "10,239 MiB", 10240: "10,240 MiB (10 GiB)",
		143771: "143,771 MiB (140.4 GiB)", -20480: "-20,480 MiB (-20 GiB)"} {
		if got := Size(mib); got != want {
			t.Errorf("Size(%d) = %q, want %q", mib, got, want)
		}
	}
}
