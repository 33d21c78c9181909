package planner

import (
	"os"
	"testing"
)

func benchInput(b *testing.B, name string) Input {
	data, err := os.ReadFile("testdata/golden/" + name + ".input.json")
	if err != nil {
		b.Fatal(err)
	}
	in, err := ParseInput(data)
	if err != nil {
		b.Fatal(err)
	}
	return in
}

// BenchmarkPlanMemory is one plan of the seed's B1 configuration.
func BenchmarkPlanMemory(b *testing.B) {
	in := benchInput(b, "b1-qwen3-4b-fp8")
	for b.Loop() {
		if _, err := PlanMemory(in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFrontier256 is the fit frontier for batch 1..256.
func BenchmarkFrontier256(b *testing.B) {
	in := benchInput(b, "b1-qwen3-4b-fp8")
	for b.Loop() {
		if _, err := Frontier(in, 256); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReportLevers is the failure report of the seed's A4.3 example,
// levers and capacity included.
func BenchmarkReportLevers(b *testing.B) {
	in := benchInput(b, "a43-example")
	for b.Loop() {
		if p, _ := Report(in); p.Fits || len(p.Levers) == 0 {
			b.Fatal("A4.3 example fits or has no levers")
		}
	}
}

// BenchmarkReportCombination is a report where no single lever fits and the
// combination search runs.
func BenchmarkReportCombination(b *testing.B) {
	in := benchInput(b, "a43-example")
	in.Budget = 22800 * MiB
	for b.Loop() {
		if p, _ := Report(in); p.Combination == nil {
			b.Fatal("no combination")
		}
	}
}
