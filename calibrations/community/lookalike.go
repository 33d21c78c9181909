package community

// This file keeps look-alike names out of the groups. A device name is
// shown to everyone who picks the card and decides the group an upload
// joins, so a name that looks like a card's but is not its name (the
// Cyrillic Н of "NVIDIA Н200", a right-to-left override, a zero-width
// space) would be a second "H200" in the picker or a name displayed
// reversed. Names are folded to their compatibility form first
// (names.Compat, the part of NFKC that yields ASCII: a full-width
// "ＮＶＩＤＩＡ Ｈ２００" is "NVIDIA H200", and joins that group); what
// remains must be what CUDA reports, ASCII.

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/names"
)

// normalizeNames folds c's device, driver and architecture names
// (names.Compat).
func normalizeNames(c *planner.Calibration) {
	for _, s := range [...]*string{&c.GPU, &c.Driver, &c.Arch} {
		*s = names.Compat(*s)
	}
}

// lookalike returns why a name, already folded, is not one a device reports,
// or "": it holds a control or format character (bidirectional controls
// and zero-width characters are format characters), Latin letters beside
// letters of another script, or a character outside ASCII.
func lookalike(s string) string {
	if isASCII(s) {
		return ""
	}
	latin := strings.IndexFunc(s, func(r rune) bool { return r < utf8.RuneSelf && unicode.IsLetter(r) }) >= 0
	why, at := "", -1
loop:
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			return "is not valid UTF-8 at byte " + strconv.Itoa(i)
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			why, at = "the invisible control character %[2]U at byte %[3]d (a bidirectional or zero-width control)", i
			break loop
		case latin && unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r):
			why, at = "Latin letters beside %[1]q (%[2]U) at byte %[3]d, a letter of "+scriptOf(r)+", as a look-alike of another name does", i
			break loop
		case r >= utf8.RuneSelf && at < 0:
			why, at = "%[1]q (%[2]U) at byte %[3]d", i
		}
	}
	if at < 0 {
		return ""
	}
	r, _ := utf8.DecodeRuneInString(s[at:])
	return fmt.Sprintf("holds "+why+"; device names are ASCII", r, r, at)
}

// scriptOf names the script of a letter whose look-alikes of Latin ones
// are the usual disguise, "another script" for the rest.
func scriptOf(r rune) string {
	switch {
	case unicode.Is(unicode.Cyrillic, r):
		return "the Cyrillic script"
	case unicode.Is(unicode.Greek, r):
		return "the Greek script"
	}
	return "another script"
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
