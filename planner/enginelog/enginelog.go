// Package enginelog reads what an inference engine's start-up log says
// about its memory — llama.cpp's buffer sizes and context settings, vLLM's
// profiling figures, SGLang's KV pool — so that a plan of the same
// configuration can be set against what the engine allocated.
//
// Engines print sizes rounded (llama.cpp to 0.01 MiB, vLLM to 0.01 GiB):
// each figure carries the resolution it was printed with, and a residual
// inside it is no difference. The package is pure: the standard library
// and the planner only, so the page can read a pasted log too.
package enginelog

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/internal/printf"
	"github.com/vramplan/vramplan/planner"
)

// MaxLog bounds a log, in bytes.
const MaxLog = 64 << 20

// Figure is one charge an engine reported.
type Figure struct {
	// Key is the plan item the figure is compared with ("weights", "kv",
	// "compute_buffer", "activation_peak", "non_torch").
	Key   string        `json:"key"`
	Name  string        `json:"name"`
	Bytes planner.Bytes `json:"bytes"`
	// Resolution is half the unit the engine printed the figure in.
	Resolution planner.Bytes `json:"resolution_bytes"`
	// Rank names the rank whose line a reported figure is ("TP1", "PP1
	// TP0"), when that is not rank 0: a figure every rank prints alike
	// that rank 0's lines lack is the lowest rank's that prints it
	// (reader.report). Log.FiguresRank names the rank of Figures.
	Rank string `json:"rank,omitempty"`
}

// Log is an engine start-up log read for planning.
type Log struct {
	Engine  planner.EngineName `json:"engine"`
	Figures []Figure           `json:"figures"`
	// LlamaCpp holds the context settings llama.cpp printed.
	LlamaCpp *LlamaCppSettings `json:"llama_cpp,omitempty"`
	// Pool holds what vLLM or SGLang said of its KV pool.
	Pool *PoolFigures `json:"pool,omitempty"`
	// Version is the engine release the log states ("b12072", "0.11.0"),
	// or "" when it states none.
	Version string `json:"version,omitempty"`
	// Settings holds the configuration a vLLM or SGLang log states.
	Settings *Settings `json:"settings,omitempty"`
	// FiguresRank names the rank whose lines Figures and Pool were read
	// from ("TP4") when rank 0's lines stated none; "" for rank 0.
	FiguresRank string `json:"figures_rank,omitempty"`
	// Ranks are the figures ranks other than rank 0 printed that are not
	// rank 0's: a later pipeline stage's, a value rank 0 did not print
	// (stages.go).
	Ranks []RankFigures `json:"ranks,omitempty"`
	// Reported are figures the log states that no plan line is set
	// against: the memory left free, an engine's own estimate.
	Reported []Figure `json:"reported,omitempty"`
	// Unread are the lines that look like memory lines (a size, a block or
	// token count) and that no reader read, the first MaxUnread of them;
	// UnreadMore counts the rest.
	Unread     []string `json:"unread,omitempty"`
	UnreadMore int      `json:"unread_more,omitempty"`
}

// MaxUnread bounds Log.Unread; a line in it is cut to maxUnreadLine bytes.
const (
	MaxUnread     = 32
	maxUnreadLine = 240
)

// LlamaCppSettings are the settings a llama.cpp log states.
type LlamaCppSettings struct {
	NCtx, NCtxSeq, NSeqMax, NUbatch int
	FlashAttn, Unified, SWAFull     bool
	TypeK, TypeV                    string
	GPULayers, Layers               int // "offloaded N/M layers to GPU"
	Model                           string
	// GPU and GPUTotal are the first CUDA device's name and memory, as
	// ggml_cuda_init prints them ("Device 0: NVIDIA H200, …, VRAM: 143155 MiB").
	GPU      string
	GPUTotal planner.Bytes
}

// PoolFigures is what a pool engine said of its KV cache.
type PoolFigures struct {
	Tokens         int64   `json:"tokens"`
	MaxConcurrency float64 `json:"max_concurrency,omitempty"`
	ConcurrencyLen int     `json:"concurrency_len,omitempty"`
	Utilization    float64 `json:"gpu_memory_utilization,omitempty"`
	// Blocks is vLLM V0's "# GPU blocks: N".
	Blocks int64 `json:"blocks,omitempty"`
}

// Parse reads a log. It recognises the engine from the lines themselves,
// and a log with no memory figures of any engine is an error.
func Parse(data []byte) (Log, error) {
	l, err := Read(data)
	if err == nil && (l.Engine == "" || len(l.Figures) == 0 && l.Pool == nil) {
		return Log{}, printf.Errorf("no memory figures of any of %v in the log", planner.Engines[1:])
	}
	return l, err
}

// Read reads a log as Parse does, without asking it for memory figures: a
// start-up that failed before it reported any still states its engine and
// settings. Its Engine is "" when no engine's lines are in it. Only a log
// over MaxLog is an error.
func Read(data []byte) (Log, error) {
	if len(data) > MaxLog {
		return Log{}, printf.Errorf("log is %d bytes, more than %d", len(data), MaxLog)
	}
	return read(data).log(), nil
}

// read reads every relevant line of data.
func read(data []byte) *reader {
	r := new(reader)
	for _, start := range relevantLines(data) {
		line := data[start:]
		if end := bytes.IndexByte(line, '\n'); end >= 0 {
			line = line[:end]
		}
		r.line(string(bytes.TrimSuffix(line, []byte("\r"))))
	}
	r.lowestRank()
	return r
}

// rankLine is a line another rank printed, kept in case rank 0 prints no
// figure: the index in readers of its engine's reader, and the line.
type rankLine struct {
	w    worker
	lr   int
	line string
}

// maxRankLines bounds the other ranks' lines kept.
const maxRankLines = 1024

// lowestRank reads, when rank 0's lines state no figure and no pool, the
// lines of the lowest other rank of the first pipeline stage as rank 0's
// (a log may hold only other ranks' lines: sglang-npu-dtype-tp16.log), so
// that its figures are one rank's, named by it (Log.FiguresRank). A
// tensor- or data-parallel rank of the first stage holds what rank 0
// holds; a later stage's (PP1) and a V0 worker's, whose rank is unknown,
// are not read.
func (r *reader) lowestRank() {
	if len(r.order) > 0 || r.isPool || r.pool != (PoolFigures{}) {
		return
	}
	var low worker
	for _, k := range r.rankLines {
		if k.w.pp == 0 && k.w.pid == 0 && (!low.other() || low.after(k.w)) {
			low = k.w
		}
	}
	if !low.other() {
		return
	}
	r.as = low
	for _, k := range r.rankLines {
		if k.w == low {
			readers[k.lr].read(r, k.line)
		}
	}
	if len(r.order) > 0 || r.isPool || r.pool != (PoolFigures{}) {
		r.figuresRank = low.label()
	}
}

// logReader is how one engine's start-up log is read. Each engine's is in
// its own file (llamacpp.go, vllm.go, sglang.go), and the planner's
// registry names it (readers.go and inputs.go are generated from it).
type logReader struct {
	engine planner.EngineName
	// markers are what every line the reader reads holds one of. The
	// other lines of a server's log (requests, slots) are skipped without
	// a copy. They should be few and start with bytes a request line
	// seldom holds, since each is searched over the whole log.
	markers []string
	// claims reports whether a line is the engine's.
	claims func(line string) bool
	// read reads one of the engine's lines and reports whether it read
	// anything of it (a line it skips on purpose, such as a host buffer,
	// counts as read).
	read func(r *reader, line string) bool
	// rankRead, when not nil, reads what of another rank's line is not
	// that rank's alone: a figure every rank prints alike, a line that
	// states the release.
	rankRead func(r *reader, w worker, line string)
	// The reader's input rule, <stem>Input, writes the configuration the
	// log states into an input whose model and calibration are set
	// (inputOf, inputs.go, generated).
	// facts are what is known of the engine's log without reading one.
	facts *logFacts
}

// logFacts are what is known of an engine's log without reading one, apart
// from its reader (logReader), so that a program that asks only these
// (the worker's checks of uploaded observations) links no reader: the
// readers' tables are built at start, and every line rule they name with them.
type logFacts struct {
	engine planner.EngineName
	// figures are the keys of the figures the engine's log reports, exact
	// those of them its profile computes to the byte.
	figures, exact []string
	// settings is the block of Log the engine's settings are read into.
	settings settingsBlock
	// versions are the lines that state the engine's release.
	versions []versionLine
}

// factsOf returns the facts of engine e's log, or nil.
func factsOf(e planner.EngineName) *logFacts {
	for _, f := range facts {
		if f.engine == e {
			return f
		}
	}
	return nil
}

// versionLine is a line that states an engine's release: the release token
// after marker (up to end when end is not empty), written with prefix.
type versionLine struct{ marker, end, prefix string }

// settingsBlock names where an engine's log states its configuration.
type settingsBlock int

const (
	settingsLlamaCpp settingsBlock = iota + 1 // Log.LlamaCpp
	settingsPool                              // Log.Pool
)

// FigureKeys returns the keys of the figures engine e's log reports (the
// keys of Figure), and whether e has a log reader.
func FigureKeys(e planner.EngineName) ([]string, bool) {
	if f := factsOf(e); f != nil {
		return f.figures, true
	}
	return nil, false
}

// ExactKeys returns the keys of the figures of engine e's log that its
// profile computes to the byte (llama.cpp's model and KV buffers).
func ExactKeys(e planner.EngineName) []string {
	if f := factsOf(e); f != nil {
		return f.exact
	}
	return nil
}

// StatesContext reports whether engine e's log states its configuration as
// llama.cpp's context settings (Log.LlamaCpp), not as a pool's (Log.Pool).
func StatesContext(e planner.EngineName) bool {
	f := factsOf(e)
	return f != nil && f.settings == settingsLlamaCpp
}

// Version returns the release of engine e that a start-up log states, or
// "" when it states none: llama.cpp's "build: N (commit)" line
// (common/common.cpp, common_init) as "bN", vLLM's "vLLM API server
// version X" or "V1 LLM engine (vX)" line as "X".
func Version(e planner.EngineName, log []byte) string {
	f := factsOf(e)
	if f == nil {
		return ""
	}
	s := string(log[:min(len(log), 1<<20)])
	for _, vl := range f.versions {
		if v := after(s, vl.marker, vl.end); v != "" {
			return vl.prefix + v
		}
	}
	return ""
}

// after returns the release token after marker in s (digits, letters and
// dots; up to end when end is not empty), or "" when it is not a version.
func after(s, marker, end string) string {
	i := strings.Index(s, marker)
	if i < 0 {
		return ""
	}
	rest := s[i+len(marker):]
	n := 0
	for n < len(rest) && n < 64 && (rest[n] >= '0' && rest[n] <= '9' || rest[n] == '.' || rest[n] >= 'a' && rest[n] <= 'z' || rest[n] == '+') {
		n++
	}
	if n == 0 || rest[0] < '0' || rest[0] > '9' || end != "" && !strings.HasPrefix(rest[n:], end) {
		return ""
	}
	return rest[:n]
}

// markers returns every reader's markers, each once. It is made for each
// log, not at init: a program that plans a log it did not read (the
// planner's WebAssembly) then links no reader.
func markers() [][]byte {
	var ms [][]byte
	for _, lr := range readers {
		for _, m := range lr.markers {
			if !slices.ContainsFunc(ms, func(b []byte) bool { return string(b) == m }) {
				ms = append(ms, []byte(m))
			}
		}
	}
	return ms
}

// relevantLines returns the starts of the lines holding a marker, in
// order. Each marker is searched over the whole log at once, which is many
// times faster than testing every line for every marker: a server's log is
// mostly request lines.
func relevantLines(data []byte) []int {
	var starts []int
	for _, m := range markers() {
		for off := 0; off < len(data); {
			i := bytes.Index(data[off:], m)
			if i < 0 {
				break
			}
			pos := off + i
			starts = append(starts, bytes.LastIndexByte(data[:pos], '\n')+1)
			end := bytes.IndexByte(data[pos:], '\n')
			if end < 0 {
				break
			}
			off = pos + end + 1
		}
	}
	slices.Sort(starts)
	return slices.Compact(starts)
}

type reader struct {
	llama LlamaCppSettings
	// seen is the readers that read a line, by their index in readers.
	seen   []bool
	sums   map[string]*Figure
	order  []string
	pool   PoolFigures
	isPool bool
	// settings are what vLLM's or SGLang's lines state; stated reports
	// whether any did.
	settings Settings
	stated   bool
	version  string
	reported []Figure
	// reportedBy is the rank of each of reported.
	reportedBy []worker
	// release is what vLLM's lines say of its release (vllmRelease).
	release releaseMarks
	// rankLines are the other ranks' lines, up to maxRankLines; as is the
	// rank whose lines are read as rank 0's, when rank 0 stated no figure
	// (lowestRank), and figuresRank its label once they stated one.
	rankLines   []rankLine
	as          worker
	figuresRank string
	// maxRank is one more than the highest tensor-parallel rank whose
	// prefix a line carried; pids are V0's worker processes, up to maxPids.
	maxRank    int
	pids       []int
	unread     []string
	unreadMore int
}

const maxPids = 64

// add records a figure; figures of one key are summed (llama.cpp prints a
// KV buffer for each cache of a sliding-window model). A new context
// starts the sums of its own charges again.
func (r *reader) add(key, name string, b, res planner.Bytes) {
	if r.sums == nil {
		r.sums = map[string]*Figure{}
	}
	f, ok := r.sums[key]
	if !ok {
		f = &Figure{Key: key, Name: name}
		r.sums[key] = f
		r.order = append(r.order, key)
	}
	f.Bytes += b
	f.Resolution += res
}

// set records a figure that replaces any earlier one of its key.
func (r *reader) set(key, name string, b, res planner.Bytes) {
	r.reset(key)
	r.add(key, name, b, res)
}

// report records a figure no plan line is set against, printed by rank w,
// replacing any earlier one of its key that a rank after w printed, or w
// itself: a figure is one rank's, never a mix of two ranks' lines.
func (r *reader) report(w worker, key, name string, b, res planner.Bytes) {
	f := Figure{Key: key, Name: name, Bytes: b, Resolution: res, Rank: w.label()}
	for i := range r.reported {
		if r.reported[i].Key == key {
			if !w.after(r.reportedBy[i]) {
				r.reported[i], r.reportedBy[i] = f, w
			}
			return
		}
	}
	r.reported, r.reportedBy = append(r.reported, f), append(r.reportedBy, w)
}

func (r *reader) reset(keys ...string) {
	for _, k := range keys {
		if f, ok := r.sums[k]; ok {
			f.Bytes, f.Resolution = 0, 0
		}
	}
}

// line gives s to the first reader that claims it. A line another rank
// printed is that rank's copy: it names the engine and the rank, and its
// figures are left to rank 0's, but for those the engine's rankRead
// takes. A line that looks like a memory line and that nothing read is
// kept in the unread list.
func (r *reader) line(s string) {
	read := false
	for i, lr := range readers {
		if !lr.claims(s) {
			continue
		}
		if r.seen == nil {
			r.seen = make([]bool, len(readers))
		}
		r.seen[i] = true
		r.readVersion(lr, s)
		if w := workerOf(s); w.other() {
			r.otherRank(w)
			if lr.rankRead != nil {
				lr.rankRead(r, w, s)
			}
			if len(r.rankLines) < maxRankLines {
				r.rankLines = append(r.rankLines, rankLine{w, i, s})
			}
			read = true
		} else {
			read = lr.read(r, s)
		}
		break
	}
	if !read && looksLikeMemory(s) {
		r.keepUnread(s)
	}
}

func (r *reader) readVersion(lr *logReader, s string) {
	for _, vl := range lr.facts.versions {
		if r.version != "" {
			return
		}
		if v := after(s, vl.marker, vl.end); v != "" {
			r.version = vl.prefix + v
		}
	}
}

// otherRank counts the rank of a line that is not rank 0's.
func (r *reader) otherRank(w worker) {
	r.maxRank = max(r.maxRank, w.tp+1)
	if w.pid > 0 && len(r.pids) < maxPids && !slices.Contains(r.pids, w.pid) {
		r.pids = append(r.pids, w.pid)
	}
}

func (r *reader) keepUnread(s string) {
	if len(r.unread) >= MaxUnread {
		r.unreadMore++
		return
	}
	if len(s) > maxUnreadLine {
		s = strings.ToValidUTF8(s[:maxUnreadLine], "") + "…"
	}
	r.unread = append(r.unread, s)
}

// looksLikeMemory reports whether s states a size ("14.99 GiB",
// "3.81GiB", "512 MB"), a block count or a token pool.
func looksLikeMemory(s string) bool {
	if strings.Contains(s, "blocks:") || strings.Contains(s, "#tokens") || strings.Contains(s, "num_tokens=") {
		return true
	}
	for off := 0; off < len(s); {
		i := strings.IndexByte(s[off:], 'B')
		if i < 0 {
			return false
		}
		pos := off + i
		if sizeUnitAt(s, pos) {
			return true
		}
		off = pos + 1
	}
	return false
}

// sizeUnitAt reports whether the B at s[pos] ends a unit (KB, MiB, GB, …)
// that follows a number.
func sizeUnitAt(s string, pos int) bool {
	if pos+1 < len(s) && (s[pos+1] >= 'a' && s[pos+1] <= 'z' || s[pos+1] >= 'A' && s[pos+1] <= 'Z') {
		return false
	}
	j := pos - 1
	if j >= 0 && s[j] == 'i' {
		j--
	}
	if j < 0 || strings.IndexByte("KMGT", s[j]) < 0 {
		return false
	}
	j--
	if j >= 0 && s[j] == ' ' {
		j--
	}
	return j >= 0 && s[j] >= '0' && s[j] <= '9'
}

// log returns what was read: its engine is the first in the registry's
// order whose lines it holds.
func (r *reader) log() Log {
	var l Log
	for i, lr := range readers {
		if r.seen != nil && r.seen[i] {
			l.Engine = lr.engine
			if lr.facts.settings == settingsLlamaCpp {
				st := r.llama
				l.LlamaCpp = &st
			}
			break
		}
	}
	if r.isPool || r.pool != (PoolFigures{}) {
		p := r.pool
		l.Pool = &p
	}
	l.Version, l.Reported, l.Unread, l.UnreadMore = r.version, r.reported, r.unread, r.unreadMore
	if l.Engine == planner.EngineVLLM && r.version == "" && !r.settings.V0 {
		r.boundRelease()
	}
	if ranks := max(r.maxRank, len(r.pids)+1); ranks > 1 {
		r.settings.Ranks, r.stated = ranks, true
	}
	if r.stated && l.Engine != "" && !StatesContext(l.Engine) {
		st := r.settings
		l.Settings = &st
	}
	for _, k := range r.order {
		l.Figures = append(l.Figures, *r.sums[k])
	}
	l.FiguresRank = r.figuresRank
	if len(r.rankLines) > 0 {
		l.Ranks = r.otherRanks()
	}
	return l
}

// number returns the number after marker in s, and the rest of s.
func number(s, marker string) (float64, string, bool) {
	i := strings.Index(s, marker)
	if i < 0 {
		return 0, "", false
	}
	rest := strings.TrimLeft(s[i+len(marker):], " \t(")
	j := 0
	for j < len(rest) && (rest[j] >= '0' && rest[j] <= '9' || rest[j] == '.' || rest[j] == ',' || rest[j] == '-') {
		j++
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(rest[:j], ",", ""), 64)
	if err != nil || v != v || v > 1e15 || v < -1e15 {
		return 0, "", false
	}
	return v, rest[j:], true
}

// size reads "<n> MiB|GiB|GB|MB" after marker, with its print resolution.
func size(s, marker string) (planner.Bytes, planner.Bytes, bool) {
	v, rest, ok := number(s, marker)
	if !ok || v < 0 {
		return 0, 0, false
	}
	unit, dec := planner.Bytes(0), decimals(s, marker)
	switch u := strings.TrimSpace(rest); {
	case strings.HasPrefix(u, "MiB"):
		unit = planner.MiB
	case strings.HasPrefix(u, "GiB"):
		unit = planner.GiB
	case strings.HasPrefix(u, "GB"):
		unit = 1e9
	case strings.HasPrefix(u, "MB"):
		unit = 1e6
	default:
		return 0, 0, false
	}
	if v*float64(unit) >= float64(planner.MaxBytes) {
		return 0, 0, false
	}
	res := planner.Bytes(float64(unit) / 2)
	for i := 0; i < dec; i++ {
		res /= 10
	}
	return planner.Bytes(v * float64(unit)), res, true
}

// decimals counts the digits after the point of the number after marker.
func decimals(s, marker string) int {
	rest := strings.TrimLeft(s[strings.Index(s, marker)+len(marker):], " \t(")
	if i := strings.IndexByte(rest, '.'); i >= 0 {
		n := 0
		for _, c := range rest[i+1:] {
			if c < '0' || c > '9' {
				break
			}
			n++
		}
		return n
	}
	return 0
}

func atoi(s, marker string) (int, bool) {
	v, _, ok := number(s, marker)
	if !ok || v < 0 || v > 1<<40 {
		return 0, false
	}
	return int(v), true
}
