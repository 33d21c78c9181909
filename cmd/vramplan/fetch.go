package main

// This file reads a server's observations (`vramplan observations list`,
// `engines refit --from URL`) without trusting the server: it need not
// end its list (an endless "next" ran until killed, 107 MB and growing)
// nor keep its pages small (a 250 MiB page took 1.05 GB and 20 s), and
// what it says is printed through shown, so its ids, statuses and reasons
// cannot carry terminal escapes (#31 point 7).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The bounds of reading a server's observation list.
const (
	// maxListBytes bounds the response bodies of a whole list, every page
	// together: 1,000 observations of 64 KiB, the largest one may be.
	maxListBytes = 64 << 20
	// maxListPages bounds the pages followed; maxPageItems the
	// observations of one page (a vramplan server sends 1,000).
	maxListPages = 1000
	maxPageItems = 1000
)

// listTimeout bounds the time of the whole list (a variable for its test).
var listTimeout = 2 * time.Minute

// listedObservation is one observation as GET /api/observations lists it.
type listedObservation struct {
	ID          string          `json:"id"`
	Status      string          `json:"status"`
	Reasons     []string        `json:"reasons"`
	Observation json.RawMessage `json:"observation"`
}

// fetchObservations reads every observation of a server (of engine, when
// it is not empty), page by page, within the bounds above: a list past one
// of them is an error, not a partial list.
func fetchObservations(base, engine string) ([]listedObservation, error) {
	ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
	defer cancel()
	budget := int64(maxListBytes)
	var all []listedObservation
	for after, pages := int64(0), 0; ; pages++ {
		if pages == maxListPages {
			return nil, fmt.Errorf("%s: the list goes on past %d pages", base, maxListPages)
		}
		q := url.Values{"after": {strconv.FormatInt(after, 10)}}
		if engine != "" {
			q.Set("engine", engine)
		}
		u := strings.TrimSuffix(base, "/") + "/api/observations?" + q.Encode()
		page, next, err := fetchPage(ctx, u, &budget)
		if err != nil && ctx.Err() != nil { // the read fails as the deadline closes the connection
			err = fmt.Errorf("the list took more than %v", listTimeout)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", u, err)
		}
		all = append(all, page...)
		if next <= after {
			return all, nil
		}
		after = next
	}
}

// fetchPage reads one page of the list, taking its bytes from *budget.
func fetchPage(ctx context.Context, u string, budget *int64) ([]listedObservation, int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("%s", shown(resp.Status))
	}
	body := &io.LimitedReader{R: resp.Body, N: *budget + 1}
	page, next, err := decodePage(json.NewDecoder(body))
	*budget = body.N - 1
	if *budget < 0 {
		return nil, 0, fmt.Errorf("the list is more than %d bytes", maxListBytes)
	}
	return page, next, err
}

// decodePage reads {"observations": [...], "next": N} one observation at
// a time, so a page holds no more than its observations; other keys are
// skipped.
func decodePage(d *json.Decoder) ([]listedObservation, int64, error) {
	var page []listedObservation
	var next int64
	if err := delim(d, '{'); err != nil {
		return nil, 0, err
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, 0, err
		}
		switch tok {
		case "observations":
			if page, err = decodeItems(d); err != nil {
				return nil, 0, err
			}
		case "next":
			err = d.Decode(&next)
		default:
			err = d.Decode(&json.RawMessage{})
		}
		if err != nil {
			return nil, 0, err
		}
	}
	return page, next, delim(d, '}')
}

func decodeItems(d *json.Decoder) ([]listedObservation, error) {
	if err := delim(d, '['); err != nil {
		return nil, err
	}
	var items []listedObservation
	for d.More() {
		if len(items) == maxPageItems {
			return nil, fmt.Errorf("a page of more than %d observations", maxPageItems)
		}
		var o listedObservation
		if err := d.Decode(&o); err != nil {
			return nil, err
		}
		items = append(items, o)
	}
	return items, delim(d, ']')
}

// delim reads the next token, which must be the delimiter want.
func delim(d *json.Decoder, want json.Delim) error {
	tok, err := d.Token()
	if err == nil && tok != want {
		err = fmt.Errorf("want %v in the list, not %s", want, shown(fmt.Sprint(tok)))
	}
	return err
}

// maxShown bounds what shown prints of a server's text.
const maxShown = 200

// shown returns text a server sent as it may be printed: control and other
// non-graphic characters escaped as Go escapes them (so a terminal escape
// prints as \x1b, not as a colour or a cursor move), cut to maxShown
// bytes.
func shown(s string) string {
	cut := len(s) > maxShown
	if cut {
		s = strings.ToValidUTF8(s[:maxShown], "")
	}
	q := strconv.QuoteToGraphic(s)
	q = q[1 : len(q)-1]
	if cut {
		q += "…"
	}
	return q
}
