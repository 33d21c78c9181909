package corpus

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
)

// Card totals. vLLM and SGLang size their pools from CUDA's own total of
// the device (torch.cuda.mem_get_info, that is cudaMemGetInfo), which is
// a few hundred MiB below nvidia-smi's memory.total. An entry whose log
// prints no total (gpu.total_from "card") is planned on its card's CUDA
// total from one place: the calibration of that card where the project
// has one (its device_total_bytes, whose notes cite the printout), else
// the card's line below. An entry states no total_gib of its own, so a
// card's total cannot differ between entries.

// card is where the CUDA total of a card the corpus names comes from: a
// calibration's id, or the total itself with its source.
type card struct {
	Calibration string
	GiB         float64 // CUDA's total in GiB, when Calibration is ""
	Source      string  // where GiB comes from, and how far off it may be
}

// cards are the cards that entries of total_from "card" name, by
// gpu.name as the entry writes it. A card that has a calibration names it
// here, so an entry's total never rests on how calibrations.Resolve reads
// a name (which refuses "NVIDIA H20", a card the project has no
// calibration of, rather than take the H200's).
var cards = map[string]card{
	"NVIDIA A100 80GB":              {Calibration: "est-a100-80gb-linux"},
	"NVIDIA A100 40GB":              {Calibration: "est-a100-40gb-linux"},
	"NVIDIA A100-SXM4-40GB":         {Calibration: "est-a100-40gb-linux"},
	"NVIDIA A10":                    {Calibration: "est-a10-linux"},
	"NVIDIA A10G":                   {Calibration: "est-a10g-linux"},
	"NVIDIA L4":                     {Calibration: "est-l4-linux"},
	"NVIDIA L40S":                   {Calibration: "est-l40s-linux"},
	"NVIDIA L40":                    {Calibration: "est-l40-linux"},
	"NVIDIA L20":                    {Calibration: "est-l20-linux"},
	"NVIDIA RTX A5000":              {Calibration: "est-rtxa5000-linux"},
	"NVIDIA RTX PRO 4000 Blackwell": {Calibration: "est-rtxpro4000-linux"},
	"NVIDIA H100 NVL":               {Calibration: "est-h100-nvl-linux"},
	"Tesla T4":                      {Calibration: "est-t4-linux"},
	"NVIDIA GeForce RTX 3090":       {Calibration: "est-rtx3090-linux"},
	"NVIDIA GeForce RTX 4090":       {Calibration: "est-rtx4090-linux"},
	"NVIDIA H200":                   {Calibration: "h200-linux-cuda13.0"},
	"H100 80GB":                     {Calibration: "est-h100-sxm-linux"},
	"NVIDIA H100 80GB HBM3":         {Calibration: "est-h100-sxm-linux"},
	"NVIDIA H100 PCIe":              {Calibration: "est-h100-pcie-linux"},
	// The thread names no variant; both show 81559 MiB in nvidia-smi, and
	// only the SXM card's CUDA total has a printout.
	"NVIDIA H100": {Calibration: "est-h100-sxm-linux"},

	"NVIDIA RTX PRO 6000 Blackwell Server Edition": {GiB: 94.97, Source: "ds4's CUDA memory line 'total=94.97 GiB' on a 96 GB " +
		"RTX Pro 6000 Blackwell of 97887 MiB in nvidia-smi (https://github.com/antirez/ds4/issues/431, 2026-06-16; the edition " +
		"is not named, and both editions show 97887 MiB)"},
	"NVIDIA H20": {GiB: 139.80, Source: "no printout of the 141 GB H20's CUDA total found: its HBM3e is the H200's, whose CUDA " +
		"total this project measured (h200-linux-cuda13.0, 139.80 GiB), and the two runs of vllm-0.10.1.dev101-qwen3-coder-480b-" +
		"fp8-h20-dp8 derive about 139.8 GiB"},
	"NVIDIA A100 80GB PCIe": {GiB: 79.25, Source: "vLLM 0.31.0's 'Free memory on device (78.84/79.25 GiB)' on an A100 80GB " +
		"(the corpus's vllm-0.31.0-llama3.1-8b-a100 log); the SXM4 card's printouts, est-a100-80gb-linux, give 79.14-79.28 GiB"},
	"NVIDIA GB10 (DGX Spark)": {Calibration: "est-gb10-linux"},
	"NVIDIA GeForce RTX 4060 Laptop GPU": {GiB: 8.0, Source: "no printout of CUDA's total found: nvidia-smi's 8188 MiB for the " +
		"8 GB laptop card, an upper bound; under WSL and a desktop, part of it is taken before vLLM starts"},
	"NVIDIA GeForce RTX 5080": {GiB: 15.51, Source: "llama.cpp's ggml_cuda_init on an RTX 5080, 'Device 0: NVIDIA GeForce RTX 5080, " +
		"compute capability 12.0, VMM: yes, VRAM: 15880 MiB' (a fork's test quoting the lines it printed on the 5080, 2026-09-27; " +
		"code index file 70109485269, the index names no repository); nvidia-smi shows 16303 MiB (15.92 GiB)"},
	"NVIDIA GeForce RTX 5060 Ti": {GiB: 15.45, Source: "15,816 MiB 'CUDA-visible' on a 16 GB RTX 5060 Ti, driver 595.71.05 " +
		"(https://github.com/Luce-Org/lucebox/issues/407, 2026-06-16); nvidia-smi shows 16311 MiB"},
}

// CardTotal returns CUDA's total of the card an entry names, in bytes,
// and where it comes from: a calibration's id, or the card's source.
func CardTotal(name string) (planner.Bytes, string, error) {
	c, ok := cards[name]
	if !ok {
		return 0, "", fmt.Errorf("no total for card %q: name one of %s, or add the card to calibrations/corpus/cards.go", cut(name, 60), cardNames())
	}
	if c.Calibration == "" {
		return planner.Bytes(math.Round(c.GiB * float64(planner.GiB))), c.Source, nil
	}
	cal, err := calibrations.Lookup(c.Calibration)
	if err != nil {
		return 0, "", fmt.Errorf("card %q: %w", name, err)
	}
	return cal.DeviceTotal, c.Calibration, nil
}

func cardNames() string {
	names := make([]string, 0, len(cards))
	for n := range cards {
		names = append(names, strconv.Quote(n))
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// cardTotal sets e's total from its card when e's log prints none.
func (e *Entry) cardTotal() error {
	if e.GPU.From != "card" {
		return nil
	}
	b, from, err := CardTotal(e.GPU.Name)
	switch {
	case err != nil:
		return e.fail("gpu.name", "%v", err)
	case e.GPU.TotalGiB != 0:
		return e.fail("gpu.total_gib", "%v: a total_from \"card\" entry takes its card's total (%.2f GiB, %s); leave total_gib out",
			e.GPU.TotalGiB, float64(b)/float64(planner.GiB), cut(from, 40))
	}
	e.GPU.TotalGiB = float64(b) / float64(planner.GiB)
	return nil
}
