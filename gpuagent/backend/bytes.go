package backend

import "fmt"

// Bytes is a quantity of memory in bytes.
type Bytes int64

// Common sizes.
const (
	KiB Bytes = 1 << 10
	MiB Bytes = 1 << 20
	GiB Bytes = 1 << 30
)

// String formats b in the largest binary unit that keeps it at least 1, for
// example "2.00 MiB" or "512 B".
func (b Bytes) String() string {
	switch abs := max(b, -b); {
	case abs >= GiB:
		return fmt.Sprintf("%.2f GiB", float64(b)/float64(GiB))
	case abs >= MiB:
		return fmt.Sprintf("%.2f MiB", float64(b)/float64(MiB))
	case abs >= KiB:
		return fmt.Sprintf("%.2f KiB", float64(b)/float64(KiB))
	}
	return fmt.Sprintf("%d B", int64(b))
}

// AlignUp rounds b up to a multiple of align, which must be a power of two.
func AlignUp(b, align Bytes) Bytes {
	return (b + align - 1) &^ (align - 1)
}

// IsPow2 reports whether b is a positive power of two.
func IsPow2(b Bytes) bool { return b > 0 && b&(b-1) == 0 }
