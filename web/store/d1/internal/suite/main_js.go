//go:build js && wasm

// Command suite runs the store conformance suite (web/store/storetest) on
// D1 inside workerd, as a worker: each request runs it once against the
// worker's DB binding and answers the go test verdict ("PASS" or "FAIL")
// and exit code; the -test.v output goes to the worker's console, which
// `wrangler dev` prints. web/conformance/d1.test.mjs serves it with fresh
// local state and the migrations applied by wrangler, as a deployment's
// are, and fails on anything but PASS.
//
// go test cannot run a test binary inside workerd, so this is the test
// binary: testing.MainStart with the few hooks a plain run needs.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/syumai/workers"

	"github.com/vramplan/vramplan/web/store"
	"github.com/vramplan/vramplan/web/store/d1"
	"github.com/vramplan/vramplan/web/store/storetest"
)

func main() {
	workers.Serve(http.HandlerFunc(run))
}

func run(w http.ResponseWriter, r *http.Request) {
	testing.Init()
	flag.Set("test.v", "true")
	if pat := r.URL.Query().Get("run"); pat != "" {
		flag.Set("test.run", pat)
	}
	tests := []testing.InternalTest{{Name: "TestD1Store", F: func(t *testing.T) { storetest.Run(t, open) }}}
	code := testing.MainStart(deps{}, tests, nil, nil, nil).Run()
	verdict := "PASS"
	if code != 0 {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "%s %d\n", verdict, code)
}

// open returns the DB binding's store, emptied: the suite wants a fresh
// store per subtest and a worker has one database.
func open(t *testing.T) store.Store {
	s, err := d1.Open("DB")
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"uploads", "upload_groups", "aggregates", "hits", "settings", "observations"} {
		if _, err := s.DB().ExecContext(context.Background(), "DELETE FROM "+table); err != nil {
			t.Fatalf("emptying %s (are the migrations applied?): %v", table, err)
		}
	}
	return s
}

// deps are the hooks testing.MainStart asks of its caller: matching -run
// patterns, and no profiles, fuzzing or coverage.
type deps struct{}

var errNotHere = fmt.Errorf("suite: not supported inside a worker")

func (deps) MatchString(pat, str string) (bool, error) { return regexp.MatchString(pat, str) }
func (deps) ImportPath() string                        { return "github.com/vramplan/vramplan/web/store/d1" }
func (deps) ModulePath() string                        { return "github.com/vramplan/vramplan" }
func (deps) SetPanicOnExit0(bool)                      {}
func (deps) StartCPUProfile(io.Writer) error           { return errNotHere }
func (deps) StopCPUProfile()                           {}
func (deps) StartTestLog(io.Writer)                    {}
func (deps) StopTestLog() error                        { return nil }
func (deps) WriteProfileTo(string, io.Writer, int) error {
	return errNotHere
}
func (deps) CoordinateFuzzing(time.Duration, int64, time.Duration, int64, int, []corpusEntry, []reflect.Type, string, string) error {
	return errNotHere
}
func (deps) RunFuzzWorker(func(corpusEntry) error) error { return errNotHere }
func (deps) ReadCorpus(string, []reflect.Type) ([]corpusEntry, error) {
	return nil, errNotHere
}
func (deps) CheckCorpus([]any, []reflect.Type) error { return nil }
func (deps) ResetCoverage()                          {}
func (deps) SnapshotCoverage()                       {}
func (deps) InitRuntimeCoverage() (string, func(string, string) (string, error), func() float64) {
	return "", nil, nil
}

// corpusEntry is the testing package's fuzz corpus entry (an alias of this
// struct there).
type corpusEntry = struct {
	Parent     string
	Path       string
	Data       []byte
	Values     []any
	Generation int
	IsSeed     bool
}
