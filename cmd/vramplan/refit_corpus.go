package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/vramplan/vramplan/calibrations/corpus"
	"github.com/vramplan/vramplan/calibrations/refit"
)

// refitCorpus is `vramplan engines refit --corpus ROOT`: vLLM's estimated
// constants refit from the corpus of real start-ups under the repository
// root, printed with every complete run's KV residual before and after.
// It writes nothing: the profile's file is the code's, and the output
// says what it would change.
func refitCorpus(root string, asJSON bool, stdout, stderr io.Writer) int {
	es, err := corpus.Load(os.DirFS(filepath.Join(root, corpus.Dir)))
	if err != nil {
		fmt.Fprintf(stderr, "vramplan engines refit: --corpus: %v\n", err)
		return exitBadInput
	}
	r := corpus.RefitVLLM(es, root)
	if asJSON {
		return writeJSON(stdout, refitJSON(&r))
	}
	printCorpusRefit(stdout, &r)
	return exitFits
}

// corpusRefitDoc is the refit as --json prints it.
type corpusRefitDoc struct {
	Engine    string         `json:"engine"`
	Constants []constantDoc  `json:"constants"`
	Runs      []corpusRunDoc `json:"runs"`
	Within    map[string]int `json:"within_3_percent"`
}

type constantDoc struct {
	Name     string         `json:"name"`
	Code     float64        `json:"code"`
	Refit    float64        `json:"refit"`
	Used     int            `json:"runs_used"`
	Rejected []rejectionDoc `json:"rejected,omitempty"`
	Kept     string         `json:"kept,omitempty"`
}

type rejectionDoc struct {
	Run string `json:"run"`
	Why string `json:"why"`
}

// corpusRunDoc is one run's KV residual, null where it was not planned.
type corpusRunDoc struct {
	ID     string   `json:"id"`
	Band   string   `json:"band"`
	Before *float64 `json:"kv_residual_before"`
	After  *float64 `json:"kv_residual_after"`
}

// The constants the refit fits, with the figures the code has them at.
var corpusConstants = []struct {
	name string
	code float64
	fit  func(r *corpus.VLLMRefit) *refit.Fit
}{
	{"non-torch memory, GiB a rank (engine_vllm.go: GiB*15/100)", corpus.CodeNonTorchGiB, func(r *corpus.VLLMRefit) *refit.Fit { return &r.NonTorch }},
	{"activation peak over its estimate (engine_vllm.go: vllmActivation)", corpus.CodeActivationScale, func(r *corpus.VLLMRefit) *refit.Fit { return &r.ActivationScale }},
}

func refitJSON(r *corpus.VLLMRefit) corpusRefitDoc {
	d := corpusRefitDoc{Engine: "vllm", Within: map[string]int{"runs": len(r.Runs), "before": r.Within, "after": r.WithinAfter}}
	for _, c := range corpusConstants {
		f := c.fit(r)
		doc := constantDoc{Name: c.name, Code: c.code, Refit: f.Value, Used: f.Used, Kept: f.Why}
		for _, x := range f.Rejected {
			doc.Rejected = append(doc.Rejected, rejectionDoc{Run: x.Name, Why: x.Why})
		}
		d.Constants = append(d.Constants, doc)
	}
	for _, run := range r.Runs {
		d.Runs = append(d.Runs, corpusRunDoc{ID: run.ID, Band: run.Band, Before: finite(run.Before), After: finite(run.After)})
	}
	return d
}

func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func printCorpusRefit(w io.Writer, r *corpus.VLLMRefit) {
	fmt.Fprintf(w, "vLLM, from the corpus of real start-ups: %d complete runs\n\n", len(r.Runs))
	fmt.Fprintf(w, "  %-84s %8s %8s\n", "constant", "code", "refit")
	for _, c := range corpusConstants {
		f := c.fit(r)
		mark := ""
		if f.Value != c.code {
			mark = "  would change"
		}
		if f.Kept {
			mark = "  kept: " + f.Why
		}
		fmt.Fprintf(w, "  %-84s %8.4g %8.4g%s\n", fmt.Sprintf("%s (%d runs, %d rejected)", c.name, f.Used, len(f.Rejected)), c.code, f.Value, mark)
	}
	fmt.Fprintf(w, "\nKV tokens within 3 %%: %d of %d runs with the code's constants, %d with the refit's\n", r.Within, len(r.Runs), r.WithinAfter)
	if r.WithinAfter < r.Within {
		fmt.Fprintf(w, "the refit's constants put fewer runs within 3 %%: the misses are not these two constants'\n")
	}
	fmt.Fprintf(w, "\nKV residuals, (plan − log) / log:\n  %-56s %-26s %9s %9s\n", "run", "band", "code", "refit")
	for _, run := range r.Runs {
		fmt.Fprintf(w, "  %-56s %-26s %9s %9s\n", run.ID, run.Band, percentOf(run.Before), percentOf(run.After))
	}
	fmt.Fprintf(w, "\nNothing was written: the profile's constants are engine_vllm.go's. SGLang's are not refit: its profile takes no override of its estimates to plan the runs again with.\n")
}

func percentOf(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "—"
	}
	return fmt.Sprintf("%+.1f %%", 100*x)
}
