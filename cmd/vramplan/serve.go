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
	fs := flag.NewFlagSet("vramplan serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen on `host:port`")
	var sf storeFlags
	sf.register(fs)
	maxConns := fs.Int("max-conns", 512, "close connections past `n` open at once")
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
	srv := newServer(web.New(d), serveLimits{})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.Serve(limitConns(ln, *maxConns)); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "vramplan serve: %v\n", err)
		return 1
	}
	return exitFits
}
