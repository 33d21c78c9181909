package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/web/calc"
)

// cmdGPUs is `vramplan gpus`: which GPUs of the calibration table serve a
// model at the limits, how many of each and in which layout. It exits 0
// when some GPU does, 1 when none of those shown does, 2 for bad input.
func cmdGPUs(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("vramplan gpus", stderr)
	in := inputFlags{everyGPU: true}
	in.register(fs)
	asJSON := fs.Bool("json", false, "print the rows as JSON (planner.GPUFit)")
	var f calc.GPUFilter
	fs.StringVar(&f.Sort, "sort", "", "order the rows by `column`: "+strings.Join(calc.GPUSortKeys(), ", ")+" (default "+calc.DefaultGPUSort+": fewest GPUs, then most headroom)")
	fs.Func("min-memory", "show only GPUs of at least `size` of memory, such as 40GiB", func(v string) error {
		b, err := planner.ParseBytes(v)
		f.MinMemory = b
		return err
	})
	fs.StringVar(&f.Label, "label", "", "show only GPUs whose calibration is `kind`: "+strings.Join(calc.GPULabels, ", "))
	input, code := parseInput(fs, &in, args, stderr)
	if code >= 0 {
		return code
	}
	if err := f.Check(); err != nil {
		fmt.Fprintf(stderr, "vramplan gpus: %s\n", gpuFlagError(err))
		return exitBadInput
	}
	cals, err := calibrationTable()
	if err != nil {
		fmt.Fprintf(stderr, "vramplan gpus: %v\n", err)
		return exitBadInput
	}
	fits, err := planner.GPUs(input, cals)
	if err != nil {
		fmt.Fprintf(stderr, "vramplan gpus: %s\n", describeErr(err))
		return exitBadInput
	}
	fits = f.Apply(fits)
	if *asJSON {
		b, _ := json.MarshalIndent(fits, "", "  ")
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		printGPUs(stdout, &input, fits)
	}
	if !anyFits(fits) {
		return exitNoFit
	}
	return exitFits
}

// gpuFlagError names a filter's flag where calc names its URL key.
func gpuFlagError(err error) string {
	fe, ok := err.(*calc.FieldError)
	if !ok {
		return err.Error()
	}
	flags := map[string]string{"gsort": "sort", "glabel": "label", "gmin": "min-memory"}
	return "--" + flags[fe.Key] + ": " + fe.Msg
}

func anyFits(fits []planner.GPUFit) bool {
	for i := range fits {
		if fits[i].Fits() {
			return true
		}
	}
	return false
}

// printGPUs writes the table, then each row's launch command.
func printGPUs(w io.Writer, in *planner.Input, fits []planner.GPUFit) {
	fmt.Fprintf(w, "%s at %s tokens, batch %s, under %s: %d GPUs\n\n", cmp.Or(in.Model.Name, in.Model.ID),
		calc.Group(int64(in.Limits.MaxSeqLen)), batchWords(in.Limits.MaxBatch), cmp.Or(string(in.Serving.Engine), string(planner.EngineSeed)), len(fits))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "gpu\tid\tlabel\tmemory\tgpus\tlayout\theadroom\tkv tokens\tseqs")
	for i := range fits {
		f := &fits[i]
		if !f.Fits() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t-\t%s\t\t\t\n", f.GPU, f.Calibration, f.Label, f.DeviceTotal, calc.FitNote(f))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", f.GPU, f.Calibration, f.Label, f.DeviceTotal, f.GPUs,
			calc.LayoutText(f), calc.HeadroomText(f), calc.Group(f.KVTokens), calc.Group(int64(f.Concurrency)))
	}
	tw.Flush()
	var launch bool
	for i := range fits {
		if fits[i].Launch == "" {
			continue
		}
		if !launch {
			fmt.Fprintln(w, "\nlaunch commands:")
			launch = true
		}
		fmt.Fprintf(w, "  %s: %s\n", fits[i].Calibration, fits[i].Launch)
	}
}

// batchWords is a max_batch as the table's title says it.
func batchWords(n int) string {
	if n == 0 {
		return "automatic"
	}
	return fmt.Sprint(n)
}
