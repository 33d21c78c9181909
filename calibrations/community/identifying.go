package community

// This file finds what identifies a machine or a person in an upload's free
// text: a GPU UUID, a network or MAC address, an e-mail address, a home
// directory, a serial number. Each test but two is a hand-written scan that
// matches exactly what a regular expression would (identifying_test.go
// holds every scan to its expression, on a table and under fuzzing): the
// expressions backtracked through the few kilobytes of notes and command
// that `gpuagent calibrate` writes, and were half of a check's CPU.

import "strings"

// identifying are the tests checkIdentifying runs on every free-text field,
// in order; the first that matches names the field's reason.
var identifying = []struct {
	what  string
	match func(string) bool
}{
	{"a GPU UUID", hasGPUUUID},
	{"an IPv4 address", hasIPv4},
	{"an IPv6 address", hasIPv6},
	{"a MAC address", hasMAC},
	{"an e-mail address", hasEmail},
	{"a home directory", hasHomeDir},
	{"a serial number", hasSerial},
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

func isHex(b byte) bool { return isDigit(b) || 'a' <= b|0x20 && b|0x20 <= 'f' }

func isLetter(b byte) bool { return 'a' <= b|0x20 && b|0x20 <= 'z' }

// isWord reports whether b is a word byte as \b sees it: ASCII letters,
// digits and '_'.
func isWord(b byte) bool { return isDigit(b) || isLetter(b) || b == '_' }

// boundaryBefore reports whether a word byte at s[i] starts a word (\b).
func boundaryBefore(s string, i int) bool { return i == 0 || !isWord(s[i-1]) }

// hexRun returns the length of the run of hex digits at s[i:].
func hexRun(s string, i int) int {
	n := 0
	for i+n < len(s) && isHex(s[i+n]) {
		n++
	}
	return n
}

// hasGPUUUID reports whether s holds a GPU or MIG UUID's start:
// (?i)\b(GPU|MIG)-[0-9a-f]{8}-[0-9a-f]{4}-
// The scan goes from dash to dash: the UUID's first is its fourth byte.
func hasGPUUUID(s string) bool {
	for dash := 3; dash < len(s); dash++ {
		k := strings.IndexByte(s[dash:], '-')
		if k < 0 {
			return false
		}
		dash += k
		i := dash - 3
		if i+18 > len(s) {
			return false
		}
		if !boundaryBefore(s, i) || !hasPrefixFold(s[i:], "gpu") && !hasPrefixFold(s[i:], "mig") {
			continue
		}
		if hexRun(s[i+4:i+12], 0) == 8 && s[i+12] == '-' && hexRun(s[i+13:i+17], 0) == 4 && s[i+17] == '-' {
			return true
		}
	}
	return false
}

// hasPrefixFold reports whether s starts with lower, a word of ASCII
// lowercase letters, in any ASCII case.
func hasPrefixFold(s, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		if s[i]|0x20 != lower[i] {
			return false
		}
	}
	return true
}

// containsFold reports whether s holds lower, a word of ASCII lowercase
// letters, in any ASCII case.
func containsFold(s, lower string) bool {
	for i := 0; i+len(lower) <= len(s); i++ {
		if s[i]|0x20 == lower[0] && hasPrefixFold(s[i:], lower) {
			return true
		}
	}
	return false
}

// colonFields counts the fields of 1 to maxLen hex digits (exactly maxLen
// when exact) separated by single colons from s[i], a word's start, up to
// limit: a field counts when it is followed by a colon, a byte that is not
// a word byte, or the end, so that a \b can close the address after it.
func colonFields(s string, i, maxLen int, exact bool, limit int) int {
	n := 0
	for n < limit {
		l := hexRun(s, i)
		if l == 0 || l > maxLen || exact && l != maxLen {
			return n
		}
		i += l
		if i < len(s) && isWord(s[i]) {
			return n
		}
		n++
		if i >= len(s) || s[i] != ':' {
			return n
		}
		i++
	}
	return n
}

// hasColonAddress reports whether s holds want fields (two or more) as
// colonFields counts them, from a word's start. Such a start is at most
// maxLen bytes before a colon, the first after it, so the scan goes from
// colon to colon and tries only the bytes before each.
func hasColonAddress(s string, maxLen int, exact bool, want int) bool {
	if strings.Count(s, ":") < want-1 {
		return false
	}
	from := 0 // the starts before it were tried
	for colon := 0; colon < len(s); colon++ {
		k := strings.IndexByte(s[colon:], ':')
		if k < 0 {
			return false
		}
		colon += k
		for i := max(from, colon-maxLen); i < colon; i++ {
			if isHex(s[i]) && boundaryBefore(s, i) && colonFields(s, i, maxLen, exact, want) == want {
				return true
			}
		}
		from = colon + 1
	}
	return false
}

// hasIPv6 reports whether s holds an IPv6 address written out in six or
// more groups: (?i)\b[0-9a-f]{1,4}(:[0-9a-f]{1,4}){5,7}\b
func hasIPv6(s string) bool { return hasColonAddress(s, 4, false, 6) }

// hasMAC reports whether s holds a MAC address:
// (?i)\b[0-9a-f]{2}(:[0-9a-f]{2}){5}\b
func hasMAC(s string) bool { return hasColonAddress(s, 2, true, 6) }

func isLocalPart(b byte) bool { return isWord(b) || strings.IndexByte(".%+-", b) >= 0 }

func isDomainByte(b byte) bool { return isDigit(b) || isLetter(b) || b == '.' || b == '-' }

// hasEmail reports whether s holds an e-mail address:
// [A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}
func hasEmail(s string) bool {
	for at := strings.IndexByte(s, '@'); at >= 0; {
		if at > 0 && isLocalPart(s[at-1]) && hasDomain(s[at+1:]) {
			return true
		}
		next := strings.IndexByte(s[at+1:], '@')
		if next < 0 {
			return false
		}
		at += 1 + next
	}
	return false
}

// hasDomain reports whether the run of domain bytes starting s holds a dot,
// not first, followed by two letters.
func hasDomain(s string) bool {
	n := 0
	for n < len(s) && isDomainByte(s[n]) {
		n++
	}
	for j := 1; j+2 < n; j++ {
		if s[j] == '.' && isLetter(s[j+1]) && isLetter(s[j+2]) {
			return true
		}
	}
	return false
}

// homePrefixes start a home directory's path.
var homePrefixes = []string{"/home/", "/Users/", `C:\Users\`}

// hasHomeDir reports whether s holds a path into a home directory:
// (/home/|/Users/|C:\\Users\\)[^/\\\s"]+
func hasHomeDir(s string) bool {
	for _, p := range homePrefixes {
		for i := 0; ; i++ {
			j := strings.Index(s[i:], p)
			if j < 0 {
				break
			}
			i += j
			if end := i + len(p); end < len(s) && strings.IndexByte("/\\\t\n\f\r \"", s[end]) < 0 {
				return true
			}
		}
	}
	return false
}

// hasAnyOf reports whether s holds one of the bytes of set, looking for
// each in turn (strings.IndexByte is vectorised, strings.ContainsAny is a
// loop over s).
func hasAnyOf(s, set string) bool {
	for i := 0; i < len(set); i++ {
		if strings.IndexByte(s, set[i]) >= 0 {
			return true
		}
	}
	return false
}

var serialPattern = lazy(`(?i)serial\s*(number|no\.?)?\s*[:=#]\s*\w`)

// hasSerial reports whether s holds a serial number's label and value:
// (?i)serial\s*(number|no\.?)?\s*[:=#]\s*\w. The expression runs only on
// text holding "erial" in any case, as every match does ("s" also matches
// U+017F under (?i), the other letters only their ASCII cases), and one of
// ':', '=' or '#'.
func hasSerial(s string) bool {
	return hasAnyOf(s, ":=#") && containsFold(s, "erial") && serialPattern().MatchString(s)
}

// hasIPv4 reports whether s holds a dotted quad that is not a version: a
// WSL2 kernel is "5.15.153.1-microsoft-standard-WSL2". The expression runs
// only on text with a run of digits and dots holding three dots.
func hasIPv4(s string) bool {
	if !dottedRun(s) {
		return false
	}
	for _, m := range ipv4().FindAllStringIndex(s, -1) {
		if m[1] < len(s) && s[m[1]] == '-' {
			continue
		}
		if m[0] >= 6 && s[m[0]-6:m[0]] == "Linux " {
			continue
		}
		return true
	}
	return false
}

var ipv4 = lazy(`\b(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}\b`)

// dottedRun reports whether s holds a run of digits and dots with three
// dots or more, as every dotted quad is; a version such as 580.159.04 or
// 6.18.44 has two.
// The scan goes from dot to dot, counting those joined by digits alone.
func dottedRun(s string) bool {
	for dot := strings.IndexByte(s, '.'); dot >= 0; {
		end := dot + 1
		for dots := 1; ; end++ {
			end = digitsAt(s, end)
			if end == len(s) || s[end] != '.' {
				break
			}
			if dots++; dots == 3 {
				return true
			}
		}
		k := strings.IndexByte(s[end:], '.')
		if k < 0 {
			return false
		}
		dot = end + k
	}
	return false
}
