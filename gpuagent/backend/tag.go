package backend

import "fmt"

// A Tag names what a region is for. It is carried in the journal, in the
// per-tag accounting and in every panic about the region.
type Tag uint8

// Tags, one per tenant class. The zero Tag is not valid for acquisition.
const (
	TagNone      Tag = iota
	TagWeights       // T1 model-resident weights and weight caches
	TagEngine        // T2 engine-persistent buffers
	TagWorkspace     // T2 executor workspaces
	TagKVPool        // T3 global KV block pool
	TagSWAPool       // T3 sliding-window KV block pool
	TagSSMState      // T3 recurrent state slots
	TagScratch       // T4 forward scratch stack
	TagPinned        // T5b engine-persistent pinned host memory
	TagStaging       // T5a transient host staging (load only)
	TagRing          // T3 residual FP16 ring
	tagCount
)

var tagNames = [...]string{"none", "weights", "engine", "workspace", "kv", "swa", "ssm", "scratch", "pinned", "staging", "ring"}

// String returns the tag's short name, as used in metrics labels.
func (t Tag) String() string {
	if t < tagCount {
		return tagNames[t]
	}
	return fmt.Sprintf("tag(%d)", uint8(t))
}

// ParseTag returns the Tag whose String is s.
func ParseTag(s string) (Tag, bool) {
	for i, n := range tagNames {
		if n == s && i != 0 {
			return Tag(i), true
		}
	}
	return TagNone, false
}

// Valid reports whether t is a tag that may be acquired under.
func (t Tag) Valid() bool { return t > TagNone && t < tagCount }
