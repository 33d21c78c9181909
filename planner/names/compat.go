package names

import (
	"strings"
	"unicode/utf8"
)

// Compat folds the compatibility characters of s that stand for ASCII
// ones to those, as Unicode's compatibility normalization (NFKC) does: the
// full-width forms U+FF01–U+FF5E ("ＲＴＸ ４０９０" is "RTX 4090"), the
// ideographic space U+3000, and the no-break and fixed-width spaces
// (U+00A0, U+2000–U+200A, U+202F, U+205F). Everything else is left as it
// is: NFKC folds more (ligatures, superscripts, mathematical letters), but
// a GPU name is ASCII, and what is not folded here is refused where names
// are checked, not guessed at. golang.org/x/text's NFKC would cost the
// Workers build 28 KB gzip, which its 3 MB budget cannot spare; the tests
// hold Compat to it.
func Compat(s string) string {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		b.WriteRune(compatRune(r))
	}
	return b.String()
}

// compatRune is Compat of one rune.
func compatRune(r rune) rune {
	switch {
	case 0xFF01 <= r && r <= 0xFF5E:
		return r - 0xFF01 + '!'
	case r == 0x3000, r == 0x00A0, 0x2000 <= r && r <= 0x200A, r == 0x202F, r == 0x205F:
		return ' '
	}
	return r
}
