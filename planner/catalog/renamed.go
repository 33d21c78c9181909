package catalog

// This file lists the Hugging Face repositories of catalog models that were
// renamed. A renamed repository is the same checkpoint under a new id, and
// its old id keeps resolving on the Hub (the old page redirects), so real
// command lines and start-up logs still carry it: vLLM prints the id it was
// given, model='meta-llama/Meta-Llama-3.1-8B-Instruct'. Each entry names the
// record of its rename; a repository that merely resembles one (Llama 3's
// meta-llama/Meta-Llama-3-8B-Instruct, another checkpoint, which kept its
// name) is not a rename.

import "strings"

// renamed maps a catalog repository's former id, in lowercase, to the id
// the catalog names it by.
var renamed = map[string]string{
	// meta-llama dropped "Meta-" from Llama 3.1's repositories, and the old
	// pages redirect (oumi-ai/oumi#1357, "Adopt new Llama 3.1 HF names";
	// tenstorrent/tt-inference-server#104). Logs of the corpus carry it:
	// vllm-0.11.0-llama3.1-8b-l4, sglang-0.4.1-llama3.1-8b-unknown80g.
	"meta-llama/meta-llama-3.1-8b-instruct": "meta-llama/Llama-3.1-8B-Instruct",
}

// Renamed returns the id the catalog names repository repo by: the new id
// of a renamed repository, else repo itself.
func Renamed(repo string) string {
	if to, ok := renamed[strings.ToLower(repo)]; ok {
		return to
	}
	return repo
}
