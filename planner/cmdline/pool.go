package cmdline

import (
	"fmt"
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// The flags vLLM's and SGLang's command lines share.

// poolApply fills the request length the command leaves out, named by
// lenFlag, with the model's trained context.
func poolApply(lenFlag string) func(c *Command, in *planner.Input, l *planner.Limits) ([]string, error) {
	return func(c *Command, in *planner.Input, l *planner.Limits) ([]string, error) {
		if l.MaxSeqLen != 0 && !c.AutoLen {
			return nil, nil
		}
		if l.MaxSeqLen = in.Model.MaxContext; l.MaxSeqLen == 0 {
			return nil, &Error{lenFlag, "not given, and the model does not state its context"}
		}
		return []string{fmt.Sprintf("length: the model's trained context, %d", l.MaxSeqLen)}, nil
	}
}

// poolKVType reads vLLM's and SGLang's --kv-cache-dtype.
func poolKVType(c *Command, flag string, t *tokens) error {
	v, err := t.value(flag)
	if err != nil {
		return err
	}
	switch strings.ToLower(v) {
	case "auto":
		c.Limits.KVDtype = ""
	case "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc":
		c.Limits.KVDtype = planner.KVDtypeFP8
	case "bfloat16", "bf16":
		c.Limits.KVDtype = planner.KVDtypeBF16
	case "float16", "half", "fp16":
		c.Limits.KVDtype = planner.KVDtypeF16
	default:
		return &Error{flag, fmt.Sprintf("KV cache dtype %q is not planned (want auto, fp8, bfloat16)", v)}
	}
	return nil
}

func weightDtype(c *Command, flag string, t *tokens) error {
	v, err := t.value(flag)
	if err != nil {
		return err
	}
	switch strings.ToLower(v) {
	case "auto":
	case "bfloat16", "bf16":
		c.WeightsDtype = "bf16"
	case "float16", "half", "fp16":
		c.WeightsDtype = "f16"
	case "float32", "float", "fp32":
		c.WeightsDtype = "f32"
	default:
		return &Error{flag, fmt.Sprintf("dtype %q is not planned", v)}
	}
	return nil
}

// quantization maps --quantization to the weights' storage format.
func quantization(c *Command, flag string, t *tokens) error {
	v, err := t.value(flag)
	if err != nil {
		return err
	}
	switch q := strings.ToLower(v); q {
	case "fp8", "fbgemm_fp8", "modelopt":
		c.WeightsDtype = "fp8"
	case "awq", "awq_marlin", "gptq", "gptq_marlin", "compressed-tensors":
		if c.WeightsDtype == "" {
			c.WeightsDtype = "int4"
		}
	case "modelopt_fp4", "nvfp4":
		c.WeightsDtype = "nvfp4"
	case "mxfp4": // 32 elements a block with an 8-bit scale, not NVFP4's 16 with an FP8 one
		c.WeightsDtype = "mxfp4"
	case "none", "":
	default:
		return &Error{flag, fmt.Sprintf("quantization %q is not planned", v)}
	}
	return nil
}
