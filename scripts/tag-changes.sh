#!/usr/bin/env bash
# tag-changes.sh TAG prints the module's packages whose test binary the build
# tag changes: those with a file the tag selects or leaves out, and every
# package whose tests link one of them. `make unit` runs the tests with the
# invariants tag, then these without it, as the release binaries are built.
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${1:?usage: tag-changes.sh TAG}
files='{{.ImportPath}} {{.GoFiles}} {{.TestGoFiles}} {{.XTestGoFiles}}'
changed=$(comm -23 <(go list -f "$files" ./... | sort) <(go list -tags "$tag" -f "$files" ./... | sort) | cut -d' ' -f1)
if [[ -z $changed ]]; then
  echo "tag-changes.sh: no package has a file for the tag $tag" >&2
  exit 1
fi
# A test binary's entry (P.test) lists every package it links, the
# test variants as "Q [P.test]".
go list -test -f '{{if not .ForTest}}{{.ImportPath}}{{range .Deps}},{{.}}{{end}}{{end}}' ./... | awk -F, -v changed="$changed" '
  BEGIN { n = split(changed, c, "\n"); for (i = 1; i <= n; i++) ch[c[i]] = 1 }
  $1 ~ /\.test$/ {
    p = substr($1, 1, length($1) - 5); hit = p in ch
    for (i = 2; i <= NF && !hit; i++) { d = $i; sub(/ .*/, "", d); hit = d in ch }
    if (hit) print p
  }' | sort -u
