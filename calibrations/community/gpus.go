package community

// GPU is a card whose reported total is known.
type GPU struct {
	// Name is the device name CUDA reports (cuDeviceGetName).
	Name string `json:"name"`
	// TotalMiB is the total nvidia-smi reports (memory.total), in MiB.
	TotalMiB int64 `json:"total_mib"`
	// Source says where TotalMiB comes from.
	Source string `json:"source"`
}

// Where the totals come from. Only two were read on a machine of this
// project; the others are nvidia-smi's memory.total as it prints it on that
// card with the driver's default ECC setting, in output published by its
// users and cloud providers, which agrees with the capacity on NVIDIA's data
// sheet less the ECC and driver reservation. An upload that disagrees with
// one of them by more than the tolerance of checkModel is refused, so a
// wrong entry here shows as refused uploads, not as a wrong plan.
const (
	srcMeasured  = "measured by this project"
	srcPublished = "nvidia-smi memory.total as published for this card"
)

// known are the cards the calculator ships estimated entries for, and the
// measured ones, by NormalizeGPU of their name.
var known = map[string]GPU{
	"rtx3090":              {"NVIDIA GeForce RTX 3090", 24576, srcPublished},
	"rtx4090":              {"NVIDIA GeForce RTX 4090", 24564, srcPublished},
	"rtx5090":              {"NVIDIA GeForce RTX 5090", 32607, srcMeasured + " (the seed's card, under WSL2)"},
	"rtx6000adageneration": {"NVIDIA RTX 6000 Ada Generation", 49140, srcPublished + " (ECC off, the workstation default; seen in one published machine description, driver 590.48.01, without an address to cite)"},
	"l4":                   {"NVIDIA L4", 23034, srcPublished + " (https://github.com/speaches-ai/speaches/pull/438, driver 570.133.20)"},
	"l40s":                 {"NVIDIA L40S", 46068, srcPublished},
	"a10g":                 {"NVIDIA A10G", 23028, srcPublished},
	"t4":                   {"Tesla T4", 15360, srcPublished},
	"a100sxm440gb":         {"NVIDIA A100-SXM4-40GB", 40960, srcPublished},
	"a100pcie40gb":         {"NVIDIA A100-PCIE-40GB", 40960, srcPublished},
	"a100sxm480gb":         {"NVIDIA A100-SXM4-80GB", 81920, srcPublished},
	"a10080gbpcie":         {"NVIDIA A100 80GB PCIe", 81920, srcPublished},
	"h100pcie":             {"NVIDIA H100 PCIe", 81559, srcPublished},
	"h10080gbhbm3":         {"NVIDIA H100 80GB HBM3", 81559, srcPublished + " (the SXM5 card)"},
	"h200":                 {"NVIDIA H200", 143771, srcMeasured},
	"b200":                 {"NVIDIA B200", 183359, srcPublished + " (https://github.com/NVIDIA/TensorRT-LLM/issues/10278, driver 580.95.05)"},
}

// Known returns the card a device name names, when its total is known.
func Known(name string) (GPU, bool) {
	g, ok := known[NormalizeGPU(name)]
	return g, ok
}
