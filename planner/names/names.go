// Package names resolves what a person types for a catalog model or a GPU
// calibration to its id. The CLI's --model and --gpu, the web API, the
// calculator page and the <vram-calculator> element (through the planner's
// WebAssembly) all call Resolve, so a name that one of them accepts, every
// one of them accepts, and a name that none matches gets the same list of
// near ids everywhere.
//
// The package imports the standard library only.
package names

import (
	"strconv"
	"strings"
)

// LocalPrefix starts the name of a model read from a person's own file in
// the browser calculator ("file:Qwen3-8B-Q4_K_M"). The file never leaves
// that browser, so a link that names one cannot be planned anywhere else;
// Resolve says so rather than suggest catalog ids.
const LocalPrefix = "file:"

// Error reports a name that names no id, or more than one.
type Error struct {
	Kind    string   // what was looked up: "model", "calibration"
	Name    string   // what was typed
	Matches []string // the ids Name could mean, when there are several
	// Labels, when set, says what each of Matches is, for a person
	// choosing between them; More counts the matches left out of Matches.
	Labels []string
	More   int
	Near   []string // the ids nearest to Name, when none matches
	Local  bool     // Name is a local file's model (LocalPrefix) not among the ids
	Why    string   // why Name, which names something known, resolves to nothing
}

// Error returns the message a person reads: what was not found and what
// to type instead.
func (e *Error) Error() string {
	switch {
	case e.Why != "":
		return "no " + e.Kind + " " + quote(e.Name) + " to plan on: " + e.Why
	case e.Local:
		return e.Kind + " " + quote(e.Name) + " is a local file, read in the browser that made this link and never uploaded: " +
			"pick the file again to plan it"
	case len(e.Labels) == len(e.Matches) && len(e.Matches) > 1:
		return e.Kind + " " + quote(e.Name) + " could be any of " + e.choices() + "; name one"
	case len(e.Matches) > 1:
		return e.Kind + " " + quote(e.Name) + " is ambiguous: it could be " + strings.Join(e.Matches, ", ")
	case strings.TrimSpace(e.Name) == "":
		return "no " + e.Kind + " named; one of: " + strings.Join(e.Near, ", ")
	}
	return "no " + e.Kind + " " + quote(e.Name) + "; closest: " + strings.Join(e.Near, ", ")
}

// choices lists Matches with their Labels.
func (e *Error) choices() string {
	var b strings.Builder
	for i, id := range e.Matches {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(id + " (" + e.Labels[i] + ")")
	}
	if e.More > 0 {
		b.WriteString(" and " + strconv.Itoa(e.More) + " more")
	}
	return b.String()
}

// MaxNear is how many near ids an Error lists.
const MaxNear = 5

// Resolve returns the id that name names among ids: the id equal to it, or
// the only id it is a prefix of, ignoring case and surrounding space
// ("rtx5090" for "rtx5090-wsl2-cuda13.3"). Otherwise it returns an *Error
// listing the ids the name could mean or the nearest ones.
func Resolve(kind, name string, ids []string) (string, error) {
	q := strings.ToLower(strings.TrimSpace(name))
	var matches []string
	for _, id := range ids {
		l := strings.ToLower(id)
		if l == q {
			return id, nil
		}
		if q != "" && strings.HasPrefix(l, q) {
			matches = append(matches, id)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		if strings.HasPrefix(q, LocalPrefix) {
			return "", &Error{Kind: kind, Name: name, Local: true}
		}
		return "", &Error{Kind: kind, Name: name, Near: Closest(q, ids, MaxNear)}
	}
	return "", &Error{Kind: kind, Name: name, Matches: matches}
}

// Closest returns up to n of ids nearest to q, nearest first: an id that
// holds q comes first, then the edit distance from q to the id or to the
// id's start of q's length, whichever is smaller, so that a typo in a
// prefix ("rtx5900") finds its id.
func Closest(q string, ids []string, n int) []string {
	q = strings.ToLower(q)
	d := make([]int, len(ids))
	for i, id := range ids {
		d[i] = nearness(q, strings.ToLower(id))
	}
	return nearest(ids, d, n)
}

// nearness is how far q is from the key k, both in lowercase: 0 when k
// holds q, else the edit distance from q to k or to k's start of q's
// length, whichever is smaller.
func nearness(q, k string) int {
	if q != "" && strings.Contains(k, q) {
		return 0
	}
	return min(distance(q, k), distance(q, k[:min(len(q), len(k))])+1)
}

// nearest returns up to n of ids, nearest first by d (each id's nearness),
// equal ones in the ids' order.
func nearest(ids []string, d []int, n int) []string {
	// Insertion keeps equal distances in the ids' order; a generic sort
	// would cost the planner's WebAssembly more than these few lines.
	order := make([]int, 0, len(ids))
	for i := range ids {
		j := len(order)
		order = append(order, i)
		for ; j > 0 && d[order[j-1]] > d[i]; j-- {
			order[j] = order[j-1]
		}
		order[j] = i
	}
	out := make([]string, 0, n)
	for k := 0; k < len(order) && k < n; k++ {
		out = append(out, ids[order[k]])
	}
	return out
}

// distance is the Levenshtein distance between a and b, each capped at 64
// bytes so that a long name costs a bounded amount of work.
func distance(a, b string) int {
	a, b = a[:min(len(a), 64)], b[:min(len(b), 64)]
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// quote quotes a name for a message (strconv.Quote, without its escaping
// tables in the planner's WebAssembly).
func quote(s string) string { return `"` + s + `"` }
