package names

import "strings"

// Suggest returns the word of words that q is a typo of, for a "did you
// mean": the nearest by edit distance, ignoring case, when it is within
// two edits of q (one for a q of two bytes or fewer), and "" when none is
// or q is one of words. A transposition ("lsit" for "list") is two edits.
func Suggest(q string, words []string) string {
	q = strings.ToLower(q)
	best, bestD := "", min(2, max(len(q)-1, 0))+1
	for _, w := range words {
		d := distance(q, strings.ToLower(w))
		if d == 0 {
			return ""
		}
		if d < bestD {
			best, bestD = w, d
		}
	}
	return best
}
