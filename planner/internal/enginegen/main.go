// Command enginegen writes, from the planner's engine registry
// (planner/engine_registry.go), the code that dispatches on an engine:
// the planner's Serving and its profile methods, each a switch that calls
// every registered engine's rules directly (planner/engine_dispatch.go),
// planner/cmdline's dialects and planner/enginelog's readers. Run it
// through go generate ./planner.
//
// The dispatch is generated rather than an interface call so that a plan
// keeps its input, shape and charges on the stack (the compiler sees each
// callee), and rather than hand-written so that an engine is its own files
// and one registry line: the generator reads the registry's entries, the
// methods of the rules interface (planner/engine.go) and each engine's
// options type, and nothing else.
package main

import (
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	files, err := Generate(".")
	if err == nil {
		for name, src := range files {
			if err = os.WriteFile(filepath.FromSlash(name), src, 0o644); err != nil {
				break
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "enginegen:", err)
		os.Exit(1)
	}
}
