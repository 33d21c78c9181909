// Package corpus reads the corpus of real vLLM and SGLang start-ups
// (planner/testdata/engines/corpus): one entry per run that someone posted
// in public, its facts in <id>.json and its memory lines, verbatim, in
// <id>.log. Load validates every entry and reads the figures an entry
// quotes from its log; Input turns an entry into the planner input its
// launch configuration states, and Compare plans it and sets the plan
// beside what the engine printed. The corpus is the only ground truth the
// project can reach for those two engines, so nothing is read from an
// entry that it does not state: a missing figure is absent, not guessed.
//
// The data stays beside the other engine test data rather than in this
// package, because the log reader's tests (planner/enginelog) and the
// model test (planner/modelfile) read the same files; Load takes the
// directory as an fs.FS.
package corpus

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Dir is the corpus's path from the repository root.
const Dir = "planner/testdata/engines/corpus"

// Engine directories: an entry's engine is the directory it lies in.
const (
	EngineVLLM   = "vllm"
	EngineSGLang = "sglang"
)

// maxFile bounds one entry's .json or .log file, in bytes.
const maxFile = 1 << 20

// Entry is one real start-up.
type Entry struct {
	ID          string `json:"id"`
	Engine      string `json:"engine"`
	Version     string `json:"version"`
	VersionFrom string `json:"version_from"`
	Source      Source `json:"source"`
	GPU         GPU    `json:"gpu"`
	Model       Model  `json:"model"`
	// Command is the launch command as posted, "" when only a log was.
	Command string `json:"command"`
	// Config is the run's launch configuration by the engine's own
	// argument names (keys.go lists them); ConfigFrom says, per key,
	// where its value comes from.
	Config     map[string]json.RawMessage `json:"config"`
	ConfigFrom map[string]string          `json:"config_from"`
	Outcome    Outcome                    `json:"outcome"`
	Notes      []string                   `json:"notes"`
	// Figures quotes the log's memory figures: for each figure key
	// (figures.go), a piece of one line of the log that holds it.
	Figures map[FigureKey]string `json:"figures,omitempty"`

	// Log is the entry's .log, and Values the figures read from it.
	Log    string                `json:"-"`
	Values map[FigureKey]float64 `json:"-"`
}

// Source is where a run was published.
type Source struct {
	URL   string `json:"url"`
	Date  string `json:"date"` // YYYY-MM-DD, or YYYY-MM when the day is not known
	Where string `json:"where"`
}

// GPU is the device a run started on.
type GPU struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
	// TotalGiB is the device's total as CUDA reports it; an entry of
	// From "card" leaves it out and Parse sets its card's (cards.go).
	TotalGiB float64 `json:"total_gib,omitempty"`
	From     string  `json:"total_from"` // log, thread or card
}

// Model is a run's checkpoint and where its shape is read from offline.
type Model struct {
	HFID    string `json:"hf_id"`
	Catalog string `json:"catalog"` // a catalog id, or ""
	Config  string `json:"config"`  // a config.json's path from the repository root, or ""
	Family  string `json:"family"`  // kinds joined by "+": dense, moe, mla, swa, hybrid, vision
}

// Outcome is how a start-up ended.
type Outcome string

// The outcomes an entry may state.
const (
	OutcomeStarted   Outcome = "started"
	OutcomeNoKVRoom  Outcome = "no_kv_room"
	OutcomeOOMLoad   Outcome = "oom_load"
	OutcomeOOMProf   Outcome = "oom_profile"
	OutcomeOOMGraphs Outcome = "oom_graph_capture"
	OutcomeOOMOther  Outcome = "oom_other"
)

var outcomes = []Outcome{OutcomeStarted, OutcomeNoKVRoom, OutcomeOOMLoad, OutcomeOOMProf, OutcomeOOMGraphs, OutcomeOOMOther}

// Started reports whether the run came up.
func (o Outcome) Started() bool { return o == OutcomeStarted }

// Unplannable opens the note that says why an entry has no model shape.
const Unplannable = "unplannable: "

// Error is an entry that does not hold to the corpus's format.
type Error struct {
	Entry, Field, Msg string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Entry + ": " + e.Msg
	}
	return e.Entry + ": " + e.Field + ": " + e.Msg
}

// Load reads and validates every entry under fsys, the corpus directory:
// <engine>/<id>.json with its <engine>/<id>.log, sorted by engine and id.
// The first entry that does not hold is the error.
func Load(fsys fs.FS) ([]Entry, error) {
	var out []Entry
	for _, engine := range []string{EngineSGLang, EngineVLLM} {
		names, err := fs.Glob(fsys, engine+"/*.json")
		if err != nil {
			return nil, err
		}
		slices.Sort(names)
		for _, name := range names {
			e, err := loadOne(fsys, name)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil, &Error{Entry: ".", Msg: "no entries (want <engine>/<id>.json files)"}
	}
	return out, nil
}

func loadOne(fsys fs.FS, name string) (Entry, error) {
	meta, err := readBounded(fsys, name)
	if err != nil {
		return Entry{}, err
	}
	log, err := readBounded(fsys, strings.TrimSuffix(name, ".json")+".log")
	if err != nil {
		return Entry{}, err
	}
	e, err := Parse(meta, log)
	if err != nil {
		return e, err
	}
	if want := strings.TrimSuffix(path.Base(name), ".json"); e.ID != want {
		return e, &Error{Entry: name, Field: "id", Msg: fmt.Sprintf("%q, want the file's name %q", e.ID, want)}
	}
	if dir := path.Base(path.Dir(name)); e.Engine != dir {
		return e, &Error{Entry: e.ID, Field: "engine", Msg: fmt.Sprintf("%q in directory %s/", e.Engine, dir)}
	}
	return e, nil
}

func readBounded(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFile {
		return nil, &Error{Entry: name, Msg: fmt.Sprintf("more than %d bytes", maxFile)}
	}
	return data, nil
}

// Parse reads one entry from its .json and .log and validates it
// (validate.go), reading every figure it quotes.
func Parse(meta, log []byte) (Entry, error) {
	var e Entry
	if len(meta) > maxFile || len(log) > maxFile {
		return e, &Error{Entry: "entry", Msg: fmt.Sprintf("a file of more than %d bytes", maxFile)}
	}
	dec := json.NewDecoder(strings.NewReader(string(meta)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return Entry{}, &Error{Entry: "entry", Msg: "json: " + err.Error()}
	}
	if dec.More() {
		return Entry{}, &Error{Entry: "entry", Msg: "json: more than one value"}
	}
	e.Log = string(log)
	if err := e.validate(); err != nil {
		return e, err
	}
	return e, e.readFigures()
}
