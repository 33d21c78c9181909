// Package community checks, groups and aggregates the calibrations that
// operators upload: what `gpuagent calibrate` measured on cards the project
// does not own.
//
// Check turns an uploaded document into a canonical one, its digest, its
// group and the figures aggregation reads, or refuses it with a reason per
// field. Summarize aggregates a group's figures (median, MAD, min, max,
// count), holding out outliers by the rule in aggregate.go; Held says why a
// new upload contradicts an established group; Summary.Calibration turns an
// aggregate into a calibration the planner takes. Everything here is pure:
// no I/O, no clock.
package community

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/names"
)

// MaxSize is the largest upload accepted, in bytes.
const MaxSize = calibrations.MaxSize

// Reason is one refusal: the field at fault (empty for the document as a
// whole) and why.
type Reason struct {
	Field string `json:"field,omitempty"`
	Msg   string `json:"reason"`
}

// Rejection is the error Check returns: every reason the upload is refused.
type Rejection struct {
	Reasons []Reason `json:"reasons"`
}

func (r *Rejection) Error() string {
	s := make([]string, len(r.Reasons))
	for i, x := range r.Reasons {
		s[i] = x.Msg
		if x.Field != "" {
			s[i] = x.Field + ": " + x.Msg
		}
	}
	return "upload refused: " + strings.Join(s, "; ")
}

// Checked is an upload that passed Check.
type Checked struct {
	// Calibration is the upload as decoded, its source left empty (an
	// upload is a measurement).
	Calibration planner.Calibration
	// Document is its canonical encoding (calibrations.Format), and Digest
	// the hex SHA-256 of Document: equal content, equal digest.
	Document []byte
	Digest   string
	// ID is the upload's id, derived from Digest.
	ID      string
	Group   Key
	Figures map[string]float64
}

// Check decodes and checks one uploaded document.
func Check(data []byte) (Checked, error) {
	var ch Checked
	if len(data) > MaxSize {
		return ch, reject("", "the document is %d bytes, more than %d", len(data), MaxSize)
	}
	c, err := calibrations.Parse(data)
	if err != nil {
		return ch, &Rejection{Reasons: []Reason{parseReason(err)}}
	}
	normalizeNames(&c)
	if rs := plausible(&c); len(rs) > 0 {
		return ch, &Rejection{Reasons: rs}
	}
	c.Source = "" // the stored document leaves out what the upload says of its source
	ch.Document = calibrations.Format(&c)
	ch.Calibration = c
	sum := sha256.Sum256(ch.Document)
	ch.Digest = hex.EncodeToString(sum[:])
	ch.ID = ch.Digest[:20]
	ch.Group, ch.Figures = KeyOf(&c), Figures(&c)
	return ch, nil
}

func reject(field, format string, args ...any) *Rejection {
	return &Rejection{Reasons: []Reason{{Field: field, Msg: fmt.Sprintf(format, args...)}}}
}

// fieldPrefix finds the field a calibrations error starts with.
var (
	fieldPrefix  = lazy(`^([a-z_]+(?:\.[a-z_]+)*(?:\[\d+\])?(?:\.[a-z_]+)?): `)
	unknownField = lazy(`unknown field "([^"]+)"`)
)

func parseReason(err error) Reason {
	msg := err.Error()
	var dup *calibrations.DuplicateKeyError
	if errors.As(err, &dup) {
		return Reason{Field: dup.Key, Msg: "appears twice in one object (keys match without regard to case)"}
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field != "" {
		return Reason{Field: typ.Field, Msg: fmt.Sprintf("%s is not a %s", typ.Value, typeName(typ.Type.Kind()))}
	}
	if m := unknownField().FindStringSubmatch(msg); m != nil {
		return Reason{Field: m[1], Msg: "unknown field: the calibration schema has no such field"}
	}
	if m := fieldPrefix().FindStringSubmatch(msg); m != nil {
		return Reason{Field: m[1], Msg: strings.TrimPrefix(msg, m[0])}
	}
	return Reason{Msg: msg}
}

// typeName says what kind of JSON value a Go kind decodes from.
func typeName(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "whole number in range"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	case reflect.Slice:
		return "list"
	}
	return "object"
}

// Key is an aggregation group: uploads of the same GPU model (normalized
// name and total memory to the GiB), driver branch, CUDA version and
// platform are aggregated together.
type Key struct {
	GPU      string // NormalizeGPU of the device name
	TotalGiB int64
	Branch   string // the driver's major version, "r580"; "unknown" when it cannot be read
	CUDA     string
	Platform string
}

// String returns the key as a calibration id:
// "h200-140gib-linux-r580-cuda13.0".
func (k Key) String() string {
	return k.GPU + "-" + strconv.FormatInt(k.TotalGiB, 10) + "gib-" + k.Platform + "-" + k.Branch + "-cuda" + k.CUDA
}

// KeyOf returns c's group.
func KeyOf(c *planner.Calibration) Key {
	return Key{GPU: NormalizeGPU(c.GPU), TotalGiB: int64(math.Round(float64(c.DeviceTotal) / float64(planner.GiB))),
		Branch: Branch(c.Driver), CUDA: strings.ToLower(strings.TrimSpace(c.CUDA)), Platform: c.Platform}
}

// NormalizeGPU returns a device name without vendor and brand words, in
// lowercase letters and digits: "NVIDIA GeForce RTX 4090" gives "rtx4090",
// "Tesla T4" gives "t4". (The words become spaces before everything but
// [a-z0-9] is dropped, so no word is formed again from the letters around
// one.)
// It is names.Fold, by which the calculator matches a GPU name typed.
func NormalizeGPU(name string) string { return names.Fold(name) }

// Branch returns a driver version's branch: "580.159.04" gives "r580",
// from 2 to 4 digits after any leading space, then a dot and a digit
// (^\s*(\d{2,4})\.\d).
func Branch(driver string) string {
	i := 0
	for i < len(driver) && strings.IndexByte("\t\n\f\r ", driver[i]) >= 0 {
		i++
	}
	j := digitsAt(driver, i)
	if n := j - i; n >= 2 && n <= 4 && j+1 < len(driver) && driver[j] == '.' && isDigit(driver[j+1]) {
		return "r" + driver[i:j]
	}
	return "unknown"
}

// isCUDAVersion reports whether s is a CUDA version such as 13.0:
// ^\d{1,2}\.\d{1,2}$.
func isCUDAVersion(s string) bool {
	major, minor, ok := strings.Cut(s, ".")
	return ok && len(major) >= 1 && len(major) <= 2 && digitsAt(major, 0) == len(major) &&
		len(minor) >= 1 && len(minor) <= 2 && digitsAt(minor, 0) == len(minor)
}

// digitsAt returns the end of the run of ASCII digits at s[i:].
func digitsAt(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}
