package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// readBuildInfo is debug.ReadBuildInfo; tests replace it.
var readBuildInfo = debug.ReadBuildInfo

// The commit, its time and whether the work tree differed from it, as
// `make build` stamps them (-ldflags -X, from git) for a build the toolchain
// stamps none into: one with -buildvcs=false, or one in a git worktree,
// whose .git is a file that cmd/go's VCS lookup does not take (go1.26.8,
// src/cmd/go/internal/vcs/vcs.go, vcsGit's RootNames: .git, isDir).
// The toolchain's own vcs.* settings come first.
var buildRevision, buildTime, buildModified string

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
// differed from it, the toolchain's stamp or else make's (buildRevision). A
// binary built with neither (go build with -buildvcs=false, in a git
// worktree, or outside a checkout) says so instead of a commit.
func versionLine() string {
	bi, ok := readBuildInfo()
	if !ok {
		return "vramplan: no build information (built without module support)"
	}
	set := map[string]string{}
	for _, s := range bi.Settings {
		set[s.Key] = s.Value
	}
	if set["vcs.revision"] == "" && buildRevision != "" {
		set["vcs.revision"], set["vcs.time"], set["vcs.modified"] = buildRevision, buildTime, buildModified
	}
	commit := "commit unknown: built without VCS stamping (-buildvcs=false, a git worktree, or outside a git checkout; make build stamps it)"
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
