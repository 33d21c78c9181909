package names

// This file resolves what a person types for a GPU. People name the card,
// not the calibration: "4090", "RTX 4090", "h100", "NVIDIA L40S". A card
// has one entry per platform it was calibrated on (and may have a
// measured, a community and an estimated one), and some names fit several
// cards ("h100": the PCIe and the SXM card), so GPU answers either the one
// entry a name means or the few it could mean, never a guess between
// cards. Ids keep resolving after the table changes: an id that was
// replaced is an Alias of what replaced it.

import "strings"

// A Card is one calibration as GPU resolution sees it.
type Card struct {
	ID       string
	Device   string // the device name CUDA reports: "NVIDIA GeForce RTX 4090"
	Platform string // "linux", "wsl2", "windows"
	// Label is what a person reads for the entry in a list of choices:
	// "NVIDIA H100 PCIe under Linux, estimated".
	Label string
}

// An Alias is an id that is no longer among the cards and the id it
// resolves to now, with the note a person reads about it. An alias with
// no To names an id that resolves to nothing for the reason its Note
// gives (a community group not yet planned on).
type Alias struct {
	From, To string
	Note     string
}

// Resolved is the card a name resolved to and what to tell the person who
// typed it: why an old id now names another entry, or which other
// platforms the card has; Note is empty when there is nothing to say.
type Resolved struct {
	ID   string
	Note string
}

// MaxChoices is how many entries an ambiguous GPU name lists.
const MaxChoices = 12

// GPU resolves name among cards, given in order of preference (measured
// first), and aliases. The first of these rules that matches decides:
//
//  1. an id, in any case;
//  2. an alias's From, which resolves to its To with its Note (or, with
//     no To, is an error saying why);
//  3. a card's name (Fold of its device name, or of its id without "est-"
//     and from its platform on: "h100-sxm") equal to Fold(name), or, when
//     name starts with a digit, that name without its leading letters
//     ("4090" for "rtx4090");
//  4. the same names, and the id, that Fold(name) starts and ends at a
//     word's end of: "h100" for "NVIDIA H100 PCIe", "rtx5090-wsl2" for
//     "rtx5090-wsl2-cuda13.3", but not "l40" for "NVIDIA L40S" nor "h20"
//     for "NVIDIA H200", which are other cards.
//
// When what a rule matched is one card (one folded device name), the entry
// is its first under Linux, else its first, and the Note names the other
// platforms' entries. When it is several cards, the error, an *Error, lists
// them in Matches and Labels; when nothing matches, the nearest ids.
func GPU(name string, cards []Card, aliases []Alias) (Resolved, error) {
	raw := strings.ToLower(strings.TrimSpace(name))
	for _, c := range cards {
		if strings.ToLower(c.ID) == raw {
			return Resolved{ID: c.ID}, nil
		}
	}
	for _, a := range aliases {
		switch {
		case strings.ToLower(a.From) != raw:
		case a.To == "":
			return Resolved{}, &Error{Kind: "calibration", Name: name, Why: a.Note}
		case indexOf(cards, a.To) >= 0:
			return Resolved{ID: a.To, Note: a.Note}, nil
		}
	}
	q := Fold(name)
	if q == "" {
		return Resolved{}, gpuError(name, q, cards)
	}
	for _, fits := range [...]func(key, q string) bool{equalKey, prefixKey} {
		var matched []int
		for i := range cards {
			if cardFits(&cards[i], q, fits) {
				matched = append(matched, i)
			}
		}
		if len(matched) > 0 {
			return choose(name, cards, matched)
		}
	}
	return Resolved{}, gpuError(name, q, cards)
}

func equalKey(name, q string) bool { return Fold(name) == q }

// prefixKey reports whether q, a folded name, is the start of name's
// folded form up to the end of one of name's words: a letter or digit of
// name right after q's last one, with nothing between, would cut a word.
func prefixKey(name, q string) bool {
	n, j, cut := foldable(name), 0, false
	for i := 0; i < len(n); i++ {
		c := n[i]
		switch {
		case !isAlnum(c):
			cut = false
		case j == len(q):
			return !cut
		case c != q[j]:
			return false
		default:
			j, cut = j+1, true
		}
	}
	return j == len(q)
}

// cardFits reports whether q names c by fits: its device name, its id's
// stem or its id, and when q starts with a digit the first two from their
// first digit on.
func cardFits(c *Card, q string, fits func(name, q string) bool) bool {
	keys := [...]string{c.Device, stem(c.ID, c.Platform)}
	for _, k := range keys {
		if fits(k, q) || isDigit(q[0]) && fits(digitsOn(k), q) {
			return true
		}
	}
	return fits(c.ID, q)
}

// stem is an id without "est-" and from its platform on:
// "est-h100-sxm-linux" gives "h100-sxm", "h200-linux-cuda13.0" "h200".
func stem(id, platform string) string {
	id = strings.TrimPrefix(id, "est-")
	if i := strings.Index(id, "-"+platform); platform != "" && i > 0 {
		return id[:i]
	}
	return id
}

// choose picks the entry of matched, indexes of cards, or says which cards
// name could mean.
func choose(name string, cards []Card, matched []int) (Resolved, error) {
	pick, e := matched[0], &Error{Kind: "calibration", Name: name}
	var others []string
	for _, i := range matched {
		if Fold(cards[i].Device) != Fold(cards[pick].Device) {
			e.More = -1 // several cards
		}
		if len(e.Matches) < MaxChoices {
			e.Matches, e.Labels = append(e.Matches, cards[i].ID), append(e.Labels, cards[i].Label)
		}
		if strings.EqualFold(cards[i].Platform, "linux") && !strings.EqualFold(cards[pick].Platform, "linux") {
			pick = i
		}
	}
	if e.More < 0 {
		e.More = len(matched) - len(e.Matches)
		return Resolved{}, e
	}
	for _, i := range matched {
		if !strings.EqualFold(cards[i].Platform, cards[pick].Platform) {
			others = append(others, cards[i].ID+" ("+cards[i].Label+")")
		}
	}
	r := Resolved{ID: cards[pick].ID}
	if len(others) > 0 {
		r.Note = quote(strings.TrimSpace(name)) + " is " + cards[pick].Label + " (" + cards[pick].ID + "); also: " + strings.Join(others, ", ")
	}
	return r, nil
}

// gpuError is the error for a GPU name that matches nothing: the entries
// nearest to it, of every kind, by their folded names and ids.
func gpuError(name, q string, cards []Card) *Error {
	if q == "" {
		q = strings.ToLower(strings.TrimSpace(name))
	}
	ids := make([]string, len(cards))
	near := make([]int, len(cards))
	for i, c := range cards {
		ids[i] = c.ID
		near[i] = min(cardNearness(q, Fold(c.Device)), cardNearness(q, Fold(stem(c.ID, c.Platform))), cardNearness(q, strings.ToLower(c.ID)))
	}
	return &Error{Kind: "calibration", Name: name, Near: nearest(ids, near, MaxNear)}
}

// cardNearness is how far q is from a card's key k: their nearness, then,
// among keys as near, the edits between their model numbers, so that "a10"
// is nearer "a10g" than "a100", though both hold it. A q without digits
// ranks by nearness alone.
func cardNearness(q, k string) int {
	n := modelNumber(q)
	if n == "" {
		return nearness(q, k) << 7
	}
	// distance is at most 64, below 1<<7.
	return nearness(q, k)<<7 + distance(n, modelNumber(k))
}

// modelNumber returns the first run of digits in k: "10" of "a10g", "100"
// of "a10040gb", "" when k has none.
func modelNumber(k string) string {
	k = digitsOn(k)
	i := 0
	for i < len(k) && isDigit(k[i]) {
		i++
	}
	return k[:i]
}

// Fold returns a GPU name as it is matched: in lowercase, without the
// vendor and brand words NVIDIA, GeForce and Tesla, and with only the
// letters a-z and digits kept: "NVIDIA GeForce RTX 4090" gives "rtx4090",
// "Tesla T4" gives "t4". The words become spaces before everything else is
// dropped, so no word is formed again from the letters around one.
func Fold(name string) string {
	n := foldable(name)
	var buf [64]byte
	b := buf[:0]
	for i := 0; i < len(n); i++ {
		if c := n[i]; isAlnum(c) {
			b = append(b, c)
		}
	}
	return string(b)
}

// foldable is name in lowercase with the vendor and brand words Fold
// drops made spaces; Fold keeps its letters and digits.
func foldable(name string) string {
	n := strings.ToLower(name)
	for _, w := range [...]string{"nvidia", "geforce", "tesla"} {
		n = strings.ReplaceAll(n, w, " ")
	}
	return n
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isAlnum(c byte) bool { return 'a' <= c && c <= 'z' || isDigit(c) }

// digitsOn returns a name from its first digit on: "4090" of "rtx4090"
// and of "RTX 4090".
func digitsOn(k string) string {
	i := 0
	for i < len(k) && !isDigit(k[i]) {
		i++
	}
	return k[i:]
}

func indexOf(cards []Card, id string) int {
	for i := range cards {
		if cards[i].ID == id {
			return i
		}
	}
	return -1
}
