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
// card with the driver's default ECC setting, each in a published readout
// whose address and driver the source names, or in a cloud provider's list
// of them, or, where no readout of the card itself was found, the total of
// the same memory on its sibling card, which the source says. An upload that disagrees with
// one of them by more than the tolerance of checkModel is refused, so a
// wrong entry here shows as refused uploads, not as a wrong plan.
const (
	srcMeasured  = "measured by this project"
	srcPublished = "nvidia-smi memory.total as published for this card"
	srcListed    = "nvidia-smi memory.total as a cloud provider lists it for this card"
	srcSameAs    = "no published readout of this card found to cite; the total of the"
	// srcUnified is a card whose memory is the host's: NVML reports no
	// memory total for it, so nvidia-smi prints none, and the figure is
	// CUDA's own total (cudaMemGetInfo), as printed.
	srcUnified = "no nvidia-smi memory.total (the memory is the host's, and NVML reports none); CUDA's total as published for this card"
)

// known are the cards the calculator ships estimated entries for, and the
// measured ones, each with NormalizeGPU of its name. (A slice, not a map: a
// map literal is code that builds it at start, 6 KB of the Workers build.)
var known = [...]struct {
	key string
	GPU
}{
	{"rtx3090", GPU{"NVIDIA GeForce RTX 3090", 24576, srcPublished + " (https://github.com/noonghunna/club-3090/issues/445, driver 595.71.05)"}},
	{"rtx4090", GPU{"NVIDIA GeForce RTX 4090", 24564, srcPublished + " (https://github.com/RLinf/RLinf/issues/255, driver 550.163.01)"}},
	{"rtx5090", GPU{"NVIDIA GeForce RTX 5090", 32607, srcMeasured + " (the seed's card, under WSL2; the same under Linux in https://github.com/noonghunna/club-3090/issues/617, driver 595.71.05)"}},
	{"rtx6000adageneration", GPU{"NVIDIA RTX 6000 Ada Generation", 49140, srcPublished + " (ECC off, the workstation default; https://github.com/Advantech-EdgeSync-Containers/X86-GPU_Passthrough-EdgeSync-SDK/blob/ad97a75ba879ec3765695872f34f624ddbca61cd/README.md, driver 550.144.03)"}},
	{"l4", GPU{"NVIDIA L4", 23034, srcPublished + " (https://github.com/speaches-ai/speaches/pull/438, driver 570.133.20)"}},
	{"l40s", GPU{"NVIDIA L40S", 46068, srcPublished + " (https://github.com/akash-network/provider-configs/pull/99, driver 595.71.05)"}},
	{"l40", GPU{"NVIDIA L40", 46068, srcPublished + " (code index file 57815648328, driver 610.57.04)"}},
	{"l20", GPU{"NVIDIA L20", 46068, srcPublished + " (code index file 66494970188, driver 580.65.06)"}},
	{"rtxa5000", GPU{"NVIDIA RTX A5000", 24564, srcPublished + " (ECC off, the workstation default; code index file 39219605614, driver 580.119.02)"}},
	{"rtxpro4000blackwell", GPU{"NVIDIA RTX PRO 4000 Blackwell", 24467, srcPublished + " (code index file 69530223407, driver 575.64.03)"}},
	{"a10", GPU{"NVIDIA A10", 23028, srcPublished + " (NVML's total, https://github.com/mayooot/detect-gpu/issues/3, driver 535.129.03)"}},
	{"a10g", GPU{"NVIDIA A10G", 23028, srcPublished + " (https://github.com/NVIDIA/DCGM/issues/232, driver 535.247.01)"}},
	{"t4", GPU{"Tesla T4", 15360, srcListed + " (https://github.com/modal-labs/modal-client/pull/2797)"}},
	{"a100sxm440gb", GPU{"NVIDIA A100-SXM4-40GB", 40960, srcPublished + " (https://github.com/bottlerocket-os/bottlerocket-core-kit/pull/834, driver 580.126.09)"}},
	{"a100pcie40gb", GPU{"NVIDIA A100-PCIE-40GB", 40960, srcSameAs + " A100-SXM4-40GB"}},
	{"a100sxm480gb", GPU{"NVIDIA A100-SXM4-80GB", 81920, srcListed + " (https://github.com/modal-labs/modal-client/pull/2797; the A800-SXM4-80GB's in https://github.com/dexmal/dexbotic/issues/41, driver 535.86.10)"}},
	{"a10080gbpcie", GPU{"NVIDIA A100 80GB PCIe", 81920, srcSameAs + " A100-SXM4-80GB"}},
	{"h100pcie", GPU{"NVIDIA H100 PCIe", 81559, srcSameAs + " H100 80GB HBM3 (SXM5), which unattributed readouts of this card agree with"}},
	{"h10080gbhbm3", GPU{"NVIDIA H100 80GB HBM3", 81559, srcPublished + " (the SXM5 card; https://github.com/NVIDIA/nccl/issues/1264, driver 550.54.15)"}},
	{"h100nvl", GPU{"NVIDIA H100 NVL", 95830, srcPublished + " (code index file 71044418778, driver 580.178.04)"}},
	{"h200", GPU{"NVIDIA H200", 143771, srcMeasured}},
	{"gb10", GPU{"NVIDIA GB10", 122573, srcUnified + " (PyTorch's 'GPU 0 has a total capacity of 119.70 GiB' on a DGX Spark, code index file 55115687305)"}},
	{"b200", GPU{"NVIDIA B200", 183359, srcPublished + " (https://github.com/NVIDIA/TensorRT-LLM/issues/10278, driver 580.95.05)"}},
}

// Known returns the card a device name names, when its total is known.
func Known(name string) (GPU, bool) { return knownCard(NormalizeGPU(name)) }

// knownCard returns the card whose NormalizeGPU'd name is key.
func knownCard(key string) (GPU, bool) {
	for i := range known {
		if known[i].key == key {
			return known[i].GPU, true
		}
	}
	return GPU{}, false
}
