package planner

import (
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
)

// This file holds what a GPU can do at all, as its calibration says, so
// that a plan never offers a format the hardware lacks without saying so.

// fp4Unsupported reports whether the calibration's architecture is known
// and has no FP4 tensor cores. FP4 (nvfp4) arrived with Blackwell, sm_100;
// Hopper (sm_90) and older have none, so no engine keeps KV or a weight
// cache in nvfp4 there. An arch the calibration does not name is not
// judged.
func (c *Calibration) fp4Unsupported() bool {
	a := strings.TrimPrefix(c.Arch, "sm_")
	n := 0
	for n < len(a) && '0' <= a[n] && a[n] <= '9' {
		n++
	}
	v, err := strconv.Atoi(a[:n])
	return err == nil && a != c.Arch && v < 100
}

// hardwareWarnings says which parts of in the GPU cannot do: FP4 formats
// on a GPU without FP4, and a budget larger than the device.
func hardwareWarnings(in *Input) []string {
	var w []string
	c := &in.Calibration
	gpu := c.GPU
	if gpu == "" {
		gpu = c.ID
	}
	if c.fp4Unsupported() {
		if in.Limits.KVDtype.normalize() == KVDtypeNVFP4 {
			w = append(w, printf.Sprintf("KV dtype nvfp4 needs FP4 support (Blackwell, sm_100 or newer); %s is %s, "+
				"where engines cannot keep KV in nvfp4: pick fp8 or q4_0", gpu, c.Arch))
		}
		if in.Features.WeightCache.normalize() == WeightCacheNVFP4 {
			w = append(w, printf.Sprintf("an nvfp4 weight cache needs FP4 support (Blackwell, sm_100 or newer); %s is %s", gpu, c.Arch))
		}
	}
	if in.Budget > 0 && c.DeviceTotal > 0 && in.Budget > c.DeviceTotal {
		w = append(w, printf.Sprintf("the budget (%s) is more than %s holds (%s): the plan fits the budget, not this GPU",
			in.Budget.mib(), gpu, c.DeviceTotal.mib()))
	}
	return w
}
