package main

import (
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/vramplan/vramplan/web"
	"github.com/vramplan/vramplan/web/store/sqlite"
)

// storeFlags are serve's flags for the community uploads' store.
type storeFlags struct {
	db               string
	perHour, perDay  int64
	clientHeaderName string
	proxies          prefixes
}

func (f *storeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.db, "db", "", "SQLite `file` keeping calibration uploads (default: uploads.db in the user's data directory; \"off\" disables uploads)")
	fs.Int64Var(&f.perHour, "uploads-per-hour", 0, "uploads one client address may send per hour (default 60)")
	fs.Int64Var(&f.perDay, "uploads-per-day", 0, "uploads all clients may send per UTC day (default 10000)")
	fs.StringVar(&f.clientHeaderName, "client-header", "", "request `header` holding the client's address behind a proxy, read from the right (X-Forwarded-For; default: the connection's address)")
	fs.Var(&f.proxies, "trusted-proxy", "the proxies whose --client-header entries are believed, as addresses or `CIDR`s, comma-separated (default: the one proxy in front)")
}

// prefixes is a flag of addresses and CIDR prefixes, comma-separated.
type prefixes []netip.Prefix

func (p *prefixes) String() string {
	var s []string
	for _, q := range *p {
		s = append(s, q.String())
	}
	return strings.Join(s, ",")
}

func (p *prefixes) Set(v string) error {
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		q, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil {
				return fmt.Errorf("%q: want an address or a CIDR prefix", f)
			}
			q = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		*p = append(*p, q.Masked())
	}
	return nil
}

// open opens the store into d, returning its path and a function that
// closes it; with --db off it leaves d without one.
func (f *storeFlags) open(d *web.Deps) (string, func(), error) {
	d.Uploads = web.UploadOptions{PerClientHour: f.perHour, DailyCap: f.perDay, ClientHeader: f.clientHeaderName,
		TrustedProxies: f.proxies}
	if f.db == "off" {
		return "", func() {}, nil
	}
	path := f.db
	if path == "" {
		dir, err := dataDir()
		if err != nil {
			return "", nil, fmt.Errorf("--db: %w (name a file)", err)
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", nil, fmt.Errorf("--db: %w", err)
		}
		path = filepath.Join(dir, "uploads.db")
	}
	st, err := sqlite.Open(path)
	if err != nil {
		return "", nil, fmt.Errorf("--db: %w", err)
	}
	d.Store, d.Uploads.ClientKey = st, st.ClientKey()
	return path, func() { st.Close() }, nil
}

// dataDir returns vramplan's folder in the user's data directory:
// $XDG_DATA_HOME/vramplan, ~/.local/share/vramplan, ~/Library/Application
// Support/vramplan on macOS, %LocalAppData%\vramplan on Windows.
func dataDir() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && runtime.GOOS != "windows" {
		return filepath.Join(d, "vramplan"), nil
	}
	switch runtime.GOOS {
	case "windows":
		if d := os.Getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "vramplan"), nil
		}
		return "", errors.New("%LocalAppData% is not set")
	case "darwin":
		home, err := os.UserHomeDir()
		return filepath.Join(home, "Library", "Application Support", "vramplan"), err
	}
	home, err := os.UserHomeDir()
	return filepath.Join(home, ".local", "share", "vramplan"), err
}
