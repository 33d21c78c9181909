package web

// This file is the app's own panic recovery, in place of echo's
// middleware.Recover: that package brings the whole of echo/middleware into
// every binary (its package init, gommon/bytes' regexps compiled at start),
// 13 KB of the worker's gzip against the free plan's 3 MB, for one
// function (docs/benchmarks.md, "Worker").

import (
	"fmt"
	"net/http"
	"runtime"

	"github.com/labstack/echo/v4"
)

// recoverPanics turns a panic anywhere in the chain after it into an error
// for the app's error handler (a 500 in the app's shape, errors.go), and
// logs it with the panicking goroutine's stack, as echo's Recover does. A
// panic with http.ErrAbortHandler goes on up: it is net/http's way to
// abort a response, not a failure.
func recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if r == http.ErrAbortHandler {
				panic(r)
			}
			err, ok := r.(error)
			if !ok {
				err = fmt.Errorf("%v", r)
			}
			stack := make([]byte, 4<<10)
			stack = stack[:runtime.Stack(stack, false)]
			c.Logger().Print(fmt.Sprintf("[PANIC RECOVER] %v %s\n", err, stack))
			c.Error(err)
		}()
		return next(c)
	}
}
