package community

import (
	"os"
	"regexp"
	"testing"
)

// scans pairs each hand-written scan with the regular expression it must
// match exactly: the expressions are the specification.
var scans = []struct {
	name string
	scan func(string) bool
	re   *regexp.Regexp
}{
	{"uuid", hasGPUUUID, regexp.MustCompile(`(?i)\b(GPU|MIG)-[0-9a-f]{8}-[0-9a-f]{4}-`)},
	{"ipv6", hasIPv6, regexp.MustCompile(`(?i)\b[0-9a-f]{1,4}(:[0-9a-f]{1,4}){5,7}\b`)},
	{"mac", hasMAC, regexp.MustCompile(`(?i)\b[0-9a-f]{2}(:[0-9a-f]{2}){5}\b`)},
	{"email", hasEmail, regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)},
	{"home", hasHomeDir, regexp.MustCompile(`(/home/|/Users/|C:\\Users\\)[^/\\\s"]+`)},
	{"serial", hasSerial, regexp.MustCompile(`(?i)serial\s*(number|no\.?)?\s*[:=#]\s*\w`)},
	{"markup", hasMarkup, regexp.MustCompile(`[<>\x00-\x1f\x7f]`)},
	{"dotted", dottedRun, regexp.MustCompile(`\.\d*\.\d*\.`)}, // hasIPv4's test before its expression
}

// identifyingCases are texts near each pattern's edges, matching or not.
var identifyingCases = []string{
	"", "GPU-", "GPU-12345678-1234-", "gpu-abcdef01-ABCD-5678", "MIG-12345678-1234-x", "xGPU-12345678-1234-",
	"_MIG-12345678-1234-", "é GPU-12345678-1234-", "GPU-1234567-1234-", "GPU-12345678-123-", "GPU-1234567g-1234-",
	"fe80:0:0:0:202:b3ff:fe1e:8329", "1:2:3:4:5", "1:2:3:4:5:6", "1:2:3:4:5:6g", "1:2:3:4:5:6:7g", "x1:2:3:4:5:6",
	"12345:2:3:4:5:6", "1:2:3:4:5:67890", "1:2:3:4:5:6:", ":1:2:3:4:5:6", "a:b:c:d:e:f:0:1:2:3", "1::2:3:4:5:6:7",
	"00:1A:2b:3C:4d:5E", "00:1a:2b:3c:4d:5", "00:1a:2b:3c:4d:5ef", "000:1a:2b:3c:4d:5e", "00:1a:2b:3c:4d:5e:6f",
	"00:1a:2b:3c:4d:5e_", "00:1a:2b:3c:4d:5e\xff", "\xff00:1a:2b:3c:4d:5e",
	"a@b.cd", "a@b.c", "@b.cd", "a@.cd", "a@b..cd", "a@b.c1d", "a@@b.cd", "ops@example.com", "x @b.cd", "a@b-c.d-e.fg",
	"%@1.ab", "a@b.cd.", "a@b@c.de", "a@ b.cd",
	"/home/x", "/home/", "/home//x", "/home/ x", `/home/"x`, "/home/home/", "/Users/me", `C:\Users\me`, `C:\Users\\`,
	"/home/\xff", "/home/\x0b", "/usr/home/x",
	"serial: 1", "SERIAL NUMBER = A1", "serial no. #x", "serialno:x", "Serial:", "serial : _", "ſerial: 1", "serial number",
	"seriaL#\t9", "Kelvin serial=é", "serial no.: x",
	"<b>", "a\x00b", "tab\there", "del\x7f", "fine",
	"...", "1.2.3", "1.2.3.4", "5.15.153.1-microsoft", "580.159.04", "1.2x3.4.5", ".1.2.", "a.b.c.d", "1..2.",
}

func TestIdentifyingScans(t *testing.T) {
	notes, err := os.ReadFile("../h200-linux-cuda13.0.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(identifyingCases, string(notes)) {
		for _, sc := range scans {
			if got, want := sc.scan(s), sc.re.MatchString(s); got != want {
				t.Errorf("%s(%q) = %v, want %v (%s)", sc.name, s, got, want, sc.re)
			}
		}
	}
}

func FuzzIdentifyingScans(f *testing.F) {
	for _, s := range identifyingCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, sc := range scans {
			if got, want := sc.scan(s), sc.re.MatchString(s); got != want {
				t.Fatalf("%s(%q) = %v, want %v (%s)", sc.name, s, got, want, sc.re)
			}
		}
	})
}
