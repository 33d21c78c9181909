package upload_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/vramplan/vramplan/calibrations/community/upload"
)

// busyServer answers the first busy uploads 503 with retryAfter (none when
// empty), then 201, and counts the uploads it was sent.
func busyServer(t *testing.T, busy int64, retryAfter string) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if string(body) != `{"x":1}` {
			t.Errorf("upload %d sent %q", n.Load()+1, body)
		}
		w.Header().Set("Content-Type", "application/json")
		if n.Add(1) <= busy {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":"busy"}`)
			return
		}
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"id":"u1","status":"accepted"}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestSendRetriesBusy checks that an upload answered 503 with Retry-After
// is sent again, at most four times in all, and that other answers are
// final.
func TestSendRetriesBusy(t *testing.T) {
	for _, tt := range []struct {
		name       string
		busy       int64
		retryAfter string
		wantCode   int
		wantSent   int64
	}{
		{"busy twice", 2, "0", http.StatusCreated, 3},
		{"busy throughout", 10, "0", http.StatusServiceUnavailable, 4},
		{"503 without Retry-After", 1, "", http.StatusServiceUnavailable, 1},
		{"not busy", 0, "", http.StatusCreated, 1},
	} {
		srv, n := busyServer(t, tt.busy, tt.retryAfter)
		a, err := upload.Send(context.Background(), srv.URL, []byte(`{"x":1}`))
		if err != nil || a.Code != tt.wantCode || n.Load() != tt.wantSent {
			t.Errorf("%s: Send = %d, %v after %d uploads; want %d after %d", tt.name, a.Code, err, n.Load(), tt.wantCode, tt.wantSent)
		}
	}
	srv, _ := busyServer(t, 10, "5")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := upload.Send(ctx, srv.URL, []byte(`{"x":1}`)); err == nil {
		t.Error("Send with a cancelled context succeeded")
	}
}
