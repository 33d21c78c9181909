// Package upload sends a calibration to a vramplan server's upload API
// (POST /api/uploads), the way `vramplan calibrations upload` and
// `gpuagent calibrate --upload` do: it scrubs what would identify the
// machine, checks the document as the server will, shows exactly the body
// it will send and asks before sending it.
package upload

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/user"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/vramplan/vramplan/calibrations"
	"github.com/vramplan/vramplan/calibrations/community"
	"github.com/vramplan/vramplan/planner"
)

// Local is what identifies this machine and its user, replaced in the
// document's free text before it is shown: the home directory by "~", the
// host and user names by "HOST" and "USER".
type Local struct {
	Home, Host, User string
}

// ThisMachine returns this machine's Local.
func ThisMachine() Local {
	var l Local
	l.Home, _ = os.UserHomeDir()
	l.Host, _ = os.Hostname()
	if u, err := user.Current(); err == nil {
		l.User = u.Username
	}
	return l
}

// Scrub replaces l's names in c's free-text fields, and takes --upload
// URL and --yes out of the recorded command (gpuagent before session 6
// recorded them, and an upload URL on an address is refused as
// identifying).
func (l Local) Scrub(c *planner.Calibration) {
	p := &c.Provenance
	p.Command = dropUploadFlags(p.Command)
	for _, s := range []*string{&p.Machine, &p.Command, &p.Notes, &p.Tool} {
		*s = l.scrub(*s)
	}
}

// uploadFlags matches --upload URL and --yes in a recorded command line,
// with the space before and after.
var uploadFlags = regexp.MustCompile(`\s--?(upload(=\S+|\s+\S+)|yes(=\S+)?)(\s|$)`)

func dropUploadFlags(cmd string) string {
	for {
		next := uploadFlags.ReplaceAllString(cmd, " ")
		if next == cmd {
			return strings.TrimSpace(cmd)
		}
		cmd = next
	}
}

func (l Local) scrub(s string) string {
	if len(l.Home) > 1 {
		s = strings.ReplaceAll(s, l.Home, "~")
	}
	for _, r := range []struct{ name, with string }{{l.Host, "HOST"}, {l.User, "USER"}} {
		if len(r.name) >= 3 { // "a" or "pi" would hit ordinary words
			s = strings.ReplaceAll(s, r.name, r.with)
		}
	}
	return s
}

// Prepare decodes a calibration document, scrubs it with l and returns the
// body to send: the canonical document, which the server checks as
// community.Check does. A document the server would refuse is an error
// here, with the same reasons.
func Prepare(data []byte, l Local) ([]byte, community.Checked, error) {
	c, err := calibrations.Parse(data)
	if err != nil {
		return nil, community.Checked{}, err
	}
	l.Scrub(&c)
	body := calibrations.Format(&c)
	ch, err := community.Check(body)
	return body, ch, err
}

// Confirm shows the URL and the body on w and asks whether to send them,
// reading the answer from r. With yes it only shows them.
func Confirm(w io.Writer, r io.Reader, url string, body []byte, yes bool) (bool, error) {
	fmt.Fprintf(w, "This will POST %d bytes to %s, exactly this (nothing else: no host name, user name, GPU UUID or address):\n\n%s\n", len(body), url, body)
	if yes {
		return true, nil
	}
	fmt.Fprint(w, "Send it? [y/N] ")
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes", nil
}

// Answer is the server's answer to an upload.
type Answer struct {
	Code      int    `json:"-"` // the HTTP status
	ID        string `json:"id"`
	Status    string `json:"status"` // accepted, held or rejected
	Group     string `json:"group"`
	Duplicate bool   `json:"duplicate"`
	Token     string `json:"deletion_token"`
	URL       string `json:"url"`
	Error     string `json:"error"`
	Reasons   []struct {
		Field  string `json:"field"`
		Reason string `json:"reason"`
	} `json:"reasons"`
}

// Send posts body to the server at base ("http://127.0.0.1:8080").
func Send(ctx context.Context, base string, body []byte) (Answer, error) {
	return SendTo(ctx, base, "/api/uploads", body)
}

// SendTo posts body to path on the server at base: an engine observation
// goes to /api/observations, whose answer has the same shape. A server too
// busy to store it answers 503 with Retry-After; SendTo waits as asked (at
// most maxRetryWait) and sends it again, up to maxAttempts times in all.
// Sending again is safe: the same content is one upload.
func SendTo(ctx context.Context, base, path string, body []byte) (Answer, error) {
	url := strings.TrimSuffix(base, "/") + path
	for attempt := 1; ; attempt++ {
		a, wait, err := send(ctx, url, body)
		if err != nil || wait < 0 || attempt == maxAttempts {
			return a, err
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return a, ctx.Err()
		}
	}
}

// maxAttempts and maxRetryWait bound SendTo's retries of a busy server.
const (
	maxAttempts  = 4
	maxRetryWait = 10 * time.Second
)

// send posts body to url once. wait is how long a busy server asked the
// client to wait before sending again, or -1 when the answer is final.
func send(ctx context.Context, url string, body []byte) (a Answer, wait time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return a, -1, err
	}
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return a, -1, err
	}
	defer resp.Body.Close()
	a.Code = resp.StatusCode
	wait = -1
	if n, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && n >= 0 && resp.StatusCode == http.StatusServiceUnavailable {
		wait = min(time.Duration(n)*time.Second, maxRetryWait)
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err := json.Unmarshal(data, &a); err != nil {
		return a, -1, fmt.Errorf("%s answered %s: %s", url, resp.Status, bytes.TrimSpace(data))
	}
	return a, wait, nil
}

// Report writes what the answer means for the operator.
func (a *Answer) Report(w io.Writer, base string) {
	switch {
	case a.Code == http.StatusCreated:
		fmt.Fprintf(w, "%s: upload %s, group %s\n", a.Status, a.ID, a.Group)
		for _, r := range a.Reasons {
			fmt.Fprintf(w, "  held: %s\n", r.Reason)
		}
		fmt.Fprintf(w, "deletion token (shown once; keep it to withdraw the upload):\n  %s\n", a.Token)
		fmt.Fprintf(w, "withdraw: curl -X DELETE -H 'Authorization: Bearer %s' %s%s\n", a.Token, strings.TrimSuffix(base, "/"), a.URL)
	case a.Duplicate:
		fmt.Fprintf(w, "already uploaded: upload %s (%s), group %s\n", a.ID, a.Status, a.Group)
	default:
		fmt.Fprintf(w, "refused (%d): %s\n", a.Code, a.Error)
		for _, r := range a.Reasons {
			fmt.Fprintf(w, "  %s: %s\n", r.Field, r.Reason)
		}
	}
}

// OK reports whether the server stored the upload, now or before.
func (a *Answer) OK() bool { return a.Code == http.StatusCreated || a.Code == http.StatusOK }
