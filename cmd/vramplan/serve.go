package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner/catalog"
	"github.com/vramplan/vramplan/web"
	"github.com/vramplan/vramplan/web/static"
)

// deps wires the web app to the model catalog and the calibration table.
func deps() web.Deps {
	return web.Deps{Models: catalog.All, Calibrations: calibrations.All, Static: static.FS()}
}

func cmdServe(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("vramplan serve", stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen on `host:port`")
	var sf storeFlags
	sf.register(fs)
	var lim serveLimits
	fs.IntVar(&lim.MaxConns, "max-conns", 512, "close connections past `n` open at once")
	fs.IntVar(&lim.MaxPerPeer, "max-conns-per-peer", 64, "close one client address's connections past `n` open at once (an IPv6 /64 is one; --trusted-proxy peers are exempt)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitFits
		}
		return exitBadInput
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "vramplan serve: %v\n", err)
		return exitBadInput
	}
	d := deps()
	dbPath, closeStore, err := sf.open(&d)
	if err != nil {
		fmt.Fprintf(stderr, "vramplan serve: %v\n", err)
		return exitBadInput
	}
	defer closeStore()
	fmt.Fprintf(stdout, "vramplan: serving the calculator on http://%s/\n", ln.Addr())
	if dbPath != "" {
		fmt.Fprintf(stdout, "vramplan: calibration uploads in %s\n", dbPath)
	}
	lim.Proxies = sf.proxies
	srv := newServer(web.New(d), lim)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.Serve(limitConns(ln, lim)); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "vramplan serve: %v\n", err)
		return 1
	}
	return exitFits
}
