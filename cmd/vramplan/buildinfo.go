package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// readBuildInfo is debug.ReadBuildInfo; tests replace it.
var readBuildInfo = debug.ReadBuildInfo

// cmdVersion is `vramplan version` and `vramplan --version`: the module
// version and the VCS commit the binary was built from, as the Go
// toolchain stamped them (runtime/debug.ReadBuildInfo).
func cmdVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("vramplan version", stderr)
	if code, done := parseOnly(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "vramplan version: unexpected argument %q\n", fs.Arg(0))
		return exitBadInput
	}
	fmt.Fprintln(stdout, versionLine())
	return exitFits
}

// versionLine is "vramplan v1.2.0 (commit 5c08902a1b2c, 2026-12-02T10:00:15Z,
// modified) go1.26.8": the main module's version ("(devel)" for a build in
// its own checkout) and the commit's hash, time and whether the work tree
// differed from it. A binary built without VCS stamping (-buildvcs=false,
// or outside a checkout) says so instead of a commit.
func versionLine() string {
	bi, ok := readBuildInfo()
	if !ok {
		return "vramplan: no build information (built without module support)"
	}
	set := map[string]string{}
	for _, s := range bi.Settings {
		set[s.Key] = s.Value
	}
	commit := "commit unknown: built without VCS stamping (-buildvcs=false, or outside a git checkout)"
	if rev := set["vcs.revision"]; rev != "" {
		commit = "commit " + rev[:min(len(rev), 12)]
		if t := set["vcs.time"]; t != "" {
			commit += ", " + t
		}
		if set["vcs.modified"] == "true" {
			commit += ", modified"
		}
	}
	return fmt.Sprintf("vramplan %s (%s) %s", bi.Main.Version, commit, bi.GoVersion)
}
