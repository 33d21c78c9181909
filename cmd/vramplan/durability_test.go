package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/planner"
)

// TestMain runs the CLI itself when the durability test starts this test
// binary as its server.
func TestMain(m *testing.M) {
	if os.Getenv("VRAMPLAN_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// startServer runs `vramplan serve` on db as a child process and returns
// its base URL.
func startServer(t *testing.T, db string) (*exec.Cmd, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "serve", "--addr", "127.0.0.1:0", "--db", db, "--uploads-per-hour", "1000000", "--uploads-per-day", "1000000")
	cmd.Env = append(os.Environ(), "VRAMPLAN_TEST_MAIN=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	m := regexp.MustCompile(`http://\S+/`).FindString(line)
	if err != nil || m == "" {
		cmd.Process.Kill()
		t.Fatalf("the server did not say where it serves: %q, %v", line, err)
	}
	go io.Copy(io.Discard, out)
	return cmd, strings.TrimSuffix(m, "/")
}

func uploadDoc(t *testing.T, n int) []byte {
	c, err := calibrations.Lookup("h200-linux-cuda13.0")
	if err != nil {
		t.Fatal(err)
	}
	c.Context += planner.Bytes(n) * 4096
	c.Provenance.Notes = fmt.Sprintf("durability upload %d", n)
	return calibrations.Format(&c)
}

// TestUploadsSurviveSIGKILL sends concurrent uploads to a server, kills it
// with SIGKILL mid-stream, restarts it on the same file and checks that
// every upload answered 201 is there, and none twice.
func TestUploadsSurviveSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	db := filepath.Join(t.TempDir(), "uploads.db")
	cmd, url := startServer(t, db)
	var mu sync.Mutex
	acked := map[string]bool{}
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 10 * time.Second}
	for w := range 16 {
		wg.Go(func() {
			for i := 0; ; i++ {
				resp, err := client.Post(url+"/api/uploads", "application/json", bytes.NewReader(uploadDoc(t, w*100000+i)))
				if err != nil {
					return // the server is gone
				}
				var a struct{ ID string }
				json.NewDecoder(resp.Body).Decode(&a)
				resp.Body.Close()
				if resp.StatusCode == http.StatusCreated {
					mu.Lock()
					acked[a.ID] = true
					mu.Unlock()
				}
			}
		})
	}
	// Kill mid-stream once enough uploads are acknowledged, however slow
	// the machine: a fixed sleep saw none on a loaded one.
	n := 0
	for deadline := time.Now().Add(30 * time.Second); n < 50 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		mu.Lock()
		n = len(acked)
		mu.Unlock()
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	wg.Wait()
	if n == 0 {
		t.Fatal("no upload was acknowledged in 30 s before the kill")
	}
	cmd, url = startServer(t, db)
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	// A 201 may be accepted or held (an upload far from its group's median
	// is held, and which ones are depends on the order they arrived), so
	// both exports count.
	stored := map[string]int{}
	exported(t, url+"/api/uploads.jsonl", stored)
	exported(t, url+"/api/uploads.jsonl?status=held", stored)
	lost := 0
	for id := range acked {
		if stored[id] != 1 {
			lost++
		}
	}
	for id, k := range stored {
		if k != 1 {
			t.Errorf("upload %s stored %d times", id, k)
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d acknowledged uploads are not stored once after SIGKILL", lost, len(acked))
	}
	t.Logf("%d uploads acknowledged before SIGKILL, %d stored", len(acked), len(stored))
}

// exported counts, into stored, the ids of every upload the export at url
// lists.
func exported(t *testing.T, url string, stored map[string]int) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var u struct{ ID string }
		if err := json.Unmarshal(sc.Bytes(), &u); err != nil || u.ID == "" {
			t.Fatalf("GET %s: a line that is not an upload: %q", url, sc.Bytes())
		}
		stored[u.ID]++
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}
