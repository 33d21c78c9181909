package planner

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestEveryEngineEveryDispatch walks every registered engine through every
// dispatch of the seam: its lookups, each rule of the generated dispatch,
// a plan and a layout's launch command. An engine that a dispatch misses
// fails here, not for a user.
func TestEveryEngineEveryDispatch(t *testing.T) {
	if got, want := len(Profiles()), len(registry)+1; got != want || Profiles()[0] != &seedProfile {
		t.Fatalf("Profiles() has %d, want the seed's and the registry's %d", got, want)
	}
	for i, p := range registry {
		t.Run(string(p.Name), func(t *testing.T) {
			if p.Name.Profile() != p || profileOf(p.Name) != p || !p.Name.Valid() || Engines[i+1] != p.Name {
				t.Fatalf("%s is not found by its name", p.Name)
			}
			for _, s := range append([]string{string(p.Name), strings.ToUpper(string(p.Name))}, p.Aliases...) {
				if e, err := ParseEngine(s); e != p.Name || err != nil {
					t.Errorf("ParseEngine(%q) = %q, %v; want %s", s, e, err, p.Name)
				}
			}
			if p.Label == "" || len(p.Versions) == 0 || len(p.KVDtypes) == 0 || p.Loads == "" || len(p.knobs) == 0 {
				t.Errorf("%s's profile leaves a field empty: %+v", p.Name, *p)
			}
			walkDispatch(t, p, engineInput(rand.New(rand.NewPCG(28, uint64(i))), p.Name), false)
			walkDispatch(t, p, Input{Model: catalogModel(t, "llama-3.1-8b-instruct-bf16"), Calibration: h200(t),
				Limits: Limits{MaxSeqLen: 8192}, Serving: Serving{Engine: p.Name}}, true)
		})
	}
}

// walkDispatch calls every rule of p on in, a valid input of p's engine,
// and with layout set on two GPUs of it.
func walkDispatch(t *testing.T, p *Profile, in Input, layout bool) {
	t.Helper()
	normalizeEngine(&in)
	if err := validateServing(&in); err != nil {
		t.Fatalf("validateServing: %v", err)
	}
	if q := in.Serving.optionsBesides(p); q != nil {
		t.Errorf("optionsBesides(%s) = %s for an input of %s alone", p.Name, q.Name, p.Name)
	}
	if p.budget(&in) <= 0 {
		t.Errorf("budget %d", p.budget(&in))
	}
	for _, d := range p.KVDtypes {
		p.kvDtypeAllowed(&in, d)
	}
	plan, err := Report(in)
	var ie *InputError
	if errors.As(err, &ie) {
		t.Fatalf("Report: %v", err)
	}
	if e := plan.Engine; e == nil || e.Engine != p.Name || e.Launch == "" || e.Version != p.Versions[len(p.Versions)-1].ReadAt {
		t.Fatalf("Report's engine report = %+v, want %s's with a launch command and its release", e, p.Name)
	}
	for _, it := range plan.Items {
		if it.Name == "" {
			t.Errorf("item %s has no name (describe)", it.Key)
		}
	}
	if !layout {
		return
	}
	two := in
	two.Parallel = Parallel{Tensor: 2}
	if p.TensorSplit {
		two.Parallel = Parallel{Pipeline: 2}
	}
	lp, err := Report(two)
	if errors.As(err, &ie) {
		t.Fatalf("Report of two GPUs: %v", err)
	}
	if lp.Layout == nil {
		t.Fatalf("two GPUs planned as %+v, want a layout", lp.Input.Parallel)
	}
	b, _ := lp.RankPlanOf(lp.Layout.Binding)
	if b.Engine == nil || b.Engine.Launch == plan.Engine.Launch {
		t.Errorf("two GPUs' launch command %+v does not state the layout (layoutLaunch)", b.Engine)
	}
}

// TestUnregisteredProfile: a profile not in the registry panics in every
// rule of the dispatch, naming the registry, and an engine name not
// registered is an input error, not another engine's plan.
func TestUnregisteredProfile(t *testing.T) {
	stray := &Profile{Name: "stray"}
	in := Input{Serving: Serving{Engine: "stray"}}
	var c charges
	calls := map[string]func(){
		"validate": func() { stray.validate(&in) }, "normalize": func() { stray.normalize(&in) },
		"budget": func() { stray.budget(&in) }, "charge": func() { stray.charge(&in, &shape{}, limits{}, &c) },
		"describe": func() { stray.describe(keyKV, &in, &c, limits{}) }, "report": func() { stray.report(&in, &shape{}, &Plan{}) },
		"layoutLaunch":   func() { stray.layoutLaunch(&EngineReport{}, &in, &Model{}) },
		"kvDtypeAllowed": func() { stray.kvDtypeAllowed(&in, KVDtypeF16) },
	}
	if n := reflect.TypeFor[rules]().NumMethod(); n != len(calls) {
		t.Fatalf("rules has %d methods, the test calls %d: call the new one", n, len(calls))
	}
	for name, call := range calls {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "not in the registry") {
					t.Errorf("%s of an unregistered profile: recovered %v, want a panic naming the registry", name, r)
				}
			}()
			call()
		}()
	}
	if profileOf("stray") != nil || EngineName("stray").Valid() {
		t.Error("an unregistered name has a profile")
	}
	var ie *InputError
	if err := validateServing(&in); !errors.As(err, &ie) || ie.Field != "serving.engine" {
		t.Errorf("validateServing(stray) = %v, want an error on serving.engine", err)
	}
	if _, err := ParseEngine("stray"); err == nil || !strings.Contains(err.Error(), string(EngineVLLM)) {
		t.Errorf("ParseEngine(stray) = %v, want an error listing the engines", err)
	}
}

func mustVersion(s string) Version {
	v, err := ParseVersion(s)
	if err != nil {
		panic(err)
	}
	return v
}

func TestVersion(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"0.22.1", "0.22.1", true}, {"v0.6.3.post1", "0.6.3", true}, {"0.11.0rc2", "0.11", true}, {"b12072", "b12072", true},
		{"0.4", "0.4", true}, {"", "", false}, {"latest", "", false}, {"v", "", false}, {"99999999999.1", "", false},
	} {
		v, err := ParseVersion(tc.in)
		if (err == nil) != tc.ok || tc.ok && v.String() != tc.want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %q (ok %v)", tc.in, v, err, tc.want, tc.ok)
		}
	}
	r := VersionRange{Name: "V1", From: mustVersion("0.8"), Until: mustVersion("0.21")}
	for v, want := range map[string]bool{"0.7.3": false, "0.8": true, "0.8.0": true, "0.20.9": true, "0.21": false, "1.0": false} {
		if got := r.Contains(mustVersion(v)); got != want {
			t.Errorf("%s contains %s = %v, want %v", r, v, got, want)
		}
	}
	if release(0, 22, 0) != mustVersion("0.22") || build(12072) != mustVersion("b12072") {
		t.Error("release and build differ from ParseVersion")
	}
	if _, err := vllmProfile.Range(mustVersion("0.3.3")); err == nil || !strings.Contains(err.Error(), "0.4 up to 0.8 (V0 engine)") ||
		!strings.Contains(err.Error(), "0.22 and later") {
		t.Errorf("vLLM 0.3.3: %v, want an error naming the releases the profile covers", err)
	}
	if got, err := vllmProfile.Range(mustVersion("0.6.3")); err != nil || got.ReadAt != "vLLM 0.6 (V0 engine)" {
		t.Errorf("vLLM 0.6.3: %v, %v, want the V0 range", got, err)
	}
	if got, err := llamaCppProfile.Range(mustVersion("b12100")); err != nil || got.ReadAt != LlamaCppVersion {
		t.Errorf("llama.cpp b12100: %v, %v", got, err)
	}
}

// FuzzVersion: any string parses to a release that writes itself back, or
// is refused; never a panic.
func FuzzVersion(f *testing.F) {
	for _, s := range []string{"0.22.1", "b12072", "v0.6.3.post1", "1.2.3.4.5", "0.", ".1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVersion(s)
		if err != nil {
			return
		}
		w, err := ParseVersion(v.String())
		if err != nil || w != v {
			t.Fatalf("ParseVersion(%q) = %v, which reads back as %v, %v", s, v, w, err)
		}
	})
}
