package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vramplan/vramplan/gpuagent/agent"
	"github.com/vramplan/vramplan/gpuagent/backend"
	"github.com/vramplan/vramplan/gpuagent/calibrate"
	"github.com/vramplan/vramplan/gpuagent/server"
	"github.com/vramplan/vramplan/planner"
)

// serveFlags are serve's flags.
type serveFlags struct {
	plan, kind, listen, sidecar string
	socketMode, tokenFile       string
	device, rank                int
	blas                        dirs
	cfg                         agent.Config
	srv                         server.Config
	fakeTotal, fakeCtx, fakeLib int64
	maxBufferedMiB              int64
}

func (f *serveFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.plan, "plan", "", "the plan `file` vramplan plan -o wrote (required)")
	fs.IntVar(&f.device, "device", 0, "CUDA device `ordinal`")
	fs.IntVar(&f.rank, "rank", -1, "serve this `rank` of a multi-GPU plan (required for one)")
	fs.Var(&f.blas, "blas-dir", "`directory` holding cuBLAS for the start-up library measurement (repeatable)")
	fs.StringVar(&f.kind, "backend", "vmm", "backend: "+strings.Join(slices.Sorted(mapsKeys(backends)), ", "))
	fs.StringVar(&f.listen, "listen", "", "unix:`PATH` or loopback HOST:PORT (default unix:$XDG_RUNTIME_DIR/gpuagent-<device>.sock, or in ~/.cache/gpuagent)")
	fs.StringVar(&f.socketMode, "socket-mode", "0600", "permission `mode` of the Unix socket, in octal; 0660 lets its group connect, and so map the KV pool")
	fs.StringVar(&f.sidecar, "sidecar", "auto", "the agent is a second CUDA context beside an engine: true, false, or auto (true for real backends)")
	fs.Float64Var(&f.cfg.Tolerance, "tolerance", 0.10, "refuse when the measured context or library reserve differ from the calibration by more than this `fraction`")
	fs.DurationVar(&f.cfg.LeaseTTL, "lease-ttl", 10*time.Second, "default lease TTL")
	fs.DurationVar(&f.cfg.MaxLeaseTTL, "max-lease-ttl", 60*time.Second, "longest lease TTL a client may ask for")
	fs.IntVar(&f.cfg.MaxLeases, "max-leases", 4096, "open leases at most")
	fs.DurationVar(&f.cfg.MapTimeout, "map-timeout", 5*time.Second, "how long a client mapping the KV pool has to map or unmap a chunk before it loses its lease")
	fs.IntVar(&f.srv.MaxConns, "max-conns", 1024, "open connections at most; more are closed at accept")
	fs.IntVar(&f.srv.MetricsConns, "metrics-conns", 4, "connections past --max-conns kept for one GET /metrics each, so a scrape is served under a flood (-1: none)")
	fs.IntVar(&f.srv.MaxPeerConns, "max-peer-conns", 0, "open connections one peer (a uid on the Unix socket, an address on TCP) holds at most (0: three quarters of --max-conns, -1: no cap)")
	fs.Int64Var(&f.maxBufferedMiB, "max-buffered-mib", 64, "MiB buffered for frames and request bodies past each connection's first 64 KiB, across connections; a request past it is refused with 503")
	fs.DurationVar(&f.srv.FirstByteTimeout, "first-byte-timeout", 2*time.Second, "how long a new connection may take to send its first byte before it is closed")
	fs.IntVar(&f.cfg.ConnLeases, "conn-leases", 64, "open leases per connection at most")
	fs.IntVar(&f.cfg.LeaseSeqs, "lease-seqs", 0, "open sequences per lease at most (0: as many as the KV pool has blocks)")
	fs.Int64Var(&f.cfg.LeaseBlocks, "lease-blocks", 0, "KV blocks admission may promise one lease at most (0: the whole pool, for one engine per agent)")
	fs.StringVar(&f.tokenFile, "token-file", "", "`file` holding the bearer token TCP clients must send (required with a TCP --listen; mode 0600)")
	fs.Int64Var(&f.fakeTotal, "fake-total-mib", 0, "fake backend: device total in MiB (default: the calibration's)")
	fs.Int64Var(&f.fakeCtx, "fake-context-mib", 0, "fake backend: measured CUDA context in MiB (default: the calibration's)")
	fs.Int64Var(&f.fakeLib, "fake-library-mib", 0, "fake backend: measured library reserve in MiB (default: the calibration's)")
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func cmdServe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gpuagent serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f serveFlags
	f.register(fs)
	var gc gcFlag
	gc.register(fs)
	if code := parse(fs, args); code >= 0 {
		return code
	}
	if err := gc.apply(os.Getenv); err != nil {
		fmt.Fprintf(stderr, "gpuagent serve: --gc-heap: %v\n", err)
		return exitUsage
	}
	kind, ok := backends[f.kind]
	if f.plan == "" || !ok {
		fmt.Fprintf(stderr, "gpuagent serve: --plan is required and --backend must be one of %s\n", strings.Join(slices.Sorted(mapsKeys(backends)), ", "))
		return exitUsage
	}
	sidecar, err := sidecarFlag(f.sidecar, kind.sidecar)
	if err != nil {
		fmt.Fprintf(stderr, "gpuagent serve: %s\n", clipLines(err.Error()))
		return exitUsage
	}
	f.cfg.Sidecar = sidecar
	logger := log.New(stderr, "", log.LstdFlags)
	f.cfg.Logf = func(format string, args ...any) { logger.Print(clipLines(fmt.Sprintf(format, args...))) }
	a, code := load(&f, kind, stderr)
	if a == nil {
		return code
	}
	defer a.Close()
	return serve(a, &f, stdout, stderr)
}

func parse(fs *flag.FlagSet, args []string) int {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return exitUsage
	}
	return -1
}

func sidecarFlag(v string, def bool) (bool, error) {
	switch v {
	case "auto":
		return def, nil
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("--sidecar %q: want true, false or auto", v)
}

// load reads the plan and loads it onto the backend. It returns nil and
// an exit code when it cannot.
func load(f *serveFlags, kind backendKind, stderr io.Writer) (*agent.Agent, int) {
	data, err := readPlanFile(f.plan)
	if err == nil {
		var p planner.Plan
		if p, err = planner.ParsePlan(data); err != nil {
			err = fmt.Errorf("%s: %w", f.plan, err)
		} else if p, err = rankPlan(p, f.rank, f.plan); err == nil {
			return loadPlan(p, f, kind, stderr)
		}
	}
	fmt.Fprintf(stderr, "gpuagent serve: %s\n", clipLines(err.Error()))
	return nil, exitUsage
}

// noGPUServe is what serve adds when the machine has no GPU to serve on.
const noGPUServe = "This machine has no NVIDIA GPU with its driver loaded. serve enforces a plan on the GPU it runs on: " +
	"run it where the card and its driver are (nvidia-smi lists the card there), or try the plan without one with --backend fake"

// loadPlan loads p onto the backend, or says why not.
func loadPlan(p planner.Plan, f *serveFlags, kind backendKind, stderr io.Writer) (*agent.Agent, int) {
	g := backend.NewPhaseGuard()
	g.Logf = f.cfg.Logf
	o := &backendOptions{device: f.device, blasDirs: blasDirs(f.blas), log: stderr, fake: agent.Measurement{Total: backend.Bytes(f.fakeTotal) * backend.MiB,
		Context: backend.Bytes(f.fakeCtx) * backend.MiB, LibraryReserve: backend.Bytes(f.fakeLib) * backend.MiB}}
	b, dev, err := kind.open(&p, g, o)
	if err != nil && calibrate.NoGPU(err) {
		fmt.Fprintf(stderr, "gpuagent serve: %s. %s\n", clipLines(err.Error()), noGPUServe)
		return nil, exitFail
	}
	if err != nil {
		fmt.Fprintf(stderr, "gpuagent serve: %s\n", clipLines(err.Error()))
		return nil, exitFail
	}
	a, err := agent.Load(p, b, g, dev, f.cfg)
	if err != nil {
		fmt.Fprintf(stderr, "%s\n", clipLines(err.Error()))
		return nil, exitFail
	}
	return a, -1
}

func serve(a *agent.Agent, f *serveFlags, stdout, stderr io.Writer) int {
	// Before the socket exists: a signal then must remove it and its lock.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	listen := f.listen
	if listen == "" {
		dir, err := socketDir()
		if err != nil {
			fmt.Fprintf(stderr, "gpuagent serve: %s\n", clipLines(err.Error()))
			return exitUsage
		}
		listen = fmt.Sprintf("unix:%s/gpuagent-%d.sock", dir, f.device)
	}
	mode, err := strconv.ParseUint(f.socketMode, 8, 32)
	if err != nil {
		fmt.Fprintf(stderr, "gpuagent serve: --socket-mode %q: want an octal mode such as 0600 or 0660\n", f.socketMode)
		return exitUsage
	}
	if f.srv.Token, err = tokenFor(listen, f.tokenFile); err != nil {
		fmt.Fprintf(stderr, "gpuagent serve: %s\n", clipLines(err.Error()))
		return exitUsage
	}
	l, err := server.ListenMode(listen, iofs.FileMode(mode))
	if err != nil {
		fmt.Fprintf(stderr, "gpuagent serve: %s\n", clipLines(err.Error()))
		return exitUsage
	}
	if path, ok := strings.CutPrefix(listen, "unix:"); ok {
		defer os.Remove(path)
	}
	f.srv.IdleTimeout = 2 * f.cfg.MaxLeaseTTL
	f.srv.MaxBuffered = f.maxBufferedMiB << 20
	s := server.New(a, f.srv)
	fmt.Fprint(stdout, clipLines(announceRank(a.Plan(), f.rank)))
	announce(a, listen, stdout)
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = s.Shutdown(sctx)
	}
	if err != nil {
		fmt.Fprintf(stderr, "gpuagent serve: %s\n", clipLines(err.Error()))
		return exitFail
	}
	return exitOK
}

// tokenFor reads the token a TCP listener requires: any user of the
// machine can reach a loopback port, so TCP without a token is refused. A
// Unix socket is guarded by its permission (--socket-mode) and takes none.
func tokenFor(listen, file string) ([]byte, error) {
	if strings.HasPrefix(listen, "unix:") {
		if file != "" {
			return nil, fmt.Errorf("--token-file is for a TCP --listen; the Unix socket is guarded by its permission (--socket-mode)")
		}
		return nil, nil
	}
	if file == "" {
		return nil, fmt.Errorf("--listen %s: TCP requires --token-file: every user of this machine can reach a loopback port (create one with: umask 077; openssl rand -hex 32 > FILE)", listen)
	}
	return server.ReadTokenFile(file)
}

// socketDir is the directory of the default socket: the user's runtime
// directory, or ~/.cache/gpuagent made owner-only; never a directory every
// user can write, where another could plant or race the socket.
func socketDir() (string, error) {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return d, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no directory for the socket (give --listen): %w", err)
	}
	dir := filepath.Join(cache, "gpuagent")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return dir, os.Chmod(dir, 0o700)
}

// announce says what is being served, and whether the agent is a sidecar.
func announce(a *agent.Agent, listen string, w io.Writer) {
	p := a.Plan()
	r := a.Report()
	fmt.Fprintf(w, "gpuagent: serving %s (%d KV blocks of %d tokens, base %#x) on %s, listening on %s\n",
		printable(r.Plan), p.KV.Blocks, p.KV.BlockTokens, uint64(a.KVBase()), printable(r.Device), printable(listen))
	if st := a.Stats().Sharing; st.Shared {
		fmt.Fprintf(w, "gpuagent: the KV pool is shared with engine processes on the Unix socket (GET /v1/pool); it shrinks after %d ms and %d steps idle, keeping %d spare chunk(s)\n",
			st.Shrink.IdleMs, st.Shrink.IdleSteps, st.Shrink.KeepChunks)
	}
	switch {
	case r.Sidecar:
		fmt.Fprintln(w, "gpuagent: running as a sidecar: this process is a second CUDA context on the device; the plan charges it (sidecar_context)")
	default:
		fmt.Fprintln(w, "gpuagent: not a sidecar: no second CUDA context is charged")
	}
	for _, warn := range a.Warnings() {
		fmt.Fprintf(w, "gpuagent: warning: %s\n", printable(warn))
	}
}
