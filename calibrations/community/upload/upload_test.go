package upload_test

import (
	"testing"

	"github.com/vramplan/vramplan/calibrations/community/upload"
	"github.com/vramplan/vramplan/planner"
)

// TestScrub: names of the machine and its user are replaced, and a
// recorded --upload URL and --yes are taken out of the command.
func TestScrub(t *testing.T) {
	c := planner.Calibration{Provenance: planner.Provenance{
		Command: "gpuagent calibrate --machine box -o /home/alice/h200.json --upload http://10.0.0.7:8080 --yes --runs 3",
		Machine: "alice's box"}}
	upload.Local{Home: "/home/alice", Host: "box", User: "alice"}.Scrub(&c)
	if want := "gpuagent calibrate --machine HOST -o ~/h200.json --runs 3"; c.Provenance.Command != want {
		t.Errorf("Command = %q, want %q", c.Provenance.Command, want)
	}
	if want := "USER's HOST"; c.Provenance.Machine != want {
		t.Errorf("Machine = %q, want %q", c.Provenance.Machine, want)
	}
}
