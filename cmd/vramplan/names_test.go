package main

import (
	"strings"
	"testing"
)

// TestGPUNames checks --gpu takes the names people type for a card
// (issue 27): each plans on the card's Linux entry and says which; a name
// of several cards exits 2 listing them; a typo's suggestions hold every
// kind of entry.
func TestGPUNames(t *testing.T) {
	plan := func(gpu string) (int, string, string) {
		return runCLI("plan", "--model", "qwen3-8b-q8_0", "--gpu", gpu, "--max-seq-len", "4096")
	}
	for gpu, want := range map[string]string{
		"rtx4090": "est-rtx4090-linux", "4090": "est-rtx4090-linux", "RTX 4090": "est-rtx4090-linux",
		"3090": "est-rtx3090-linux", "l40s": "est-l40s-linux", "h200": "h200-linux-cuda13.0", "5090": "est-rtx5090-linux",
	} {
		code, out, errs := plan(gpu)
		if code > 1 || !strings.HasPrefix(out, "Qwen3-8B Q8_0 on ") || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "under Linux") ||
			!strings.Contains(strings.SplitN(out, "\n", 2)[0], "("+want+")") {
			t.Errorf("--gpu %q = %d\n%s%s; want a plan on %s", gpu, code, out, errs, want)
		}
	}
	if _, _, errs := plan("rtx5090"); !strings.Contains(errs, "--gpu: \"rtx5090\" is NVIDIA GeForce RTX 5090 under Linux, estimated (est-rtx5090-linux); also: rtx5090-wsl2-cuda13.3") {
		t.Errorf("--gpu rtx5090: stderr %q, want the WSL2 entry named", errs)
	}
	for gpu, want := range map[string][]string{
		"h100": {"est-h100-nvl-linux (NVIDIA H100 NVL under Linux, estimated)", "est-h100-pcie-linux (NVIDIA H100 PCIe under Linux, estimated)", "est-h100-sxm-linux (NVIDIA H100 80GB HBM3 under Linux, estimated)"},
		"a100": {"est-a100-40gb-linux", "est-a100-80gb-linux"},
	} {
		code, out, errs := plan(gpu)
		if code != 2 || out != "" || !strings.Contains(errs, "could be any of "+want[0]) || !strings.Contains(errs, want[1]) {
			t.Errorf("--gpu %s = %d %q %q, want exit 2 listing %v", gpu, code, out, errs, want)
		}
	}
	if code, _, errs := plan("RTX 4900"); code != 2 || !strings.Contains(errs, "closest: est-rtx4090-linux") {
		t.Errorf("--gpu \"RTX 4900\" = %d %q, want the estimate first among the nearest", code, errs)
	}
}
