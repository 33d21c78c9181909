// Package cmdline reads an inference engine's command line — llama-server,
// `vllm serve` or `python -m sglang.launch_server` — into the parts of a
// planner input it decides: the engine, the model argument, the limits and
// the engine options, with the engine's defaults for every flag not given.
//
// A flag that changes memory is mapped; one that changes memory in a way
// the planner does not model yet (tensor parallelism, offloading, LoRA,
// speculative decoding) is an error naming it; any other flag is ignored
// and listed, so a user sees what was not read. The package is pure: it
// imports the standard library and the planner only.
package cmdline

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/vramplan/vramplan/planner"
)

// MaxLine bounds a command line, in bytes.
const MaxLine = 64 << 10

// Command is an engine command line read for planning.
type Command struct {
	Engine planner.EngineName
	// Model is the model argument as given: a file, a directory, a catalog
	// id or a Hugging Face repository id.
	Model string
	// Hub is set when Model is llama-server's -hf repository,
	// "<user>/<model>[:quant]", and HubFile is its --hf-file. llama-server
	// then also loads the repository's mmproj unless NoMmproj
	// (--no-mmproj) is set (common/arg.cpp, --hf-repo's help).
	Hub      bool
	HubFile  string
	NoMmproj bool
	// WeightsDtype is the storage format the flags ask the weights in
	// (vLLM/SGLang --dtype, --quantization); "" when they ask none.
	WeightsDtype string
	Mmproj       string // llama-server --mmproj
	// CtxSize is llama-server's -c; 0 means the model's trained context.
	CtxSize int
	// Limits holds -np / --max-num-seqs, the lengths, the chunk, the block
	// and the KV format; a zero field takes the engine's default.
	Limits  planner.Limits
	Serving planner.Serving
	// AutoLen is set when the command asks the engine to fit the length
	// (vLLM --max-model-len -1 or auto).
	AutoLen bool
	// Parallel holds the layout's sizes the command sets; ExpertAll is
	// vLLM's --enable-expert-parallel, whose size is tp × dp.
	Parallel  planner.Parallel
	ExpertAll bool
	// Ignored lists the flags read but not mapped, with their values.
	Ignored []string

	batch       int  // llama-server -b, which caps -ub
	splitNone   bool // llama-server -sm none
	splitTensor bool // llama-server -sm tensor
}

// Error is a flag the planner cannot plan.
type Error struct {
	Flag, Msg string
}

func (e *Error) Error() string { return e.Flag + ": " + e.Msg }

// Parse reads line.
func Parse(line string) (Command, error) {
	if len(line) > MaxLine {
		return Command{}, &Error{"command line", fmt.Sprintf("%d bytes, more than %d", len(line), MaxLine)}
	}
	args, err := split(line)
	if err != nil {
		return Command{}, err
	}
	d, rest, err := engineOf(args)
	if err != nil {
		return Command{}, err
	}
	c := Command{Engine: d.engine, Serving: planner.Serving{Engine: d.engine}}
	t := &tokens{args: rest}
	for t.more() {
		if err := c.read(d, t); err != nil {
			return Command{}, err
		}
	}
	if c.Model == "" {
		return Command{}, &Error{"model", "the command names no model"}
	}
	return c, nil
}

// dialect is one engine's command line: how its program is recognised,
// the flags it reads and the defaults it fills. Each engine's is in its
// own file (llamacpp.go, vllm.go, sglang.go), and the planner's registry
// names it (dialects.go is generated from it).
type dialect struct {
	engine planner.EngineName
	// program returns the arguments after the engine's program, and
	// whether args start with it.
	program func(args []string) (rest []string, ok bool)
	// positional is set when a bare argument names the model
	// (vllm serve MODEL).
	positional bool
	flags      []flag
	// unmodelled are the flags that change memory in a way the planner
	// does not model yet, and why.
	unmodelled map[string]string
	// apply fills the engine's defaults for what c leaves out into l, for
	// in's model, and reports what it filled.
	apply func(c *Command, in *planner.Input, l *planner.Limits) ([]string, error)

	byName map[string]*flag // flags by each of their names, made on first use
}

// flag is one flag of an engine's command line, by all its names.
type flag struct {
	names []string
	read  handler
	// option is the usage of the flag as an option of `vramplan plan`,
	// which takes it by its last name; "" for a flag it does not take.
	option string
	// boolean is set when the flag takes no value.
	boolean bool
}

// dialectOf returns the dialect of engine e, or nil.
func dialectOf(e planner.EngineName) *dialect {
	for _, d := range dialects {
		if d.engine == e {
			return d
		}
	}
	return nil
}

// lookup returns the flag named name, or nil.
func (d *dialect) lookup(name string) *flag {
	if d.byName == nil {
		m := map[string]*flag{}
		for i := range d.flags {
			for _, n := range d.flags[i].names {
				m[n] = &d.flags[i]
			}
		}
		d.byName = m
	}
	return d.byName[name]
}

// engineOf recognises the program and returns the arguments after it.
func engineOf(args []string) (*dialect, []string, error) {
	if len(args) == 0 {
		return nil, nil, &Error{"command line", "empty"}
	}
	for _, d := range dialects {
		if rest, ok := d.program(args); ok {
			return d, rest, nil
		}
	}
	return nil, nil, &Error{"command line", fmt.Sprintf("%q is not %s", args[0], programs())}
}

// programs names every dialect's program, for an error.
func programs() string {
	var names []string
	for _, d := range dialects {
		names = append(names, d.engine.Profile().Label)
	}
	return "the command line of " + strings.Join(names, ", ")
}

// program is the base name of a command's program.
func program(args []string) string { return args[0][strings.LastIndex(args[0], "/")+1:] }

// tokens walks the arguments; --flag=value is split into flag and value.
type tokens struct {
	args    []string
	pending string // a value split off --flag=value
	has     bool
}

func (t *tokens) more() bool { return t.has || len(t.args) > 0 }

func (t *tokens) next() string {
	if t.has {
		t.has = false
		return t.pending
	}
	a := t.args[0]
	t.args = t.args[1:]
	if strings.HasPrefix(a, "-") {
		if name, v, ok := strings.Cut(a, "="); ok {
			t.pending, t.has = v, true
			return name
		}
	}
	return a
}

// value returns flag's value.
func (t *tokens) value(flag string) (string, error) {
	if !t.more() {
		return "", &Error{flag, "needs a value"}
	}
	return t.next(), nil
}

// optional returns the next argument as a value when it is not a flag.
func (t *tokens) optional() (string, bool) {
	if t.has || len(t.args) > 0 && !strings.HasPrefix(t.args[0], "-") {
		return t.next(), true
	}
	return "", false
}

func (c *Command) read(d *dialect, t *tokens) error {
	arg := t.next()
	if !strings.HasPrefix(arg, "-") || arg == "-" {
		if c.Model == "" && d.positional {
			c.Model = arg
			return nil
		}
		c.Ignored = append(c.Ignored, arg)
		return nil
	}
	if f := d.lookup(arg); f != nil {
		return f.read(c, arg, t)
	}
	if why, ok := d.unmodelled[arg]; ok {
		return &Error{arg, "changes memory in a way vramplan does not plan yet: " + why}
	}
	ig := arg
	if v, ok := t.optional(); ok {
		ig += " " + v
	}
	c.Ignored = append(c.Ignored, ig)
	return nil
}

// handler reads one flag.
type handler func(c *Command, flag string, t *tokens) error

func intFlag(set func(c *Command, n int)) handler {
	return func(c *Command, flag string, t *tokens) error {
		v, err := t.value(flag)
		if err != nil {
			return err
		}
		n, err := ParseCount(v)
		if err != nil || n < 0 {
			return &Error{flag, CountText(v, err, "a count")}
		}
		set(c, n)
		return nil
	}
}

// ParseCount reads an integer with vLLM's human-readable suffixes
// (vllm/engine/arg_utils.py, human_readable_int): k, m, g are powers of
// 1000, K, M, G powers of 1024 (32k is 32000, 32K is 32768). It is the one
// reader of counts: an engine's flags here, and vramplan's own count flags
// (--max-seq-len 32K) read the same way. A count beyond ±2^40 is an error
// wrapping strconv.ErrRange.
func ParseCount(v string) (int, error) {
	mult := 1
	if n := len(v); n > 1 {
		if i := strings.IndexByte("kmgKMG", v[n-1]); i >= 0 {
			mult, v = []int{1e3, 1e6, 1e9, 1 << 10, 1 << 20, 1 << 30}[i], v[:n-1]
		}
	}
	n, err := strconv.Atoi(v)
	switch {
	case errors.Is(err, strconv.ErrRange) || err == nil && (n > maxCount/mult || n < -maxCount/mult):
		return 0, moreThan(maxCount)
	case err != nil:
		return 0, fmt.Errorf("not a count")
	}
	return n * mult, nil
}

// maxCount bounds what ParseCount reads, either way: 2^40.
const maxCount = 1 << 40

// moreThan is the error of a count past limit, which CountText says is too
// large.
func moreThan(limit int) error { return fmt.Errorf("more than %d: %w", limit, strconv.ErrRange) }

// ParseSize reads a parallel size: a count as ParseCount reads it, in
// [1, planner.MaxParallel], its error said as CountText says every count
// flag's. An engine's parallel flags here and vramplan's own
// (--tensor-parallel) read sizes with it.
func ParseSize(v string) (int, error) {
	n, err := ParseCount(v)
	if errors.Is(err, strconv.ErrRange) || err == nil && n > planner.MaxParallel {
		err = moreThan(planner.MaxParallel)
	}
	if err != nil || n < 1 {
		return 0, errors.New(CountText(v, err, fmt.Sprintf("a count in [1, %d]", planner.MaxParallel)))
	}
	return n, nil
}

// CountText says why v, which ParseCount read with err or out of a flag's
// range, is not what the flag wants (not names it: "a count", "a length"):
// too large when err wraps strconv.ErrRange, else not one at all. Every count
// flag, an engine's here and vramplan's own, says it this way.
func CountText(v string, err error, not string) string {
	if errors.Is(err, strconv.ErrRange) {
		return fmt.Sprintf("%q is too large (%v)", v, err)
	}
	return fmt.Sprintf("%q is not %s", v, not)
}

func fracFlag(set func(c *Command, f float64)) handler {
	return func(c *Command, flag string, t *tokens) error {
		v, err := t.value(flag)
		if err != nil {
			return err
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0 && f <= 1) {
			return &Error{flag, fmt.Sprintf("%q is not a fraction in (0, 1]", v)}
		}
		set(c, f)
		return nil
	}
}

func strFlag(set func(c *Command, v string)) handler {
	return func(c *Command, flag string, t *tokens) error {
		v, err := t.value(flag)
		if err != nil {
			return err
		}
		set(c, v)
		return nil
	}
}

func boolFlag(set func(c *Command)) handler {
	return func(c *Command, flag string, t *tokens) error {
		set(c)
		return nil
	}
}

// parallel maps an engine's parallelism flags to the sizes of the plan's
// layout: each flag's names set the size its size function picks out of
// planner.Parallel.
func parallel(flags ...sizeFlag) []flag {
	fs := make([]flag, len(flags))
	for i, sf := range flags {
		size := sf.size
		fs[i] = flag{names: sf.names, read: func(c *Command, flag string, t *tokens) error {
			v, err := t.value(flag)
			if err != nil {
				return err
			}
			n, err := ParseSize(v)
			if err != nil {
				return &Error{flag, err.Error()}
			}
			*size(&c.Parallel) = n
			return nil
		}}
	}
	return fs
}

// sizeFlag is a parallelism flag by its names and the size it sets.
type sizeFlag struct {
	names []string
	size  func(*planner.Parallel) *int
}

// names is a flag's names.
func names(ns ...string) []string { return ns }

func tensorSize(p *planner.Parallel) *int   { return &p.Tensor }
func pipelineSize(p *planner.Parallel) *int { return &p.Pipeline }
func dataSize(p *planner.Parallel) *int     { return &p.Data }
func expertSize(p *planner.Parallel) *int   { return &p.Expert }

// noCustomAllReduce is vLLM's and SGLang's --disable-custom-all-reduce
// (planner.Parallel.NoCustomAllReduce).
var noCustomAllReduce = flag{names: names("--disable-custom-all-reduce"), boolean: true,
	read: boolFlag(func(c *Command) { c.Parallel.NoCustomAllReduce = true })}

// split divides a command line into arguments as a POSIX shell does for
// words: blanks separate, single quotes keep everything, double quotes keep
// all but backslash escapes, a backslash escapes the next character; a
// backslash-newline joins lines.
func split(line string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inWord, quote := false, byte(0)
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case quote == '\'':
			if ch == '\'' {
				quote = 0
			} else {
				cur.WriteByte(ch)
			}
		case ch == '\\' && i+1 < len(line) && (quote == 0 || strings.IndexByte("\"\\$`\n", line[i+1]) >= 0):
			i++
			if line[i] != '\n' {
				cur.WriteByte(line[i])
				inWord = true
			}
		case quote == '"':
			if ch == '"' {
				quote = 0
			} else {
				cur.WriteByte(ch)
			}
		case ch == '\'' || ch == '"':
			quote, inWord = ch, true
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			if inWord {
				args, inWord = append(args, cur.String()), false
				cur.Reset()
			}
		default:
			cur.WriteByte(ch)
			inWord = true
		}
		if len(args) > 4096 {
			return nil, &Error{"command line", "more than 4096 arguments"}
		}
	}
	if quote != 0 {
		return nil, &Error{"command line", "unterminated quote"}
	}
	if inWord {
		args = append(args, cur.String())
	}
	return args, nil
}

// Option is an engine's flag that `vramplan plan` also takes, by the
// engine's own long name, to set one of the engine's options.
type Option struct {
	Engine planner.EngineName
	// Name is the flag's long name without its dashes
	// ("gpu-memory-utilization").
	Name, Usage string
	// Bool is set for a flag that takes no value.
	Bool bool
}

// Options returns the options of every registered engine, in the
// registry's order.
func Options() []Option {
	var os []Option
	for _, d := range dialects {
		for _, f := range d.flags {
			if f.option != "" {
				os = append(os, Option{Engine: d.engine, Name: strings.TrimLeft(f.names[len(f.names)-1], "-"), Usage: f.option, Bool: f.boolean})
			}
		}
	}
	return os
}

// SetOption reads value as the engine of option name reads its flag, into
// in's serving options. A flag that takes no value is set by "true" and
// left as it is by "false".
func SetOption(in *planner.Input, name, value string) error {
	for _, d := range dialects {
		f := d.lookup("--" + name)
		if f == nil || f.option == "" {
			continue
		}
		t := &tokens{args: []string{value}}
		if f.boolean {
			on, err := strconv.ParseBool(value)
			if err != nil || !on {
				return err
			}
			t.args = nil
		}
		c := Command{Engine: d.engine, Serving: in.Serving, Limits: in.Limits}
		if err := f.read(&c, "--"+name, t); err != nil {
			return err
		}
		in.Serving = c.Serving
		return nil
	}
	return &Error{"--" + name, "is no engine's option"}
}
