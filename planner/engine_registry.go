package planner

//go:generate go run ./internal/enginegen

// registry lists the engine profiles a plan can follow besides the seed's,
// one line each, in the order the calculator and the CLI list them. An
// engine is its files and its line here: for an entry &xProfile,
//
//   - planner/engine_x*.go declares its name (EngineX), xProfile (the
//     Profile: label, releases, KV formats, knobs), the rules type x
//     (the methods of rules) and its options type XOptions, which
//     Serving carries as its field X (JSON key x, snake case);
//   - planner/cmdline declares xDialect: its program, its flags for
//     --from-flags and the engine options of `vramplan plan`;
//   - planner/enginelog declares xLog: how its start-up log is read.
//
// `go generate ./planner` (internal/enginegen) writes from this line the
// planner's dispatch and Serving (engine_dispatch.go), cmdline's dialects
// and enginelog's readers; `make check` fails when they are stale, and an
// entry without one of its parts does not compile.
var registry = [...]*Profile{
	&llamaCppProfile,
	&vllmProfile,
	&sglangProfile,
}
