package community

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// The expressions NormalizeGPU, Branch and isCUDAVersion were written
// with, and which they must match exactly: the specification.
var (
	nonAlnumRE    = regexp.MustCompile(`[^a-z0-9]+`)
	branchMajorRE = regexp.MustCompile(`^\s*(\d{2,4})\.\d+`)
	cudaRE        = regexp.MustCompile(`^\d{1,2}\.\d{1,2}$`)
)

func normalizeGPURE(name string) string {
	n := strings.ToLower(name)
	for _, w := range []string{"nvidia", "geforce", "tesla"} {
		n = strings.ReplaceAll(n, w, " ")
	}
	return strings.Trim(nonAlnumRE.ReplaceAllString(n, ""), " ")
}

func branchRE(driver string) string {
	if m := branchMajorRE.FindStringSubmatch(driver); m != nil {
		return "r" + m[1]
	}
	return "unknown"
}

// nameCases are device names, drivers and CUDA versions near each rule's
// edges.
var nameCases = []string{
	"", "NVIDIA H200", "NVIDIA GeForce RTX 4090", "Tesla T4", "nvnvidiaidia", "gefnvidiaorce", "NVIDIA  A100-SXM4-80GB",
	"\u212aelvin", "ÉCRAN 9000", "rtx\xff5090", "TESLAtesla", "İstanbul", strings.Repeat("a1-", 40),
	"580.159.04", " 580.1", "\t\n\f\r575.57", "\v580.1", "5.1", "58.1", "5800.1", "58000.1", "580.", "580.x", "580",
	"r580.1", "580 .1", "٥٨٠.1", "13.0", "1.0", "13.10", "130.0", "13.", ".0", "13.0.1", "13.0\n", "a.b", "1.1x", "13,0",
}

func TestNameScans(t *testing.T) {
	for _, s := range nameCases {
		checkNameScans(t, s)
	}
}

func checkNameScans(t *testing.T, s string) {
	t.Helper()
	if got, want := NormalizeGPU(s), normalizeGPURE(s); got != want {
		t.Errorf("NormalizeGPU(%q) = %q, want %q", s, got, want)
	}
	if got, want := Branch(s), branchRE(s); got != want {
		t.Errorf("Branch(%q) = %q, want %q", s, got, want)
	}
	if got, want := isCUDAVersion(s), cudaRE.MatchString(s); got != want {
		t.Errorf("isCUDAVersion(%q) = %v, want %v", s, got, want)
	}
}

func FuzzNameScans(f *testing.F) {
	for _, s := range nameCases {
		f.Add(s)
	}
	f.Fuzz(checkNameScans)
}

// TestKeyString holds Key.String to the format it was written with.
func TestKeyString(t *testing.T) {
	for _, k := range []Key{{}, {GPU: "h200", TotalGiB: 140, Branch: "r580", CUDA: "13.0", Platform: "linux"},
		{GPU: "x%d", TotalGiB: -3, Branch: "unknown", CUDA: "", Platform: "wsl2"}} {
		if got, want := k.String(), fmt.Sprintf("%s-%dgib-%s-%s-cuda%s", k.GPU, k.TotalGiB, k.Platform, k.Branch, k.CUDA); got != want {
			t.Errorf("%#v.String() = %q, want %q", k, got, want)
		}
	}
}

// TestKnownKeys holds each known card's key to NormalizeGPU of its name,
// each once.
func TestKnownKeys(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range known {
		if k.key != NormalizeGPU(k.Name) || seen[k.key] {
			t.Errorf("known %q: key %q, NormalizeGPU %q, repeated %v", k.Name, k.key, NormalizeGPU(k.Name), seen[k.key])
		}
		seen[k.key] = true
	}
}
