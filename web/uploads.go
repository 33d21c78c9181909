package web

// This file is the upload API of community calibrations: POST /api/uploads
// checks an uploaded calibration (calibrations/community) and stores it
// (web/store), DELETE /api/uploads/:id withdraws one with its deletion
// token, GET /api/uploads/:id and GET /api/uploads.jsonl publish them.

import (
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/vramplan/vramplan/calibrations/community"
	"github.com/vramplan/vramplan/web/store"
)

// UploadOptions configure the upload API. The zero value is the default.
type UploadOptions struct {
	// PerClientHour is the uploads one client (one address) may send per
	// hour, refused or not; 0 means 60.
	PerClientHour int64 `json:"per_client_hour,omitempty"`
	// DailyCap is the uploads all clients together may send per UTC day;
	// 0 means 10,000.
	DailyCap int64 `json:"daily_cap,omitempty"`
	// ClientHeader names the request header that carries the client's
	// address when a proxy stands in front (CF-Connecting-IP in a worker,
	// X-Forwarded-For behind most proxies); empty means the connection's
	// remote address. The header is read from the right, the entry the
	// proxy appended (client.go).
	ClientHeader string `json:"client_header,omitempty"`
	// TrustedProxies are the proxies whose ClientHeader entries are
	// believed: the header counts only on a connection from one of them,
	// and their own entries are passed over from the right. Empty trusts
	// the one proxy in front, and the header's rightmost entry.
	TrustedProxies []netip.Prefix `json:"trusted_proxies,omitempty"`
	// ClientKey is the key of the client-address hashes; nil keeps one in
	// the store's settings (web/store/sqlite gives one from a file beside
	// its database, and cmd/worker from a secret, so neither stores it with
	// the hashes).
	ClientKey []byte `json:"-"`
	// Now is the clock; nil means time.Now.
	Now func() time.Time `json:"-"`
}

func (o UploadOptions) withDefaults() UploadOptions {
	if o.PerClientHour <= 0 {
		o.PerClientHour = 60
	}
	if o.DailyCap <= 0 {
		o.DailyCap = 10000
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// uploadAnswer is the body of POST /api/uploads.
type uploadAnswer struct {
	ID string `json:"id,omitempty"`
	// Status is accepted, held or rejected; empty when the upload was not
	// looked at (a rate limit, a store that failed), as Error says.
	Status    string             `json:"status,omitempty"`
	Reasons   []community.Reason `json:"reasons,omitempty"`
	Group     string             `json:"group,omitempty"`
	Duplicate bool               `json:"duplicate,omitempty"`
	// Token is the deletion token, given once, to the upload that stored it.
	Token string `json:"deletion_token,omitempty"`
	URL   string `json:"url,omitempty"`
	Error string `json:"error,omitempty"`
	Field string `json:"field,omitempty"`
}

var errNoStore = errors.New("web: uploads are not enabled on this server (it has no store)")

// upload answers POST /api/uploads.
func (a *app) upload(c echo.Context) error {
	if a.deps.Store == nil {
		return jsonError(c, http.StatusServiceUnavailable, "", errNoStore)
	}
	data, status, err := readUpload(c.Request())
	if err != nil {
		return jsonError(c, status, "", err)
	}
	status, ans := a.accept(c, data)
	return c.JSON(status, ans.clipped())
}

// clipped returns the answer with its error, field and reasons clipped
// (errors.go).
func (a uploadAnswer) clipped() uploadAnswer {
	a.Error, a.Field, a.Reasons = clip(a.Error), clip(a.Field), clipReasons(a.Reasons)
	return a
}

// accept takes one uploaded document through the checks, the rate limits
// and the store, and returns the HTTP status and the answer: the API
// sends it as JSON, the calibrations page renders it. It runs in an upload
// slot (Limits.MaxUploading), or answers 503 at once. A checked upload is
// counted and stored in one store write (store.Admit), so the checks run
// before the counting; a rejected one is counted too, and an upload over a
// limit is refused with 429 whatever the checks said.
func (a *app) accept(c echo.Context, data []byte) (int, uploadAnswer) {
	if !a.lim.upload(c) {
		return http.StatusServiceUnavailable, uploadAnswer{Error: errUploading.Error()}
	}
	defer a.lim.uploaded()
	ch, err := community.Check(data)
	var rej *community.Rejection
	if errors.As(err, &rej) {
		if status, err := a.limit(c); err != nil {
			return status, uploadAnswer{Error: err.Error()}
		}
		r := rej.Reasons[0]
		return http.StatusUnprocessableEntity, uploadAnswer{Status: "rejected", Reasons: rej.Reasons, Error: err.Error(), Field: r.Field}
	}
	return a.store(c, ch)
}

// readUpload reads a JSON body of at most community.MaxSize bytes.
func readUpload(r *http.Request) ([]byte, int, error) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType)); err != nil || mt != echo.MIMEApplicationJSON {
		return nil, http.StatusUnsupportedMediaType, fmt.Errorf("Content-Type %q: an upload is application/json", r.Header.Get(echo.HeaderContentType))
	}
	tooLarge := fmt.Errorf("the body is more than %d bytes", community.MaxSize)
	if r.ContentLength > community.MaxSize {
		return nil, http.StatusRequestEntityTooLarge, tooLarge
	}
	data, err := readBody(r, community.MaxSize)
	switch {
	case err != nil:
		return nil, http.StatusBadRequest, err
	case len(data) > community.MaxSize:
		return nil, http.StatusRequestEntityTooLarge, tooLarge
	}
	return data, 0, nil
}

// readBody reads at most max+1 bytes of r's body, as
// io.ReadAll(io.LimitReader(r.Body, max+1)) does, into a buffer of the
// size the request declares: io.ReadAll's buffer grew from 512 bytes, and
// its copies were a tenth of an upload's garbage.
func readBody(r *http.Request, max int64) ([]byte, error) {
	size := int64(512)
	if r.ContentLength >= 0 && r.ContentLength <= max {
		size = r.ContentLength + 1 // the byte more that finds the end
	}
	body, b := io.LimitedReader{R: r.Body, N: max + 1}, make([]byte, 0, size)
	for {
		n, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // as io.ReadAll grows
		}
	}
}

// store stores a checked upload, held when it departs from its card's
// prior or contradicts its group.
func (a *app) store(c echo.Context, ch community.Checked) (int, uploadAnswer) {
	ctx := c.Request().Context()
	key := ch.Group.String()
	u := store.Upload{ID: ch.ID, Digest: ch.Digest, Group: key, Status: store.StatusAccepted,
		Created: a.opts.Now().UTC(), Client: a.clientHash(c.Request()), Figures: ch.Figures, Document: ch.Document}
	if why := ch.Held(); why != nil {
		u.Status, u.Reasons = store.StatusHeld, why
	} else if s, ok := a.summaryOf(c, key); ok {
		if why := s.Held(ch.Figures); why != nil {
			u.Status, u.Reasons = store.StatusHeld, why
		}
	}
	token, hash := newToken()
	u.TokenHash = hash
	ls := a.limits(u.Client)
	adm, err := store.Admit(ctx, a.deps.Store, ls.list[:], &u)
	if status, err := a.admitted(c, &ls, adm, err); err != nil {
		return status, uploadAnswer{Error: err.Error()}
	}
	got, created := adm.Upload, adm.Created
	ans := uploadAnswer{ID: got.ID, Status: string(got.Status), Group: got.Group, URL: "/api/uploads/" + got.ID}
	for _, r := range got.Reasons {
		ans.Reasons = append(ans.Reasons, community.Reason{Msg: r})
	}
	if !created {
		ans.Duplicate = true
		return http.StatusOK, ans
	}
	ans.Token = token
	return http.StatusCreated, ans
}

// newToken returns a deletion token and the hash the store keeps of it.
func newToken() (token, hash string) {
	var b [18]byte
	rand.Read(b[:]) // crypto/rand.Read never fails
	token = base64.RawURLEncoding.EncodeToString(b[:])
	return token, tokenHash(token)
}

func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// publicUpload is an upload as the API publishes it: no client hash, no
// token hash.
type publicUpload struct {
	ID          string          `json:"id"`
	Seq         int64           `json:"seq"`
	Group       string          `json:"group"`
	Status      store.Status    `json:"status"`
	Reasons     []string        `json:"reasons,omitempty"`
	Created     time.Time       `json:"created"`
	Digest      string          `json:"digest"`
	Calibration json.RawMessage `json:"calibration"`
}

func public(u *store.Upload) publicUpload {
	return publicUpload{ID: u.ID, Seq: u.Seq, Group: u.Group, Status: u.Status, Reasons: u.Reasons,
		Created: u.Created, Digest: u.Digest, Calibration: json.RawMessage(u.Document)}
}

// getUpload answers GET /api/uploads/:id.
func (a *app) getUpload(c echo.Context) error {
	if a.deps.Store == nil {
		return jsonError(c, http.StatusServiceUnavailable, "", errNoStore)
	}
	u, err := a.deps.Store.Get(c.Request().Context(), c.Param("id"))
	if errors.Is(err, store.ErrNotFound) {
		return jsonError(c, http.StatusNotFound, "", fmt.Errorf("no upload %q", c.Param("id")))
	} else if err != nil {
		return jsonError(c, http.StatusServiceUnavailable, "", err)
	}
	return c.JSON(http.StatusOK, public(&u))
}

// exportPage is the uploads an export reads from the store at a time: what
// one export holds in memory, whatever the store's size (~150 KB of
// uploads as gpuagent calibrate writes them, 6.4 MiB at most).
const exportPage = 100

// exportUploads answers GET /api/uploads.jsonl: every accepted upload (or
// ?status=held; any other status is refused), one JSON object a line, in the order they were stored,
// from ?after=SEQ on, at most ?limit=N of them. It streams: the uploads are
// read exportPage at a time, each page a read of its own from the last
// sequence number sent, and written as they are read.
func (a *app) exportUploads(c echo.Context) error {
	if a.deps.Store == nil {
		return jsonError(c, http.StatusServiceUnavailable, "", errNoStore)
	}
	q := store.Query{Status: store.Status(cmp.Or(c.QueryParam("status"), string(store.StatusAccepted)))}
	if q.Status != store.StatusAccepted && q.Status != store.StatusHeld {
		return jsonError(c, http.StatusBadRequest, "status", fmt.Errorf("status=%.40q: want accepted or held", q.Status))
	}
	var err error
	if q.After, err = intParam(c, "after", 0, 0); err != nil {
		return jsonError(c, http.StatusBadRequest, "after", err)
	}
	left, err := intParam(c, "limit", math.MaxInt64, 1)
	if err != nil {
		return jsonError(c, http.StatusBadRequest, "limit", err)
	}
	ctx := c.Request().Context()
	q.Limit = int(min(left, exportPage))
	page, err := a.deps.Store.Uploads(ctx, q)
	if err != nil {
		return jsonError(c, http.StatusServiceUnavailable, "", err)
	}
	w := c.Response()
	w.Header().Set(echo.HeaderContentType, "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	for len(page) > 0 {
		for i := range page {
			if err := enc.Encode(public(&page[i])); err != nil {
				return nil // the client left
			}
		}
		if left -= int64(len(page)); len(page) < q.Limit || left == 0 {
			return nil
		}
		q.After, q.Limit = page[len(page)-1].Seq, int(min(left, exportPage))
		page = nil // sent: let its uploads go before the next page is read
		if page, err = a.deps.Store.Uploads(ctx, q); err != nil {
			return nil // the status is sent; the stream ends short
		}
	}
	return nil
}

// intParam reads the query parameter name as a whole number of at least
// lo; absent is absent.
func intParam(c echo.Context, name string, absent, lo int64) (int64, error) {
	s := c.QueryParam(name)
	if s == "" {
		return absent, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < lo {
		return 0, fmt.Errorf("%s=%q: want a whole number from %d", name, s, lo)
	}
	return n, nil
}
